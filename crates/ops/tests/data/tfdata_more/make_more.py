"""Records TensorFlow's ignore_errors, get_single_element, take_while, unique,
choose_from_datasets and scan into expected.json.

Run with TensorFlow 2.21:  python make_more.py  (writes expected.json next to this file). Each
case is a pipeline that tests/integration/data_more.rs builds again under the same name. It
records either the build-time error (Python's exception class and message) or the
element_spec's static shapes and what a one-shot iterator yields (tf.compat.v1 graph mode):
elements in order and, for the cases in CONTINUE, the errors among them (reading goes on after
an error), until OutOfRange or the first error of any other case ("end": the error's class and
the message's line after "Node: '...'"). A get_single_element case ("single") records the
op's value or its error.
"""
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
D = tf.data.Dataset
cfd = D.choose_from_datasets


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


def err(e):
    return {"class": type(e).__name__, "message": core(str(e))}


def failing():
    """1.0, error, 0.5, error, 0.33333334: 1 / x checked for Inf."""
    return D.from_tensor_slices([1.0, 0.0, 2.0, 0.0, 3.0]).map(
        lambda x: tf.debugging.check_numerics(1.0 / x, "boom"))


def failing_i64():
    """1, error, 0, error, 0."""
    return failing().map(lambda x: tf.cast(x, tf.int64))


def ch(v, dt=tf.int64):
    return D.from_tensor_slices(tf.constant(v, dt))


def i32(v):
    return tf.constant(v, tf.int32)


def i64(v):
    return tf.constant(v, tf.int64)


def recip_pred(x):
    return tf.debugging.check_numerics(1.0 / x, "p") > 0.4


