"""Writes the TensorFlow checkpoints weir's tests restore (crates/train/tests/integration/tf_checkpoints.rs).

Run with TensorFlow 2.x (written with 2.21) from any directory:

    python make_checkpoints.py

It replaces, beside this script:

* model.ckpt-5.{index,data-00000-of-00001}, model.ckpt-7.{...} and the `checkpoint` state file:
  tf.compat.v1.train.Saver (V2 format, max_to_keep=2, so model.ckpt-3 is written and deleted)
  of 26 variables covering every dtype weir has, a scalar, an empty tensor, a > 300 KB tensor
  and names with scopes; more than 16 entries, so the index block has two restart points.
* long_names/model.ckpt.{...}: 38 scalar variables whose names are 7400 bytes long, so the index
  table spills over TensorFlow's 256 KiB block size into two data blocks.
* sharded/model.ckpt-1.{...}: a Saver(sharded=True) save, as MonitoredTrainingSession's
  default saver makes: per-shard bundles merged by MergeV2Checkpoints.
* tf2/ckpt-1, ckpt-2 and a `checkpoint` file with timestamps: a TF2 tf.train.Checkpoint saved
  through tf.train.CheckpointManager (object-based names such as v/.ATTRIBUTES/VARIABLE_VALUE).
* expected.json: every variable's dtype, shape and values, per checkpoint. Float values are
  multiples of 1/8 so they are exact in JSON; the big tensor is given by its pattern
  (value[i] = (i % modulus) * scale + offset, row-major) instead of its 78400 values.
"""

import json
import os
import shutil
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

HERE = os.path.dirname(os.path.abspath(__file__))
LONG_NAME_COUNT = 38
LONG_NAME_PAD = 7400


def big_values(step):
    """The > 300 KB float32 tensor: 280 x 280 (313,600 bytes), a pattern that varies with the step."""
    return {"modulus": 97, "scale": 0.5, "offset": -20.0 + step}


def model_values(step):
    """name -> (dtype, shape, flat values) of the model checkpoint saved at `step`."""
    s = float(step)
    v = {
        "dense/kernel": ("float32", [3, 4], [i * 0.25 - 1.0 + s for i in range(12)]),
        "dense/bias": ("float32", [4], [0.5, -0.5, 0.125 * step, 2.0]),
        "counts": ("int64", [5], [-1, 0, 1 << 40, -(1 << 63), (1 << 63) - 1]),
        "global_step": ("int64", [], [step]),
        "flags": ("bool", [3], [True, False, step % 2 == 1]),
        "words": (
            "string",
            [2, 3],
            ["", "hello", "w\u00f6rld", "x" * 200, "tab\tand\nnewline", "step %d" % step],
        ),
        "pi": ("float64", [], [3.140625 + s]),
        "empty": ("float32", [0, 3], []),
        "ints/i32": ("int32", [2, 2], [-(1 << 31), (1 << 31) - 1, 7, step]),
        "ints/i16": ("int16", [3], [-32768, 32767, step]),
        "ints/i8": ("int8", [3], [-128, 127, step]),
        "ints/u8": ("uint8", [3], [0, 255, step]),
        "ints/u16": ("uint16", [3], [0, 65535, step]),
    }
    for i in range(12):
        v["layer_%02d/w" % i] = ("float32", [2], [i + 0.5, -i - s])
    v["big"] = ("float32", [280, 280], big_values(step))
    return v


def sharded_values(step):
    return {
        "w": ("float32", [2, 2], [1.0, 2.0, 3.0, step * 1.0]),
        "names": ("string", [2], ["a", "b%d" % step]),
        "global_step": ("int64", [], [step]),
    }


def long_name(i):
    return "long_%02d/" % i + "n" * LONG_NAME_PAD


def long_values():
    return {long_name(i): ("float32", [], [i * 0.5]) for i in range(LONG_NAME_COUNT)}


