"""Copies ONNX models with their batch dimension made symbolic ("N"), for
batch > 1 in bench/compare/cnn_vs_ort.py, and checks ONNX Runtime runs the
copy at batch 8 with the batch-1 answer (a model whose exporter baked batch 1
into Reshape constants is dropped, as ShuffleNet-V2's is).

    cd OUT_DIR && python3 .../make_batch_symbolic.py MODEL.onnx...
"""
import onnx, sys, os, glob, numpy as np, onnxruntime as ort
for src in sys.argv[1:]:
    name=os.path.basename(src)[:-5]
    m=onnx.load(src)
    for v in list(m.graph.input)+list(m.graph.output):
        v.type.tensor_type.shape.dim[0].dim_param='N'
    del m.graph.value_info[:]
    onnx.save(m, name+'.onnx')
    x=np.load(src[:-5]+'.input.npy'); np.save(name+'.input.npy', x)
    try:
        s=ort.InferenceSession(name+'.onnx', providers=['CPUExecutionProvider'])
        y1=s.run(None,{s.get_inputs()[0].name:x})[0]; y8=s.run(None,{s.get_inputs()[0].name:np.concatenate([x]*8)})[0]
        print(name, 'ok' if np.allclose(y8[:1],y1,atol=1e-4) else 'MISMATCH', y8.shape)
    except Exception as e:
        print(name,'ORT fails at batch 8:',str(e)[:100]); os.remove(name+'.onnx')
