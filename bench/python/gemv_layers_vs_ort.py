"""The MLP and its two big layers alone (Gemm 1 x k by k x 1024, transB, constant weights):
Loom vs ONNX Runtime at intra 1 and 2 (inter 1), interleaved rounds of 200 calls, medians.

    python3 bench/python/gemv_layers_vs_ort.py [ROUNDS] [MLP.onnx]
"""
import time, sys, numpy as np, onnx, loom, onnxruntime as ort
from onnx import helper, TensorProto, numpy_helper
def gemm_model(k, n, relu=False):
    rng = np.random.default_rng(0)
    W = rng.standard_normal((n, k)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    nodes = [helper.make_node('Gemm', ['x', 'W', 'b'], ['g'], transB=1)]
    out = 'g'
    if relu:
        nodes.append(helper.make_node('Relu', ['g'], ['y'])); out = 'y'
    g = helper.make_graph(nodes, 'g', [helper.make_tensor_value_info('x', 1, [1, k])],
                          [helper.make_tensor_value_info(out, 1, [1, n])],
                          [numpy_helper.from_array(W, 'W'), numpy_helper.from_array(b, 'b')])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)]); m.ir_version = 8
    return m.SerializeToString()
mlp_path = sys.argv[2] if len(sys.argv) > 2 else '../shared/models/mlp.onnx'
models = {'mlp': open(mlp_path, 'rb').read(),
          'gemm784x1024': gemm_model(784, 1024), 'gemm1024x1024': gemm_model(1024, 1024)}
reps = int(sys.argv[1]) if len(sys.argv) > 1 else 15
for name, data in models.items():
    k = 784 if name != 'gemm1024x1024' else 1024
    x = np.random.default_rng(1).standard_normal((1, k)).astype(np.float32)
    sess = {}
    for t in (1, 2):
        so = loom.SessionOptions(); so.intra_op_num_threads = t; so.inter_op_num_threads = 1
        sess[('loom', t)] = loom.InferenceSession(data, so)
        o = ort.SessionOptions(); o.intra_op_num_threads = t; o.inter_op_num_threads = 1
        sess[('ort', t)] = ort.InferenceSession(data, o, providers=['CPUExecutionProvider'])
    inp = {sess[('ort', 1)].get_inputs()[0].name: x}
    times = {key: [] for key in sess}
    for r in range(reps):
        for key, s in sess.items():
            for _ in range(20): s.run(None, inp)
            t0 = time.perf_counter(); N = 200
            for _ in range(N): s.run(None, inp)
            times[key].append((time.perf_counter() - t0) / N * 1e6)
    med = {key: float(np.median(v)) for key, v in times.items()}
    print(f"{name:14s} loom 1/2: {med[('loom',1)]:7.1f} {med[('loom',2)]:7.1f} us ({med[('loom',1)]/med[('loom',2)]:.2f}x)   ort 1/2: {med[('ort',1)]:7.1f} {med[('ort',2)]:7.1f} us ({med[('ort',1)]/med[('ort',2)]:.2f}x)")
