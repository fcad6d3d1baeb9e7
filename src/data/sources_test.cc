// Sources: range, tensor slices, tensors, generators and files, each
// compared with values written out by hand.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "data/testing/data_test_util.h"

namespace loom::data {
namespace {

using testing::BytesOf;
using testing::Contains;
using testing::Drain;
using testing::MessageOf;

TEST(Range, StartStopStep) {
  EXPECT_EQ(Drain(Dataset::range(5)), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Drain(Dataset::range(2, 11, 3)), (std::vector<int64_t>{2, 5, 8}));
  EXPECT_EQ(Drain(Dataset::range(-3, 1)), (std::vector<int64_t>{-3, -2, -1, 0}));
}

TEST(Range, NegativeStepCountsDown) {
  EXPECT_EQ(Drain(Dataset::range(10, 0, -3)), (std::vector<int64_t>{10, 7, 4, 1}));
  EXPECT_EQ(Drain(Dataset::range(2, -2, -1)), (std::vector<int64_t>{2, 1, 0, -1}));
}

TEST(Range, EmptyWhenStartIsPastStop) {
  EXPECT_TRUE(Drain(Dataset::range(0)).empty());
  EXPECT_TRUE(Drain(Dataset::range(5, 5)).empty());
  EXPECT_TRUE(Drain(Dataset::range(7, 3)).empty());
  EXPECT_TRUE(Drain(Dataset::range(0, 5, -1)).empty());
}

TEST(Range, StopsInsteadOfOverflowing) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Drain(Dataset::range(kMax - 2, kMax, 5)), (std::vector<int64_t>{kMax - 2}));
  EXPECT_EQ(Drain(Dataset::range(kMin + 1, kMin, -4)), (std::vector<int64_t>{kMin + 1}));
}

TEST(Range, StepZeroIsRefused) { EXPECT_THROW(Dataset::range(0, 10, 0), InvalidArgumentError); }

TEST(FromTensorSlices, SlicesEveryComponentAlongTheFirstAxis) {
  Tensor floats = Tensor::from_vector<float>(Shape({3, 2}), {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f});
  Tensor ints = Tensor::from_vector<int32_t>(Shape({3}), {7, -8, 9});
  Tensor bytes = Tensor::from_vector<uint8_t>(Shape({3, 1, 2}), {1, 2, 3, 4, 5, 255});
  Iterator it = Dataset::from_tensor_slices({floats, ints, bytes}).make_iterator();
  const std::vector<std::vector<float>> want_floats = {{0.5f, 1.5f}, {2.5f, 3.5f}, {4.5f, 5.5f}};
  const std::vector<int32_t> want_ints = {7, -8, 9};
  const std::vector<std::vector<uint8_t>> want_bytes = {{1, 2}, {3, 4}, {5, 255}};
  for (size_t row = 0; row < 3; ++row) {
    std::optional<Element> e = it.next();
    ASSERT_TRUE(e.has_value()) << "row " << row;
    ASSERT_EQ(e->size(), 3u);
    EXPECT_EQ((*e)[0].shape(), Shape({2}));
    EXPECT_EQ((*e)[0].data<float>()[0], want_floats[row][0]);
    EXPECT_EQ((*e)[0].data<float>()[1], want_floats[row][1]);
    EXPECT_EQ((*e)[1].shape(), Shape());
    EXPECT_EQ(*(*e)[1].data<int32_t>(), want_ints[row]);
    EXPECT_EQ((*e)[2].shape(), Shape({1, 2}));
    EXPECT_EQ((*e)[2].data<uint8_t>()[0], want_bytes[row][0]);
    EXPECT_EQ((*e)[2].data<uint8_t>()[1], want_bytes[row][1]);
  }
  EXPECT_FALSE(it.next().has_value());
}

TEST(FromTensorSlices, MismatchedFirstDimensionsAreRefused) {
  Tensor a(DType::kFloat32, Shape({3, 2}));
  Tensor b(DType::kInt64, Shape({4}));
  const std::string message = MessageOf([&] { Dataset::from_tensor_slices({a, b}); });
  EXPECT_TRUE(Contains(message, "component 1")) << message;
  EXPECT_THROW(Dataset::from_tensor_slices({a, b}), InvalidArgumentError);
}

TEST(FromTensorSlices, ScalarOrNothingIsRefused) {
  Tensor scalar = Tensor::from_vector<int64_t>(Shape(), {1});
  EXPECT_THROW(Dataset::from_tensor_slices({scalar}), InvalidArgumentError);
  Tensor rows(DType::kInt64, Shape({2}));
  EXPECT_THROW(Dataset::from_tensor_slices({rows, scalar}), InvalidArgumentError);
  EXPECT_THROW(Dataset::from_tensor_slices({}), InvalidArgumentError);
}

TEST(FromTensors, YieldsOneCopyThatWritesCannotReachTheNextEpoch) {
  Tensor original = Tensor::from_vector<int32_t>(Shape({2}), {4, 5});
  Iterator it = Dataset::from_tensors({original}).repeat(2).make_iterator();
  std::optional<Element> first = it.next();
  ASSERT_TRUE(first.has_value());
  EXPECT_FALSE((*first)[0].shares_storage_with(original));
  (*first)[0].data<int32_t>()[0] = 99;  // the consumer scribbles on it
  std::optional<Element> second = it.next();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ((*second)[0].data<int32_t>()[0], 4);
  EXPECT_EQ((*second)[0].data<int32_t>()[1], 5);
  EXPECT_EQ(original.data<int32_t>()[0], 4);
  EXPECT_FALSE(it.next().has_value());
}

