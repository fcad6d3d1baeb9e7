// loom.data: tf.data's names over loom::data. The pipeline (threads, order,
// budget, AUTOTUNE) is all C++; this file converts elements and runs Python
// callables under the GIL.
//
// GIL rules that keep it deadlock-free:
//  - every Python callable and generator lives in a SharedPyObject whose
//    copies and destruction need no GIL (the last release takes it), so
//    pipeline code may copy functions on any thread;
//  - tensors entering the pipeline from Python are copies, never views of
//    NumPy memory, so dropping one on a data thread needs no GIL;
//  - the consumer releases the GIL while it waits in next(), and an
//    iterator releases it while its workers stop.
#include <nanobind/stl/function.h>
#include <nanobind/stl/shared_ptr.h>

#include <map>
#include <memory>
#include <mutex>

#include "bridge.h"
#include "loom/data.h"

namespace loom::python {
namespace {

namespace data = loom::data;
using data::Dataset;
using data::Element;

void RequireCallable(nb::handle fn, const std::string& what) {
  if (!PyCallable_Check(fn.ptr())) throw InvalidArgumentError(what + ": not callable");
}

// Element <-> Python: one component is an array, several are a tuple.
nb::object ElementToPython(Element element) {
  if (element.size() == 1) return ArrayFromTensor(std::move(element.front()));
  nb::list components;
  for (Tensor& t : element) components.append(ArrayFromTensor(std::move(t)));
  return nb::tuple(components);
}

Tensor OwnedTensor(nb::handle value, const std::string& what) {
  // A copy: the pipeline must not depend on memory Python may reuse, and a
  // copy can be dropped on a data thread without the GIL.
  return TensorFromPython(value, what).clone();
}

Element ElementFromPython(nb::handle value, const std::string& what) {
  if (nb::isinstance<nb::dict>(value)) {
    throw InvalidArgumentError(what +
                               " is a dict; loom.data elements are an array or a tuple of "
                               "arrays");
  }
  Element element;
  if (nb::isinstance<nb::tuple>(value)) {
    nb::tuple items = nb::borrow<nb::tuple>(value);
    if (items.size() == 0) throw InvalidArgumentError(what + " is an empty tuple");
    for (size_t i = 0; i < items.size(); ++i) {
      element.push_back(OwnedTensor(items[i], what + " component " + std::to_string(i)));
    }
  } else {
    element.push_back(OwnedTensor(value, what));
  }
  return element;
}

// Calls fn(*components) with the GIL held.
nb::object CallWithElement(const nb::object& fn, Element element) {
  nb::object args = ElementToPython(std::move(element));
  if (!nb::isinstance<nb::tuple>(args)) args = nb::make_tuple(args);
  PyObject* result = PyObject_Call(fn.ptr(), args.ptr(), nullptr);
  if (result == nullptr) throw nb::python_error();
  return nb::steal(result);
}

Dataset::MapFn MapFnFrom(nb::handle fn, const char* what) {
  RequireCallable(fn, what);
  return [callable = SharePyObject(fn), what](Element element) {
    AcquireGil gil;
    nb::object result = CallWithElement(*callable, std::move(element));
    return ElementFromPython(result, std::string(what) + " function's result");
  };
}

std::function<bool(const Element&)> PredicateFrom(nb::handle fn) {
  RequireCallable(fn, "filter");
  return [callable = SharePyObject(fn)](const Element& element) {
    AcquireGil gil;
    nb::object result = CallWithElement(*callable, element);
    const int truth = PyObject_IsTrue(result.ptr());
    if (truth < 0) throw nb::python_error();
    return truth == 1;
  };
}

std::function<Dataset::Generator()> GeneratorFrom(nb::handle generator, nb::handle args) {
  if (!PyCallable_Check(generator.ptr())) {
    throw InvalidArgumentError(
        "from_generator: generator must be a callable returning an "
        "iterable (e.g. a generator function), not an iterator");
  }
  nb::tuple call_args = args.is_none() ? nb::tuple() : nb::tuple(nb::borrow(args));
  return [callable = SharePyObject(generator),
          shared_args = SharePyObject(call_args)]() -> Dataset::Generator {
    AcquireGil gil;
    PyObject* iterable = PyObject_Call(callable->ptr(), shared_args->ptr(), nullptr);
    if (iterable == nullptr) throw nb::python_error();
    nb::object owned_iterable = nb::steal(iterable);
    PyObject* iterator = PyObject_GetIter(iterable);
    if (iterator == nullptr) throw nb::python_error();
    SharedPyObject shared_iterator = SharePyObject(nb::steal(iterator));
    return [shared_iterator]() -> std::optional<Element> {
      AcquireGil inner_gil;
      PyObject* item = PyIter_Next(shared_iterator->ptr());
      if (item == nullptr) {
        if (PyErr_Occurred()) throw nb::python_error();
        return std::nullopt;
      }
      return ElementFromPython(nb::steal(item), "from_generator: a yielded value");
    };
  };
}

// Python accepts a list of paths or one glob pattern.
std::vector<std::string> PathsFrom(nb::handle paths) {
  if (nb::isinstance<nb::str>(paths)) {
    const std::string text = nb::cast<std::string>(paths);
    if (text.find_first_of("*?[") != std::string::npos) return Dataset::list_files(text);
    return {text};
  }
  std::vector<std::string> out;
  for (nb::handle path : paths) out.push_back(nb::cast<std::string>(nb::str(path)));
  return out;
}

int ParallelCalls(nb::handle value) { return value.is_none() ? 0 : nb::cast<int>(value); }

// loom.data.Options has checked the types and ranges already (at
// assignment); loom/data.py resolves None to these defaults.
data::Options OptionsFrom(int cpu_budget, int max_intra_op_parallelism, bool deterministic,
                          bool autotune) {
  data::Options out;
  out.cpu_budget = cpu_budget;
  out.max_intra_op_parallelism = max_intra_op_parallelism;
  out.deterministic = deterministic;
  out.autotune = autotune;
  return out;
}

// padded_batch's padding from Python: `padding(first)` gets the first
// element's components (arrays) and returns one (shape or None, value or
// None) pair per component; a shape is a sequence of ints, -1 = the largest.
Dataset::PaddingFn PaddingFrom(nb::handle fn) {
  RequireCallable(fn, "padded_batch");
  return [callable = SharePyObject(fn)](const Element& first) {
    AcquireGil gil;
    nb::list components;
    for (const Tensor& t : first) components.append(ArrayFromTensor(t.clone()));
    nb::object result = (*callable)(components);
    std::vector<data::Padding> padding;
    for (nb::handle entry : result) {
      nb::tuple pair = nb::cast<nb::tuple>(entry);
      data::Padding p;
      if (!pair[0].is_none()) p.shape = nb::cast<std::vector<int64_t>>(pair[0]);
      if (!pair[1].is_none()) p.value = OwnedTensor(pair[1], "padded_batch: a padding value");
      padding.push_back(std::move(p));
    }
    return padding;
  };
}

// element_spec as Python sees it: a list of (dtype name, shape tuple with
// None for -1), or None when unknown.
nb::object SpecToPython(const std::optional<std::vector<data::ComponentSpec>>& spec) {
  if (!spec) return nb::none();
  nb::list out;
  for (const data::ComponentSpec& c : *spec) {
    nb::list dims;
    for (int64_t d : c.shape) {
      if (d < 0) {
        dims.append(nb::none());
      } else {
        dims.append(d);
      }
    }
    out.append(nb::make_tuple(std::string(dtype_name(c.dtype)), nb::tuple(dims)));
  }
  return out;
}

nb::dict StatsToPython(const config::threading::PipelineDescription& d) {
  nb::list stages;
  for (const auto& s : d.stages) {
    nb::dict stage;
    stage["name"] = s.name;
    stage["parallelism"] = s.parallelism;
    stage["autotuned"] = s.autotuned;
    stage["max_parallelism"] = s.max_parallelism;
    stage["buffer_size"] = s.buffer_size;
    stage["produced"] = s.produced;
    stage["buffered"] = s.buffered;
    stage["in_progress"] = s.in_progress;
    stages.append(stage);
  }
  nb::dict out;
  out["id"] = d.id;
  out["cpu_budget"] = d.cpu_budget;
  out["max_intra_op_parallelism"] = d.max_intra_op_parallelism;
  out["stages"] = stages;
  return out;
}

// Raises a failed element as Python sees it: a Python exception from a
// user function keeps its type, with a note naming stage and element.
[[noreturn]] void RaisePipelineError(const data::PipelineError& error) {
  const std::string note =
      "loom.data: raised by " + error.stage() + " on element " + std::to_string(error.element());
  try {
    std::rethrow_exception(error.cause());
  } catch (nb::python_error& cause) {
    nb::object value = nb::borrow(cause.value());
    if (nb::hasattr(value, "add_note")) value.attr("add_note")(note);
    cause.restore();
    throw nb::python_error();
  } catch (const InvalidArgumentError&) {
    throw InvalidArgumentError(error.what());
  } catch (const RuntimeError&) {
    throw RuntimeError(error.what());
  } catch (...) {
    throw Error(error.what());
  }
}

// Iterators still open, closed at interpreter exit before Python is gone
// (a data thread must not wait for a GIL that will never come back). The
// registry holds weak references: another Python thread may drop the last
// reference to an iterator while it is being closed here.
// Never destroyed: an iterator may be dropped while the process exits.
struct LiveIterators {
  std::mutex mutex;
  std::map<const void*, std::weak_ptr<data::Iterator>> map;
};
LiveIterators& Live() {
  static auto* live = new LiveIterators;
  return *live;
}

class PyIterator {
 public:
  explicit PyIterator(const Dataset& dataset) {
    // NumPy is imported here, on the thread starting the iteration, if it
    // is not yet: imported by a loom-data thread converting the first
    // element, its BLAS threads would inherit that thread's name and pose as
    // Loom's. (`import loom` itself imports nothing that creates threads.)
    nb::module_::import_("numpy");
    // Starting the data pool (and maybe the runtime) can take a while and
    // warn: without the GIL, warnings raised at the caller's line.
    iterator_ =
        RunReleased([&] { return std::make_shared<data::Iterator>(dataset.make_iterator()); });
    std::lock_guard lock(Live().mutex);
    Live().map[this] = iterator_;
  }

