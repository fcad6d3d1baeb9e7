"""Per-call cost of a one-node model (Gemm 1x16 by 16x16): Loom's InferenceSession.run vs ONNX
Runtime's, intra 1, inter 1, interleaved blocks of 2,000 calls, median of 15 blocks each. What
it measures is nearly all call overhead: argument checks, the feed's conversion from NumPy,
the executor's step, the output's conversion to NumPy.

    python3 bench/python/call_overhead_vs_ort.py
"""
import time, numpy as np, loom, onnxruntime as ort
from onnx import helper, numpy_helper
rng = np.random.default_rng(0)
W = rng.standard_normal((16, 16)).astype(np.float32); b = rng.standard_normal(16).astype(np.float32)
g = helper.make_graph([helper.make_node('Gemm', ['x','W','b'], ['g'], transB=1)], 'g',
    [helper.make_tensor_value_info('x', 1, [1, 16])], [helper.make_tensor_value_info('g', 1, [1, 16])],
    [numpy_helper.from_array(W, 'W'), numpy_helper.from_array(b, 'b')])
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)]); m.ir_version = 8
data = m.SerializeToString()
so = loom.SessionOptions(); so.intra_op_num_threads = 1; so.inter_op_num_threads = 1
o = ort.SessionOptions(); o.intra_op_num_threads = 1; o.inter_op_num_threads = 1
sessions = {'loom': loom.InferenceSession(data, so),
            'ort': ort.InferenceSession(data, o, providers=['CPUExecutionProvider'])}
x = np.ones((1, 16), np.float32)
times = {k: [] for k in sessions}
for _ in range(15):
    for name, s in sessions.items():
        t0 = time.perf_counter()
        for _ in range(2000): s.run(None, {'x': x})
        times[name].append((time.perf_counter() - t0) / 2000 * 1e6)
l, r = np.median(times['loom']), np.median(times['ort'])
print(f'loom {l:.1f} us  ort {r:.1f} us  ratio {l / r:.2f}')
