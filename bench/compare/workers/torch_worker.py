"""PyTorch worker: times the nn.Module torch_builder.py makes, prints one JSON line.

Runs under /usr/bin/python3 (Debian's torch 1.13 and numpy 1.24; no onnx).
The module (same architecture and weights as NAME.onnx) runs in eval() under
torch.inference_mode(), eagerly: no TorchScript, as most PyTorch code runs.

Threads, when asked: torch.set_num_threads(intra) and
torch.set_num_interop_threads(inter), before any op (the inter-op one raises
once the pool exists). Eager PyTorch runs one op at a time, so the inter-op
pool serves only explicit async work (torch.jit.fork); a forward never uses it.
Omitted: PyTorch's defaults.

    /usr/bin/python3 bench/compare/workers/torch_worker.py --spec-dir DIR --model resnet18 --batch 1
"""
import measure  # first: its import time is the process start for setup_s

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import torch_builder  # noqa: E402


def set_threads(args):
    calls = []
    if args.intra is not None:
        torch.set_num_threads(args.intra)
        calls.append(f"torch.set_num_threads({args.intra})")
    if args.inter is not None:
        torch.set_num_interop_threads(args.inter)
        calls.append(f"torch.set_num_interop_threads({args.inter})")
    in_force = f"in force: {torch.get_num_threads()} intra, {torch.get_num_interop_threads()} inter-op"
    return (", ".join(calls) if calls else "PyTorch defaults (no thread calls)") + "; " + in_force


def main():
    args = measure.parse_args(__doc__.split("\n")[0])
    settings = set_threads(args)
    module = torch_builder.build(measure.load_spec(args), measure.load_weights(args))
    x = torch.from_numpy(measure.batch_input(args))

    timer = measure.Timer(args)
    with torch.inference_mode():
        output = timer.measure(lambda: module(x))
    measure.report(args, timer, "torch " + torch.__version__, settings, lambda: output.numpy())


if __name__ == "__main__":
    main()
