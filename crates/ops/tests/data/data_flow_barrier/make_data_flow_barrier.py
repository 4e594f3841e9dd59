"""Records TensorFlow 2.21's Barrier (tf.compat.v1 data_flow_ops.Barrier and its ops) for
crates/ops/tests/integration/data_flow_barrier.rs. Run it with the shared bench's venv:

    $HOME/.cache/weir-bench/venv/bin/python make_data_flow_barrier.py

It writes expected.json: {"scripts": [...], "builds": [...]}.

A script is a barrier and a list of steps run in order in one session; each step records its
result: {"ok": [tensors]} (null for an op run as a target) or {"error": {class, code,
message}}. A step with "async" starts in a thread of its own (a take_many that blocks); "join"
records its result later. "pending" after a step is the number of take_many calls still blocked
once the step is done (checked here after a pause; weir's test reads it from the barrier), so
the order of blocked calls is the same in both runs. Keys and values are fed through
placeholders of unknown shape, so only the kernels judge them.

A build is a graph-building call whose Python error (class and message) or static output shapes
and node names are recorded.
"""
import copy
import json
import os
import threading
import time

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import data_flow_ops, gen_data_flow_ops

import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tensor_json import encode as encode_numeric  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
DTYPES = {"string": tf.string, "int32": tf.int32, "int64": tf.int64, "float32": tf.float32,
          "float64": tf.float64, "bool": tf.bool}
# How long a step waits before checking that a take_many it started is still blocked.
SETTLE = 0.4


def encode(a):
    a = np.asarray(a)
    if a.dtype == object or a.dtype.kind in "SU":
        flat = [x.decode() if isinstance(x, bytes) else str(x) for x in a.reshape(-1)]
        return {"dtype": "string", "shape": list(a.shape), "values": flat}
    return encode_numeric(a)


def value(dtype, data):
    """A value spec: its numpy array (for feeding) and its JSON."""
    if dtype == "string":
        arr = np.array(data, dtype=object)
    else:
        arr = np.array(data, dtype=dtype)
    return arr, encode(arr)


def error_of(e):
    msg = e.message if hasattr(e, "message") else str(e)
    # Drop the "Graph execution error: ... Node: 'x'" preamble and the "[[{{node x}}]]" suffix.
    msg = msg.split("\n\t [[")[0].rstrip("\n").split("\n")[-1]
    return {"class": type(e).__name__, "code": e.error_code, "message": msg}


def outcome(fn):
    try:
        r = fn()
    except tf.errors.OpError as e:
        return {"error": error_of(e)}
    if r is None:
        return {"ok": None}
    if isinstance(r, np.ndarray) or np.isscalar(r) or isinstance(r, (np.generic,)):
        return {"ok": [encode(r)]}
    flat = []
    for x in r:
        if isinstance(x, list):
            flat.extend(x)
        else:
            flat.append(x)
    return {"ok": [encode(x) for x in flat]}


def make_barrier(spec):
    types = [DTYPES[t] for t in spec["types"]]
    if spec.get("raw"):
        shapes = spec.get("shapes", [])
        return None, gen_data_flow_ops.barrier(
            component_types=types, shapes=shapes, capacity=spec.get("capacity", -1),
            shared_name=spec.get("shared_name", ""), name=spec.get("name", "barrier"))
    shapes = spec.get("shapes")
    b = data_flow_ops.Barrier(types, shapes=None if shapes is None else [tuple(s) for s in shapes],
                              shared_name=spec.get("shared_name"), name=spec.get("name", "barrier"))
    return b, b.barrier_ref


