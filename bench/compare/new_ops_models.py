"""Real models for the operators added for the ONNX backend suite, Loom vs
ONNX Runtime: outputs compared and latency side by side.

    python3 bench/compare/new_ops_models.py [--out DIR] [--reps 7] [--runs 30]

Models (written to --out, default /tmp/loom-new-ops-models, never into the
repository):
  lstm_classifier  Embedding -> 2-layer bidirectional LSTM (hidden 96) ->
                   Linear, tokens [4, 50]; exported by PyTorch (Debian's
                   python3-torch under /usr/bin/python3), opset 14
  gru_seq          GRU (hidden 100) -> Linear, x [60, 3, 40]; the same
  rnn_loop         a TorchScript loop (torch.jit.script): an RNN cell
                   (Linear, Linear, Tanh) run `steps` times with an `if` on
                   the state's sum in the body, xs [4, 16], steps 20;
                   exported as Loop + If, opset 14
  resnet18_qdq     the shared ResNet-18 quantized statically by
                   onnxruntime.quantization (QDQ, uint8 activations, int8
                   weights, 4 random calibration inputs)
Each cell is the median over --reps interleaved rounds of each runtime's
median of --runs runs, at intra 1 and 2 (inter 1, batch as above).
"""

import argparse
import os
import pathlib
import platform
import statistics
import subprocess
import sys

import numpy as np
import onnxruntime as ort

import loom
from session_timing import median_run_seconds

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "models"

EXPORT = r'''
import sys, torch, numpy as np
out = sys.argv[1]
torch.manual_seed(0)
class Classifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(1000, 64)
        self.lstm = torch.nn.LSTM(64, 96, num_layers=2, bidirectional=True, batch_first=True)
        self.fc = torch.nn.Linear(192, 5)
    def forward(self, tokens):
        y, _ = self.lstm(self.emb(tokens))
        return self.fc(y[:, -1])
class Seq(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = torch.nn.GRU(40, 100)
        self.fc = torch.nn.Linear(100, 10)
    def forward(self, x):
        y, h = self.gru(x)
        return self.fc(y), h
class Loop(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.x2h = torch.nn.Linear(16, 64)
        self.h2h = torch.nn.Linear(64, 64)
    def forward(self, xs: torch.Tensor, steps: torch.Tensor):
        h = torch.zeros(xs.shape[0], 64)
        for _ in range(int(steps)):
            h = torch.tanh(self.x2h(xs) + self.h2h(h))
            if bool(h.sum() > 0):
                h = h * 0.5
            else:
                h = h + 0.25
        return h
loop = torch.jit.script(Loop().eval())
xs, steps = torch.randn(4, 16), torch.tensor(20)
torch.onnx.export(loop, (xs, steps), f"{out}/rnn_loop.onnx", input_names=["xs", "steps"],
                  output_names=["h"], opset_version=14)
np.savez(f"{out}/rnn_loop.inputs.npz", xs=xs.numpy(), steps=steps.numpy())
tokens = torch.randint(0, 1000, (4, 50))
x = torch.randn(60, 3, 40)
for name, model, args, names, axes in [
    ("lstm_classifier", Classifier().eval(), (tokens,), (["tokens"], ["logits"]),
     {"tokens": {0: "batch", 1: "seq"}}),
    ("gru_seq", Seq().eval(), (x,), (["x"], ["y", "h"]), {"x": {0: "seq", 1: "batch"}}),
]:
    torch.onnx.export(model, args, f"{out}/{name}.onnx", input_names=names[0],
                      output_names=names[1], dynamic_axes=axes, opset_version=14)
    np.save(f"{out}/{name}.input.npy", args[0].numpy())
'''


def export(out):
    out.mkdir(parents=True, exist_ok=True)
    if not (out / "rnn_loop.onnx").exists():
        # From a file: torch.jit.script reads the module's source.
        script = out / "export_models.py"
        script.write_text(EXPORT)
        subprocess.run(["/usr/bin/python3", str(script), str(out)], check=True)
    q = out / "resnet18_qdq.onnx"
    if not q.exists() and (SHARED / "resnet18.onnx").exists():
        from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                              quantize_static)
        name = (SHARED / "resnet18.input_name").read_text().strip()
        x = np.load(SHARED / "resnet18.input.npy")

        class Reader(CalibrationDataReader):
            def __init__(self):
                rng = np.random.default_rng(0)
                self.data = iter([{name: rng.standard_normal(x.shape, dtype=np.float32)}
                                  for _ in range(4)])

            def get_next(self):
                return next(self.data, None)

        quantize_static(str(SHARED / "resnet18.onnx"), str(q), Reader(),
                        quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8)
        np.save(out / "resnet18_qdq.input.npy", x)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="/tmp/loom-new-ops-models")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--runs", type=int, default=30)
    args = p.parse_args()
    out = pathlib.Path(args.out)
    export(out)
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), platform.processor())
    print(f"CPU: {cpu}, {os.cpu_count()} logical CPUs; onnxruntime {ort.__version__}; "
          f"median of {args.reps} interleaved rounds of {args.runs} runs\n")
    print("| model | max abs diff Loom vs ORT (largest |output|) | intra | Loom ms | ORT ms | "
          "Loom/ORT |")
    print("|---|---|---|---|---|---|")
    for name in ("lstm_classifier", "gru_seq", "rnn_loop", "resnet18_qdq"):
        model = out / f"{name}.onnx"
        if not model.exists():
            print(f"| {name} | not exported (shared models or torch missing) | | | | |")
            continue
        several = out / f"{name}.inputs.npz"
        feeds = (dict(np.load(several)) if several.exists()
                 else {"": np.load(out / f"{name}.input.npy")})
        for intra in (1, 2):
            lo = loom.SessionOptions()
            lo.intra_op_num_threads, lo.inter_op_num_threads = intra, 1
            ls = loom.InferenceSession(str(model), lo)
            so = ort.SessionOptions()
            so.intra_op_num_threads, so.inter_op_num_threads = intra, 1
            os_ = ort.InferenceSession(str(model), so, providers=["CPUExecutionProvider"])
            if "" in feeds:
                feeds = {ls.get_inputs()[0].name: feeds[""]}
            diff = max(float(np.max(np.abs(a - b)))
                       for a, b in zip(ls.run(None, feeds), os_.run(None, feeds)))
            scale = max(float(np.max(np.abs(b))) for b in os_.run(None, feeds))
            lt, ot = [], []
            for _ in range(args.reps):
                lt.append(1e3 * median_run_seconds(ls, feeds, args.runs))
                ot.append(1e3 * median_run_seconds(os_, feeds, args.runs))
            lm, om = statistics.median(lt), statistics.median(ot)
            print(f"| {name} | {diff:.2g} ({scale:.3g}) | {intra} | {lm:.2f} | {om:.2f} | "
                  f"{lm / om:.2f} |", flush=True)


if __name__ == "__main__":
    main()
