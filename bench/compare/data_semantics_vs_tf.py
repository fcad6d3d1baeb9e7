"""loom.data against tf.data, element by element: the same pipelines on the
same inputs in both, compared for structure, dtype, shape and values (and
cardinality, element_spec, which calls fail).

TensorFlow and Loom live in separate virtual environments, so the script
runs itself once in each (`--engine tf|loom` writes JSON) and compares:

    python bench/compare/data_semantics_vs_tf.py \\
        --tf-python /work/venv-tf/bin/python --loom-python /work/venv-data/bin/python \\
        --out bench/results/data-semantics-vs-tf-<date>.md

Inputs are NumPy arrays with explicit dtypes: tf.data turns Python ints into
int32 and floats into float32, Loom into int64 and float64 (NumPy's types).
Error *types* differ by design (tf's InvalidArgumentError vs Loom's); only
whether a call fails is compared, and both types are listed.
"""

import argparse
import json
import subprocess
import sys


def build_cases(D, np, K):  # noqa: N803 (D = tf.data / loom.data)
    """name -> zero-argument callable returning a Dataset or a value. K has
    the few engine-specific ops: fill(n, v), a 1-D array of n v's."""
    Dataset = D.Dataset
    xs = np.arange(5, dtype=np.int64)
    ys = np.arange(5, dtype=np.float32) * 0.5
    names = np.array([b"a", b"bb", b"ccc", b"", b"eeeee"])
    c = {}

    # dicts and nesting
    c["dict_slices"] = lambda: Dataset.from_tensor_slices({"x": xs, "y": ys})
    c["dict_key_order"] = lambda: Dataset.from_tensor_slices({"y": ys, "x": xs})
    c["dict_map"] = lambda: Dataset.from_tensor_slices({"x": xs, "y": ys}).map(
        lambda d: {"twice": d["x"] * 2, "orig": d})
    c["dict_batch"] = lambda: Dataset.from_tensor_slices({"x": xs, "y": ys}).batch(2)
    c["dict_batch_drop"] = lambda: Dataset.from_tensor_slices({"x": xs, "y": ys}).batch(
        2, drop_remainder=True)
    c["dict_take_skip_repeat"] = lambda: (
        Dataset.from_tensor_slices({"x": xs}).skip(1).take(3).repeat(2))
    c["dict_prefetch_cache"] = lambda: (
        Dataset.from_tensor_slices({"x": xs}).cache().prefetch(2))
    c["nested_tuple_batch"] = lambda: Dataset.from_tensor_slices(
        (xs, (ys, {"z": xs * 3}))).batch(2)
    c["one_tuple"] = lambda: Dataset.from_tensor_slices((xs,))
    c["map_tuple_args"] = lambda: Dataset.from_tensor_slices((xs, xs)).map(lambda a, b: a + b)
    c["map_list_result"] = lambda: Dataset.range(3).map(lambda x: [x, x + 1])
    c["map_dict_arg"] = lambda: Dataset.from_tensor_slices({"x": xs}).map(lambda d: d["x"] + 1)
    c["filter_dict"] = lambda: Dataset.from_tensor_slices({"x": xs, "y": ys}).filter(
        lambda d: d["x"] % 2 == 0)

    # strings
    c["string_slices"] = lambda: Dataset.from_tensor_slices(names)
    c["string_list"] = lambda: Dataset.from_tensor_slices(["a", "bb"])
    c["string_batch"] = lambda: Dataset.from_tensor_slices(names).batch(2)
    c["string_unbatch"] = lambda: Dataset.from_tensor_slices(names).batch(2).unbatch()
    c["string_dict_batch"] = lambda: Dataset.from_tensor_slices(
        {"name": names, "x": xs}).batch(3)
    c["string_padded_batch"] = lambda: Dataset.from_tensor_slices(names).padded_batch(2)
    c["string_from_tensors"] = lambda: Dataset.from_tensors(b"hello")

    # zip, concatenate, enumerate
    c["zip_tuple"] = lambda: Dataset.zip((Dataset.range(5), Dataset.range(10, 13)))
    c["zip_varargs"] = lambda: Dataset.zip(Dataset.range(2), Dataset.range(5, 8))
    c["zip_dict"] = lambda: Dataset.zip({"a": Dataset.range(3), "b": Dataset.range(3, 6)})
    c["zip_nested"] = lambda: Dataset.zip(
        (Dataset.range(3), (Dataset.range(3), Dataset.from_tensor_slices({"x": xs}))))
    c["zip_as_method"] = lambda: Dataset.range(3).zip(Dataset.range(7, 9))
    c["zip_empty"] = lambda: Dataset.zip((Dataset.range(0), Dataset.range(3)))
    c["concatenate"] = lambda: Dataset.range(3).concatenate(Dataset.range(10, 12))
    c["concatenate_dicts"] = lambda: Dataset.from_tensor_slices({"x": xs}).concatenate(
        Dataset.from_tensor_slices({"x": xs[:2]}))
    c["concatenate_mismatch"] = lambda: Dataset.range(3).concatenate(
        Dataset.from_tensor_slices({"x": xs}))
    c["enumerate"] = lambda: Dataset.from_tensor_slices({"x": xs}).enumerate(start=5)
    c["enumerate_default"] = lambda: Dataset.range(3).enumerate()

    # unbatch, padded_batch
    c["unbatch"] = lambda: Dataset.range(7).batch(3).unbatch()
    c["unbatch_tuple"] = lambda: Dataset.from_tensors((np.zeros((3, 2), np.float32), xs[:3])
                                                      ).unbatch()
    c["unbatch_mismatch"] = lambda: Dataset.from_tensors((xs[:2], xs[:3])).unbatch()
    ragged = lambda: Dataset.range(5).map(lambda x: K.fill(x, x))  # noqa: E731
    c["padded_batch"] = lambda: ragged().padded_batch(2)
    c["padded_batch_fixed_value"] = lambda: ragged().padded_batch(
        2, padded_shapes=[4], padding_values=np.int64(-1))
    c["padded_batch_drop"] = lambda: ragged().padded_batch(2, drop_remainder=True)
    c["padded_batch_too_small"] = lambda: ragged().padded_batch(5, padded_shapes=[2])
    c["padded_batch_dict"] = lambda: ragged().map(lambda v: {"v": v, "n": K.size(v)}).padded_batch(
        2, padding_values={"v": np.int64(7), "n": np.int64(0)})
    c["padded_batch_empty"] = lambda: Dataset.range(0).padded_batch(2)

    # cache, flat_map, window
    c["cache"] = lambda: Dataset.range(4).map(lambda x: x * 10).cache()
    c["flat_map"] = lambda: Dataset.range(4).flat_map(lambda x: Dataset.range(x))
    c["window"] = lambda: Dataset.range(7).window(3, 2)
    c["window_drop"] = lambda: Dataset.range(7).window(3, 2, 1, drop_remainder=True)
    c["window_stride"] = lambda: Dataset.range(7).window(2, shift=1, stride=2)
    c["window_default_shift"] = lambda: Dataset.range(7).window(3)
    c["window_dict"] = lambda: Dataset.from_tensor_slices({"x": xs, "y": ys}).window(2)
    c["window_flat_map_batch"] = lambda: Dataset.range(7).window(3, 1, 1, True).flat_map(
        lambda w: w.batch(3))

    # empty inputs and batch edges
    c["empty_slices_batch"] = lambda: Dataset.from_tensor_slices(np.zeros((0, 3), np.float32)
                                                                ).batch(2)
    c["range_empty_batch"] = lambda: Dataset.range(0).batch(2)
    c["uneven_slices"] = lambda: Dataset.from_tensor_slices((xs, xs[:3]))

    # reduce
    c["reduce_sum"] = lambda: Dataset.range(10).reduce(np.int64(0), lambda s, x: s + x)
    c["reduce_tuple_state"] = lambda: Dataset.range(5).reduce(
        (np.int64(0), np.int64(1)), lambda s, x: (s[0] + x, s[1] * (x + 1)))
    c["reduce_dict"] = lambda: Dataset.from_tensor_slices({"x": xs}).reduce(
        np.int64(0), lambda s, d: s + d["x"])
    c["reduce_empty"] = lambda: Dataset.range(0).reduce(np.int64(3), lambda s, x: s + x)

    # Known differences (docs/data.md), kept here so the report shows them.
    c["known_diff_python_ints"] = lambda: Dataset.from_tensor_slices([1, 2])
    c["known_diff_window_of_ragged"] = lambda: ragged().window(2).flat_map(
        lambda w: w.padded_batch(2))
    return c