CASES = {
    # ignore_errors
    "ie_map": lambda: failing().ignore_errors(),
    "ie_log": lambda: failing().ignore_errors(log_warning=True),
    "ie_no_errors": lambda: D.range(3).ignore_errors(),
    "ie_all_fail": lambda: D.from_tensor_slices([0.0, 0.0]).map(
        lambda x: tf.debugging.check_numerics(1.0 / x, "boom")).ignore_errors(),
    "ie_step_zero": lambda: D.range(0, 5, 0).ignore_errors(),
    "ie_batch": lambda: failing().batch(2).ignore_errors(),
    "ie_take_while": lambda: D.from_tensor_slices([1.0, 2.0, 0.0, 3.0, 0.5]).take_while(
        recip_pred).ignore_errors(),
    "ie_choose": lambda: cfd([D.range(0, 3), D.range(10, 13)], ch([0, 2, 1, 5, 0])).ignore_errors(),
    "ie_experimental": lambda: failing().apply(tf.data.experimental.ignore_errors()),
    # get_single_element
    "gse_one": lambda: D.range(1),
    "gse_empty": lambda: D.range(0),
    "gse_two": lambda: D.range(2),
    "gse_tuple": lambda: D.from_tensors((i32([1, 2]), tf.constant("a"))),
    "gse_batch": lambda: D.range(5).batch(5),
    "gse_error": lambda: failing(),
    "gse_second_error": lambda: D.from_tensor_slices([1.0, 0.0]).map(
        lambda x: tf.debugging.check_numerics(1.0 / x, "boom")),
    "gse_filtered": lambda: D.range(10).filter(lambda x: tf.equal(x, 7)),
    # take_while
    "tw_less": lambda: D.range(10).take_while(lambda x: x < 4),
    "tw_none": lambda: D.range(10).take_while(lambda x: x < 0),
    "tw_all": lambda: D.range(3).take_while(lambda x: x < 100),
    "tw_captured": lambda: D.range(10).take_while(lambda x: x < i64(3) * 2),
    "tw_pair": lambda: D.zip((D.range(10), D.range(10, 0, -1))).take_while(lambda a, b: a < b),
    "tw_not_bool": lambda: D.range(10).take_while(lambda x: x),
    "tw_vector": lambda: D.range(10).take_while(lambda x: tf.stack([x < 4, x < 3])),
    "tw_predicate_error": lambda: D.from_tensor_slices([1.0, 2.0, 0.0, 3.0]).take_while(
        recip_pred),
    "tw_input_error": lambda: failing().take_while(lambda x: x < 100.0),
    "tw_repeat": lambda: D.range(3).take_while(lambda x: x < 2).repeat(2),
    # unique
    "un_int32": lambda: D.from_tensor_slices(i32([1, 2, 1, 3, 2, 4])).unique(),
    "un_int64": lambda: D.range(4).repeat(3).unique(),
    "un_string": lambda: D.from_tensor_slices(["a", "b", "a", "c", ""]).unique(),
    "un_float": lambda: D.from_tensor_slices([1.0, 2.0]).unique(),
    "un_int8": lambda: D.from_tensor_slices(tf.constant([1, 2], tf.int8)).unique(),
    "un_pair": lambda: D.zip((D.range(3), D.range(3))).unique(),
    "un_vectors": lambda: D.from_tensor_slices(i32([[1, 2], [1, 2], [3, 4], [2, 1]])).unique(),
    "un_ragged": lambda: D.from_tensor_slices(i64([1, 2, 1, 2, 3])).map(
        lambda x: tf.fill([x], x)).unique(),
    "un_shapes": lambda: D.from_tensor_slices(i64([1, 2, 1, 0])).map(
        lambda x: tf.fill([x, 1], 7)).concatenate(D.from_tensors(i32([[7]]))).concatenate(
        D.from_tensors(i32([[7], [7]]))).unique(),
    "un_scalar_vs_vector": lambda: D.from_tensors(i32(1)).concatenate(
        D.from_tensors(i32([1]))).unique(),
    "un_empty": lambda: D.range(0).unique(),
    "un_error": lambda: failing_i64().unique(),
    "un_experimental": lambda: D.range(3).repeat(2).apply(tf.data.experimental.unique()),
    # choose_from_datasets
    "cfd_basic": lambda: cfd([D.range(0, 3), D.range(10, 13)], ch([0, 1, 1, 0, 0, 1])),
    "cfd_stop_true": lambda: cfd([D.range(0, 2), D.range(10, 13)], ch([0, 0, 0, 1, 1])),
    "cfd_stop_false": lambda: cfd([D.range(0, 2), D.range(10, 13)], ch([0, 0, 0, 1, 1]),
                                  stop_on_empty_dataset=False),
    "cfd_all_empty_false": lambda: cfd([D.range(0, 1), D.range(10, 11)], ch([0, 1, 0, 1, 0, 1, 1]),
                                       stop_on_empty_dataset=False),
    "cfd_forever_false": lambda: cfd([D.range(0, 1), D.range(10, 11)], ch([0, 1]).repeat(),
                                     stop_on_empty_dataset=False),
    "cfd_forever_true": lambda: cfd([D.range(0, 1), D.range(10, 11)], ch([0, 1]).repeat()),
    "cfd_index_range": lambda: cfd([D.range(0, 3), D.range(10, 13)], ch([0, 2, 1, 5, 0])),
    "cfd_index_negative": lambda: cfd([D.range(0, 3), D.range(10, 13)], ch([0, -1, 1])),
    "cfd_choice_int32": lambda: cfd([D.range(0, 3), D.range(10, 13)], ch([0, 1], tf.int32)),
    "cfd_choice_float": lambda: cfd([D.range(3)], ch([0.0], tf.float32)),
    "cfd_choice_vector": lambda: cfd([D.range(0, 3), D.range(10, 13)],
                                     D.from_tensors(i64([0, 1]))),
    "cfd_choice_pair": lambda: cfd([D.range(3)], D.zip((ch([0]), ch([0])))),
    "cfd_dtype": lambda: cfd([D.range(0, 3), D.from_tensor_slices([1.0])], ch([0, 1])),
    "cfd_structure": lambda: cfd([D.range(0, 3), D.zip((D.range(1), D.range(1)))], ch([0, 1])),
    "cfd_third": lambda: cfd([D.range(3), D.range(3), D.from_tensor_slices(["a"])], ch([0])),
    "cfd_both_bad": lambda: cfd([D.range(3), D.from_tensor_slices(["a"])], ch([0], tf.int32)),
    "cfd_empty_list": lambda: cfd([], ch([0])),
    "cfd_shapes": lambda: cfd([D.from_tensor_slices(i32([[1, 2]])),
                               D.from_tensor_slices(i32([[1, 2, 3]]))], ch([0, 1])),
    "cfd_ranks": lambda: cfd([D.from_tensors(i32([1, 2])), D.from_tensors(i32(5))], ch([0, 1])),
    "cfd_one": lambda: cfd([D.range(3)], ch([0, 0])),
    "cfd_input_error": lambda: cfd([failing_i64(), D.range(10, 13)], ch([0, 0, 1, 0])),
    "cfd_choice_error": lambda: cfd([D.range(3), D.range(10, 13)], failing_i64()),
    "cfd_pairs": lambda: cfd([D.zip((D.range(3), D.range(3))),
                              D.zip((D.range(10, 13), D.range(10, 13)))], ch([1, 0])),
    "cfd_strings": lambda: cfd([D.from_tensor_slices(["a", "b"]), D.from_tensor_slices(["x"])],
                               ch([1, 0, 1, 0])),
    "cfd_strings_false": lambda: cfd([D.from_tensor_slices(["a", "b"]),
                                      D.from_tensor_slices(["x"])], ch([1, 0, 1, 0]),
                                     stop_on_empty_dataset=False),
    "cfd_choice_empty": lambda: cfd([D.range(3)], ch([], tf.int64)),
    # scan
    "sc_sum": lambda: D.range(5).scan(i64(0), lambda s, x: (s + x, s * 10)),
    "sc_pair": lambda: D.zip((D.range(4), D.from_tensor_slices(["a", "b", "c", "d"]))).scan(
        (i64(0), tf.constant("")),
        lambda s, x: ((s[0] + x[0], tf.strings.join([s[1], x[1]])), (s[0], s[1], x[0]))),
    "sc_dtype": lambda: D.range(5).scan(i32(0), lambda s, x: (tf.cast(x, tf.int64), s)),
    "sc_growing": lambda: D.range(1, 4).scan(i64([0]), lambda s, x: (tf.concat([s, [x]], 0), s)),
    "sc_relaxed": lambda: D.range(1, 4).scan(
        tf.placeholder_with_default(i64([0]), [None]), lambda s, x: (tf.concat([s, [x]], 0), s)),
    "sc_input_error": lambda: failing().scan(tf.constant(0.0), lambda s, x: (s + x, s)),
    "sc_function_error": lambda: D.range(3).scan(
        tf.constant(1.0), lambda s, x: (tf.debugging.check_numerics(s / 0.0, "st"), s)),
    "sc_forever_take": lambda: D.range(3).repeat().scan(i64(1), lambda s, x: (s * 2, s)).take(6),
    "sc_captured": lambda: D.range(4).scan(i64(0), lambda s, x: (s + x * i64(10), s + i64(1))),
    "sc_experimental": lambda: D.range(4).apply(
        tf.data.experimental.scan(i64(100), lambda s, x: (s - x, (s, x)))),
}

