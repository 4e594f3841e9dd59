"""Records TensorFlow 2.21's `tf.data.experimental.shuffle_and_repeat` and
`tf.data.experimental.map_and_batch` outputs into expected.json.

Run with TensorFlow 2.21:  python make_experimental.py  (writes expected.json next to this file).

Every case builds its pipeline in a fresh tf.compat.v1 graph (graph mode), reads it through a
one-shot iterator (an initializable one, initialized twice, for `reinit` cases) and records one
event per `get_next`: the value (a nested list), or `{"error": kind, "message": msg}` (kind as
weir's `Code` names it, msg without TensorFlow's node decorations). Reading goes on after an
error, as TensorFlow allows, until OutOfRange (`ended`), the case's `limit` of events, or its
`max_errors` errors (2 for a dataset that cannot be made: every `get_next` fails the same way).

shuffle_and_repeat cases: `source` is `range` (`Dataset.range(n)`) or `parse`
(`from_tensor_slices(strings).map(string_to_number(int64))`, failing on strings that are not
numbers); then `.apply(shuffle_and_repeat(buffer, count, seed=op_seed))` [`.take(take)`] with
graph-level seed `graph_seed` (None: unset). `seeds` are the op's `seed` and `seed2` inputs;
`op_type` is the op TensorFlow's graph holds.

map_and_batch cases: a source (see `source()`), then `.apply(map_and_batch(FUNCS[func],
batch_size, num_parallel_batches, drop_remainder, num_parallel_calls))`; `shapes` are the
dataset's static output shapes (None: an unknown dim). `python_error` cases record the
ValueError that `map_and_batch` raises before any graph is built.
"""
import json
import os

import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

KINDS = {
    "InvalidArgumentError": "InvalidArgument",
    "OutOfRangeError": "OutOfRange",
    "FailedPreconditionError": "FailedPrecondition",
    "InternalError": "Internal",
    "UnknownError": "Unknown",
}

STRINGS = ["1", "2", "x", "4", "5", "6", "y", "8"]


def message(e):
    """The error's own message, without "Graph execution error" and node decorations."""
    m = e.message.split("\n\t [[")[0]
    if "\nNode: '" in m:
        m = m.split("\nNode: '")[-1].split("\n", 1)[1]
    elif m.startswith("Graph execution error:\n\n"):
        m = m[len("Graph execution error:\n\n"):]
    return m.strip()


def tolist(v):
    if isinstance(v, tuple):
        return [tolist(x) for x in v]
    return v.tolist()


def read(sess, nxt, limit, max_errors):
    events, ended, errors = [], False, 0
    while len(events) < limit and errors < max_errors:
        try:
            events.append(tolist(sess.run(nxt)))
        except tf.errors.OutOfRangeError:
            ended = True
            break
        except tf.errors.OpError as e:
            events.append({"error": KINDS[type(e).__name__], "message": message(e)})
            errors += 1
    return events, ended


def parse_source(strings):
    ds = tf.data.Dataset.from_tensor_slices(tf.constant(strings))
    return ds.map(lambda s: tf.strings.to_number(s, tf.int64))


# ---------------------------------------------------------------------------------------------
# shuffle_and_repeat

def sar_case(name, n, buffer, count, graph_seed, op_seed, take=None, source="range",
             strings=None, reinit=False, limit=200, max_errors=50):
    return dict(kind="shuffle_and_repeat", name=name, n=n, buffer=buffer, count=count,
                graph_seed=graph_seed, op_seed=op_seed, take=take, source=source,
                strings=strings, reinit=reinit, limit=limit, max_errors=max_errors)


def run_sar(c):
    g = tf.Graph()
    with g.as_default():
        if c["graph_seed"] is not None:
            tf.set_random_seed(c["graph_seed"])
        if c["source"] == "range":
            ds = tf.data.Dataset.range(c["n"])
        else:
            ds = parse_source(c["strings"])
        ds = ds.apply(tf.data.experimental.shuffle_and_repeat(
            c["buffer"], count=c["count"], seed=c["op_seed"]))
        op = ds._variant_tensor.op
        if c["take"] is not None:
            ds = ds.take(c["take"])
        it = (tf.data.make_initializable_iterator(ds) if c["reinit"]
              else tf.data.make_one_shot_iterator(ds))
        nxt = it.get_next()
        with tf.Session() as sess:
            seeds = [int(x) for x in sess.run([op.inputs[2], op.inputs[3]])]
            runs = []
            for _ in range(2 if c["reinit"] else 1):
                if c["reinit"]:
                    sess.run(it.initializer)
                events, ended = read(sess, nxt, c["limit"], c["max_errors"])
                runs.append(dict(events=events, ended=ended))
    return dict(c, op_type=op.type, seeds=seeds, runs=runs)