def build_cardinality_cases(D, np):  # noqa: N803
    Dataset = D.Dataset
    xs = np.arange(5, dtype=np.int64)
    return {
        "range": lambda: Dataset.range(10),
        "range_step": lambda: Dataset.range(0, 10, 3),
        "range_negative_step": lambda: Dataset.range(10, 0, -3),
        "slices": lambda: Dataset.from_tensor_slices({"x": xs}),
        "batch": lambda: Dataset.range(10).batch(3),
        "batch_drop": lambda: Dataset.range(10).batch(3, drop_remainder=True),
        "filter": lambda: Dataset.range(10).filter(lambda x: x > 3),
        "repeat_forever": lambda: Dataset.range(10).repeat(),
        "repeat_3": lambda: Dataset.range(10).repeat(3),
        "empty_repeat_forever": lambda: Dataset.range(0).repeat(),
        "filter_repeat": lambda: Dataset.range(10).filter(lambda x: x > 3).repeat(),
        "take": lambda: Dataset.range(10).take(4),
        "take_more": lambda: Dataset.range(10).take(40),
        "infinite_take": lambda: Dataset.range(10).repeat().take(4),
        "skip": lambda: Dataset.range(10).skip(4),
        "skip_all": lambda: Dataset.range(10).skip(-1),
        "map": lambda: Dataset.range(10).map(lambda x: x + 1),
        "shuffle_cache_prefetch": lambda: Dataset.range(10).shuffle(4).cache().prefetch(2),
        "zip": lambda: Dataset.zip((Dataset.range(3), Dataset.range(10).repeat())),
        "zip_unknown": lambda: Dataset.zip((Dataset.range(3), Dataset.range(3).filter(
            lambda x: x > 0))),
        "concatenate": lambda: Dataset.range(3).concatenate(Dataset.range(4)),
        "concatenate_infinite": lambda: Dataset.range(3).concatenate(Dataset.range(4).repeat()),
        "enumerate": lambda: Dataset.range(6).enumerate(),
        "unbatch_drop": lambda: Dataset.range(10).batch(5, drop_remainder=True).unbatch(),
        "unbatch": lambda: Dataset.range(10).batch(5).unbatch(),
        "padded_batch": lambda: Dataset.range(10).padded_batch(4),
        "window": lambda: Dataset.range(10).window(3, 2),
        "window_drop": lambda: Dataset.range(10).window(3, 2, 1, drop_remainder=True),
        "flat_map": lambda: Dataset.range(3).flat_map(lambda x: Dataset.range(x)),
    }


