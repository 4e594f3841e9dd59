"""Records what TensorFlow's tf.data does with SparseTensor components in `scan`
(tf.data.experimental.scan: a sparse element, a sparse state whose dense shape grows) and in
`window` (each window a dataset of SparseTensors, read back through flat_map, interleave,
batch, reduce and zip) into expected_more.json.

Run with TensorFlow 2.21:  python make_tfdata_sparse_more.py  (writes expected_more.json next
to this file). It reuses make_tfdata_sparse.py's records, helpers and record format; each case
is built again under the same name by tests/integration/data_sparse_more.rs. "window_specs"
lists, per windowed pipeline, the element_spec of each window dataset.
"""
import base64
import json
import os

import tensorflow.compat.v1 as tf

from make_tfdata_sparse import D, RECORDS, SP34, parsed_single, record, sp, spec

SCAN = tf.data.experimental.scan


def slices():
    """Three sparse tensors of dense shape [4] (the rows of SP34) with their row number."""
    return D.zip((D.range(3), D.from_tensor_slices(SP34())))


def one(key):
    """parsed_single([key]) with its element the sparse tensor itself, not a 1-tuple."""
    return parsed_single([key]).map(lambda x: x)


def ix(f):
    """A scan function of the state and the (index, sparse) element of slices()."""
    return lambda s, e: f(s, *e)


def empty(shape):
    return tf.SparseTensor(tf.zeros([0, len(shape)], tf.int64), tf.zeros([0], tf.float32),
                           tf.constant(shape, tf.int64))


def windows():
    return {
        "w": lambda: one("w").window(2, shift=1),
        "mixed": lambda: slices().window(2, shift=1, stride=2),
        "kws_age": lambda: parsed_single(["kws", "age"]).window(3, shift=2),
    }


def cases():
    return {
        "scan_sparse_element": lambda: one("w").apply(SCAN(
            tf.constant(0, tf.int64),
            lambda s, x: (s + tf.size(x.values, out_type=tf.int64), (s, x)))),
        "scan_sparse_element_sum": lambda: slices().apply(SCAN(
            tf.constant(0.0), ix(lambda s, i, x: (s + tf.sparse.reduce_sum(x), (i, s))))),
        "scan_sparse_state_add": lambda: slices().apply(SCAN(
            empty([4]), ix(lambda s, i, x: (tf.sparse.add(s, x), tf.sparse.add(s, x))))),
        "scan_sparse_state_concat": lambda: one("w").apply(SCAN(
            empty([0]), lambda s, x: (tf.sparse.concat(0, [s, x]), (tf.sparse.concat(0, [s, x]),
                                                                    x)))),
        "scan_sparse_state_and_dense": lambda: slices().apply(SCAN(
            (empty([4]), tf.constant(0, tf.int64)),
            ix(lambda st, i, x: ((tf.sparse.add(st[0], x), st[1] + i), st[0])))),
        "scan_sparse_state_then_batch": lambda: slices().apply(SCAN(
            empty([4]), ix(lambda s, i, x: (tf.sparse.add(s, x), s)))).batch(2),
        "scan_state_dense_to_sparse": lambda: slices().apply(SCAN(
            tf.constant(0.0), ix(lambda s, i, x: (x, i)))),
        "scan_state_sparse_to_dense": lambda: slices().apply(SCAN(
            empty([4]), ix(lambda s, i, x: (tf.sparse.reduce_sum(x), i)))),
        "scan_state_sparse_dtype": lambda: slices().apply(SCAN(
            empty([4]), ix(lambda s, i, x: (tf.SparseTensor(x.indices, tf.cast(x.values, tf.int64), x.dense_shape), i)))),
        "window_flat_map_batch": lambda: one("w").window(2, shift=1).flat_map(
            lambda w: w.batch(2)),
        "window_drop_stride": lambda: one("w").window(
            2, shift=1, stride=2, drop_remainder=True).flat_map(lambda w: w.batch(2)),
        "window_shift_past": lambda: one("kws").window(2, shift=3).flat_map(
            lambda w: w.batch(2)),
        "window_flat_map_plain": lambda: slices().window(2, shift=2).flat_map(
            lambda i, x: D.zip((i, x))),
        "window_zip_batch": lambda: slices().window(2, shift=1, stride=2).flat_map(
            lambda i, x: D.zip((i, x)).batch(2)),
        "window_mixed_batch_each": lambda: parsed_single(["kws", "age"]).window(
            3, shift=2).flat_map(lambda k, a: D.zip((k.batch(3), a.batch(3)))),
        "window_reduce": lambda: one("w").window(3, shift=2).flat_map(
            lambda w: D.from_tensors(w.reduce(
                tf.constant(0, tf.int64),
                lambda s, x: s + tf.size(x.values, out_type=tf.int64)))),
        "window_interleave": lambda: one("w").window(2, shift=2).interleave(
            lambda w: w.batch(2), cycle_length=2, block_length=1),
        "window_batch_batch": lambda: one("w").window(4, shift=4).flat_map(
            lambda w: w.batch(2).batch(2)),
    }


def window_specs():
    out = {}
    for name, make in windows().items():
        g = tf.Graph()
        with g.as_default():
            ds = make()
            out[name] = [[spec(s) for s in tf.nest.flatten(w.element_spec)]
                         for w in tf.nest.flatten(ds.element_spec)]
    return out


def main():
    result = [record(n, f) for n, f in cases().items()]
    doc = {
        "records": [base64.b64encode(r).decode() for r in RECORDS],
        "window_specs": window_specs(),
        "cases": result,
    }
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "expected_more.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    for c in result:
        print(c["name"], c.get("error") or ("%d elements" % len(c["elements"])), c.get("end"))


if __name__ == "__main__":
    main()
