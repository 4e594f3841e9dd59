#!/usr/bin/env python3
"""TensorFlow counterpart of benches/training.rs: training steps per second.

Softmax regression (784 -> 10) and a 784 -> 128 relu -> 10 network, batch 128,
AdamOptimizer(0.001) minimizing the mean sparse_softmax_cross_entropy_with_logits, with a
global step; each fed three ways:
- preloaded: 10,240 examples (the first of the bench's mnist_int64-00000 file, decoded up front
  as the pipeline decodes them; synthetic ones when the bench data is missing) in two
  non-trainable variables (initialised once from placeholders, collections=[]); each step gathers
  128 rows at random.uniform([128], 0, 10240, int32) indices, in the graph;
- feeding: placeholders fed each step from numpy slices of the same 10,240 examples, in order;
- pipeline_bytes: the shared bench's mnist_bytes_batched pipeline (TensorFlow's MNIST record
  format: decode_raw of the 784-byte image), otherwise as pipeline;
- pipeline: the shared bench's mnist_int64_batched pipeline (string_input_producer with
  num_epochs=None, shuffle=False -> TFRecordReader.read_up_to(128) -> parse_example (int64
  [784]) -> cast * (1/255), label cast int32 -> shuffle_batch(128, capacity=10384,
  min_after_dequeue=10000, seed=1, enqueue_many=True, num_threads=1)).

Every step runs the train op and fetches the loss. Protocol (as the Rust side): build graph and
session, initialise, 200 untimed warm-up steps, then 3 timed repetitions of STEPS steps; the
median is printed. tf.compat.v1 graph mode on the CPU, default session config.

    $HOME/.cache/weir-bench/venv/bin/python benches/training_tf.py [--steps N] [--data DIR] [--only SUBSTRING]
"""

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

BATCH = 128
PIXELS = 784
CLASSES = 10
HIDDEN = 128
PRELOADED = 10240
WARMUP = 200
REPS = 3


def load_mnist(tf, np, path):
    """The first PRELOADED examples of `path`, decoded as the pipeline decodes them."""
    v1 = tf.compat.v1
    records = []
    for r in v1.io.tf_record_iterator(path):
        records.append(r)
        if len(records) == PRELOADED:
            break
    if len(records) < PRELOADED:
        raise ValueError("%s: fewer than %d records" % (path, PRELOADED))
    with tf.Graph().as_default(), v1.Session() as sess:
        f = tf.io.parse_example(tf.constant(records), {
            "image_raw": tf.io.FixedLenFeature([PIXELS], tf.int64),
            "label": tf.io.FixedLenFeature([], tf.int64),
        })
        x, y = sess.run([tf.cast(f["image_raw"], tf.float32) * (1.0 / 255),
                         tf.cast(f["label"], tf.int32)])
    return np.ascontiguousarray(x), np.ascontiguousarray(y)


def synthetic(np):
    """Used when the bench data is missing (the same formula as training.rs): about 81% zero
    pixels, like MNIST, but labels unrelated to the pixels."""
    i = np.arange(PRELOADED, dtype=np.int64)[:, None]
    p = np.arange(PIXELS, dtype=np.int64)[None, :]
    on = (p * 7 + i) % 16 >= 13
    x = np.where(on, ((i * 31 + p * 17) % 255).astype(np.float32) / np.float32(255.0),
                 np.float32(0.0)).astype(np.float32)
    y = (np.arange(PRELOADED) % CLASSES).astype(np.int32)
    return x, y


def dense(v1, scope, x, fan_in, units):
    with v1.variable_scope(scope):
        w = v1.get_variable("weights", [fan_in, units],
                            initializer=v1.glorot_uniform_initializer(seed=1))
        b = v1.get_variable("biases", [units], initializer=v1.zeros_initializer())
        return v1.nn.bias_add(v1.matmul(x, w), b)


def train_graph(tf, model, x, y):
    v1 = tf.compat.v1
    if model == "softmax_784_10":
        logits = dense(v1, "softmax", x, PIXELS, CLASSES)
    else:
        h = tf.nn.relu(dense(v1, "hidden", x, PIXELS, HIDDEN))
        logits = dense(v1, "output", h, HIDDEN, CLASSES)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
    loss = tf.reduce_mean(xent)
    step = v1.train.get_or_create_global_step()
    train = v1.train.AdamOptimizer(0.001).minimize(loss, global_step=step)
    return loss, train