def build_spec_cases(D, np, K):  # noqa: N803
    Dataset = D.Dataset
    xs = np.arange(6, dtype=np.int64)
    img = np.zeros((6, 2, 3), np.float32)
    names = np.array([b"a", b"bb", b"c", b"d", b"e", b"f"])
    return {
        "dict": lambda: Dataset.from_tensor_slices({"img": img, "label": xs}),
        "batch": lambda: Dataset.from_tensor_slices({"img": img, "label": xs}).batch(4),
        "batch_drop": lambda: Dataset.from_tensor_slices((img, xs)).batch(4, drop_remainder=True),
        "unbatch": lambda: Dataset.from_tensor_slices(img).unbatch(),
        "zip": lambda: Dataset.zip((Dataset.range(3), Dataset.from_tensor_slices(img))),
        "enumerate": lambda: Dataset.from_tensor_slices({"x": xs}).enumerate(),
        "strings": lambda: Dataset.from_tensor_slices(names).batch(2),
        "window": lambda: Dataset.from_tensor_slices({"x": xs}).window(2),
        "padded_batch_fixed": lambda: Dataset.from_tensor_slices(img).padded_batch(
            2, padded_shapes=[4, None]),
        "map_scalar": lambda: Dataset.range(3).map(lambda x: (x, x * 2)),
        "range": lambda: Dataset.range(3),
        "known_diff_map_ragged": lambda: Dataset.range(3).map(
            lambda x: K.fill(x, x)),
    }