def run_script(script):
    # Steps are copied one by one: a script may hold the same step dict (SIZES) twice.
    script = dict(script, steps=[copy.deepcopy(s) for s in script["steps"]])
    g = tf.Graph()
    with g.as_default():
        b, ref = make_barrier(script["barrier"])
        sess = tf1.Session(graph=g)
        threads = {}
        for step in script["steps"]:
            op = step["op"]
            feed = {}
            if op == "insert":
                kp = tf1.placeholder(tf.string)
                vp = tf1.placeholder(DTYPES[step["dtype"]])
                karr, step["keys_json"] = value("string", step["keys"])
                varr, step["values_json"] = value(step["dtype"], step["values"])
                feed = {kp: karr, vp: varr}
                fetch = b.insert_many(step["component"], kp, vp)
            elif op == "take":
                n = step["n"]
                if step.get("fed"):
                    n_p = tf1.placeholder(tf.int32)
                    feed = {n_p: np.array(step["n"], np.int32)}
                    n = n_p
                fetch = b.take_many(n, allow_small_batch=step.get("allow_small", False))
            elif op == "raw_take":
                fetch = gen_data_flow_ops.barrier_take_many(
                    ref, step["n"], [DTYPES[t] for t in step["component_types"]],
                    timeout_ms=step.get("timeout_ms", -1))
            elif op == "raw_insert":
                fetch = gen_data_flow_ops.barrier_insert_many(
                    ref, step["keys"], np.array(step["values"], dtype=step["dtype"]),
                    component_index=step["component"])
            elif op == "close":
                fetch = b.close(step.get("cancel", False))
            elif op == "sizes":
                fetch = [b.ready_size(), b.incomplete_size()]
            elif op == "open":
                fetch = make_barrier(step["barrier"])[1].op
            elif op == "join":
                th, box = threads.pop(step["id"])
                th.join()
                step["result"] = box["result"]
                continue
            else:
                raise ValueError(op)
            timeout = step.get("timeout_ms", 20000)
            opts = tf1.RunOptions(timeout_in_ms=timeout)
            run = (lambda f=fetch, fd=feed, o=opts: sess.run(f, feed_dict=fd, options=o))
            if "async" in step:
                box = {}
                th = threading.Thread(target=lambda r=run, bx=box: bx.update(result=outcome(r)))
                th.start()
                threads[step["async"]] = (th, box)
            else:
                step["result"] = outcome(run)
            time.sleep(SETTLE if threads else 0)
            step["pending"] = sum(1 for th, _ in threads.values() if th.is_alive())
        assert not threads, "unjoined steps in " + script["name"]
        sess.close()
    for step in script["steps"]:
        for k in ("keys", "values"):
            if k + "_json" in step:
                step[k] = step.pop(k + "_json")
    return script


def ins(c, keys, dtype, values, **kw):
    return dict(op="insert", component=c, keys=keys, dtype=dtype, values=values, **kw)


def take(n, allow_small=False, **kw):
    return dict(op="take", n=n, allow_small=allow_small, **kw)


SIZES = {"op": "sizes"}
SI = {"types": ["string", "int32"], "shapes": [[], []], "shared_name": "B", "name": "B"}