def bench(tf, np, model, source, steps, data, files):
    v1 = tf.compat.v1
    g = tf.Graph()
    with g.as_default():
        v1.set_random_seed(7)
        init_feed = {}
        init_ops = []
        feed = None
        if source == "preloaded":
            xi = v1.placeholder(tf.float32, [PRELOADED, PIXELS], name="data_initializer")
            yi = v1.placeholder(tf.int32, [PRELOADED], name="label_initializer")
            xv = v1.Variable(xi, trainable=False, collections=[], name="input_data")
            yv = v1.Variable(yi, trainable=False, collections=[], name="input_labels")
            init_feed = {xi: data[0], yi: data[1]}
            init_ops = [xv.initializer, yv.initializer]
            idx = v1.random_uniform([BATCH], maxval=PRELOADED, dtype=tf.int32, seed=1)
            x, y = tf.gather(xv, idx), tf.gather(yv, idx)
        elif source == "feeding":
            x = v1.placeholder(tf.float32, [None, PIXELS], name="images")
            y = v1.placeholder(tf.int32, [None], name="labels")
            feed = (x, y)
        elif source == "pipeline_bytes":
            names = [f.replace("mnist_int64-", "mnist_bytes-") for f in files]
            fq = v1.train.string_input_producer(names, shuffle=False, capacity=32)
            reader = v1.TFRecordReader()
            _, ser = reader.read_up_to(fq, BATCH)
            f = tf.io.parse_example(ser, {
                "image_raw": tf.io.FixedLenFeature([], tf.string),
                "label": tf.io.FixedLenFeature([], tf.int64),
            })
            raw = tf.reshape(tf.io.decode_raw(f["image_raw"], tf.uint8), [-1, PIXELS])
            img = tf.cast(raw, tf.float32) * (1.0 / 255)
            lab = tf.cast(f["label"], tf.int32)
            x, y = v1.train.shuffle_batch([img, lab], batch_size=BATCH, capacity=10384,
                                          min_after_dequeue=10000, num_threads=1, seed=1,
                                          enqueue_many=True)
        else:
            fq = v1.train.string_input_producer(files, shuffle=False, capacity=32)
            reader = v1.TFRecordReader()
            _, ser = reader.read_up_to(fq, BATCH)
            f = tf.io.parse_example(ser, {
                "image_raw": tf.io.FixedLenFeature([PIXELS], tf.int64),
                "label": tf.io.FixedLenFeature([], tf.int64),
            })
            img = tf.cast(f["image_raw"], tf.float32) * (1.0 / 255)
            lab = tf.cast(f["label"], tf.int32)
            x, y = v1.train.shuffle_batch([img, lab], batch_size=BATCH, capacity=10384,
                                          min_after_dequeue=10000, num_threads=1, seed=1,
                                          enqueue_many=True)
        loss, train = train_graph(tf, model, x, y)
        init = [v1.global_variables_initializer(), v1.local_variables_initializer()]
        with v1.Session(graph=g) as sess:
            if init_ops:
                sess.run(init_ops, feed_dict=init_feed)
            sess.run(init)
            coord = v1.train.Coordinator()
            threads = v1.train.start_queue_runners(sess=sess, coord=coord) if source.startswith("pipeline") else []
            cursor = [0]
            fetches = [train, loss]

            if feed is None:
                def step():
                    return sess.run(fetches)[1]
            else:
                xs, ys = data

                def step():
                    start = cursor[0] * BATCH
                    cursor[0] = (cursor[0] + 1) % (PRELOADED // BATCH)
                    return sess.run(fetches, feed_dict={feed[0]: xs[start:start + BATCH],
                                                        feed[1]: ys[start:start + BATCH]})[1]
            try:
                for _ in range(WARMUP):
                    step()
                rates = []
                last = 0.0
                for _ in range(REPS):
                    t0 = time.perf_counter()
                    for _ in range(steps):
                        last = step()
                    rates.append(steps / (time.perf_counter() - t0))
                if not np.isfinite(last):
                    raise RuntimeError("the loss diverged: %r" % last)
            finally:
                coord.request_stop()
                coord.join(threads, stop_grace_period_secs=10)
    return rates


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--only", default=None, help="run only lines whose model/source contains this")
    ap.add_argument("--data", default=os.path.expanduser("~/.cache/weir-bench/data"))
    args = ap.parse_args()

    import numpy as np
    import tensorflow as tf
    tf.compat.v1.disable_eager_execution()
    tf.get_logger().setLevel("ERROR")

    files = [os.path.join(args.data, "mnist_int64-%05d-of-00004.tfrecord" % i) for i in range(4)]
    if not all(os.path.isfile(f) for f in files):
        print("training_tf: no mnist_int64-*.tfrecord under %s; run `bash ../shared/bench/setup.sh` "
              "(/work/shared/bench/setup.sh) to create them. Skipping the pipeline variant." % args.data,
              file=sys.stderr)
        files = None
    if files:
        print("preloaded and feeding use the first %d examples of %s" % (PRELOADED, files[0]),
              file=sys.stderr)
        data = load_mnist(tf, np, files[0])
    else:
        print("preloaded and feeding use %d synthetic examples" % PRELOADED, file=sys.stderr)
        data = synthetic(np)
    for model in ("softmax_784_10", "mlp_784_128_10"):
        for source in ("preloaded", "feeding", "pipeline", "pipeline_bytes"):
            if source.startswith("pipeline") and files is None:
                continue
            if args.only and args.only not in "%s/%s" % (model, source):
                continue
            rates = bench(tf, np, model, source, args.steps, data, files)
            m = statistics.median(rates)
            print("training/%s/%-9s %8.0f steps/s %10.0f examples/s  (median of %d x %d steps; reps %s)"
                  % (model, source, m, m * BATCH, REPS, args.steps,
                     ", ".join("%.0f" % r for r in rates)), flush=True)


if __name__ == "__main__":
    main()