# ---- engines ----


def engine_tf():
    import numpy as np
    import tensorflow as tf

    class K:
        fill = staticmethod(lambda n, v: tf.fill([n], v))
        size = staticmethod(lambda v: tf.size(v, out_type=tf.int64))

    def to_json(value):
        if isinstance(value, tf.data.Dataset):
            return {"dataset": [to_json(v) for v in value]}
        if isinstance(value, dict):
            return {"dict": [[k, to_json(v)] for k, v in value.items()]}
        if isinstance(value, tuple):
            return {"tuple": [to_json(v) for v in value]}
        if isinstance(value, tf.Tensor):
            if value.dtype == tf.string:
                arr = np.asarray(value.numpy(), dtype=object)
                return {"dtype": "string", "shape": list(arr.shape),
                        "values": [b.decode("latin1") for b in arr.ravel().tolist()]}
            value = value.numpy()
        arr = np.asarray(value)
        return {"dtype": str(arr.dtype), "shape": list(arr.shape), "values": arr.ravel().tolist()}

    def spec_json(spec):
        if isinstance(spec, dict):
            return {"dict": [[k, spec_json(v)] for k, v in spec.items()]}
        if isinstance(spec, tuple):
            return {"tuple": [spec_json(v) for v in spec]}
        if isinstance(spec, tf.data.DatasetSpec):
            return {"dataset_spec": spec_json(spec.element_spec)}
        dtype = "string" if spec.dtype == tf.string else spec.dtype.name
        return {"dtype": dtype, "shape": spec.shape.as_list()}

    return run_engine(tf.data, np, K, to_json, spec_json, lambda ds: int(ds.cardinality()))


def engine_loom():
    import numpy as np

    import loom

    class K:
        fill = staticmethod(lambda n, v: np.full(int(n), v, dtype=np.asarray(v).dtype))
        size = staticmethod(lambda v: np.int64(np.size(v)))

    def to_json(value):
        if isinstance(value, loom.data.Dataset):
            return {"dataset": [to_json(v) for v in value]}
        if isinstance(value, dict):
            return {"dict": [[k, to_json(v)] for k, v in value.items()]}
        if isinstance(value, tuple):
            return {"tuple": [to_json(v) for v in value]}
        arr = np.asarray(value)
        if arr.dtype.kind == "S":
            return {"dtype": "string", "shape": list(arr.shape),
                    "values": [b.decode("latin1") for b in arr.ravel().tolist()]}
        return {"dtype": str(arr.dtype), "shape": list(arr.shape), "values": arr.ravel().tolist()}

    def spec_json(spec):
        if isinstance(spec, dict):
            return {"dict": [[k, spec_json(v)] for k, v in spec.items()]}
        if isinstance(spec, tuple):
            return {"tuple": [spec_json(v) for v in spec]}
        if isinstance(spec, loom.data.DatasetSpec):
            return {"dataset_spec": spec_json(spec.element_spec)}
        dtype = "string" if spec.dtype.kind == "S" else spec.dtype.name
        return {"dtype": dtype, "shape": list(spec.shape)}

    return run_engine(loom.data, np, K, to_json, spec_json, lambda ds: ds.cardinality())


