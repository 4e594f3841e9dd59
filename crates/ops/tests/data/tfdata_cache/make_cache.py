"""Writes the cache files that TensorFlow 2.21's `Dataset.cache(filename)` makes, for
tests/integration/data_cache_file.rs: weir must read them, and write the same bytes.

Run with the TF venv: $HOME/.cache/weir-bench/venv/bin/python make_cache.py
Writes three/cache.{index,data-00000-of-00001}, eleven/cache.{index,data-00000-of-00001} and
empty/cache.index.
"""
import os
import shutil

import tensorflow as tf

tf.compat.v1.disable_eager_execution()
v1 = tf.compat.v1
HERE = os.path.dirname(os.path.abspath(__file__))


def three():
    # int64 scalar, string scalar, float32 [2]: 12 elements.
    return tf.data.Dataset.range(12).map(
        lambda x: (x, tf.strings.as_string(x), tf.cast(tf.stack([x, x + 1]), tf.float32)))


def eleven():
    # Eleven components (two-digit tensor numbers in the keys), of every dtype weir has.
    def f(x):
        return (x, tf.cast(x, tf.int32), tf.cast(x, tf.uint8), tf.cast(x, tf.int8),
                tf.cast(x, tf.int16), tf.cast(x, tf.uint16), tf.cast(x, tf.float64) / 3,
                tf.equal(x % 2, 0), tf.strings.as_string(x * 1000),
                tf.fill([x], tf.constant("ab")), tf.reshape(tf.range(x * 2), [x, 2]))
    return tf.data.Dataset.range(3).map(f)


def write(name, ds):
    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    it = v1.data.make_one_shot_iterator(ds.cache(os.path.join(d, "cache")))
    nx = it.get_next()
    with v1.Session() as s:
        try:
            while True:
                s.run(nx)
        except tf.errors.OutOfRangeError:
            pass
    print(name, sorted(os.listdir(d)))


write("three", three())
write("eleven", eleven())
# An empty dataset: TensorFlow writes the index alone (its writer removes the empty data file).
write("empty", tf.data.Dataset.range(0))
