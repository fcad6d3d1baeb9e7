// Sources: the first stage of every pipeline. They run on whichever thread
// pulls from them (the consumer, or a data-pool worker of a stage below).
#include <cstring>
#include <fstream>

#include "data/nodes.h"

namespace loom::data::internal {
namespace {

Tensor Int64Scalar(int64_t value) { return Tensor::from_vector<int64_t>(Shape(), {value}); }

Tensor BytesTensor(const std::string& bytes) {
  Tensor t = Tensor::uninitialized(DType::kUInt8, Shape({static_cast<int64_t>(bytes.size())}));
  if (!bytes.empty()) std::memcpy(t.raw_data(), bytes.data(), bytes.size());
  return t;
}

// read_files and read_lines: 1-D uint8 of any length.
Spec BytesSpec() { return std::vector<ComponentSpec>{{DType::kUInt8, {-1}}}; }

class RangeNode final : public DatasetNode {
 public:
  RangeNode(int64_t start, int64_t stop, int64_t step)
      : DatasetNode(nullptr, "range"), start_(start), stop_(stop), step_(step) {}

  int64_t Cardinality() const override {
    if ((step_ > 0 && start_ >= stop_) || (step_ < 0 && start_ <= stop_)) return 0;
    // In unsigned arithmetic: stop - start may not fit in int64.
    const uint64_t span = step_ > 0 ? static_cast<uint64_t>(stop_) - static_cast<uint64_t>(start_)
                                    : static_cast<uint64_t>(start_) - static_cast<uint64_t>(stop_);
    const uint64_t step =
        step_ > 0 ? static_cast<uint64_t>(step_) : 0 - static_cast<uint64_t>(step_);
    return static_cast<int64_t>((span - 1) / step + 1);
  }
  Spec ElementSpec(const Options*) const override {
    return std::vector<ComponentSpec>{{DType::kInt64, {}}};
  }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext&) const override {
    class It final : public IteratorNode {
     public:
      explicit It(const RangeNode& node) : node_(node), next_(node.start_) {}
      std::optional<Element> GetNext() override {
        const bool more = node_.step_ > 0 ? next_ < node_.stop_ : next_ > node_.stop_;
        if (!more) return std::nullopt;
        const int64_t value = next_;
        // Stop instead of overflowing past INT64_MAX / INT64_MIN.
        if (__builtin_add_overflow(next_, node_.step_, &next_)) next_ = node_.stop_;
        return Element{Int64Scalar(value)};
      }

     private:
      const RangeNode& node_;
      int64_t next_;
    };
    return std::make_unique<It>(*this);
  }

 private:
  int64_t start_, stop_, step_;
};

class TensorSlicesNode final : public DatasetNode {
 public:
  explicit TensorSlicesNode(Element components)
      : DatasetNode(nullptr, "from_tensor_slices"), components_(std::move(components)) {}

  int64_t Cardinality() const override { return components_.front().shape().dim(0); }
  Spec ElementSpec(const Options*) const override {
    std::vector<ComponentSpec> spec = SpecOf(components_);
    for (ComponentSpec& c : spec) c.shape.erase(c.shape.begin());
    return spec;
  }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext&) const override {
    class It final : public IteratorNode {
     public:
      explicit It(const TensorSlicesNode& node) : node_(node) {}
      std::optional<Element> GetNext() override {
        const Element& all = node_.components_;
        if (next_ >= all.front().shape().dim(0)) return std::nullopt;
        Element slice;
        for (const Tensor& t : all) {
          std::vector<int64_t> dims(t.shape().dims().begin() + 1, t.shape().dims().end());
          Tensor row = Tensor::uninitialized(t.dtype(), Shape(std::move(dims)));
          const size_t bytes = row.nbytes();
          if (bytes > 0) {
            std::memcpy(row.raw_data(), static_cast<const std::byte*>(t.raw_data()) + next_ * bytes,
                        bytes);
          }
          slice.push_back(std::move(row));
        }
        ++next_;
        return slice;
      }

     private:
      const TensorSlicesNode& node_;
      int64_t next_ = 0;
    };
    return std::make_unique<It>(*this);
  }

 private:
  Element components_;
};

class TensorsNode final : public DatasetNode {
 public:
  explicit TensorsNode(Element components)
      : DatasetNode(nullptr, "from_tensors"), components_(std::move(components)) {}

  int64_t Cardinality() const override { return 1; }
  Spec ElementSpec(const Options*) const override { return SpecOf(components_); }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext&) const override {
    class It final : public IteratorNode {
     public:
      explicit It(const TensorsNode& node) : node_(node) {}
      std::optional<Element> GetNext() override {
        if (done_) return std::nullopt;
        done_ = true;
        // A copy: the consumer may write into what it receives, and the
        // next iteration must still see the original.
        Element copy;
        for (const Tensor& t : node_.components_) copy.push_back(t.clone());
        return copy;
      }

     private:
      const TensorsNode& node_;
      bool done_ = false;
    };
    return std::make_unique<It>(*this);
  }

 private:
  Element components_;
};

class GeneratorNode final : public DatasetNode {
 public:
  explicit GeneratorNode(std::function<Dataset::Generator()> make)
      : DatasetNode(nullptr, "from_generator"), make_(std::move(make)) {}