def np_value(np, dtype, shape, values):
    if isinstance(values, dict):
        n = 1
        for d in shape:
            n *= d
        i = np.arange(n)
        flat = (i % values["modulus"]) * values["scale"] + values["offset"]
        return flat.astype(dtype).reshape(shape)
    if dtype == "string":
        return np.array([w.encode("utf-8") for w in values], dtype=object).reshape(shape)
    return np.array(values, dtype=dtype).reshape(shape)


def save_v1(tf, np, out_dir, basename, steps, make_values, max_to_keep, sharded=False):
    """Saves one graph's variables at each step, as TF1 programs do."""
    g = tf.Graph()
    with g.as_default():
        first = make_values(steps[0])
        variables = {}
        for name, (dtype, shape, values) in first.items():
            variables[name] = tf.compat.v1.Variable(
                np_value(np, dtype, shape, values), name=name
            )
        saver = tf.compat.v1.train.Saver(
            max_to_keep=max_to_keep, save_relative_paths=True, sharded=sharded
        )
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            for step in steps:
                for name, (dtype, shape, values) in make_values(step).items():
                    variables[name].load(np_value(np, dtype, shape, values), sess)
                saver.save(
                    sess,
                    os.path.join(out_dir, basename),
                    global_step=step if len(steps) > 1 else None,
                    write_meta_graph=False,
                )


def json_values(values):
    return {
        name: {"dtype": dtype, "shape": shape, "values": vals}
        for name, (dtype, shape, vals) in values.items()
    }


def tf2_part():
    """The TF2 object-based checkpoint, in its own process (v2 behaviour on)."""
    import tensorflow as tf

    out = os.path.join(HERE, "tf2")
    ckpt = tf.train.Checkpoint(
        v=tf.Variable([1.0, 2.0, 3.0]), step=tf.Variable(0, dtype=tf.int64)
    )
    manager = tf.train.CheckpointManager(ckpt, out, max_to_keep=3)
    for step in (1, 2):
        ckpt.v.assign([step * 1.0, step * 2.0, step * 3.0])
        ckpt.step.assign(step)
        manager.save()


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--tf2":
        tf2_part()
        return
    for sub in ("long_names", "sharded", "tf2"):
        shutil.rmtree(os.path.join(HERE, sub), ignore_errors=True)
    for f in os.listdir(HERE):
        if f.startswith("model.ckpt") or f == "checkpoint":
            os.remove(os.path.join(HERE, f))
    subprocess.check_call([sys.executable, os.path.abspath(__file__), "--tf2"])

    import numpy as np
    import tensorflow as tf

    tf.compat.v1.disable_v2_behavior()
    save_v1(tf, np, HERE, "model.ckpt", [3, 5, 7], model_values, max_to_keep=2)
    long_dir = os.path.join(HERE, "long_names")
    os.makedirs(long_dir)
    save_v1(tf, np, long_dir, "model.ckpt", [0], lambda _: long_values(), max_to_keep=1)
    sharded_dir = os.path.join(HERE, "sharded")
    os.makedirs(sharded_dir)
    save_v1(tf, np, sharded_dir, "model.ckpt", [1], sharded_values, max_to_keep=1, sharded=True)

    expected = {
        "tensorflow_version": tf.__version__,
        "checkpoints": {
            "model.ckpt-5": json_values(model_values(5)),
            "model.ckpt-7": json_values(model_values(7)),
            "sharded/model.ckpt": json_values(sharded_values(1)),
            "tf2/ckpt-2": {
                "v/.ATTRIBUTES/VARIABLE_VALUE": {
                    "dtype": "float32",
                    "shape": [3],
                    "values": [2.0, 4.0, 6.0],
                },
                "step/.ATTRIBUTES/VARIABLE_VALUE": {
                    "dtype": "int64",
                    "shape": [],
                    "values": [2],
                },
            },
        },
        "long_names": {
            "prefix": "n" * LONG_NAME_PAD,
            "count": LONG_NAME_COUNT,
            "value_scale": 0.5,
        },
    }
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
