"""Vector registers stored to the stack, per function, in an assembly listing.

usage: python3 bench/kernels/stack_stores.py FILE.s [REGEX]

Prints, for each function whose demangled name matches REGEX (default: the
NCHWc conv tiles), the vector stores to %rsp and the FMAs in its body. A
register tile whose stores approach its FMAs keeps its accumulators in
memory (bench/results/avx2-zen3-2026-12-07.md: 51 stores beside 24 FMAs,
29 instead of 77 GFLOP/s). Make the listing from the build's own command:

    cd build/release && ninja -t commands loom_kernels_nchwc | \\
      grep -- '-c .*f32_nchwc__avx2_fma.cc' | tail -1   # then replace -o X.o by -S -o /tmp/x.s
"""
import re
import subprocess
import sys

path = sys.argv[1]
pattern = re.compile(sys.argv[2] if len(sys.argv) > 2 else r"ConvTile|ConvRowTile|ConvTilesPointwise")
counts = {}
current = None
with open(path) as f:
    for line in f:
        label = re.match(r"^(_Z\S+):$", line)
        if label:
            current = label.group(1)
            counts[current] = [0, 0]
        elif current is not None:
            if re.search(r"vmov\w+\s+%[xyz]mm\d+, -?\d*\(%rsp\)", line):
                counts[current][0] += 1
            elif "vfmadd" in line:
                counts[current][1] += 1
names = list(counts)
demangled = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True,
                           text=True, check=True).stdout.split("\n")
print(f"{'stores':>6s} {'fmas':>5s}  function")
for name, pretty in sorted(zip(names, demangled), key=lambda nd: -counts[nd[0]][0]):
    stores, fmas = counts[name]
    if pattern.search(pretty) and fmas > 0:
        print(f"{stores:6d} {fmas:5d}  {pretty[:150]}")
