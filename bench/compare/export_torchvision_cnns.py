"""Exports torchvision CNNs to ONNX for the convolution benchmarks
(bench/compare/cnn_vs_ort.py, bench/results/nchwc-*.md): NAME.onnx,
NAME.input.npy (1x3x224x224, fixed seed), NAME.input_name, NAME.output.npy
(PyTorch's output), the layout of ../shared/models. Random weights
(weights=None): the files measure speed, not accuracy, and stay out of the
repository (10-100 MB each).

    /usr/bin/python3 bench/compare/export_torchvision_cnns.py OUT_DIR [NAME...]

Needs Debian's python3-torch and python3-torchvision (torch 1.13: the
TorchScript exporter, opset 17).
"""
import sys, inspect, os, numpy as np, torch, torchvision.models as M
from torchvision.models import segmentation as S
torch.set_num_threads(1)
OUT = sys.argv[1] if len(sys.argv) > 1 else "cnn_models"
os.makedirs(OUT, exist_ok=True)

class OutOnly(torch.nn.Module):
    def __init__(self, m): super().__init__(); self.m = m
    def forward(self, x): return self.m(x)["out"]

SPECS = {
    "googlenet": lambda: M.googlenet(weights=None, aux_logits=False, init_weights=True),
    "densenet121": lambda: M.densenet121(weights=None),
    "resnext50": lambda: M.resnext50_32x4d(weights=None),
    "mobilenet_v3_large": lambda: M.mobilenet_v3_large(weights=None),
    "shufflenet_v2": lambda: M.shufflenet_v2_x1_0(weights=None),
    "regnet_x_400mf": lambda: M.regnet_x_400mf(weights=None),
    "efficientnet_b0": lambda: M.efficientnet_b0(weights=None),
    "lraspp": lambda: OutOnly(S.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)),
    "resnet50": lambda: M.resnet50(weights=None),
    "squeezenet": lambda: M.squeezenet1_1(weights=None),
}
names = sys.argv[2:] or list(SPECS)
for name in names:
    torch.manual_seed(0)
    model = SPECS[name]().eval()
    x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
    xt = torch.from_numpy(x)
    with torch.no_grad():
        y = model(xt).numpy().astype(np.float32)
    kw = dict(opset_version=17, do_constant_folding=True, input_names=["input"], output_names=["output"])
    if "dynamo" in inspect.signature(torch.onnx.export).parameters: kw["dynamo"] = False
    try:
        with torch.no_grad():
            torch.onnx.export(model, (xt,), f"{OUT}/{name}.onnx", **kw)
    except Exception as e:
        print(f"EXPORT FAIL {name}: {type(e).__name__}: {e}", flush=True); continue
    np.save(f"{OUT}/{name}.input.npy", x)
    np.save(f"{OUT}/{name}.output.npy", y)
    open(f"{OUT}/{name}.input_name", "w").write("input")
    print("ok", name, y.shape, flush=True)