  int64_t Cardinality() const override { return kUnknownCardinality; }
  Spec ElementSpec(const Options* options) const override { return SpecOfFirstElement(options); }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    class It final : public IteratorNode {
     public:
      It(const GeneratorNode& node, PipelineContext& context) : node_(node), context_(context) {}
      std::optional<Element> GetNext() override {
        if (done_) return std::nullopt;
        try {
          if (!generator_) generator_ = context_.CallUser([&] { return node_.make_(); });
          std::optional<Element> element = context_.CallUser([&] { return generator_(); });
          if (!element) {
            done_ = true;
            generator_ = nullptr;  // frees what it holds now, not at teardown
            return std::nullopt;
          }
          ++index_;
          return element;
        } catch (...) {
          // A generator that failed cannot be resumed (a Python generator
          // is finished once it raises): deliver the error, then the end.
          done_ = true;
          generator_ = nullptr;
          RethrowAsPipelineError(node_.name(), index_, std::current_exception());
        }
      }

     private:
      const GeneratorNode& node_;
      PipelineContext& context_;
      Dataset::Generator generator_;
      int64_t index_ = 0;
      bool done_ = false;
    };
    return std::make_unique<It>(*this, context);
  }

 private:
  std::function<Dataset::Generator()> make_;
};

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw InvalidArgumentError("cannot open file '" + path + "': " + std::strerror(errno));
  const std::streamoff size = in.tellg();
  if (size < 0 || size > kMaxTensorBytes) {
    throw InvalidArgumentError("file '" + path + "' is not a readable regular file of at most " +
                               std::to_string(kMaxTensorBytes) + " bytes");
  }
  std::string bytes(static_cast<size_t>(size), '\0');
  in.seekg(0);
  if (size > 0 && !in.read(bytes.data(), size)) {
    throw InvalidArgumentError("error reading file '" + path + "'");
  }
  return bytes;
}

class FilesNode final : public DatasetNode {
 public:
  explicit FilesNode(std::vector<std::string> paths)
      : DatasetNode(nullptr, "read_files"), paths_(std::move(paths)) {}

  int64_t Cardinality() const override { return static_cast<int64_t>(paths_.size()); }
  Spec ElementSpec(const Options*) const override { return BytesSpec(); }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext&) const override {
    class It final : public IteratorNode {
     public:
      explicit It(const FilesNode& node) : node_(node) {}
      std::optional<Element> GetNext() override {
        if (next_ >= node_.paths_.size()) return std::nullopt;
        const size_t index = next_++;
        try {
          return Element{BytesTensor(ReadWholeFile(node_.paths_[index]))};
        } catch (...) {
          RethrowAsPipelineError(node_.name(), static_cast<int64_t>(index),
                                 std::current_exception());
        }
      }

     private:
      const FilesNode& node_;
      size_t next_ = 0;
    };
    return std::make_unique<It>(*this);
  }

 private:
  std::vector<std::string> paths_;
};

class LinesNode final : public DatasetNode {
 public:
  explicit LinesNode(std::vector<std::string> paths)
      : DatasetNode(nullptr, "read_lines"), paths_(std::move(paths)) {}

  int64_t Cardinality() const override { return kUnknownCardinality; }
  Spec ElementSpec(const Options*) const override { return BytesSpec(); }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext&) const override {
    class It final : public IteratorNode {
     public:
      explicit It(const LinesNode& node) : node_(node) {}
      std::optional<Element> GetNext() override {
        while (true) {
          if (!file_.is_open()) {
            if (next_file_ >= node_.paths_.size()) return std::nullopt;
            const std::string& path = node_.paths_[next_file_++];
            file_.open(path, std::ios::binary);
            if (!file_) {
              file_ = std::ifstream();
              // The failed file takes the place of its lines.
              RethrowAsPipelineError(
                  node_.name(), lines_,
                  std::make_exception_ptr(InvalidArgumentError("cannot open file '" + path +
                                                               "': " + std::strerror(errno))));
            }
          }
          std::string line;
          if (std::getline(file_, line)) {
            if (!line.empty() && line.back() == '\r') line.pop_back();
            ++lines_;
            return Element{BytesTensor(line)};
          }
          file_.close();
        }
      }

     private:
      const LinesNode& node_;
      size_t next_file_ = 0;
      int64_t lines_ = 0;
      std::ifstream file_;
    };
    return std::make_unique<It>(*this);
  }

 private:
  std::vector<std::string> paths_;
};

}  // namespace

NodePtr MakeRangeNode(int64_t start, int64_t stop, int64_t step) {
  return std::make_shared<RangeNode>(start, stop, step);
}
NodePtr MakeTensorSlicesNode(Element components) {
  return std::make_shared<TensorSlicesNode>(std::move(components));
}
NodePtr MakeTensorsNode(Element components) {
  return std::make_shared<TensorsNode>(std::move(components));
}
NodePtr MakeGeneratorNode(std::function<Dataset::Generator()> make_generator) {
  return std::make_shared<GeneratorNode>(std::move(make_generator));
}
NodePtr MakeFilesNode(std::vector<std::string> paths) {
  return std::make_shared<FilesNode>(std::move(paths));
}
NodePtr MakeLinesNode(std::vector<std::string> paths) {
  return std::make_shared<LinesNode>(std::move(paths));
}

}  // namespace loom::data::internal