SCRIPTS = [
    dict(name="docstring_example", barrier=SI, steps=[
        ins(0, ["k1", "k2"], "string", ["a", "b"]),
        ins(1, ["k1"], "int32", [1]),
        ins(0, ["k3"], "string", ["c"]),
        ins(1, ["k3"], "int32", [3]),
        SIZES,
        ins(1, ["k2"], "int32", [2]),
        SIZES,
        take(2), SIZES, take(1), SIZES,
    ]),
    dict(name="components_in_any_order", barrier=SI, steps=[
        ins(1, ["x", "y", "z"], "int32", [10, 20, 30]),
        SIZES,
        ins(0, ["z", "x"], "string", ["Z", "X"]),
        SIZES,
        take(1), take(1), SIZES,
        ins(0, ["y"], "string", ["Y"]),
        take(1), SIZES,
    ]),
    dict(name="ties_come_out_in_heap_order", barrier=SI, steps=[
        ins(0, ["k%d" % i for i in range(9)], "string", ["v%d" % i for i in range(9)]),
        ins(1, ["k%d" % i for i in range(9)], "int32", list(range(9))),
        take(3), take(4), take(2), SIZES,
    ]),
    dict(name="first_insertion_orders_elements", barrier=SI, steps=[
        ins(0, ["a", "b"], "string", ["A", "B"]),
        ins(0, ["c"], "string", ["C"]),
        ins(1, ["d", "e", "f"], "int32", [4, 5, 6]),
        ins(1, ["c"], "int32", [3]),
        ins(0, ["f", "e", "d"], "string", ["F", "E", "D"]),
        ins(1, ["b", "a"], "int32", [2, 1]),
        ins(0, ["g", "h"], "string", ["G", "H"]),
        ins(1, ["h", "g"], "int32", [8, 7]),
        SIZES, take(2), take(5), SIZES, take(1),
    ]),
    dict(name="tensor_components", barrier={
        "types": ["float32", "int64", "bool"], "shapes": [[2], [2, 3], []],
        "shared_name": "T", "name": "T"}, steps=[
        ins(2, ["p", "q", "r"], "bool", [True, False, True]),
        ins(0, ["q", "p", "r"], "float32", [[0.1, -2.5], [1e-8, float("inf")], [3.0, -0.0]]),
        ins(1, ["r", "p", "q"], "int64",
            [[[1, 2, 3], [4, 5, 6]], [[-7, 8, 9], [10, 11, 2**40]], [[0, 0, 0], [1, 1, 1]]]),
        take(2), take(1), take(0),
    ]),
    dict(name="unknown_shapes_hold_scalars_only", barrier={
        "types": ["float32"], "shared_name": "U", "name": "U"}, steps=[
        ins(0, ["a"], "float32", [[1.0, 2.0]]),
        SIZES,
        ins(0, ["a", "b"], "float32", [1.5, 2.5]),
        ins(0, "c", "float32", [3.5]),
        ins(0, ["d"], "float32", 4.5),
        take(3), take(0), SIZES,
    ]),
    dict(name="more_rows_than_keys", barrier=SI, steps=[
        ins(0, ["a"], "string", ["x", "y", "z"]),
        ins(1, ["a"], "int32", [7, 8]),
        take(1),
    ]),
    dict(name="empty_values", barrier=SI, steps=[
        ins(0, ["a", "b"], "string", np.zeros((2, 0), dtype=object).tolist()),
        ins(0, [], "string", []),
        ins(1, [], "int32", np.zeros((0, 4), np.int32).tolist()),
        SIZES,
    ]),
    dict(name="component_inserted_twice", barrier=SI, steps=[
        ins(0, ["a", "b", "c"], "string", ["x", "y", "z"]),
        ins(1, ["a", "b"], "int32", [1, 2]),
        SIZES,
        ins(0, ["d", "c", "e"], "string", ["1", "2", "3"]),
        SIZES,
        ins(1, ["e", "d", "c"], "int32", [5, 4, 3]),
        SIZES, take(3),
    ]),
    dict(name="completed_key_is_new_again", barrier=SI, steps=[
        ins(0, ["a", "b", "c"], "string", ["x", "y", "z"]),
        ins(1, ["a", "b", "a", "c"], "int32", [1, 2, 3, 4]),
        SIZES,
        ins(0, ["a"], "string", ["again"]),
        take(4),
    ]),
    dict(name="shape_checked_on_completion", barrier={
        "types": ["float32", "int32"], "shapes": [[2], []], "shared_name": "S", "name": "S"},
        steps=[
        ins(0, ["a", "b", "c"], "float32", [[1, 2, 3], [4, 5, 6], [7, 8, 9]]),
        SIZES,
        ins(1, ["c", "a", "b"], "int32", [3, 1, 2]),
        SIZES,
        ins(1, ["a", "b"], "int32", [1, 2]),
        SIZES,
        ins(0, ["a"], "float32", [[1, 2]]),
        ins(1, ["a"], "int32", [1]),
        take(1),
    ]),
    dict(name="component_and_dtype_mismatch", barrier=SI, steps=[
        dict(op="raw_insert", component=2, keys=["a"], dtype="int32", values=[1]),
        dict(op="raw_insert", component=1, keys=["a"], dtype="float32", values=[1.5]),
        dict(op="raw_take", n=1, component_types=["string", "float32"]),
        dict(op="raw_take", n=1, component_types=["string", "int32"], timeout_ms=10),
        SIZES,
    ]),
    dict(name="close_twice", barrier=SI, steps=[
        {"op": "close"}, {"op": "close"}, SIZES,
    ]),
    dict(name="cancelling_close_after_close", barrier=SI, steps=[
        ins(0, ["a", "b"], "string", ["x", "y"]),
        {"op": "close"}, SIZES,
        {"op": "close", "cancel": True}, SIZES,
        {"op": "close", "cancel": True}, {"op": "close"},
        take(1), take(1, True),
    ]),
    dict(name="closed_with_incomplete_elements", barrier=SI, steps=[
        ins(0, ["a", "b", "c"], "string", ["x", "y", "z"]),
        {"op": "close"},
        ins(1, ["d"], "int32", [4]),
        ins(1, ["a", "b"], "int32", [1, 2]),
        SIZES,
        ins(0, ["a"], "string", ["q"]),
        take(5), take(2), SIZES,
        ins(1, [], "int32", []),
        ins(1, ["c"], "int32", [3]),
        ins(1, [], "int32", []),
        ins(1, ["c"], "int32", [3]),
        SIZES,
        take(5), take(5, True), take(5, True), take(0), take(0, True), take(1),
    ]),
    dict(name="closed_when_complete", barrier=SI, steps=[
        take(0), take(0, True),
        ins(0, ["a"], "string", ["x"]), ins(1, ["a"], "int32", [1]),
        {"op": "close"}, SIZES,
        take(0), take(1), take(0), take(0, True), take(1),
        ins(0, ["a"], "string", ["x"]),
        ins(0, [], "string", []),
    ]),
    dict(name="cancelling_close", barrier=SI, steps=[
        ins(0, ["a", "b"], "string", ["x", "y"]),
        ins(1, ["b"], "int32", [2]),
        {"op": "close", "cancel": True},
        ins(1, ["a"], "int32", [1]),
        ins(1, ["c"], "int32", [1]),
        ins(1, [], "int32", []),
        SIZES, take(2), take(1), take(2, True), take(1, True),
    ]),
    dict(name="closed_small_batch", barrier=SI, steps=[
        ins(0, ["a", "b", "c"], "string", ["x", "y", "z"]),
        ins(1, ["c", "b", "a"], "int32", [3, 2, 1]),
        {"op": "close"},
        take(5, True), take(5, True),
    ]),
    dict(name="num_elements_fed", barrier=SI, steps=[
        ins(0, ["a", "b"], "string", ["x", "y"]),
        ins(1, ["a", "b"], "int32", [1, 2]),
        take([1, 2], fed=True), take(1, fed=True), SIZES,
    ]),
    dict(name="raw_barrier_attrs", barrier={"types": ["float32"], "raw": True, "shapes": [[]],
                                            "shared_name": "R"}, steps=[
        {"op": "open", "barrier": {"types": ["float32"], "raw": True, "shapes": [[]],
                                   "capacity": 5, "shared_name": "R1", "name": "b1"}},
        {"op": "open", "barrier": {"types": ["float32"], "raw": True, "shapes": [],
                                   "shared_name": "R2", "name": "b2"}},
        {"op": "open", "barrier": {"types": ["float32"], "raw": True, "shapes": [[None]],
                                   "shared_name": "R3", "name": "b3"}},
        {"op": "open", "barrier": {"types": ["float32"], "raw": True, "shapes": [None],
                                   "shared_name": "R4", "name": "b4"}},
        {"op": "open", "barrier": {"types": ["float32", "int32"], "raw": True,
                                   "shapes": [[2], [3]], "shared_name": "R5", "name": "b5"}},
    ]),
    dict(name="shared_barrier_must_match", barrier=SI, steps=[
        {"op": "open", "barrier": dict(SI, name="B2")},
        {"op": "open", "barrier": dict(SI, types=["string"], shapes=[[]], name="B3")},
        {"op": "open", "barrier": dict(SI, shapes=[[2], []], name="B4")},
        {"op": "open", "barrier": dict(SI, types=["string", "int64"], name="B5")},
    ]),
    dict(name="private_name_in_messages", barrier={"types": ["string"], "shapes": [[]]}, steps=[
        ins(0, ["a"], "string", np.zeros((1, 0), dtype=object).tolist()),
        {"op": "close"}, {"op": "close"},
        take(1),
    ]),
    # Blocking: a take_many waits for enough complete elements; later ones wait behind it.
    dict(name="take_blocks_until_completed", barrier=SI, steps=[
        take(2, **{"async": "t"}),
        ins(0, ["a", "b"], "string", ["x", "y"]),
        ins(1, ["b"], "int32", [2]),
        SIZES,
        ins(1, ["a"], "int32", [1]),
        {"op": "join", "id": "t"},
        SIZES,
    ]),
    dict(name="blocked_takes_run_in_order", barrier=SI, steps=[
        ins(0, ["a", "b", "c"], "string", ["x", "y", "z"]),
        take(2, **{"async": "t2"}),
        take(1, **{"async": "t1"}),
        ins(1, ["c"], "int32", [3]),
        ins(1, ["b", "a"], "int32", [2, 1]),
        {"op": "join", "id": "t2"},
        {"op": "join", "id": "t1"},
        SIZES,
    ]),
    dict(name="close_fails_blocked_take", barrier=SI, steps=[
        ins(0, ["a", "b"], "string", ["x", "y"]),
        ins(1, ["a", "b"], "int32", [1, 2]),
        take(3, **{"async": "t"}),
        {"op": "close"},
        {"op": "join", "id": "t"},
        SIZES,
        take(2),
    ]),
    dict(name="close_loses_small_batch_of_blocked_take", barrier=SI, steps=[
        ins(0, ["a", "b"], "string", ["x", "y"]),
        ins(1, ["a", "b"], "int32", [1, 2]),
        take(3, True, **{"async": "t"}),
        {"op": "close"},
        {"op": "join", "id": "t"},
        SIZES,
    ]),
    dict(name="cancelling_close_fails_blocked_take", barrier=SI, steps=[
        ins(0, ["a", "b"], "string", ["x", "y"]),
        ins(1, ["a"], "int32", [1]),
        take(2, **{"async": "t"}),
        {"op": "close", "cancel": True},
        {"op": "join", "id": "t"},
        SIZES,
    ]),
    # The ready queue stays open when a close leaves incomplete elements, so a blocked
    # take_many waits on after they complete, until its run times out.
    dict(name="blocked_take_outlives_close", barrier=SI, steps=[
        ins(0, ["a", "b"], "string", ["x", "y"]),
        ins(1, ["a"], "int32", [1]),
        take(3, True, timeout_ms=2000, **{"async": "t"}),
        {"op": "close"},
        ins(1, ["b"], "int32", [2]),
        SIZES,
        {"op": "join", "id": "t"},
        take(3, True), SIZES,
    ]),
    dict(name="run_timeout_cancels_take", barrier=SI, steps=[
        ins(0, ["a"], "string", ["x"]),
        take(1, timeout_ms=300),
        ins(1, ["a"], "int32", [1]),
        SIZES,
        take(1),
    ]),
]