# Cases read on after an error (TensorFlow's iterator goes on with the next element).
CONTINUE = {"tw_predicate_error", "tw_input_error", "un_error", "cfd_index_range",
            "cfd_index_negative", "cfd_input_error", "cfd_choice_error", "sc_input_error"}

SINGLE = {name for name in CASES if name.startswith("gse_")}

OPTIONS = tf.RunOptions(timeout_in_ms=10000)


def record(name, make):
    g = tf.Graph()
    with g.as_default():
        try:
            ds = make()
            if name in SINGLE:
                value = ds.get_single_element()
            else:
                nxt = tf.data.make_one_shot_iterator(ds).get_next()
        except (TypeError, ValueError) as e:
            return {"build_error": err(e)}
        out = {"shapes": shapes(ds)}
        with tf.Session() as sess:
            if name in SINGLE:
                try:
                    out["value"] = flat(sess.run(value, options=OPTIONS))
                except tf.errors.OpError as e:
                    out["error"] = err(e)
                return out
            items = []
            while True:
                assert len(items) < 40, name
                try:
                    items.append(flat(sess.run(nxt, options=OPTIONS)))
                except tf.errors.OutOfRangeError as e:
                    out["end"] = err(e)
                    break
                except tf.errors.OpError as e:
                    if name in CONTINUE:
                        items.append({"error": err(e)})
                    else:
                        out["end"] = err(e)
                        break
            out["items"] = items
    return out


def main():
    cases = {name: record(name, make) for name, make in CASES.items()}
    doc = {"tensorflow": tf.__version__, "cases": cases}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(cases)} cases")


if __name__ == "__main__":
    main()
