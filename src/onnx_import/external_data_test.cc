// External data: a valid file loads and runs; every way out of the model's
// folder, and every out-of-range offset or length, is a clear error.
#include "onnx_import/external_data.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "loom/errors.h"
#include "loom/onnx.h"
#include "loom/session.h"
#include "onnx_import/testing/test_model.h"

namespace loom::onnx_import::testing {
namespace {

namespace fs = std::filesystem;
constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

class ExternalDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = ::testing::TempDir() + "/loom_external_data_" + std::to_string(getpid());
    fs::remove_all(root_);
    dir_ = root_ + "/model";
    fs::create_directories(dir_ + "/weights");
    // weights/w.bin: 8 bytes of padding, then the floats 1, 2, 3, 4.
    const float values[4] = {1, 2, 3, 4};
    std::ofstream file(dir_ + "/weights/w.bin", std::ios::binary);
    file << std::string(8, 'p');
    file.write(reinterpret_cast<const char*>(values), sizeof(values));
    // A file outside the model's folder.
    std::ofstream(root_ + "/secret.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(values), sizeof(values));
  }
  void TearDown() override { fs::remove_all(root_); }

  // y = x * w, with w[4] stored externally under `entries`.
  std::string Model(const std::vector<std::pair<std::string, std::string>>& entries) {
    TestModel m;
    m.Input("x", kFloat, {4});
    onnx::TensorProto* w = m.graph().add_initializer();
    w->set_name("w");
    w->set_data_type(kFloat);
    w->add_dims(4);
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [key, value] : entries) {
      onnx::StringStringEntryProto* entry = w->add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    }
    m.Node("Mul", {"x", "w"}, {"y"});
    m.Output("y", kFloat, {4});
    return m.Serialize();
  }

  std::string ErrorOf(const std::string& bytes) {
    try {
      load_onnx_model_from_bytes(bytes, dir_, "m.onnx");
    } catch (const InvalidArgumentError& e) {
      return e.what();
    }
    return "";
  }

  std::string root_;
  std::string dir_;
};

TEST_F(ExternalDataTest, ValidFileLoadsAndRuns) {
  const std::string bytes =
      Model({{"location", "weights/w.bin"}, {"offset", "8"}, {"length", "16"}});
  Session session(load_onnx_model_from_bytes(bytes, dir_, "m.onnx"));
  const std::vector<Tensor> out =
      session.run({{"x", Tensor::from_vector<float>({4}, {1, 1, 2, -1})}});
  EXPECT_EQ(Values(out[0]), (std::vector<float>{1, 2, 6, -4}));
}

TEST_F(ExternalDataTest, LengthDefaultsToTheRestOfTheFile) {
  EXPECT_EQ(ErrorOf(Model({{"location", "./weights/w.bin"}, {"offset", "8"}})), "");
}

TEST_F(ExternalDataTest, ModelFileOnDiskFindsItsFolder) {
  std::ofstream(dir_ + "/model.onnx", std::ios::binary)
      << Model({{"location", "weights/w.bin"}, {"offset", "8"}});
  EXPECT_NO_THROW(load_onnx_model(dir_ + "/model.onnx"));
}

TEST_F(ExternalDataTest, AbsolutePathIsRefused) {
  const std::string error = ErrorOf(Model({{"location", root_ + "/secret.bin"}}));
  EXPECT_EQ(error.rfind("m.onnx: initializer 'w': external data", 0), 0u) << error;
  EXPECT_NE(error.find("absolute path"), std::string::npos) << error;
}

TEST_F(ExternalDataTest, DotDotIsRefused) {
  for (const std::string location : {"../secret.bin", "weights/../../secret.bin", "weights/.."}) {
    const std::string error = ErrorOf(Model({{"location", location}}));
    EXPECT_NE(error.find("contains '..'"), std::string::npos) << location << ": " << error;
  }
}

TEST_F(ExternalDataTest, SymlinkLeavingTheFolderIsRefused) {
  fs::create_symlink(root_ + "/secret.bin", dir_ + "/link.bin");
  const std::string error = ErrorOf(Model({{"location", "link.bin"}}));
  EXPECT_NE(error.find("outside the model's folder"), std::string::npos) << error;
  // A link to a folder outside, then a file inside it.
  fs::create_symlink(root_, dir_ + "/up");
  EXPECT_NE(ErrorOf(Model({{"location", "up/secret.bin"}})).find("outside the model's folder"),
            std::string::npos);
}

TEST_F(ExternalDataTest, SymlinkInsideTheFolderIsAllowed) {
  fs::create_symlink(dir_ + "/weights/w.bin", dir_ + "/alias.bin");
  EXPECT_EQ(ErrorOf(Model({{"location", "alias.bin"}, {"offset", "8"}})), "");
}

TEST_F(ExternalDataTest, OffsetAndLengthOutOfRangeAreRefused) {
  EXPECT_NE(ErrorOf(Model({{"location", "weights/w.bin"}, {"offset", "25"}})).find("past the end"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Model({{"location", "weights/w.bin"}, {"offset", "8"}, {"length", "17"}}))
                .find("runs past the end"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Model({{"location", "weights/w.bin"}, {"offset", "16"}, {"length", "8"}}))
                .find("holds 8 bytes"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Model({{"location", "weights/w.bin"}, {"offset", "-1"}})).find("non-negative"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Model({{"location", "weights/w.bin"}, {"offset", "8x"}})).find("non-negative"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Model({{"location", "weights/w.bin"},
                           {"offset", "9223372036854775807"},
                           {"length", "9223372036854775807"}})),
            "");
}

TEST_F(ExternalDataTest, MissingFileAndBadEntriesAreRefused) {
  EXPECT_NE(ErrorOf(Model({{"location", "nothing.bin"}})).find("cannot be opened"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Model({{"offset", "0"}})).find("no 'location'"), std::string::npos);
  EXPECT_NE(ErrorOf(Model({{"location", ""}})).find("empty"), std::string::npos);
  EXPECT_NE(ErrorOf(Model({{"location", "weights/w.bin"}, {"location", "weights/w.bin"}}))
                .find("given twice"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Model({{"location", "weights"}})).find("not a regular file"),
            std::string::npos);
}

TEST_F(ExternalDataTest, FifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(mkfifo((dir_ + "/pipe").c_str(), 0600), 0);
  EXPECT_NE(ErrorOf(Model({{"location", "pipe"}})).find("not a regular file"), std::string::npos);
}

TEST_F(ExternalDataTest, ModelFromMemoryHasNoFolder) {
  try {
    load_onnx_model_from_bytes(Model({{"location", "weights/w.bin"}}));
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("no folder"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace loom::onnx_import::testing
