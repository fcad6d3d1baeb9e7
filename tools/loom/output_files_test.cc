#include "output_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "io/npy.h"
#include "loom/errors.h"

namespace loom::cli {
namespace {

namespace fs = std::filesystem;

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("loom-output-files-" + std::to_string(getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST(SafeFileStem, KeepsPlainNamesAndNeutralizesPaths) {
  EXPECT_EQ(SafeFileStem("probabilities"), "probabilities");
  EXPECT_EQ(SafeFileStem("output.1_a-b"), "output.1_a-b");
  EXPECT_EQ(SafeFileStem("../../etc/passwd"), ".._.._etc_passwd");
  EXPECT_EQ(SafeFileStem("/abs"), "_abs");
  EXPECT_EQ(SafeFileStem("a b:c"), "a_b_c");
  EXPECT_EQ(SafeFileStem(".."), "_..");
  EXPECT_EQ(SafeFileStem("."), "_.");
  EXPECT_EQ(SafeFileStem(""), "_");
  EXPECT_EQ(SafeFileStem("-rf"), "_-rf");
}

TEST_F(TempDir, WritesOneNpyPerOutputInANewFolder) {
  const Tensor a = Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4});
  const Tensor b = Tensor::from_vector<int64_t>({3}, {7, 8, 9});
  const fs::path nested = dir_ / "deeper";
  const std::vector<std::string> paths = SaveOutputs(nested.string(), {"logits", "idx/0"}, {a, b});
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0], (nested / "logits.npy").string());
  EXPECT_EQ(paths[1], (nested / "idx_0.npy").string());
  const Tensor a2 = io::ReadNpy(paths[0]);
  ASSERT_EQ(a2.shape(), a.shape());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(a2.data<float>()[i], a.data<float>()[i]);
  const Tensor b2 = io::ReadNpy(paths[1]);
  ASSERT_EQ(b2.dtype(), DType::kInt64);
  EXPECT_EQ(b2.data<int64_t>()[2], 9);
}

TEST_F(TempDir, NamesThatCollideAfterSanitizingAreRejected) {
  const Tensor t(DType::kFloat32, Shape({1}));
  EXPECT_THROW(SaveOutputs(dir_.string(), {"a/b", "a:b"}, {t, t}), InvalidArgumentError);
  EXPECT_FALSE(fs::exists(dir_)) << "nothing is written when the names clash";
}

TEST_F(TempDir, AFileInTheWayIsARuntimeError) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "taken") << "x";
  const Tensor t(DType::kFloat32, Shape({1}));
  EXPECT_THROW(SaveOutputs((dir_ / "taken").string(), {"y"}, {t}), RuntimeError);
}

TEST_F(TempDir, CheckWritableAcceptsNewAndExistingFilesAndNamesThePathOtherwise) {
  fs::create_directories(dir_);
  EXPECT_NO_THROW(CheckWritable((dir_ / "new.json").string()));
  EXPECT_FALSE(fs::exists(dir_ / "new.json")) << "the check creates nothing";
  std::ofstream(dir_ / "old.json") << "x";
  EXPECT_NO_THROW(CheckWritable((dir_ / "old.json").string()));
  for (const fs::path& bad : {dir_ / "no" / "folder.json", dir_}) {
    try {
      CheckWritable(bad.string());
      FAIL() << bad;
    } catch (const RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find(bad.string()), std::string::npos) << e.what();
    }
  }
}

TEST_F(TempDir, WriteTextFileWritesAllOrThrowsNamingThePath) {
  fs::create_directories(dir_);
  WriteTextFile((dir_ / "a.txt").string(), "hello\n");
  std::ifstream in(dir_ / "a.txt");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "hello");
  EXPECT_THROW(WriteTextFile((dir_ / "no" / "a.txt").string(), "x"), RuntimeError);
  if (fs::exists("/dev/full")) {
    // A full disk shows only when the buffer is flushed: still an error.
    try {
      WriteTextFile("/dev/full", std::string(100, 'x'));
      FAIL() << "no error writing to /dev/full";
    } catch (const RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace loom::cli