def build_case(name, fn):
    g = tf.Graph()
    with g.as_default():
        try:
            out = fn()
        except (ValueError, TypeError) as e:
            return {"name": name, "error": {"class": type(e).__name__,
                                            "message": str(e).split(" for '")[0]}}
    return {"name": name, "ok": out}


def sh(t):
    return None if t.shape.rank is None else [d for d in t.shape.as_list()]


def names_and_shapes():
    b = data_flow_ops.Barrier((tf.float32, tf.int32), shapes=((2,), (3,)))
    t3 = b.take_many(3)
    ts = b.take_many(3, allow_small_batch=True)
    n = tf1.placeholder(tf.int32)
    tn = b.take_many(n, name="by_n")
    bu = data_flow_ops.Barrier(tf.string, name="u")
    tu = bu.take_many(4)
    with tf.name_scope("scope"):
        bs = data_flow_ops.Barrier(tf.string, name="bar")
        in_scope = [bs.insert_many(0, ["k"], ["v"]).name, bs.take_many(1)[0].name]
    ops = [
        b.barrier_ref.op.name, b.name,
        b.insert_many(0, ["k"], [[1.0, 2.0]]).name, b.insert_many(1, ["k"], [[1, 2, 3]]).name,
        t3[0].name, ts[0].name, tn[0].name, t3[0].op.inputs[1].name,
        b.close().name, b.close(True).name, b.ready_size().name, b.incomplete_size().name,
        b.insert_many(0, ["k"], [[1.0, 2.0]], name="ins").name,
        b.close(name="shut").name, b.ready_size(name="rs").name,
        b.incomplete_size(name="is").name,
        bu.barrier_ref.op.name,
        bs.name, bs.insert_many(0, ["k"], ["v"]).name,
    ] + in_scope
    shapes = [[sh(x) for x in [t[0], t[1]] + list(t[2])] for t in (t3, ts, tn, tu)]
    return {"names": ops, "shapes": shapes}


