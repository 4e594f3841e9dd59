"""Records TensorFlow's zip, concatenate, padded_batch, unbatch and enumerate into expected.json.

Run with TensorFlow 2.21:  python make_tfdata_combine.py  (writes expected.json next to this
file). Each case is a pipeline that data_combine.rs builds again under the same name; it records
either the build-time error (Python's exception class and message) or the element_spec's static
shapes, every element a one-shot iterator yields (tf.compat.v1 graph mode) and how it ends
(OutOfRange "End of sequence", or the error class and the message's first line).
"""
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
D = tf.data.Dataset


def enc(a):
    a = np.asarray(a)
    if a.dtype.kind in "SO":
        data = [x.decode() for x in a.reshape(-1)]
        dtype = "string"
    else:
        kind = a.dtype.kind
        data = [float(x) if kind == "f" else (bool(x) if kind == "b" else int(x))
                for x in a.reshape(-1)]
        dtype = str(a.dtype)
    return {"dtype": dtype, "shape": list(a.shape), "data": data}


def core(m):
    """The kernel's own message, without the graph-execution preamble and node trailer."""
    i = m.find("\nNode: ")
    if i >= 0:
        m = m[m.index("\n", i + 1) + 1:]
    j = m.find("\n\t [[")
    m = m[:j] if j >= 0 else m
    return m.replace("Graph execution error:\n\n", "")


def shapes(ds):
    return [None if s.rank is None else s.as_list()
            for s in tf.nest.flatten(tf.data.get_output_shapes(ds))]


def flat(v):
    return [enc(x) for x in tf.nest.flatten(v)]


def ragged():
    """[1], [2, 2], [3, 3, 3], [4, 4, 4, 4]."""
    return D.range(1, 5).map(lambda x: tf.fill([x], x))


def words():
    """["a"], ["b", "b"], ["c", "c", "c"]."""
    return D.zip((D.range(1, 4), D.from_tensor_slices(["a", "b", "c"]))).map(
        lambda n, s: tf.fill([n], s))


def matrices():
    """fill([x, 2], x) for x in 1..3."""
    return D.range(1, 4).map(lambda x: tf.fill([x, 2], x))


def parsed(value):
    """One element of unknown static rank."""
    s = tf.io.serialize_tensor(tf.constant(value, tf.int32))
    return D.from_tensors(s).map(lambda s: tf.io.parse_tensor(s, tf.int32))


def failing():
    return D.from_tensor_slices([1.0, 2.0]).map(
        lambda x: tf.debugging.check_numerics(x / 0.0, "boom"))


def i64(v):
    return tf.constant(v, tf.int64)


def i32(v):
    return tf.constant(v, tf.int32)