def run_engine(D, np, K, to_json, spec_json, cardinality):  # noqa: N803
    out = {"elements": {}, "cardinality": {}, "len": {}, "element_spec": {}, "options": {}}

    def attempt(fn):
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 (recorded and compared)
            return {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"}

    def elements(make):
        value = make()
        if isinstance(value, D.Dataset):
            return [to_json(e) for e in value]
        return to_json(value)

    for name, make in build_cases(D, np, K).items():
        out["elements"][name] = attempt(lambda: elements(make))
    for name, make in build_cardinality_cases(D, np).items():
        out["cardinality"][name] = attempt(lambda: cardinality(make()))
        out["len"][name] = attempt(lambda: len(make()))
    for name, make in build_spec_cases(D, np, K).items():
        out["element_spec"][name] = attempt(lambda: spec_json(make().element_spec))

    def set_option(path, value):
        options = D.Options()
        *groups, field = path.split(".")
        target = options
        for g in groups:
            target = getattr(target, g)
        setattr(target, field, value)
        return "ok"

    for path, value in [("autotune.cpu_bugdet", 5), ("autotune.cpu_budget", "two"),
                        ("autotune.cpu_budget", 2), ("autotune.enabled", False),
                        ("autotune.enabled", "yes"), ("deterministic", False),
                        ("deterministic", 1), ("threading.max_intra_op_parallelism", 1),
                        ("no_such_option", 1)]:
        out["options"][f"{path} = {value!r}"] = attempt(lambda: set_option(path, value))
    out["options"]["defaults"] = attempt(lambda: [
        D.Options().deterministic, D.Options().autotune.enabled, D.Options().autotune.cpu_budget])
    out["options"]["constants"] = [D.INFINITE_CARDINALITY, D.UNKNOWN_CARDINALITY]
    out["options"]["bool(infinite dataset)"] = bool(D.Dataset.range(3).repeat())
    return out


# ---- comparison ----


def is_error(v):
    return isinstance(v, dict) and "error" in v


def compare(tf_out, loom_out):
    rows = []
    for section in tf_out:
        for name, want in tf_out[section].items():
            got = loom_out[section].get(name, {"error": "missing in loom run"})
            if is_error(want) or is_error(got):
                same = is_error(want) and is_error(got)
                # Options errors must agree in type too (AttributeError/TypeError).
                if same and section == "options":
                    same = want["error"].split(":")[0] == got["error"].split(":")[0]
            else:
                same = want == got
            rows.append((section, name, same, want, got))
    return rows


def short(v, limit=150):
    text = json.dumps(v, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def report(rows, command):
    lines = ["# loom.data vs tf.data 2.21: semantics, element by element", "",
             "Made by:", "", "```", command, "```", ""]
    agree = sum(1 for r in rows if r[2])
    unexpected = [r for r in rows if not r[2] and not r[1].startswith("known_diff")]
    lines.append(f"{agree} of {len(rows)} checks agree; {len(unexpected)} unexpected "
                 "difference(s). Cases named known_diff_* are differences docs/data.md "
                 "documents, kept so that the report shows them.")
    lines.append("")
    differing = [r for r in rows if not r[2]]
    if differing:
        lines += ["## Differences", "", "| section | case | tf.data | loom.data |",
                  "|---|---|---|---|"]
        for section, name, _, want, got in differing:
            lines.append(f"| {section} | {name} | `{short(want)}` | `{short(got)}` |")
        lines.append("")
    lines += ["## All checks", "",
              "| section | case | agree | tf.data (Loom's error if different) |",
              "|---|---|---|---|"]
    for section, name, same, want, got in rows:
        note = short(want, 110)
        if is_error(want) and is_error(got) and want != got:
            note += f" / loom: `{short(got, 110)}`"
        lines.append(f"| {section} | {name} | {'yes' if same else '**no**'} | `{note}` |"
                     if not note.startswith("`") else
                     f"| {section} | {name} | {'yes' if same else '**no**'} | {note} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=["tf", "loom"])
    parser.add_argument("--tf-python", default="/work/venv-tf/bin/python")
    parser.add_argument("--loom-python", default=sys.executable)
    parser.add_argument("--out", help="write the Markdown report here (and .json beside it)")
    args = parser.parse_args()
    if args.engine:
        result = engine_tf() if args.engine == "tf" else engine_loom()
        json.dump(result, sys.stdout)
        return 0
    runs = {}
    for engine, python in (("tf", args.tf_python), ("loom", args.loom_python)):
        done = subprocess.run([python, __file__, "--engine", engine], capture_output=True,
                              text=True, env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"})
        if done.returncode != 0:
            sys.stderr.write(done.stderr)
            return done.returncode
        runs[engine] = json.loads(done.stdout)
    rows = compare(runs["tf"], runs["loom"])
    command = " ".join(["python", "bench/compare/data_semantics_vs_tf.py"] + sys.argv[1:])
    text = report(rows, command)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
        with open(args.out.rsplit(".", 1)[0] + ".json", "w") as f:
            json.dump(runs, f, indent=1)
    sys.stdout.write(text)
    return 0 if all(r[2] or r[1].startswith("known_diff") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