SAR_CASES = [
    # buffer sizes
    sar_case("buffer1_count3", 10, 1, 3, 1, 5),
    sar_case("buffer2_count3", 10, 2, 3, 1, 5),
    sar_case("buffer5_count3", 10, 5, 3, 1, 5),
    sar_case("buffer_larger_than_input", 7, 100, 3, 42, 7),
    sar_case("buffer_equal_to_input", 8, 8, 2, 3, 9),
    sar_case("buffer_unknown_cardinality", 7, -2, 2, 1, 1),
    sar_case("tiny_input_big_buffer", 2, 100, 10, 1, 5),
    sar_case("one_element", 1, 5, 4, None, 3),
    # counts
    sar_case("count_none_take", 6, 3, None, 4, 4, take=40),
    sar_case("count_minus_one_take", 5, 2, -1, 2, 11, take=23),
    sar_case("count_none_buffer1_take", 4, 1, None, 2, 2, take=10),
    sar_case("count_none_big_buffer_take", 3, 50, None, 6, 1, take=30),
    sar_case("count0", 7, 5, 0, 1, 1, max_errors=2),
    sar_case("count_minus_two", 7, 5, -2, 1, 1, max_errors=2),
    sar_case("count1", 12, 4, 1, 5, 6),
    sar_case("count3_long", 30, 7, 3, 8, 13),
    # seeds
    sar_case("graph_seed_only", 12, 5, 2, 11, None),
    sar_case("graph_seed_only_forever", 9, 4, None, 77, None, take=30),
    sar_case("op_seed_only", 12, 5, 2, None, 3),
    sar_case("op_seed_only_forever", 8, 3, None, None, 123, take=25),
    sar_case("both_seeds_zero", 9, 3, 2, 0, 0),
    sar_case("large_seeds", 20, 6, 2, 123456789012, 987654321098),
    sar_case("reshuffle_order_across_epochs", 16, 16, 4, 2, 102),
    sar_case("reshuffle_small_buffer_epochs", 16, 3, 4, 3, 103),
    sar_case("reinit", 8, 3, 2, 9, 1, reinit=True),
    # empty input and bad buffers
    sar_case("empty_input_forever", 0, 4, None, 1, 1),
    sar_case("empty_input_count3", 0, 4, 3, 1, 1),
    sar_case("buffer0", 7, 0, 2, 1, 1, max_errors=2),
    sar_case("buffer_minus_one", 7, -1, 2, 1, 1, max_errors=2),
    # input errors: where they surface shows how far the fused buffer reads ahead
    sar_case("input_error_count2", 0, 3, 2, 1, 2, source="parse",
             strings=["1", "2", "3", "x", "5", "6"]),
    sar_case("input_error_buffer1", 0, 1, 2, 1, 2, source="parse",
             strings=["1", "x", "3"]),
    sar_case("input_error_tiny_big_buffer", 0, 100, 6, 4, 5, source="parse",
             strings=["1", "x"]),
    # Read to a number of events rather than through take(): errors do not count towards a
    # take's count in TensorFlow.
    sar_case("input_error_forever", 0, 2, None, 4, 6, source="parse",
             strings=["7", "x", "9"], limit=18),
    sar_case("input_error_first_read_ahead", 0, 3, 3, 5, 8, source="parse",
             strings=["x", "1", "2", "3"]),
    sar_case("input_error_read_ahead_big_buffer", 0, 10, 4, 5, 9, source="parse",
             strings=["1", "x", "2", "3"]),
    sar_case("input_error_epochs_in_buffer", 0, 100, 8, 6, 1, source="parse",
             strings=["1", "x", "2"]),
    sar_case("input_error_epochs_in_buffer_forever", 0, 100, None, 6, 2, source="parse",
             strings=["5", "x"], limit=40),
]


# ---------------------------------------------------------------------------------------------
# map_and_batch

def f_double(x):
    return x * 2


def f_pair(x):
    return x + 1, x * x


def f_vec(x):
    return tf.stack([x, x * 10])


def f_fill(x):
    return tf.fill(tf.reshape(x, [1]), x)


def f_parse(s):
    return tf.strings.to_number(s, tf.int64)


def f_fill2(a, b):
    return tf.fill(tf.stack([a, b]), a)


FUNCS = {"double": f_double, "pair": f_pair, "vec": f_vec, "fill": f_fill, "parse": f_parse,
         "fill2": f_fill2}


def source(c):
    s = c["source"]
    if s == "range":
        return tf.data.Dataset.range(c["n"])
    if s == "strings":
        return tf.data.Dataset.from_tensor_slices(tf.constant(c["strings"]))
    if s == "parse":
        return parse_source(c["strings"])
    if s == "ints":
        return tf.data.Dataset.from_tensor_slices(tf.constant(c["ints"], tf.int64))
    if s == "int_pairs":
        a, b = c["ints"]
        return tf.data.Dataset.from_tensor_slices(
            (tf.constant(a, tf.int64), tf.constant(b, tf.int64)))
    raise ValueError(s)