  ~PyIterator() {
    {
      std::lock_guard lock(Live().mutex);
      Live().map.erase(this);
    }
    // Stopping the workers may wait for a map function that needs the GIL.
    // A closed iterator is dropped with the GIL held: its last Python
    // callables are released right here (the exit hook has closed every
    // iterator).
    if (!iterator_->closed()) {
      ReleaseGil release;
      iterator_->close();
    }
    iterator_.reset();
  }

  nb::object Next() {
    if (iterator_->closed()) throw nb::stop_iteration();
    std::optional<Element> element;
    try {
      ReleaseGil release;
      element = iterator_->next();
    } catch (const data::PipelineError& error) {
      RaisePipelineError(error);
    } catch (const CancelledError&) {
      // Closed (by close(), or by the exit hook while a daemon thread was
      // iterating): the iterator ends like a closed Python generator.
      throw nb::stop_iteration();
    }
    if (!element) throw nb::stop_iteration();
    return ElementToPython(std::move(*element));
  }

  // May run while another Python thread is inside next() (the iterator
  // object stays; only its workers stop).
  void Close() {
    ReleaseGil release;
    iterator_->close();
  }

  nb::dict Stats() const { return StatsToPython(iterator_->stats()); }

 private:
  std::shared_ptr<data::Iterator> iterator_;
};

}  // namespace

void CloseAllIterators() {
  std::vector<std::shared_ptr<data::Iterator>> open;
  {
    std::lock_guard lock(Live().mutex);
    for (const auto& [owner, weak] : Live().map) {
      if (auto iterator = weak.lock()) open.push_back(std::move(iterator));
    }
  }
  ReleaseGil release;
  for (const auto& iterator : open) iterator->close();
  open.clear();  // may be the last references: destroyed without the GIL
}

void BindData(nb::module_& m) {
  nb::module_ d = m.def_submodule("data", "Input pipelines with tf.data's names.");
  d.attr("AUTOTUNE") = data::kAutotune;
  d.attr("INFINITE_CARDINALITY") = data::kInfiniteCardinality;
  d.attr("UNKNOWN_CARDINALITY") = data::kUnknownCardinality;

  nb::class_<PyIterator>(d, "Iterator", "One pass over a Dataset.")
      .def("__iter__", [](nb::handle self) { return self; })
      .def("__next__", &PyIterator::Next, nb::call_guard<LoomCall>())
      .def("close", &PyIterator::Close, nb::call_guard<LoomCall>(),
           "Stops the workers and frees the buffers now; the iterator then ends (next() raises "
           "StopIteration), also for a thread waiting in next().")
      .def("stats", &PyIterator::Stats,
           "The asynchronous stages and what they chose: parallelism, buffer_size, produced.");

  // The flat pipeline; loom/data.py's Dataset wraps it with the element
  // structure (tuples, dicts, strings).
  nb::class_<Dataset>(d, "_Dataset", "A flat input pipeline (see loom.data.Dataset).")
      .def_static(
          "range",
          [](nb::args args) {
            std::vector<int64_t> v;
            for (nb::handle a : args) v.push_back(nb::cast<int64_t>(a));
            if (v.empty() || v.size() > 3) {
              throw InvalidArgumentError(
                  "range: expects (stop), (start, stop) or (start, stop, "
                  "step), got " +
                  std::to_string(v.size()) + " arguments");
            }
            if (v.size() == 1) return Dataset::range(v[0]);
            return Dataset::range(v[0], v[1], v.size() == 3 ? v[2] : 1);
          },
          "int64 scalars, like Python's range().")
      .def_static(
          "from_tensor_slices",
          [](nb::handle tensors) {
            return Dataset::from_tensor_slices(ElementFromPython(tensors, "from_tensor_slices"));
          },
          nb::arg("tensors"), "Slices an array (or each array of a tuple) along its first axis.")
      .def_static(
          "from_tensors",
          [](nb::handle tensors) {
            return Dataset::from_tensors(ElementFromPython(tensors, "from_tensors"));
          },
          nb::arg("tensors"), "One element.")
      .def_static(
          "from_generator",
          [](nb::handle generator, nb::handle args) {
            return Dataset::from_generator(GeneratorFrom(generator, args));
          },
          nb::arg("generator"), nb::arg("args") = nb::none(),
          "generator(*args) is called once per iteration and must return an iterable of arrays "
          "(or tuples of arrays). It runs under the GIL.")
      .def_static(
          "read_files", [](nb::handle paths) { return Dataset::read_files(PathsFrom(paths)); },
          nb::arg("paths"),
          "One element per file (a path list or a glob pattern): its bytes as a uint8 array.")
      .def_static(
          "read_lines", [](nb::handle paths) { return Dataset::read_lines(PathsFrom(paths)); },
          nb::arg("paths"),
          "One element per line (bytes without the line ending, as a uint8 array), like "
          "tf.data.TextLineDataset.")
      .def(
          "map",
          [](const Dataset& ds, nb::handle fn, nb::handle num_parallel_calls,
             std::optional<bool> deterministic) {
            return ds.map(MapFnFrom(fn, "map"), ParallelCalls(num_parallel_calls), deterministic);
          },
          nb::arg("map_func"), nb::arg("num_parallel_calls") = nb::none(),
          nb::arg("deterministic") = nb::none(),
          "num_parallel_calls: None = on the consuming thread; N = up to N elements at once on the "
          "loom-data pool; AUTOTUNE = climb from 1 while throughput improves. Python functions "
          "hold the GIL: only the parts that release it (NumPy, loom.ops) run in parallel.")
      .def(
          "filter",
          [](const Dataset& ds, nb::handle predicate) {
            return ds.filter(PredicateFrom(predicate));
          },
          nb::arg("predicate"))
      .def(
          "batch",
          [](const Dataset& ds, int64_t batch_size, bool drop_remainder, nb::handle padding) {
            return ds.batch(batch_size, drop_remainder,
                            padding.is_none() ? nullptr : PaddingFrom(padding));
          },
          nb::arg("batch_size"), nb::arg("drop_remainder") = false, nb::arg("padding") = nb::none())
      .def(
          "shuffle",
          [](const Dataset& ds, int64_t buffer_size, std::optional<uint64_t> seed, bool reshuffle) {
            return ds.shuffle(buffer_size, seed, reshuffle);
          },
          nb::arg("buffer_size"), nb::arg("seed") = nb::none(),
          nb::arg("reshuffle_each_iteration") = true)
      .def("prefetch", &Dataset::prefetch, nb::arg("buffer_size"))
      .def("take", &Dataset::take, nb::arg("count"))
      .def("skip", &Dataset::skip, nb::arg("count"))
      .def(
          "repeat",
          [](const Dataset& ds, std::optional<int64_t> count) {
            return ds.repeat(count.value_or(-1));
          },
          nb::arg("count") = nb::none())
      .def(
          "interleave",
          [](const Dataset& ds, nb::handle fn, int64_t cycle_length, int64_t block_length,
             nb::handle num_parallel_calls) {
            if (!num_parallel_calls.is_none()) {
              throw InvalidArgumentError(
                  "interleave: num_parallel_calls is not supported (interleave runs on the "
                  "consuming thread); add .prefetch() inside the function's datasets instead");
            }
            RequireCallable(fn, "interleave");
            return ds.interleave(
                [callable = SharePyObject(fn)](const Element& element) {
                  AcquireGil gil;
                  nb::object result = CallWithElement(*callable, element);
                  Dataset* inner = nullptr;
                  if (!nb::try_cast(result, inner) || inner == nullptr) {
                    throw InvalidArgumentError(
                        "interleave: the function must return a loom.data.Dataset, got " +
                        std::string(nb::type_name(result.type()).c_str()));
                  }
                  return *inner;
                },
                cycle_length, block_length);
          },
          nb::arg("map_func"), nb::arg("cycle_length") = 1, nb::arg("block_length") = 1,
          nb::arg("num_parallel_calls") = nb::none())
      .def(
          "with_options",
          [](const Dataset& ds, int cpu_budget, int max_intra_op_parallelism, bool deterministic,
             bool autotune) {
            return ds.with_options(
                OptionsFrom(cpu_budget, max_intra_op_parallelism, deterministic, autotune));
          },
          nb::arg("cpu_budget"), nb::arg("max_intra_op_parallelism"), nb::arg("deterministic"),
          nb::arg("autotune"))
      .def_static("zip", &Dataset::zip, nb::arg("datasets"))
      .def("concatenate", &Dataset::concatenate, nb::arg("dataset"))
      .def("unbatch", &Dataset::unbatch)
      .def(
          "padded_batch",
          [](const Dataset& ds, int64_t batch_size, nb::handle padding, bool drop_remainder) {
            return ds.padded_batch(batch_size, PaddingFrom(padding), drop_remainder);
          },
          nb::arg("batch_size"), nb::arg("padding"), nb::arg("drop_remainder"))
      .def("cache", &Dataset::cache)
      .def("window", &Dataset::window, nb::arg("size"), nb::arg("shift"), nb::arg("stride"),
           nb::arg("drop_remainder"))
      .def(
          "cardinality",
          [](const Dataset& ds) { return RunReleased([&] { return ds.cardinality(); }); },
          nb::call_guard<LoomCall>())
      .def(
          "element_spec",
          [](const Dataset& ds) {
            std::optional<std::vector<data::ComponentSpec>> spec;
            try {
              spec = RunReleased([&] { return ds.element_spec(); });
            } catch (const data::PipelineError& error) {
              RaisePipelineError(error);
            }
            return SpecToPython(spec);
          },
          nb::call_guard<LoomCall>())
      .def(
          "__iter__", [](const Dataset& ds) { return new PyIterator(ds); },
          nb::rv_policy::take_ownership, nb::call_guard<LoomCall>())
      .def(
          "as_numpy_iterator", [](const Dataset& ds) { return new PyIterator(ds); },
          nb::rv_policy::take_ownership, nb::call_guard<LoomCall>(),
          "The same as iter(ds): elements are NumPy arrays.");

  d.def("list_files", &Dataset::list_files, nb::arg("pattern"),
        "The files matching a glob pattern, sorted (a list of str; Loom has no string tensors).");
}

}  // namespace loom::python