CASES = {
    # zip
    "zip_two": lambda: D.zip((D.range(5), D.from_tensor_slices(["a", "b", "c"]))),
    "zip_nested": lambda: D.zip((D.zip((D.range(3), D.range(10, 20))),
                                 D.from_tensor_slices(tf.constant([[1.5, 2.5], [3.5, 4.5]])))),
    "zip_shapes": lambda: D.zip((D.from_tensor_slices(i32([[1, 2], [3, 4]])),
                                 D.range(10).batch(3))),
    "zip_empty_first": lambda: D.zip((D.range(0), failing())),
    "zip_error_first": lambda: D.zip((failing(), D.range(0))),
    "zip_none": lambda: D.zip(),
    # concatenate
    "concat_ranges": lambda: D.range(3).concatenate(D.range(0)).concatenate(D.range(10, 12)),
    "concat_rows": lambda: D.from_tensor_slices(i32([[1, 2], [3, 4]])).concatenate(
        D.from_tensor_slices(i32([[5, 6, 7]]))),
    "concat_rank": lambda: D.from_tensors(i32([1, 2])).concatenate(D.from_tensors(i32(5))),
    "concat_pairs": lambda: D.zip((D.range(2), D.from_tensors(tf.zeros([2, 3])))).concatenate(
        D.zip((D.range(2), D.from_tensors(tf.ones([4, 3]))))),
    "concat_dtype_error": lambda: D.range(3).concatenate(D.from_tensors(i32(1))),
    "concat_structure_error": lambda: D.range(3).concatenate(D.zip((D.range(1), D.range(1)))),
    "concat_pair_error": lambda: D.from_tensors((i64(1), tf.constant([1.0]))).concatenate(
        D.from_tensors((i64(1), i64(1)))),
    # padded_batch
    "pb_default": lambda: ragged().padded_batch(2),
    "pb_fixed_drop": lambda: ragged().padded_batch(3, padded_shapes=[5], padding_values=i64(-1),
                                                   drop_remainder=True),
    "pb_too_small": lambda: ragged().padded_batch(3, padded_shapes=[3]),
    "pb_strings": lambda: words().padded_batch(2),
    "pb_strings_x": lambda: words().padded_batch(2, padding_values="x"),
    "pb_two": lambda: D.zip((ragged(), D.range(10, 14))).padded_batch(3),
    "pb_two_values": lambda: D.zip((ragged(), D.range(10, 14))).padded_batch(
        3, padded_shapes=([4], []), padding_values=(i64(7), i64(0))),
    "pb_broadcast": lambda: D.zip((D.range(3), D.range(3))).padded_batch(
        2, padding_values=i64(1)),
    "pb_matrix_cols": lambda: matrices().padded_batch(2, padded_shapes=[-1, 3]),
    "pb_matrix_rows": lambda: matrices().padded_batch(2, padded_shapes=[4, None]),
    "pb_scalars": lambda: D.range(3).padded_batch(2),
    "pb_unknown_rank": lambda: parsed([[1, 2], [3, 4]]).padded_batch(2, padded_shapes=[None, 3]),
    "pb_rank_mismatch": lambda: parsed([[1, 2], [3, 4]]).padded_batch(2, padded_shapes=[None]),
    "pb_batch_zero": lambda: ragged().padded_batch(0),
    # A padded shape Python takes as a tensor; weir's Shape cannot hold -2 (see the raw-op test).
    "pb_negative_dim": lambda: ragged().padded_batch(2, padded_shapes=[-2]),
    "pb_static_too_small": lambda: D.from_tensors(tf.zeros([4])).padded_batch(
        2, padded_shapes=[3]),
    "pb_static_rank": lambda: ragged().padded_batch(2, padded_shapes=[None, None]),
    "pb_static_scalar": lambda: ragged().padded_batch(2, padded_shapes=[]),
    "pb_scalar_to_vector": lambda: D.range(3).padded_batch(2, padded_shapes=[1]),
    "pb_value_not_scalar": lambda: ragged().padded_batch(2, padded_shapes=[2],
                                                         padding_values=i64([1, 2])),
    "pb_value_dtype": lambda: ragged().padded_batch(2, padded_shapes=[2],
                                                    padding_values=i32(1)),
    "pb_value_string": lambda: D.range(3).padded_batch(2, padding_values="x"),
    "pb_default_unknown_rank": lambda: parsed([[1, 2], [3, 4]]).padded_batch(2),
    "pb_padded_unknown_rank": lambda: ragged().padded_batch(2, padded_shapes=tf.TensorShape(None)),
    "pb_shapes_short": lambda: D.zip((D.range(3), D.range(3))).padded_batch(
        2, padded_shapes=([],)),
    "pb_shapes_long": lambda: D.zip((D.range(3), D.range(3))).padded_batch(
        2, padded_shapes=([], [], [])),
    "pb_values_short": lambda: D.zip((D.range(3), D.range(3), D.range(3))).padded_batch(
        2, padding_values=(i64(1), i64(1))),
    "pb_empty_rows": lambda: D.from_tensor_slices(tf.zeros([3, 0], tf.int32)).padded_batch(2),
    "pb_float_value": lambda: D.range(1, 4).map(
        lambda x: tf.fill([x], tf.cast(x, tf.float32))).padded_batch(
            3, padding_values=tf.constant(0.5)),
    "pb_bool": lambda: D.range(1, 3).map(lambda x: tf.fill([x], True)).padded_batch(2),
    "pb_then_unbatch": lambda: ragged().padded_batch(2).unbatch(),
    # unbatch
    "ub_range": lambda: D.range(7).batch(3).unbatch(),
    "ub_pair": lambda: D.from_tensors((i32([[1, 2], [3, 4]]), tf.constant(["a", "b"]))).unbatch(),
    "ub_empty": lambda: D.from_tensors((tf.zeros([0, 2]), tf.zeros([0]))).concatenate(
        D.from_tensors((tf.ones([1, 2]), tf.ones([1])))).unbatch(),
    "ub_mismatch": lambda: D.zip((D.range(7).batch(3), D.range(7).batch(2))).unbatch(),
    "ub_unknown_matrix": lambda: parsed([[1, 2], [3, 4]]).unbatch(),
    "ub_unknown_scalar": lambda: parsed(5).unbatch(),
    "ub_scalar": lambda: D.range(3).unbatch(),
    "ub_static_mismatch": lambda: D.from_tensors((i32([1, 2]), i32([1, 2, 3]))).unbatch(),
    "ub_then_batch": lambda: D.range(5).batch(2).unbatch().batch(3),
    # enumerate
    "en_start": lambda: D.from_tensor_slices(["a", "b"]).enumerate(start=5),
    "en_default": lambda: D.range(10, 13).enumerate(),
    "en_after_skip": lambda: D.range(10, 20).skip(7).enumerate(start=-1),
    # re-made inputs: repeat starts every input again
    "concat_repeat": lambda: D.range(2).concatenate(D.range(5, 6)).repeat(2),
    "zip_forever_and_four": lambda: D.zip((D.range(3).repeat(), D.range(10, 14))),
}


def record(make):
    g = tf.Graph()
    with g.as_default():
        try:
            ds = make()
        except (TypeError, ValueError) as e:
            return {"build_error": {"class": type(e).__name__, "message": str(e)}}
        out = {"shapes": shapes(ds), "elements": []}
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        with tf.Session() as sess:
            for _ in range(100):
                try:
                    out["elements"].append(flat(sess.run(nxt)))
                except tf.errors.OpError as e:
                    out["end"] = {"class": type(e).__name__, "message": core(e.message)}
                    break
    return out


def main():
    doc = {"tensorflow": tf.__version__,
           "cases": {name: record(make) for name, make in CASES.items()}}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