def mab_case(name, func, batch_size, source="range", n=None, strings=None, ints=None,
             num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None,
             limit=50, max_errors=50):
    return dict(kind="map_and_batch", name=name, func=func, batch_size=batch_size,
                source=source, n=n, strings=strings, ints=ints,
                num_parallel_batches=num_parallel_batches, drop_remainder=drop_remainder,
                num_parallel_calls=num_parallel_calls, limit=limit,
                max_errors=max_errors)


def shape_list(s):
    return [d for d in s.as_list()] if s.rank is not None else None


def run_mab(c):
    g = tf.Graph()
    with g.as_default():
        try:
            t = tf.data.experimental.map_and_batch(
                FUNCS[c["func"]], c["batch_size"],
                num_parallel_batches=c["num_parallel_batches"],
                drop_remainder=c["drop_remainder"],
                num_parallel_calls=c["num_parallel_calls"])
        except ValueError as e:
            return dict(c, python_error=str(e))
        ds = source(c).apply(t)
        op = ds._variant_tensor.op
        shapes = tf.nest.flatten(tf.data.get_output_shapes(ds))
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        with tf.Session() as sess:
            events, ended = read(sess, nxt, c["limit"], c["max_errors"])
    return dict(c, op_type=op.type, shapes=[shape_list(s) for s in shapes],
                runs=[dict(events=events, ended=ended)])


MAB_CASES = [
    mab_case("double_remainder", "double", 3, n=7),
    mab_case("double_drop_remainder", "double", 3, n=7, drop_remainder=True),
    mab_case("double_exact", "double", 4, n=8, drop_remainder=True),
    mab_case("batch_larger_than_input", "double", 10, n=4),
    mab_case("batch_larger_than_input_dropped", "double", 10, n=4, drop_remainder=True),
    mab_case("empty_input", "double", 3, n=0),
    mab_case("pair", "pair", 2, n=5),
    mab_case("vec_drop", "vec", 2, n=5, drop_remainder=True),
    mab_case("vec_parallel_batches", "vec", 2, n=9, num_parallel_batches=3),
    mab_case("double_parallel_calls_1", "double", 3, n=10, num_parallel_calls=1),
    mab_case("double_autotune", "double", 4, n=17, num_parallel_calls=-1),
    mab_case("batch1", "double", 1, n=4),
    mab_case("fill_equal_lengths", "fill", 2, source="ints", ints=[2, 2, 1, 1, 3, 3, 0]),
    mab_case("fill_mismatch", "fill", 2, source="ints", ints=[2, 2, 1, 3, 3, 3, 1],
             num_parallel_calls=1),
    mab_case("fill_mismatch_later_element", "fill", 3, source="ints",
             ints=[1, 1, 2, 2, 2, 2], num_parallel_calls=1),
    mab_case("same_count_other_shape", "fill2", 2, source="int_pairs",
             ints=[[2, 3, 1], [3, 2, 1]]),
    mab_case("map_error", "parse", 2, source="strings", strings=STRINGS),
    mab_case("map_error_sequential", "parse", 3, source="strings", strings=STRINGS,
             num_parallel_calls=1),
    mab_case("map_error_in_dropped_remainder", "parse", 3, source="strings",
             strings=["1", "2", "3", "4", "5", "6", "z"], drop_remainder=True),
    mab_case("map_error_in_remainder", "parse", 3, source="strings",
             strings=["1", "2", "3", "4", "z"]),
    mab_case("two_map_errors_in_a_batch", "parse", 4, source="strings",
             strings=["1", "a", "3", "b", "5", "6"]),
    mab_case("input_error", "double", 2, source="parse", strings=STRINGS),
    mab_case("batch_size0", "double", 0, n=5, max_errors=2),
    mab_case("batch_size_negative", "double", -2, n=5, num_parallel_calls=2, max_errors=2),
    mab_case("num_parallel_calls0", "double", 2, n=5, num_parallel_calls=0, max_errors=2),
    mab_case("num_parallel_calls_negative", "double", 2, n=5, num_parallel_calls=-3, max_errors=2),
    mab_case("both_bad", "double", 0, n=5, num_parallel_calls=0, max_errors=2),
    mab_case("num_parallel_batches_autotune", "double", 2, n=5, num_parallel_batches=-1, max_errors=2),
    mab_case("both_parallel_options", "double", 2, n=5, num_parallel_batches=2,
             num_parallel_calls=3),
]


def main():
    out = [run_sar(c) for c in SAR_CASES] + [run_mab(c) for c in MAB_CASES]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "expected.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
