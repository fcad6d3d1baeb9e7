"""Exports the transformer models of the dense/transformer benchmarks
(bench/results/transformers-*.md) in the layout of ../shared/models:
NAME.onnx, NAME.input.npy (fixed seed), NAME.input_name and NAME.output.npy
(PyTorch's output). Random weights: the files measure speed, not accuracy,
and stay out of the repository.

    /usr/bin/python3 bench/compare/export_transformers.py OUT_DIR [NAME...]

  encoder_small  2 encoder layers, d 128, 4 heads, FFN 512, 64 tokens of
                 float input; opset 13, so LayerNorm is exported decomposed
                 (ReduceMean/Sub/Pow/Add/Sqrt/Div) and GELU as its Erf chain
  vit_small      a 2-layer ViT on 32x32 images (4x4 patches by a strided
                 Conv, class token, learned positions), d 128, 4 heads,
                 GELU in its tanh form; opset 13
  minilm_128     a MiniLM-sized text encoder: int64 token ids [1, 128],
  minilm_512     word + position embeddings, 4 layers, d 384, 6 heads,
                 FFN 1536, an additive padding mask computed from the ids
                 (id 0 = padding), opset 17 (LayerNormalization is one op)

The attention is written the way Hugging Face's BERT is: Linear Q/K/V,
reshapes whose target shape comes from the tensor's runtime size (so the
export holds Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains),
Q.Kᵀ / sqrt(d_head) + mask, Softmax, .V, and back.

Needs Debian's python3-torch (torch 1.13: the TorchScript exporter).
"""
import math
import os
import sys

import numpy as np
import torch
from torch import nn

torch.set_num_threads(1)


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.d_head = heads, d // heads
        self.q, self.k, self.v, self.out = (nn.Linear(d, d) for _ in range(4))

    def split(self, x):
        b, s = x.shape[0], x.shape[1]
        return x.reshape(b, s, self.heads, self.d_head).transpose(1, 2)

    def forward(self, x, mask):
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores + mask
        context = torch.matmul(scores.softmax(-1), v).transpose(1, 2)
        return self.out(context.reshape(x.shape[0], x.shape[1], -1))


class EncoderLayer(nn.Module):
    def __init__(self, d, heads, ffn, gelu="none"):
        super().__init__()
        self.attention = Attention(d, heads)
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ffn = nn.Sequential(nn.Linear(d, ffn), nn.GELU(approximate=gelu), nn.Linear(ffn, d))

    def forward(self, x, mask=None):
        x = self.norm1(x + self.attention(x, mask))
        return self.norm2(x + self.ffn(x))


class Encoder(nn.Module):
    def __init__(self, layers, d, heads, ffn, gelu="none"):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(d, heads, ffn, gelu) for _ in range(layers))

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return x


class ViT(nn.Module):
    def __init__(self, d=128, heads=4, layers=2, patch=4, classes=10):
        super().__init__()
        self.patches = nn.Conv2d(3, d, patch, stride=patch)
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.positions = nn.Parameter(torch.randn(1, (32 // patch) ** 2 + 1, d) * 0.02)
        self.encoder = Encoder(layers, d, heads, 4 * d, gelu="tanh")
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, images):
        x = self.patches(images).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.positions
        return self.head(self.norm(self.encoder(x))[:, 0])


class TextEncoder(nn.Module):
    def __init__(self, vocab=30522, d=384, heads=6, layers=4, ffn=1536, max_len=512):
        super().__init__()
        self.words, self.positions = nn.Embedding(vocab, d), nn.Embedding(max_len, d)
        self.norm = nn.LayerNorm(d)
        self.encoder = Encoder(layers, d, heads, ffn)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = self.norm(self.words(ids) + self.positions(positions))
        mask = (1.0 - (ids != 0).to(torch.float32))[:, None, None, :] * -10000.0
        return self.encoder(x, mask)


def text_ids(seq):
    rng = np.random.default_rng(0)
    ids = rng.integers(1000, 30000, size=(1, seq)).astype(np.int64)
    ids[0, seq - seq // 8:] = 0  # padding at the end, so the mask matters
    return ids


SPECS = {
    "encoder_small": (lambda: Encoder(2, 128, 4, 512),
                      lambda: np.random.default_rng(0).standard_normal((1, 64, 128)).astype(np.float32), 13),
    "vit_small": (lambda: ViT(),
                  lambda: np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32), 13),
    "minilm_128": (lambda: TextEncoder(), lambda: text_ids(128), 17),
    "minilm_512": (lambda: TextEncoder(), lambda: text_ids(512), 17),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "transformer_models"
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:] or list(SPECS):
        make_model, make_input, opset = SPECS[name]
        torch.manual_seed(0)
        model = make_model().eval()
        x = make_input()
        xt = torch.from_numpy(x)
        with torch.no_grad():
            y = model(xt).numpy()
        input_name = "input_ids" if x.dtype == np.int64 else "input"
        torch.onnx.export(model, (xt,), f"{out}/{name}.onnx", opset_version=opset,
                          input_names=[input_name], output_names=["output"])
        np.save(f"{out}/{name}.input.npy", x)
        np.save(f"{out}/{name}.output.npy", y)
        with open(f"{out}/{name}.input_name", "w") as f:
            f.write(input_name + "\n")
        print(name, x.shape, "->", y.shape, flush=True)


if __name__ == "__main__":
    main()
