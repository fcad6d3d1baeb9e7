#!/usr/bin/env python3
"""Writes the type stubs of the `loom._loom` extension (python/loom/_loom/*.pyi)
with nanobind's stubgen, from the loom package installed in this python3,
then gives the parameters the bindings take as plain Python objects (and
check themselves) their real types, so IDEs and type checkers see
`run(output_names: Sequence[str] | None, ...)`, not `object`.

    python3 scripts/gen_stubs.py            # rewrite the stubs
    python3 scripts/gen_stubs.py --check    # exit 1 if they are stale

python/tests/test_stubs.py runs --check and fails on any parameter or
result still typed `object`; after changing a binding, rebuild the package
(scripts/build_python.sh) and run this script."""
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "python" / "loom" / "_loom"

ARRAY = "numpy.typing.ArrayLike"
NDARRAY = "numpy.ndarray"
THREADS = "int | None"
CPUS = "str | Sequence[int] | None"

# Parameter name -> type, wherever the binding takes a plain object.
PARAMETERS = {
    "path_or_bytes": "str | os.PathLike[str] | bytes",
    "providers": "Sequence[str | tuple[str, Mapping[str, Any]]] | None",
    "provider_options": "Sequence[Mapping[str, Any]] | None",
    "output_names": "Sequence[str] | None",
    # None: an empty optional; a sequence input takes a list of arrays.
    "input_feed": f"Mapping[str, {ARRAY} | None]",
    "input_dict_ort_values": "Mapping[str, OrtValue]",
    "run_options": "RunOptions | None",
    "key": "str",
    "value": "str",
    "dim_name": "str",
    "dim_value": "int",
    "numpy_obj": NDARRAY,
    "np_arr": ARRAY,
    "arr_on_cpu": NDARRAY,
    "device_type": "str",
    "element_type": "numpy.typing.DTypeLike",
    "shape": "Sequence[int]",
    "buffer_ptr": "int",
    "num_threads": THREADS,
    "microseconds": THREADS,
    "tokens": THREADS,
    "cpus": CPUS,
    "tensors": "Any",
    "generator": "Callable[..., Iterable[Any]]",
    "args": "tuple[Any, ...] | None",
    "paths": "str | Sequence[str]",
    "map_func": "Callable[..., Any]",
    "predicate": "Callable[..., Any]",
    "num_parallel_calls": "int | None",
    "options": "Options",
    "inputs": f"Sequence[{ARRAY} | None]",
}
# Results typed `object` by the bindings, by function name.
RESULTS = {
    "numpy": NDARRAY,
    "data_ptr": "int",
    "tensor_size_in_bytes": "int",
    "shape": "list[int | str | None] | None",
    "describe": "dict[str, Any]",
    "__iter__": "Iterator",
    "__next__": "Any",
}
HEADER = "import os\nfrom typing import Any, Callable, Iterable, Mapping, Sequence\n\nimport numpy\nimport numpy.typing\n"


def typed(text, module):
    # A property setter's value has its getter's type.
    getters = dict(re.findall(r"@property\n    def (\w+)\(self\) -> ([^:]+):", text))
    text = re.sub(
        r"(@(\w+)\.setter\n    def \2\(self, arg: )object(, /\))",
        lambda m: m.group(1) + getters.get(m.group(2), "object") + m.group(3),
        text,
    )
    for name, kind in PARAMETERS.items():
        optional = "" if kind.endswith("| None") else r"\2"
        text = re.sub(rf"\b({name}): object( \| None)?", rf"\1: {kind}{optional}", text)
    for name, kind in RESULTS.items():
        text = re.sub(rf"(def {name}\(self\)|def {name}\(\)) -> object", rf"\1 -> {kind}", text)
    text = re.sub(r"(def (?:run|run_with_ort_values)\(self.*?) -> list:", r"\1 -> list:", text)
    # A sequence output is a list of arrays, an empty optional None.
    text = re.sub(r"(def run\(self, output_names.*?) -> list:",
                  rf"\1 -> list[{NDARRAY} | list[{NDARRAY}] | None]:", text)
    text = re.sub(r"(def run_with_ort_values\(.*?) -> list:", r"\1 -> list[OrtValue]:", text)
    if module == "ops":
        # Eager ops: arrays (or anything NumPy reads as one) in, arrays out.
        text = re.sub(r": object", f": {ARRAY}", text)
        text = re.sub(r"-> object:", f"-> {NDARRAY}:", text)
        text = re.sub(r"-> list:", f"-> list[{NDARRAY}]:", text)
    if module == "data":
        text = text.replace("from loom.data import Options", "")
        text = HEADER.rstrip() + "\nfrom loom.data import Options\n" + text
    else:
        text = HEADER + text
    return text


def render():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "nanobind.stubgen", "-q", "-r", "-m", "loom._loom", "-O", tmp],
            check=True,
        )
        stubs = {}
        for path in sorted(pathlib.Path(tmp, "_loom").rglob("*.pyi")):
            relative = path.relative_to(pathlib.Path(tmp, "_loom"))
            stubs[relative] = typed(path.read_text(), relative.stem)
        return stubs


def main():
    stubs = render()
    if "--check" in sys.argv[1:]:
        stale = [str(p) for p, text in stubs.items() if not (OUT / p).exists()
                 or (OUT / p).read_text() != text]
        if stale:
            print(f"stale stubs {stale}: run python3 scripts/gen_stubs.py", file=sys.stderr)
            return 1
        return 0
    for path, text in stubs.items():
        (OUT / path).parent.mkdir(parents=True, exist_ok=True)
        (OUT / path).write_text(text)
    (ROOT / "python" / "loom" / "py.typed").write_text("")
    return 0


if __name__ == "__main__":
    sys.exit(main())
