"""TensorFlow's side of the op_* benchmarks in ops_more.rs: the same graphs, runs and counts.

    ~/.cache/weir-bench/venv/bin/python examples/bench/ops_more_tf.py [--reps N] [--only ID ...]

Prints one JSON line per benchmark, like the weir side.
"""
import argparse, json, statistics, time

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
v1 = tf.compat.v1


def time_fetch(build, items, k, reps):
    g = tf.Graph()
    with g.as_default():
        fetch = build()
        init = v1.global_variables_initializer()
        with v1.Session() as sess:
            sess.run(init)
            for _ in range(3):
                sess.run(fetch)
            out = []
            for _ in range(reps):
                t = time.perf_counter()
                for _ in range(k):
                    sess.run(fetch)
                out.append(items * k / (time.perf_counter() - t))
    return out, items * k


def inp(value):
    """Data in a variable, so that grappler cannot constant-fold the op being measured (weir
    never folds; its side reads the data from a placeholder_with_default)."""
    return v1.Variable(value, trainable=False).read_value()


def image_u8(shape):
    n = int(np.prod(shape))
    return inp(((np.arange(n) * 7) % 251).astype(np.uint8).reshape(shape))


def words(n):
    return ["word%d" % (i * 7919 % 100003) for i in range(n)]


def lines():
    w = words(100000)
    return [" ".join(w[i:i + 10]) for i in range(0, 100000, 10)]


def cifar_distort():
    img = tf.image.convert_image_dtype(image_u8([32, 32, 3]), tf.float32)
    x = tf.image.random_crop(img, [24, 24, 3])
    x = tf.image.random_flip_left_right(x)
    x = tf.image.random_brightness(x, 63.0 / 255.0)
    x = tf.image.random_contrast(x, 0.2, 1.8)
    return tf.image.per_image_standardization(x)


def while_10k():
    n = inp(np.int32(10000))
    return tf.while_loop(lambda i, x: i < n, lambda i, x: (i + 1, x * 0.999 + 1.0),
                         [tf.constant(0), tf.constant(0.0)])[1]


def rnn_train_32():
    steps, batch, inputs, units = 32, 16, 8, 32
    xs = inp((((np.arange(steps * batch * inputs) * 37) % 101) / 101.0 - 0.5)
             .astype(np.float32).reshape(steps, batch, inputs))
    w = v1.Variable(((((np.arange(units * units) * 13) % 29) / 29.0 - 0.5) * 0.2)
                    .astype(np.float32).reshape(units, units))
    u = v1.Variable(((((np.arange(inputs * units) * 7) % 31) / 31.0 - 0.5) * 0.2)
                    .astype(np.float32).reshape(inputs, units))
    _, h = tf.while_loop(lambda i, h: i < steps,
                         lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w) + tf.matmul(tf.gather(xs, i), u))),
                         [tf.constant(0), tf.zeros([batch, units])])
    loss = tf.reduce_sum(h * h)
    return [loss, v1.train.GradientDescentOptimizer(0.01).minimize(loss)]


BENCHES = {
    "op_random_uniform_1m": ("elem/s", lambda: tf.random.uniform([1024, 1024], seed=1), 1 << 20, 20),
    "op_random_normal_1m": ("elem/s", lambda: tf.random.normal([1024, 1024], seed=1), 1 << 20, 20),
    "op_truncated_normal_1m": ("elem/s", lambda: tf.random.truncated_normal([1024, 1024], seed=1), 1 << 20, 20),
    "op_random_shuffle_100k": ("rows/s", lambda: tf.random.shuffle(inp(np.arange(100000, dtype=np.int64)), seed=1), 100000, 20),
    "op_cifar_distort": ("img/s", cifar_distort, 1, 2000),
    "op_resize_bilinear_128": ("img/s", lambda: tf.image.resize(image_u8([128, 32, 32, 3]), [64, 64]), 128, 20),
    "op_per_image_std_128": ("img/s", lambda: tf.image.per_image_standardization(image_u8([128, 32, 32, 3])), 128, 50),
    "op_hash_bucket_100k": ("str/s", lambda: tf.strings.to_hash_bucket_fast(inp(words(100000)), 1000), 100000, 10),
    "op_string_split_10k": ("str/s", lambda: v1.string_split(inp(lines()), " ").values, 10000, 20),
    "op_string_to_number_100k": ("str/s", lambda: tf.strings.to_number(inp(["%d.%d" % (i, i % 97) for i in range(100000)])), 100000, 10),
    "op_as_string_100k": ("elem/s", lambda: tf.strings.as_string(inp(np.arange(100000, dtype=np.float32) * np.float32(0.37))), 100000, 10),
    "op_while_10k": ("iter/s", while_10k, 10000, 5),
    "op_rnn_train_32": ("steps/s", rnn_train_32, 1, 100),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", nargs="+")
    a = ap.parse_args()
    for id_, (unit, build, items, k) in BENCHES.items():
        if a.only and id_ not in a.only:
            continue
        reps, count = time_fetch(build, items, k, a.reps)
        print(json.dumps({"id": id_, "unit": unit, "median": statistics.median(reps), "min": min(reps),
                          "max": max(reps), "reps": reps, "impl": "tensorflow", "count": count}), flush=True)


if __name__ == "__main__":
    main()
