// Runs every saved input of one fuzz target (fuzz/corpus/<target>/, the
// crashes and slow inputs found once among them) through its
// LLVMFuzzerTestOneInput, so what was fixed stays fixed: part of the normal
// test suite (ctest), in every build, sanitizer builds included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

TEST(FuzzReplay, EverySavedInput) {
  const std::filesystem::path corpus = LOOM_FUZZ_CORPUS;
  ASSERT_TRUE(std::filesystem::is_directory(corpus)) << corpus;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << "no inputs in " << corpus;
  int argc = 0;
  char** argv = nullptr;
  LLVMFuzzerInitialize(&argc, &argv);
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
              0);
  }
  RecordProperty("inputs", static_cast<int>(files.size()));
}

}  // namespace
