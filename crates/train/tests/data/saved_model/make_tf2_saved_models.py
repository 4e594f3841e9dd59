"""Writes the TensorFlow 2 SavedModels that weir's loader tests read
(crates/train/tests/integration/saved_model.rs): models saved the TensorFlow 2 way, whose
graphs call functions (StatefulPartitionedCall) and whose variables are restored through a
traced restore function.

Run with TensorFlow 2.x (written with 2.21, Keras 3) from any directory:

    python make_tf2_saved_models.py

It replaces, beside this script:

* tf2_module/: tf.saved_model.save of a tf.Module: softmax(x @ w + b), signature
  `serving_default` with input `x` [None, 3] and output `y`.
* keras/: a Keras 3 functional model (Dense 16 relu, Dropout, BatchNormalization, Dense 3
  softmax) trained for 2 epochs, exported with model.export() (signature `serving_default`,
  input `features`, output `output_0`).
* tf2_expected.json: per model, the input and output keys and what TensorFlow computes for
  fixed inputs.
"""

import json
import os
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


class Module(tf.Module):
    def __init__(self):
        self.w = tf.Variable([[0.5, -0.25], [0.125, 1.0], [-0.5, 0.75]], name="w")
        self.b = tf.Variable([0.1, -0.2], name="b")

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def __call__(self, x):
        return {"y": tf.nn.softmax(tf.matmul(x, self.w) + self.b)}


def module_model(path):
    m = Module()
    tf.saved_model.save(m, path, signatures={"serving_default": m.__call__})
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
    return {"input": "x", "output": "y", "x": x.tolist(), "y": m(x)["y"].numpy().tolist()}


def keras_model(path):
    keras.utils.set_random_seed(1)
    inp = keras.Input((8,), name="features")
    h = keras.layers.Dense(16, activation="relu")(inp)
    h = keras.layers.Dropout(0.5)(h)
    h = keras.layers.BatchNormalization()(h)
    out = keras.layers.Dense(3, activation="softmax")(h)
    model = keras.Model(inp, out)
    model.compile("adam", "sparse_categorical_crossentropy")
    x = np.random.RandomState(0).randn(64, 8).astype(np.float32)
    model.fit(x, np.arange(64) % 3, epochs=2, verbose=0)
    model.export(path, verbose=False)
    return {"input": "features", "output": "output_0", "x": x[:4].tolist(),
            "y": model.predict(x[:4], verbose=0).tolist()}


def main():
    expected = {}
    for name, make in [("tf2_module", module_model), ("keras", keras_model)]:
        path = os.path.join(HERE, name)
        shutil.rmtree(path, ignore_errors=True)
        expected[name] = make(path)
    with open(os.path.join(HERE, "tf2_expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
