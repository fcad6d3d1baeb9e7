// loom.ops: eager operators on NumPy arrays (loom::ops underneath).
// Arguments are used in place when contiguous; the GIL is released while a
// kernel runs, so many Python threads can compute at once; results are new
// arrays.

#include <optional>
#include <string>
#include <vector>

#include "bridge.h"
#include "loom/errors.h"
#include "loom/ops.h"

namespace loom::python {
namespace {

using Ints = std::optional<std::vector<int64_t>>;

Tensor Arg(nb::handle value, const char* op, const char* name) {
  return TensorFromPython(value, std::string(op) + ": argument '" + name + "'");
}

// An optional argument: None stays absent.
std::optional<Tensor> OptionalArg(nb::handle value, const char* op, const char* name) {
  if (value.is_none()) return std::nullopt;
  return Arg(value, op, name);
}

const Tensor* PointerTo(const std::optional<Tensor>& tensor) { return tensor ? &*tensor : nullptr; }

// Every op holds a LoomCall for its whole call (gil.h).
template <typename Func, typename... Extra>
void Def(nb::module_& m, const char* name, Func&& func, const Extra&... extra) {
  m.def(name, std::forward<Func>(func), nb::call_guard<LoomCall>(), extra...);
}

// Runs `compute` without the GIL and returns its tensor as a new array.
template <typename Compute>
nb::object Eager(Compute&& compute, const std::vector<const Tensor*>& inputs) {
  Tensor result = RunReleased([&] { return Unaliased(compute(), inputs); });
  return ArrayFromTensor(std::move(result));
}

template <Tensor (*Op)(const Tensor&)>
void DefUnary(nb::module_& m, const char* name, const char* doc) {
  Def(
      m, name,
      [name](nb::handle x) {
        Tensor tx = Arg(x, name, "x");
        return Eager([&] { return Op(tx); }, {&tx});
      },
      nb::arg("x"), doc);
}

template <Tensor (*Op)(const Tensor&, const Tensor&)>
void DefBinary(nb::module_& m, const char* name, const char* doc) {
  Def(
      m, name,
      [name](nb::handle a, nb::handle b) {
        const std::string op(name);
        // A Python scalar takes the other argument's dtype (NumPy's rule).
        Tensor ta, tb;
        if (IsPythonScalar(a) && !IsPythonScalar(b)) {
          tb = Arg(b, name, "b");
          ta = TensorFromPythonLike(a, tb, op + ": argument 'a'");
        } else {
          ta = Arg(a, name, "a");
          tb = TensorFromPythonLike(b, ta, op + ": argument 'b'");
        }
        return Eager([&] { return Op(ta, tb); }, {&ta, &tb});
      },
      nb::arg("a"), nb::arg("b"), doc);
}

DType DTypeFromPython(nb::handle dtype) {
  nb::object numpy_dtype = NumPy().attr("dtype")(dtype);
  const std::string name = nb::str(numpy_dtype.attr("name")).c_str();
  if (name == "bfloat16") {
    throw InvalidArgumentError(
        "cast: dtype bfloat16 cannot be returned as a NumPy array (NumPy has no bfloat16 dtype "
        "and Loom does not depend on ml_dtypes)");
  }
  for (int d = 0; d < kNumDTypes; ++d) {
    const auto candidate = static_cast<DType>(d);
    if (dtype_name(candidate) == name) return candidate;
  }
  throw InvalidArgumentError("cast: dtype " + name + " is not a Loom dtype");
}

// A Python value as an ONNX attribute: int/bool -> int, float, str, array ->
// tensor, and homogeneous lists of ints, floats (ints allowed) or strs.
AttributeValue AttributeFromPython(const std::string& name, nb::handle value) {
  // An int outside int64 (ONNX's attribute type) says so, naming the attribute.
  auto int64_of = [&name](nb::handle item) {
    int64_t number = 0;
    if (!nb::try_cast(item, number)) {
      throw InvalidArgumentError("attribute '" + name + "': " +
                                 nb::cast<std::string>(nb::repr(item)) + " does not fit in int64");
    }
    return number;
  };
  if (nb::isinstance<nb::bool_>(value) || nb::isinstance<nb::int_>(value)) {
    return int64_of(value);
  }
  if (nb::isinstance<nb::float_>(value)) return nb::cast<float>(value);
  if (nb::isinstance<nb::str>(value)) return nb::cast<std::string>(value);
  if (nb::isinstance<nb::list>(value) || nb::isinstance<nb::tuple>(value)) {
    bool all_ints = true, all_numbers = true, all_strs = true;
    for (nb::handle item : value) {
      const bool is_int = nb::isinstance<nb::int_>(item) || nb::isinstance<nb::bool_>(item);
      all_ints &= is_int;
      all_numbers &= is_int || nb::isinstance<nb::float_>(item);
      all_strs &= nb::isinstance<nb::str>(item);
    }
    if (all_ints) {
      std::vector<int64_t> numbers;
      for (nb::handle item : value) numbers.push_back(int64_of(item));
      return numbers;
    }
    if (all_numbers) return nb::cast<std::vector<float>>(value);
    if (all_strs) return nb::cast<std::vector<std::string>>(value);
    throw InvalidArgumentError("attribute '" + name +
                               "': a list must hold only ints, only numbers or only strings");
  }
  return TensorFromPython(value, "attribute '" + name + "'");
}

void DefGeneric(nb::module_& m) {
  Def(
      m, "run",
      [](const std::string& op, nb::handle inputs, std::optional<nb::dict> attributes) {
        std::vector<std::optional<Tensor>> tensors;
        int index = 0;
        for (nb::handle input : inputs) {
          tensors.push_back(input.is_none() ? std::nullopt
                                            : std::optional<Tensor>(TensorFromPython(
                                                  input, op + ": input " + std::to_string(index))));
          ++index;
        }
        Attributes attrs;
        if (attributes) {
          for (auto [key, value] : *attributes) {
            if (!nb::isinstance<nb::str>(key)) {
              throw nb::type_error(("loom.ops.run: attribute names must be str, got " +
                                    nb::cast<std::string>(nb::repr(key)))
                                       .c_str());
            }
            const std::string name = nb::cast<std::string>(key);
            attrs.emplace(name, AttributeFromPython(name, value));
          }
        }
        std::vector<const Tensor*> pointers;
        for (const auto& tensor : tensors) pointers.push_back(PointerTo(tensor));
        std::vector<Tensor> results = RunReleased([&] {
          std::vector<Tensor> outputs = loom::ops::run_optional(op, pointers, attrs);
          for (Tensor& output : outputs) output = Unaliased(std::move(output), pointers);
          return outputs;
        });
        nb::list arrays;
        for (size_t i = 0; i < results.size(); ++i) {
          arrays.append(
              ArrayFromTensor(std::move(results[i]), op + ": output " + std::to_string(i)));
        }
        return arrays;
      },
      nb::arg("op"), nb::arg("inputs"), nb::arg("attributes") = nb::none(),
      "Runs any supported ONNX operator: run('Conv', [x, w, None], {'pads': [1, 1, 1, 1]}) -> "
      "list of arrays. None marks an absent optional input.");
  Def(m, "supported_ops", &loom::ops::supported_ops, "Every op name run() accepts, sorted.");
  Def(
      m, "kernel_isa", [] { return RunReleased([] { return loom::ops::kernel_isa(); }); },
      "The instruction set the kernels use ('avx2_fma', ...). Starts the runtime.");
}

void DefLinearAlgebraAndConv(nb::module_& m) {
  DefBinary<loom::ops::matmul>(m, "matmul", "NumPy matmul semantics (batched, broadcast).");
  Def(
      m, "gemm",
      [](nb::handle a, nb::handle b, nb::handle c, bool trans_a, bool trans_b, float alpha,
         float beta) {
        Tensor ta = Arg(a, "gemm", "a"), tb = Arg(b, "gemm", "b");
        const std::optional<Tensor> tc = OptionalArg(c, "gemm", "c");
        loom::ops::GemmOptions options{trans_a, trans_b, alpha, beta};
        return Eager([&] { return loom::ops::gemm(ta, tb, PointerTo(tc), options); },
                     {&ta, &tb, PointerTo(tc)});
      },
      nb::arg("a"), nb::arg("b"), nb::arg("c").none() = nb::none(), nb::kw_only(),
      nb::arg("trans_a") = false, nb::arg("trans_b") = false, nb::arg("alpha") = 1.0f,
      nb::arg("beta") = 1.0f, "alpha * op(a) @ op(b) + beta * c (ONNX Gemm).");
  Def(
      m, "conv2d",
      [](nb::handle x, nb::handle w, nb::handle bias, Ints strides, Ints pads, Ints dilations,
         int64_t group, const std::string& auto_pad) {
        Tensor tx = Arg(x, "conv2d", "x"), tw = Arg(w, "conv2d", "w");
        const std::optional<Tensor> tb = OptionalArg(bias, "conv2d", "bias");
        loom::ops::ConvOptions options{strides.value_or(std::vector<int64_t>{}),
                                       pads.value_or(std::vector<int64_t>{}),
                                       dilations.value_or(std::vector<int64_t>{}), group, auto_pad};
        return Eager([&] { return loom::ops::conv2d(tx, tw, PointerTo(tb), options); },
                     {&tx, &tw, PointerTo(tb)});
      },
      nb::arg("x"), nb::arg("w"), nb::arg("bias").none() = nb::none(), nb::kw_only(),
      nb::arg("strides") = nb::none(), nb::arg("pads") = nb::none(),
      nb::arg("dilations") = nb::none(), nb::arg("group") = 1, nb::arg("auto_pad") = "NOTSET",
      "2-D convolution, NCHW: x [N, C, H, W], w [M, C/group, kH, kW], bias [M]; pads are "
      "[top, left, bottom, right].");
}

template <Tensor (*Pool)(const Tensor&, const loom::ops::PoolOptions&)>
void DefPool(nb::module_& m, const char* name, const char* doc) {
  Def(
      m, name,
      [name](nb::handle x, std::vector<int64_t> kernel_shape, Ints strides, Ints pads,
             const std::string& auto_pad, bool ceil_mode, bool count_include_pad) {
        Tensor tx = Arg(x, name, "x");
        loom::ops::PoolOptions options{std::move(kernel_shape),
                                       strides.value_or(std::vector<int64_t>{}),
                                       pads.value_or(std::vector<int64_t>{}),
                                       auto_pad,
                                       ceil_mode,
                                       count_include_pad};
        return Eager([&] { return Pool(tx, options); }, {&tx});
      },
      nb::arg("x"), nb::arg("kernel_shape"), nb::kw_only(), nb::arg("strides") = nb::none(),
      nb::arg("pads") = nb::none(), nb::arg("auto_pad") = "NOTSET", nb::arg("ceil_mode") = false,
      nb::arg("count_include_pad") = false, doc);
}

template <Tensor (*Reduce)(const Tensor&, const std::vector<int64_t>&, bool)>
void DefReduce(nb::module_& m, const char* name, const char* doc) {
  Def(
      m, name,
      [name](nb::handle x, Ints axes, bool keepdims) {
        Tensor tx = Arg(x, name, "x");
        return Eager([&] { return Reduce(tx, axes.value_or(std::vector<int64_t>{}), keepdims); },
                     {&tx});
      },
      nb::arg("x"), nb::arg("axes") = nb::none(), nb::arg("keepdims") = true, doc);
}

void DefElementwise(nb::module_& m) {
  DefBinary<loom::ops::add>(m, "add", "a + b, broadcasting like NumPy.");
  DefBinary<loom::ops::sub>(m, "sub", "a - b, broadcasting like NumPy.");
  DefBinary<loom::ops::mul>(m, "mul", "a * b, broadcasting like NumPy.");
  DefBinary<loom::ops::div>(m, "div", "a / b, broadcasting like NumPy.");
  DefBinary<loom::ops::pow>(m, "pow", "a ** b, broadcasting like NumPy.");
  DefBinary<loom::ops::maximum>(m, "maximum", "Elementwise max, broadcasting.");
  DefBinary<loom::ops::minimum>(m, "minimum", "Elementwise min, broadcasting.");
  DefUnary<loom::ops::relu>(m, "relu", "max(x, 0).");
  DefUnary<loom::ops::sigmoid>(m, "sigmoid", "1 / (1 + exp(-x)).");
  DefUnary<loom::ops::tanh>(m, "tanh", "tanh(x).");
  DefUnary<loom::ops::exp>(m, "exp", "exp(x).");
  DefUnary<loom::ops::log>(m, "log", "log(x).");
  DefUnary<loom::ops::sqrt>(m, "sqrt", "sqrt(x).");
  DefUnary<loom::ops::gelu>(m, "gelu", "GELU (erf form).");
  DefUnary<loom::ops::silu>(m, "silu", "x * sigmoid(x).");
  Def(
      m, "leaky_relu",
      [](nb::handle x, float alpha) {
        Tensor tx = Arg(x, "leaky_relu", "x");
        return Eager([&] { return loom::ops::leaky_relu(tx, alpha); }, {&tx});
      },
      nb::arg("x"), nb::arg("alpha") = 0.01f, "x if x >= 0 else alpha * x.");
  Def(
      m, "clip",
      [](nb::handle x, float min, float max) {
        Tensor tx = Arg(x, "clip", "x");
        return Eager([&] { return loom::ops::clip(tx, min, max); }, {&tx});
      },
      nb::arg("x"), nb::arg("min"), nb::arg("max"), "min(max(x, min), max).");
}

void DefPoolsAndReductions(nb::module_& m) {
  DefPool<loom::ops::max_pool>(m, "max_pool", "Max pooling, NCHW (ONNX MaxPool).");
  DefPool<loom::ops::average_pool>(m, "average_pool", "Average pooling, NCHW (ONNX AveragePool).");
  DefUnary<loom::ops::global_average_pool>(m, "global_average_pool",
                                           "Mean over H, W: [N, C, 1, 1].");
  DefUnary<loom::ops::global_max_pool>(m, "global_max_pool", "Max over H, W: [N, C, 1, 1].");
  DefReduce<loom::ops::reduce_sum>(m, "reduce_sum", "Sum over axes (None = all).");
  DefReduce<loom::ops::reduce_mean>(m, "reduce_mean", "Mean over axes (None = all).");
  DefReduce<loom::ops::reduce_max>(m, "reduce_max", "Max over axes (None = all).");
  DefReduce<loom::ops::reduce_min>(m, "reduce_min", "Min over axes (None = all).");
  Def(
      m, "argmax",
      [](nb::handle x, int64_t axis, bool keepdims) {
        Tensor tx = Arg(x, "argmax", "x");
        return Eager([&] { return loom::ops::argmax(tx, axis, keepdims); }, {&tx});
      },
      nb::arg("x"), nb::arg("axis") = 0, nb::arg("keepdims") = true, "Index of the max (int64).");
}

void DefNormalizationAndShapes(nb::module_& m) {
  Def(
      m, "softmax",
      [](nb::handle x, int64_t axis) {
        Tensor tx = Arg(x, "softmax", "x");
        return Eager([&] { return loom::ops::softmax(tx, axis); }, {&tx});
      },
      nb::arg("x"), nb::arg("axis") = -1, "Softmax along axis.");
  Def(
      m, "log_softmax",
      [](nb::handle x, int64_t axis) {
        Tensor tx = Arg(x, "log_softmax", "x");
        return Eager([&] { return loom::ops::log_softmax(tx, axis); }, {&tx});
      },
      nb::arg("x"), nb::arg("axis") = -1, "Log of the softmax along axis.");
  Def(
      m, "layer_norm",
      [](nb::handle x, nb::handle scale, nb::handle bias, int64_t axis, float epsilon) {
        Tensor tx = Arg(x, "layer_norm", "x"), ts = Arg(scale, "layer_norm", "scale");
        const std::optional<Tensor> tb = OptionalArg(bias, "layer_norm", "bias");
        return Eager([&] { return loom::ops::layer_norm(tx, ts, PointerTo(tb), axis, epsilon); },
                     {&tx, &ts, PointerTo(tb)});
      },
      nb::arg("x"), nb::arg("scale"), nb::arg("bias").none() = nb::none(), nb::kw_only(),
      nb::arg("axis") = -1, nb::arg("epsilon") = 1e-5f, "Layer normalization from axis on.");
  Def(
      m, "reshape",
      [](nb::handle x, std::vector<int64_t> shape) {
        Tensor tx = Arg(x, "reshape", "x");
        return Eager([&] { return loom::ops::reshape(tx, shape); }, {&tx});
      },
      nb::arg("x"), nb::arg("shape"), "ONNX Reshape (0 copies a dim, -1 infers one); a new array.");
  Def(
      m, "transpose",
      [](nb::handle x, Ints perm) {
        Tensor tx = Arg(x, "transpose", "x");
        return Eager(
            [&] { return loom::ops::transpose(tx, perm.value_or(std::vector<int64_t>{})); }, {&tx});
      },
      nb::arg("x"), nb::arg("perm") = nb::none(), "Permutes axes (None = reverse them).");
  Def(
      m, "concat",
      [](nb::handle arrays, int64_t axis) {
        std::vector<Tensor> tensors;
        for (nb::handle array : arrays) tensors.push_back(Arg(array, "concat", "tensors"));
        std::vector<const Tensor*> inputs;
        for (const Tensor& tensor : tensors) inputs.push_back(&tensor);
        return Eager([&] { return loom::ops::concat(tensors, axis); }, inputs);
      },
      nb::arg("tensors"), nb::arg("axis"), "Joins arrays along axis.");
  Def(
      m, "flatten",
      [](nb::handle x, int64_t axis) {
        Tensor tx = Arg(x, "flatten", "x");
        return Eager([&] { return loom::ops::flatten(tx, axis); }, {&tx});
      },
      nb::arg("x"), nb::arg("axis") = 1, "To 2-D: dims before axis, dims from axis.");
  Def(
      m, "cast",
      [](nb::handle x, nb::handle dtype) {
        Tensor tx = Arg(x, "cast", "x");
        const DType to = DTypeFromPython(dtype);
        return Eager([&] { return loom::ops::cast(tx, to); }, {&tx});
      },
      nb::arg("x"), nb::arg("dtype"), "Converts elements to dtype (a NumPy dtype or its name).");
}

}  // namespace

void BindOps(nb::module_& m) {
  nb::module_ ops = m.def_submodule(
      "ops",
      "Eager operators on NumPy arrays. The first call starts the runtime (freezing "
      "loom.config.threading). Shapes, dtypes and attributes follow the ONNX operator of the same "
      "name; errors raise loom.errors.InvalidArgumentError (a ValueError) with Loom's message.");
  DefGeneric(ops);
  DefLinearAlgebraAndConv(ops);
  DefElementwise(ops);
  DefPoolsAndReductions(ops);
  DefNormalizationAndShapes(ops);
}

}  // namespace loom::python
