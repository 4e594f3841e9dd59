"""Writes expected.json: what TensorFlow 2.21 (tf.compat.v1 graph mode) returns for
`tf.data.experimental.group_by_reducer(key_func, tf.data.experimental.Reducer(...))`: each
pipeline's output types and shapes and its runs (up to 3 errors in a row are recorded), or the
error building it raised."""
import json
import os

import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

KEYS = [100, 3, 57, 8, 1000, 2, -5, 77, 6, 12, 40, 9]

r = tf.data.Dataset.range
Reducer = tf.data.experimental.Reducer


def grouped(ds, key_func, init_func, reduce_func, finalize_func):
    return ds.apply(tf.data.experimental.group_by_reducer(
        key_func, Reducer(init_func, reduce_func, finalize_func)))


def zero(_):
    return tf.constant(0, tf.int64)


def ident(s):
    return s


def tuple_elements():
    return r(6).map(lambda x: (x, tf.cast(x, tf.float32) * 0.5))


def captured():
    offset = tf.constant(7, tf.int64)
    return grouped(r(9), lambda x: (x + offset) % 3, lambda k: k * offset,
                   lambda s, x: s + x * offset, lambda s: s - offset)


CASES = [
    # The docs' example: how many elements of each parity.
    ("parity_count", lambda: grouped(r(10), lambda x: x % 2, zero, lambda s, _: s + 1, ident)),
    ("parity_sum", lambda: grouped(r(10), lambda x: x % 2, zero, lambda s, x: s + x, ident)),
    ("tuple_state", lambda: grouped(
        r(10), lambda x: x % 3, lambda _: (tf.constant(0, tf.int64), tf.constant(0, tf.int64)),
        lambda s, x: (s[0] + x, s[1] + 1), lambda s, n: (s, n))),
    ("finalize_changes_dtype_and_shape", lambda: grouped(
        r(10), lambda x: x % 3, lambda _: (tf.constant(0, tf.int64), tf.constant(0, tf.int64)),
        lambda s, x: (s[0] + x, s[1] + 1),
        lambda s, n: (tf.cast(s, tf.float32) / tf.cast(n, tf.float32), tf.stack([s, n])))),
    ("keys_ascending", lambda: grouped(
        r(12), lambda x: tf.constant(KEYS, tf.int64)[x], zero, lambda s, x: s * 100 + x, ident)),
    ("init_uses_key", lambda: grouped(
        r(8), lambda x: x % 4, lambda k: k * 1000, lambda s, x: s + x, ident)),
    ("captured_tensors", captured),
    ("tuple_elements", lambda: grouped(
        tuple_elements(), lambda a, b: a % 2,
        lambda _: (tf.constant(0, tf.int64), tf.constant(0.0, tf.float32)),
        lambda s, e: (s[0] + e[0], s[1] + e[1]), lambda s, f: (s, f))),
    ("single_key", lambda: grouped(
        r(5), lambda x: tf.constant(5, tf.int64), lambda k: k, lambda s, x: s * 10 + x, ident)),
    ("state_grows", lambda: grouped(
        r(7), lambda x: x % 3, lambda _: tf.zeros([0], tf.int64),
        lambda s, x: tf.concat([s, tf.reshape(x, [1])], 0), ident)),
    ("state_rank_changes", lambda: grouped(
        r(6), lambda x: x % 2, lambda k: k, lambda s, x: tf.reshape(s + x, [-1]), ident)),
    ("empty_input", lambda: grouped(r(0), lambda x: x % 2, zero, lambda s, x: s + x, ident)),
    # A key of unknown rank passes the Python check; the kernel checks each key.
    ("key_not_scalar_at_run", lambda: grouped(
        r(5), lambda x: tf.fill(tf.range(x % 2), x), lambda k: k, lambda s, x: s + x, ident)),
    ("key_int32", lambda: grouped(
        r(5), lambda x: tf.cast(x % 2, tf.int32), lambda k: k, lambda s, x: s + x, ident)),
    ("key_vector", lambda: grouped(
        r(5), lambda x: tf.stack([x, x]), lambda k: k, lambda s, x: s + x, ident)),
    ("reduce_wrong_dtype", lambda: grouped(
        r(5), lambda x: x % 2, lambda k: k, lambda s, x: tf.cast(s + x, tf.int32), ident)),
    ("reduce_wrong_dtype_tuple", lambda: grouped(
        r(5), lambda x: x % 2, lambda k: (k, tf.constant(1.0)), lambda s, x: (s[0] + x, 1),
        lambda a, b: a)),
    # TensorFlow does not check the number of state components when it builds these.
    ("reduce_too_few_components", lambda: grouped(
        r(5), lambda x: x % 2, lambda k: (k, k), lambda s, x: s[0] + x, lambda a, b: a)),
    ("reduce_too_many_components", lambda: grouped(
        r(5), lambda x: x % 2, lambda k: k, lambda s, x: (s + x, s), ident)),
]


def message(e):
    lines = e.message.split("\n")
    for k, line in enumerate(lines):
        if line.startswith("Node: ") and k + 1 < len(lines):
            return lines[k + 1]
    return [l for l in lines if l and not l.startswith("\t")][-1]


def shape(s):
    return None if s.rank is None else s.as_list()


out = []
for name, build in CASES:
    tf1.reset_default_graph()
    case = {"name": name}
    try:
        ds = build()
    except (TypeError, ValueError) as e:
        case["build_error"] = {"type": type(e).__name__, "message": str(e)}
        out.append(case)
        continue
    case["output_types"] = [t.name for t in tf.nest.flatten(tf1.data.get_output_types(ds))]
    case["output_shapes"] = [shape(s) for s in tf.nest.flatten(tf1.data.get_output_shapes(ds))]
    runs = []
    nxt = tf.nest.flatten(tf1.data.make_one_shot_iterator(ds).get_next())
    with tf1.Session() as s:
        errors = 0
        for _ in range(40):
            try:
                runs.append({"value": [v.tolist() for v in s.run(nxt)]})
                errors = 0
            except tf.errors.OutOfRangeError:
                break
            except tf.errors.OpError as e:
                runs.append({"error": type(e).__name__, "message": message(e)})
                errors += 1
                if errors == 3:
                    break
    case["runs"] = runs
    out.append(case)

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as f:
    json.dump({"keys": KEYS, "cases": out}, f, indent=1)
    f.write("\n")
print(len(out), "cases")
