"""Writes a TensorFlow 2.21 V2 checkpoint (tf.train.Saver) of one variable per dtype weir
gained (uint32, uint64, float16, bfloat16, complex64, complex128), and expected.json with each
variable's value as {"dtype", "shape", "hex"} (little-endian element bytes), for
crates/train/tests/integration/dtypes_checkpoint.rs (which restores them, and checks that
weir's Saver writes the same variables as these very bytes, so TensorFlow reads weir's).

Run with TensorFlow 2.21:  python make_dtypes_checkpoint.py
"""
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
TYPES = [tf.uint32, tf.uint64, tf.float16, tf.bfloat16, tf.complex64, tf.complex128]


def value(t, shape):
    n = int(np.prod(shape))
    if t.is_complex:
        a = np.array([complex(i * 0.5 - 1, 2 - i * 0.25) for i in range(n)])
    elif t.is_floating:
        a = np.array([[-0.0, 1.5, np.nan, -np.inf, 65504.0, 1e-3][i % 6] for i in range(n)])
    else:
        a = np.array([[0, 1, t.max, 7, 100, 3][i % 6] for i in range(n)])
    return a.astype(t.as_numpy_dtype).reshape(shape)


def main():
    specs = {}
    with tf.Graph().as_default():
        for t in TYPES:
            for shape in [[], [2, 3]]:
                name = f"v_{t.name}_{len(shape)}d"
                x = value(t, shape)
                tf.Variable(x, dtype=t, name=name, use_resource=False)
                specs[name] = {"dtype": t.name, "shape": shape, "hex": x.tobytes().hex()}
        saver = tf.train.Saver()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            saver.save(s, os.path.join(HERE, "model.ckpt"), write_state=False, write_meta_graph=False)
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(specs, f, indent=1)


if __name__ == "__main__":
    main()