// A generator of 0, 1, ... count-1 that counts how often it was made.
Dataset CountingGenerator(int64_t count, std::atomic<int>* made) {
  return Dataset::from_generator([count, made]() -> Dataset::Generator {
    made->fetch_add(1);
    auto next = std::make_shared<int64_t>(0);
    return [count, next]() -> std::optional<Element> {
      if (*next >= count) return std::nullopt;
      return testing::Scalar((*next)++);
    };
  });
}

TEST(FromGenerator, EachIteratorGetsAFreshGenerator) {
  std::atomic<int> made{0};
  Dataset ds = CountingGenerator(4, &made);
  EXPECT_EQ(made.load(), 0);  // nothing runs before an iterator asks
  EXPECT_EQ(Drain(ds), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(Drain(ds), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(made.load(), 2);
}

TEST(FromGenerator, ThrowingGeneratorGivesPipelineErrorThenTheEnd) {
  Dataset ds = Dataset::from_generator([]() -> Dataset::Generator {
    auto next = std::make_shared<int64_t>(0);
    return [next]() -> std::optional<Element> {
      if (*next == 2) throw std::out_of_range("generator broke");
      return testing::Scalar((*next)++);
    };
  });
  Iterator it = ds.make_iterator();
  EXPECT_EQ(testing::ScalarOf(*it.next()), 0);
  EXPECT_EQ(testing::ScalarOf(*it.next()), 1);
  try {
    it.next();
    FAIL() << "expected a PipelineError";
  } catch (const PipelineError& e) {
    EXPECT_EQ(e.stage(), "from_generator#0");
    EXPECT_EQ(e.element(), 2);
    EXPECT_TRUE(Contains(e.what(), "generator broke")) << e.what();
    EXPECT_THROW(std::rethrow_exception(e.cause()), std::out_of_range);
  }
  EXPECT_FALSE(it.next().has_value());  // a failed generator is finished
  EXPECT_FALSE(it.next().has_value());
}

// A private directory for the file sources, removed afterwards.
class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "loom_data_files_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  std::string dir_;
};

TEST_F(FilesTest, ReadFilesGivesExactBytesAndAMissingFileFailsOnlyItsElement) {
  const std::string binary("\x00\x01\xff\r\n\x7f", 6);
  const std::string a = Write("a.bin", binary);
  const std::string empty = Write("empty.bin", "");
  const std::string missing = dir_ + "/no_such_file.bin";
  Iterator it = Dataset::read_files({a, missing, empty}).make_iterator();
  EXPECT_EQ(BytesOf(*it.next()), binary);
  try {
    it.next();
    FAIL() << "expected a PipelineError for the missing file";
  } catch (const PipelineError& e) {
    EXPECT_EQ(e.stage(), "read_files#0");
    EXPECT_EQ(e.element(), 1);
    EXPECT_TRUE(Contains(e.what(), missing)) << e.what();
  }
  std::optional<Element> last = it.next();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ((*last)[0].shape(), Shape({0}));
  EXPECT_FALSE(it.next().has_value());
}

TEST_F(FilesTest, ReadLinesStripsLineEndingsAndKeepsEmptyLines) {
  const std::string one = Write("one.txt", "alpha\r\nbeta\n\ngamma");  // no final newline
  const std::string two = Write("two.txt", "x y\n");
  std::vector<std::string> lines;
  Iterator it = Dataset::read_lines({one, two}).make_iterator();
  while (std::optional<Element> e = it.next()) lines.push_back(BytesOf(*e));
  EXPECT_EQ(lines, (std::vector<std::string>{"alpha", "beta", "", "gamma", "x y"}));
}

TEST_F(FilesTest, ReadLinesReportsAMissingFileThenReadsTheOthers) {
  const std::string one = Write("one.txt", "a\nb\n");
  const std::string missing = dir_ + "/gone.txt";
  const std::string two = Write("two.txt", "c\n");
  Iterator it = Dataset::read_lines({one, missing, two}).make_iterator();
  EXPECT_EQ(BytesOf(*it.next()), "a");
  EXPECT_EQ(BytesOf(*it.next()), "b");
  try {
    it.next();
    FAIL() << "expected a PipelineError for the missing file";
  } catch (const PipelineError& e) {
    EXPECT_EQ(e.stage(), "read_lines#0");
    EXPECT_EQ(e.element(), 2);  // it takes the place of the lines after "b"
    EXPECT_TRUE(Contains(e.what(), missing)) << e.what();
  }
  EXPECT_EQ(BytesOf(*it.next()), "c");
  EXPECT_FALSE(it.next().has_value());
}

TEST_F(FilesTest, ListFilesIsSortedAndMatchesOnlyThePattern) {
  for (const char* name : {"c.txt", "a.txt", "b.txt", "d.bin"}) Write(name, "x");
  EXPECT_EQ(Dataset::list_files(dir_ + "/*.txt"),
            (std::vector<std::string>{dir_ + "/a.txt", dir_ + "/b.txt", dir_ + "/c.txt"}));
}

TEST_F(FilesTest, ListFilesWithoutMatchIsInvalidArgument) {
  const std::string pattern = dir_ + "/*.nothing";
  EXPECT_THROW(Dataset::list_files(pattern), InvalidArgumentError);
  EXPECT_TRUE(Contains(MessageOf([&] { Dataset::list_files(pattern); }), pattern));
}

}  // namespace
}  // namespace loom::data
