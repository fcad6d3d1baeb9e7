# String tensors (strings/string_ops.h): StringConcat, StringSplit,
# StringNormalizer, RegexFullMatch (RE2, Debian's libre2-dev), Cast to and
# from text, and the code mapping that lets data-movement kernels, Equal and
# Unique take strings; TfIdfVectorizer (strings/tfidf_vectorizer.h).
find_package(PkgConfig REQUIRED)
pkg_check_modules(LOOM_RE2 REQUIRED IMPORTED_TARGET GLOBAL re2)
add_library(loom_kernels_strings STATIC
  strings/string_ops.cc
  strings/tfidf_vectorizer.cc
)
target_link_libraries(loom_kernels_strings PUBLIC loom_kernels_core PRIVATE PkgConfig::LOOM_RE2 loom_warnings)

loom_add_test(NAME loom_kernels_strings_test
  SOURCES strings/string_ops_test.cc strings/tfidf_vectorizer_test.cc
  LIBS loom_kernels loom_kernel_test_util LABELS kernels)
