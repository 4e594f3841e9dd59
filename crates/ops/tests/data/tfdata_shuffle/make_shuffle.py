"""Records TensorFlow 2.21's `Dataset.shuffle` orders into expected.json.

Run with TensorFlow 2.21:  python make_shuffle.py  (writes expected.json next to this file).

Each case is `range(n)` [`.repeat(pre_repeat)`] `.shuffle(buffer, seed=op_seed,
reshuffle_each_iteration=reshuffle)` [`.repeat(repeat)`] [`.take(take)`] in a graph whose
graph-level seed is `graph_seed` (None: unset), read to the end through a one-shot iterator
(tf.compat.v1 graph mode). `seeds` are the values of the op's `seed` and `seed2` inputs;
`graph_seed_only` cases depend on the number of ops made before the shuffle (TensorFlow's
`_last_id`), the same in weir's builders. A buffer of -2 (UNKNOWN_CARDINALITY) holds the whole input. `reinit` cases run an initializable iterator's
initializer twice and record both orders.
"""
import json
import os

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()


def build(c):
    ds = tf.data.Dataset.range(c["n"])
    if c.get("pre_repeat") is not None:
        ds = ds.repeat(c["pre_repeat"])
    ds = ds.shuffle(c["buffer"], seed=c["op_seed"],
                    reshuffle_each_iteration=c["reshuffle"])
    shuffle_op = ds._variant_tensor.op
    if c.get("repeat", 0) != 0:
        ds = ds.repeat(c["repeat"])
    if c.get("take") is not None:
        ds = ds.take(c["take"])
    return ds, shuffle_op


def drain(sess, nxt):
    out = []
    while True:
        try:
            out.append(int(sess.run(nxt)))
        except tf.errors.OutOfRangeError:
            return out


def run(c):
    g = tf.Graph()
    with g.as_default():
        if c["graph_seed"] is not None:
            tf.set_random_seed(c["graph_seed"])
        ds, op = build(c)
        if c.get("reinit"):
            it = tf.data.make_initializable_iterator(ds)
        else:
            it = tf.data.make_one_shot_iterator(ds)
        nxt = it.get_next()
        with tf.Session() as sess:
            seeds = [int(x) for x in sess.run([op.inputs[2], op.inputs[3]])]
            if c.get("reinit"):
                orders = []
                for _ in range(2):
                    sess.run(it.initializer)
                    orders.append(drain(sess, nxt))
            else:
                orders = [drain(sess, nxt)]
    return dict(c, seeds=seeds, orders=orders)


def case(n, buffer, graph_seed, op_seed, reshuffle=True, repeat=0, **kw):
    return dict(n=n, buffer=buffer, graph_seed=graph_seed, op_seed=op_seed,
                reshuffle=reshuffle, repeat=repeat, **kw)


CASES = [
    case(10, 4, 1, 5, repeat=3),
    case(10, 4, 1, 5, reshuffle=False, repeat=3),
    case(10, 1, 1, 5, repeat=2),
    case(7, 100, 42, 7),
    case(12, 5, None, 3, repeat=2),
    case(12, 5, 11, None, repeat=2),
    case(9, 3, 0, 0, repeat=2),
    case(20, 6, 123456789012, 987654321098, repeat=2),
    case(5, 6, 2, 3, pre_repeat=3),
    case(6, 3, 4, 4, repeat=-1, take=20),
    case(6, 3, 4, 4, reshuffle=False, repeat=-1, take=20),
    case(8, 3, 9, 1, reinit=True),
    case(1, 4, 5, 5, repeat=3),
    case(0, 4, 5, 5, repeat=3),
    case(30, 2, 1, 2),
    case(30, 29, 3, 1),
    case(5, -2, None, 1, repeat=2),
    case(12, -2, 3, 4, reshuffle=False, repeat=2),
] + [case(16, b, s, 100 + s, repeat=2) for s in range(1, 5) for b in (2, 3, 8, 16)]


def main():
    out = [run(c) for c in CASES]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "expected.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
