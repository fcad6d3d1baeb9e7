"""TensorFlow worker: times the Keras model keras_builder.py makes, prints one JSON line.

The model (same architecture and weights as NAME.onnx, see keras_builder.py)
is built once and called through tf.function (jit_compile=False: TF's default
graph executor, no XLA) on a constant NHWC tensor; the warm-up runs trace it.

Threads, when asked: tf.config.threading.set_intra_op_parallelism_threads /
set_inter_op_parallelism_threads, before TensorFlow runs any op (after that
they raise). Omitted: TF's defaults (0 = let TF pick, the usable cores).

    .venv-compare/bin/python bench/compare/workers/tf_worker.py --spec-dir DIR --model resnet18 --batch 1
"""
import measure  # first: its import time is the process start for setup_s

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # logging only; stdout stays one JSON line
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def set_threads(args):
    calls = []
    if args.intra is not None:
        tf.config.threading.set_intra_op_parallelism_threads(args.intra)
        calls.append(f"set_intra_op_parallelism_threads({args.intra})")
    if args.inter is not None:
        tf.config.threading.set_inter_op_parallelism_threads(args.inter)
        calls.append(f"set_inter_op_parallelism_threads({args.inter})")
    return ("tf.config.threading." + ", ".join(calls) if calls
            else "TF defaults (no threading calls; 0 = TF picks)")


def main():
    args = measure.parse_args(__doc__.split("\n")[0])
    settings = set_threads(args)
    import keras_builder  # after the thread calls: importing Keras must not start the runtime first

    model = keras_builder.build(measure.load_spec(args), measure.load_weights(args))
    call = tf.function(model.__call__, jit_compile=False)
    x = tf.constant(keras_builder.to_keras_layout(measure.batch_input(args)))

    timer = measure.Timer(args)
    # On CPU the call returns once the graph has run: the result is computed, not pending.
    output = timer.measure(lambda: call(x, training=False))
    measure.report(args, timer, "tensorflow " + tf.__version__, settings,
                   lambda: keras_builder.to_onnx_layout(output.numpy()))


if __name__ == "__main__":
    main()