def builds():
    S = (tf.string, tf.int32)
    B = lambda: data_flow_ops.Barrier(S, shapes=((), ()), name="B")  # noqa: E731
    return [
        build_case("names_and_shapes", names_and_shapes),
        build_case("empty_shape", lambda: data_flow_ops.Barrier(tf.float32, shapes=[(0,)]).name),
        build_case("empty_shape_2", lambda: data_flow_ops.Barrier(
            (tf.float32, tf.int32), shapes=[(2,), (3, 0)]).name),
        build_case("partial_shape", lambda: data_flow_ops.Barrier(
            (tf.float32, tf.int32), shapes=[(2,), None]).name),
        build_case("partial_dim", lambda: data_flow_ops.Barrier(
            (tf.float32, tf.int32), shapes=[(2,), (None,)]).name),
        build_case("no_types", lambda: data_flow_ops.Barrier([], shapes=[]).name),
        build_case("timeout", lambda: B().take_many(1, timeout=10)[0].name),
        build_case("negative_take", lambda: B().take_many(-1)[0].name),
        build_case("keys_rank_2", lambda: B().insert_many(0, [["a"]], ["x"]).name),
        build_case("values_rank_0", lambda: B().insert_many(0, ["a"], "x").name),
        build_case("keys_values_differ", lambda: B().insert_many(0, ["a", "b"], ["x"]).name),
        build_case("values_dtype", lambda: B().insert_many(1, ["a"], np.array([1.5], np.float32)).name),
    ]


def main():
    scripts = [run_script(s) for s in SCRIPTS]
    out = {"scripts": scripts, "builds": builds()}
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("scripts:", len(scripts), "steps:", sum(len(s["steps"]) for s in scripts),
          "builds:", len(out["builds"]))


if __name__ == "__main__":
    main()
