"""Records TensorFlow 2.21's MapStagingArea (data_flow_ops.MapStagingArea and the MapStage,
MapPeek, MapUnstage, MapUnstageNoKey, MapSize, MapIncompleteSize, MapClear ops and their
OrderedMap* twins) for weir's data_flow_map_staging test.

Each scenario makes one area and runs a list of steps, one Session.run each, in one session:
puts, peeks and gets by key or without, partial puts and gets, sizes, clears, raw ops for what
the Python class never builds, and steps run on a background thread to see a put or get block
until another step frees it. Every step records the names of the nodes it built (or Python's
build error) and its outputs (or TensorFlow's error). Tensors are {dtype, dims, values} specs,
floats as IEEE bit patterns and strings base64, so values are checked bit for bit.

Run: $HOME/.cache/weir-bench/venv/bin/python make_data_flow_map_staging.py
"""
import base64
import json
import os
import threading
import time

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import data_flow_ops

tf.compat.v1.disable_eager_execution()
v1 = tf.compat.v1
HERE = os.path.dirname(os.path.abspath(__file__))
BITS = {"float16": np.uint16, "float32": np.uint32, "float64": np.uint64}
# How long a background step must stay blocked to count as blocked.
SETTLE = 0.5


def spec(a):
    a = np.asarray(a)
    flat = a.reshape(-1)
    name = a.dtype.name
    if a.dtype.kind in ("O", "S", "U"):
        name = "string"
        vals = [base64.b64encode(v if isinstance(v, bytes) else str(v).encode()).decode()
                for v in flat]
    elif name in BITS:
        vals = [int(v) for v in flat.view(BITS[name])]
    elif name == "bool":
        vals = [bool(v) for v in flat]
    else:
        vals = [int(v) for v in flat]
    return {"dtype": name, "dims": list(a.shape), "values": vals}


def value(spec_):
    dims = spec_["dims"]
    if spec_["dtype"] == "string":
        vals = [base64.b64decode(v) for v in spec_["values"]]
        return np.array(vals, dtype=object).reshape(dims)
    dt = np.dtype(spec_["dtype"])
    if spec_["dtype"] in BITS:
        return np.array(spec_["values"], BITS[spec_["dtype"]]).view(dt).reshape(dims)
    return np.array(spec_["values"], dt).reshape(dims)


def err_message(e):
    """TensorFlow's own message, without the traceback or the `[[{{node ...}}]]` suffix."""
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split("\nHint:")[0]
    if msg.startswith("Graph execution error:"):
        msg = msg[len("Graph execution error:"):]
    return msg.strip()


def error_of(e):
    return {"type": type(e).__name__, "code": getattr(e, "error_code", 3),
            "message": err_message(e)}


def const(spec_):
    return tf.constant(value(spec_), dtype=tf.as_dtype(spec_["dtype"]))


class Scenario:
    """One area, its steps' ops built in order, then run one at a time."""

    def __init__(self, name, dtypes, **area):
        self.name = name
        self.area = dict(area)
        self.area["dtypes"] = dtypes
        self.steps = []

    def step(self, op, **kw):
        kw["op"] = op
        if kw.get("key") is not None:
            kw["key"] = K(kw["key"])
        self.steps.append(kw)
        return self

    put = lambda self, key, values, indices=None, **kw: self.step(
        "put", key=key, values=values, indices=indices, **kw)
    put_dict = lambda self, key, values, **kw: self.step("put_dict", key=key, values=values, **kw)
    peek = lambda self, key, indices=None, **kw: self.step("peek", key=key, indices=indices, **kw)
    get = lambda self, key=None, indices=None, **kw: self.step("get", key=key, indices=indices, **kw)
    size = lambda self: self.step("size")
    incomplete_size = lambda self: self.step("incomplete_size")
    clear = lambda self: self.step("clear")
    # `count` no-key gets whose results are compared as a set (an unordered map's order is
    # its hash map's).
    drain = lambda self, count: self.step("drain", count=count)
    raw = lambda self, type_, inputs, attrs, **kw: self.step(
        "raw", type=type_, inputs=inputs, set_attrs=attrs, **kw)
    # Starts the next step on a thread; `check_blocked` waits SETTLE and records whether it is
    # still running; `join` waits for it and records its outcome.
    background = lambda self: self.step("background")
    check_blocked = lambda self: self.step("check_blocked")
    join = lambda self: self.step("join")


def tf_dtypes(names):
    return [tf.as_dtype(n) for n in names]


def build_area(area):
    kw = dict(area)
    dtypes = tf_dtypes(kw.pop("dtypes"))
    if kw.get("shapes") is not None:
        kw["shapes"] = [None if s is None else s for s in kw["shapes"]]
    return data_flow_ops.MapStagingArea(dtypes, **kw)


def attrs_of(op):
    """The node's attrs as TensorFlow's Python sets them (not its colocation)."""
    out = {}
    for k, v in op.node_def.attr.items():
        if k == "_class":
            continue
        if v.HasField("list"):
            out[k] = [tf.as_dtype(t).name for t in v.list.type]
        elif v.WhichOneof("value") == "i":
            out[k] = v.i
        else:
            out[k] = v.s.decode()
    return dict(sorted(out.items()))


def build_step(m, st):
    """The fetches and target of a step, recording the names Python gave its nodes."""
    op = st["op"]
    if op in ("background", "check_blocked", "join"):
        return None
    key = None if st.get("key") is None else const(st["key"])
    name = st.get("name")
    if op == "put":
        vals = [const(v) for v in st["values"]]
        o = m.put(key, vals, st["indices"], name=name)
        st["names"] = [o.name]
        st["attrs"] = attrs_of(o)
        return ("target", o)
    if op == "put_dict":
        vals = {n: const(v) for n, v in st["values"]}
        o = m.put(key, vals, name=name)
        st["names"] = [o.name]
        st["attrs"] = attrs_of(o)
        return ("target", o)
    if op == "peek":
        out = m.peek(key, st["indices"], name=name)
        out = list(out.values()) if isinstance(out, dict) else out
        st["names"] = [t.name for t in out]
        st["attrs"] = attrs_of(out[0].op)
        st["static_shapes"] = [shape_json(t.shape) for t in out]
        return ("fetch", out)
    if op == "get":
        k, out = m.get(key, st["indices"], name=name)
        out = list(out.values()) if isinstance(out, dict) else out
        st["names"] = [k.name] + [t.name for t in out]
        st["attrs"] = attrs_of(out[0].op)
        st["static_shapes"] = [shape_json(t.shape) for t in out]
        return ("fetch", out if key is not None else [k] + out)
    if op == "drain":
        gets = [m.get() for _ in range(st["count"])]
        return ("drain", [[k] + v for k, v in gets])
    if op in ("size", "incomplete_size"):
        o = getattr(m, op)()
        st["names"] = [o.name]
        st["attrs"] = attrs_of(o.op)
        return ("fetch", [o])
    if op == "clear":
        o = m.clear()
        st["names"] = [o.name]
        st["attrs"] = attrs_of(o)
        return ("target", o)
    if op == "raw":
        inputs = [const(v) for v in st["inputs"]]
        if st["type"].endswith("MapStage"):
            inputs = inputs[:2] + [inputs[2:]]
        attrs = dict(st["set_attrs"])
        for a in ("dtypes", "fake_dtypes"):
            if a in attrs:
                attrs[a] = tf_dtypes(attrs[a])
        attrs.setdefault("shared_name", m.name)
        fn = getattr(tf.raw_ops, st["type"])
        arg_names = {"MapStage": ["key", "indices", "values"], "MapPeek": ["key", "indices"],
                     "MapUnstage": ["key", "indices"], "MapUnstageNoKey": ["indices"],
                     "MapSize": [], "MapIncompleteSize": [], "MapClear": []}
        base = st["type"].replace("Ordered", "")
        out = fn(**dict(zip(arg_names[base], inputs)), **attrs)
        if base in ("MapStage", "MapClear"):
            return ("target", out)
        if base == "MapUnstageNoKey":
            return ("fetch", [out.key] + list(out.values))
        if base in ("MapPeek", "MapUnstage"):
            return ("fetch", list(out))
        return ("fetch", [out])
    raise ValueError(op)


def shape_json(shape):
    if shape.rank is None:
        return None
    return [None if d is None else int(d) for d in shape]


def run_built(sess, built):
    kind, what = built
    if kind == "target":
        sess.run(what)
        return []
    if kind == "fetch":
        return [spec(v) for v in sess.run(what)]
    got = [[spec(v) for v in r] for r in (sess.run(g) for g in what)]
    return sorted(got, key=lambda r: r[0]["values"])


def record(sc):
    g = tf.Graph()
    with g.as_default():
        try:
            m = build_area(sc.area)
            sc.area["name"] = m.name
        except (ValueError, TypeError, IndexError) as e:
            sc.area["build_error"] = error_of(e)
            return
        built = []
        for st in sc.steps:
            try:
                built.append(build_step(m, st))
            except (ValueError, TypeError, IndexError) as e:
                st["build_error"] = error_of(e)
                built.append(None)
        sess = v1.Session(graph=g)
        bg = None
        for st, b in zip(sc.steps, built):
            if st["op"] == "background":
                bg = {"pending": True}
                continue
            if st["op"] == "check_blocked":
                time.sleep(SETTLE)
                st["blocked"] = bg["thread"].is_alive()
                continue
            if st["op"] == "join":
                bg["thread"].join(timeout=30)
                assert not bg["thread"].is_alive(), sc.name
                st.update(bg["result"])
                bg = None
                continue
            if b is None:
                continue

            def run(st=st, b=b, into=None):
                try:
                    res = {"outputs": run_built(sess, b)}
                except tf.errors.OpError as e:
                    res = {"error": error_of(e)}
                (into if into is not None else st).update(res)

            if bg is not None and bg.get("pending"):
                bg = {"result": {}}
                bg["thread"] = threading.Thread(target=run, kwargs={"into": bg["result"]})
                bg["thread"].start()
                st["in_background"] = True
            else:
                run()
        sess.close()


F32, I32, I64, STR = "float32", "int32", "int64", "string"
f = lambda *x: spec(np.array(x[0] if len(x) == 1 else x, np.float32))
i = lambda *x: spec(np.array(x[0] if len(x) == 1 else x, np.int32))
s = lambda x: spec(np.array(x, dtype=object))
K = lambda k: spec(np.array(k, np.int64))


def scenarios():
    out = []
    add = lambda sc: out.append(sc) or sc

    # Whole puts, peeks and gets by key, duplicate keys, sizes, clear.
    sc = add(Scenario("basic_by_key", [F32, I32]))
    sc.put(1, [f(1.5), i(2)], [0, 1]).put(2, [f([1.0, -0.0, 3.25]), i([[1, 2], [3, 4]])], [0, 1])
    sc.size().incomplete_size().peek(1).peek(2, [1]).peek(2, [0])
    sc.put(1, [f(9.0), i(9)], [0, 1]).size().peek(1)  # a staged key keeps its tuple
    sc.get(2).size().get(1, [0]).size().get(1, [1]).size()
    sc.put(3, [f(3.0), i(3)], [0, 1]).put(4, [f(4.0), i(4)], [0, 1]).size().clear().size()
    sc.put(3, [f(0.5), i(5)], [0, 1]).get(3)

    # Partial puts and gets: a tuple is incomplete until every component arrived, and leaves
    # the map once every component was taken.
    sc = add(Scenario("partial", [F32, I32, STR]))
    sc.put(7, [s(b"seven")], [2]).size().incomplete_size()
    sc.put(7, [f(7.0)], [0]).size().incomplete_size()
    sc.put(7, [f(8.0)], [0])  # already initialized
    sc.put(7, [i(77)], [1]).size().incomplete_size()
    sc.put(8, [f(8.0), s([b"a", b""])], [0, 2]).incomplete_size()
    sc.put(8, [i(88)], [1]).size().incomplete_size()
    sc.peek(7, [0, 2]).get(7, [1]).size().get(7, [1]).peek(7, [1]).peek(7, [0])
    sc.get(7, [0, 2]).size().get(8, [2]).peek(8, [0, 1]).get(8, [0, 1]).size()
    sc.put(9, [f(1.0)], [0]).incomplete_size().clear().incomplete_size().size()

    # No-key gets: the ordered map gives the smallest key; the unordered one gives them all.
    for ordered in (True, False):
        sc = add(Scenario("no_key_ordered" if ordered else "no_key_unordered", [I32, F32],
                          ordered=ordered))
        for k in (5, -3, 12, 0, 7):
            sc.put(k, [i(k), f(k * 0.5)], [0, 1])
        sc.size()
        if ordered:
            sc.get().get(indices=[1]).size().get(indices=[0]).size().get().get().size()
            sc.put(4, [i(4), f(2.0)], [0, 1]).put(-9, [i(-9), f(-4.5)], [0, 1]).get().get()
        else:
            sc.drain(5).size()
    sc = add(Scenario("ordered_by_key", [F32], ordered=True))
    sc.put(3, [f(3.0)], [0]).put(1, [f(1.0)], [0]).peek(3).get(1).get(3).size()
    sc.put(2, [f([2.0, 2.5])], [0]).incomplete_size().get().size()

    # Names: dictionary puts and named indices.
    sc = add(Scenario("names", [F32, I32], names=["x", "y"]))
    sc.put_dict(1, [["y", i(10)]]).incomplete_size().put_dict(1, [["x", f(1.0)]]).size()
    sc.peek(1, ["y"]).peek(1).get(1, ["y", "x"]).get(1, ["x"]).get(None, ["y"]).size()
    sc.put(2, [f(1.0), i(1)], [0, 1]).put_dict(2, [["x", f(1.0)], ["z", i(1)]])
    sc.put_dict(2, []).peek(2, ["z"]).peek(2, [1, 0])

    # Static shapes from `shapes`, and Python's checks of puts and indices.
    sc = add(Scenario("shapes_and_checks", [F32, I32], shapes=[[2], [None, 3]]))
    sc.put(1, [f(1.0, 2.0), i(np.arange(6).reshape(2, 3))], [0, 1]).peek(1).get(1, [1])
    sc.get(None, [0]).size()
    sc.put(1, [f(1.0, 2.0)], None).put(1, [f(1.0, 2.0)], [0, 1])
    sc.put(1, [f(1.0, 2.0), i([[1, 2, 3]]), i([[1, 2, 3]])], [0, 1, 2])
    sc.put(1, [i([[1, 2, 3]])], [0]).put(1, [f(1.0)], [0]).put(1, [f(1.0, 2.0)], [5])
    sc.put(1, [i([1, 2, 3])], [-1]).put(2, [i([[1, 2, 3]])], [-1]).incomplete_size()
    sc.peek(1, []).peek(1, [5]).peek(1, ["x"]).put_dict(1, [["x", f(1.0, 2.0)]])
    sc.peek(2, [1, -1]).size()
    add(Scenario("bad_shapes", [F32], shapes=[[1], [2]]))
    add(Scenario("bad_names", [F32], names=["a", "b"]))

    # The ops' checks of keys and indices.
    sc = add(Scenario("key_and_index_errors", [F32, I32]))
    sc.put([1, 2], [f(1.0), i(1)], [0, 1]).put(np.zeros([0], np.int64), [f(1.0), i(1)], [0, 1])
    sc.put([[4]], [f(4.0), i(4)], [0, 1]).size().peek([4], [0]).get([[4]]).peek(4).get().size()
    sc.put(1, [i(1), f(1.0)], [1, 0]).put(1, [f(1.0), i(1)], [0, 1]).peek(1, [1, 0])
    sc.put(2, [i(5)], [-1]).incomplete_size().get(1, [-1]).size()
    sc.put(2, [i(5), i(5)], [1, 1])
    sc.put(0, [f(1.0)], [0], name="first").put(0, [i(3)], [1], name="first")
    sc.get(0, name="taken").size()

    # Raw ops: what the Python class never builds.
    sc = add(Scenario("raw_ops", [F32, I32], shared_name="raw"))
    stage = lambda k, idx, vals, dtypes=(F32, I32), **kw: sc.raw(
        "MapStage", [K(k), idx] + vals, {"dtypes": list(dtypes), **kw})
    stage(1, i(0, 1), [f(1.0), i(1)]).raw("MapSize", [], {"dtypes": [F32, I32]})
    stage(2, i(0), [f(2.0)])  # scalar indices
    stage(2, i([[1]]), [i(2)]).raw("MapSize", [], {"dtypes": [F32]})
    stage(3, i(0), [f(3.0), i(3)])  # more values than indices: the extra is not staged
    stage(3, i([]), [f(3.0)])
    sc.raw("MapIncompleteSize", [], {"dtypes": []})
    sc.raw("MapPeek", [K(1), i([1])], {"dtypes": [F32]})  # a value of the wrong dtype
    sc.raw("MapUnstage", [K(2), i([0, 5])], {"dtypes": [F32, I32]})  # first taken, then fails
    sc.raw("MapPeek", [K(2), i([0])], {"dtypes": [F32]})
    sc.raw("MapPeek", [K(2), i([1])], {"dtypes": [I32]})
    sc.raw("MapUnstageNoKey", [i([])], {"dtypes": [F32]})
    sc.raw("MapUnstageNoKey", [i([1, 1])], {"dtypes": [I32, I32]})
    sc.raw("OrderedMapSize", [], {"dtypes": [F32, I32]})  # another map of the same name
    sc.raw("MapSize", [], {"dtypes": [F32], "shared_name": "_private"})
    sc.raw("MapSize", [], {"dtypes": [F32], "container": "no spaces"})
    sc.raw("MapClear", [], {"dtypes": [F32]}).raw("MapSize", [], {"dtypes": [F32]})

    # A map made by a size op with fewer dtypes refuses whole puts.
    sc = add(Scenario("made_by_size", [F32, I32], shared_name="small"))
    sc.raw("MapSize", [], {"dtypes": [F32]}).put(1, [f(1.0), i(1)], [0, 1]).size()
    sc.put(1, [f(1.0)], [0]).size()

    # Memory limits: a put is charged its last value's bytes (TensorFlow's sum), and one over
    # the limit is refused.
    sc = add(Scenario("memory_limit", [F32, I32], memory_limit=10))
    sc.put(1, [f(np.zeros(100)), i(1)], [0, 1]).size()
    sc.put(2, [f(1.0), i(np.zeros(100))], [0, 1]).put(3, [f(np.zeros(100))], [0])
    sc.put(4, [f(1.0), i(4)], [0, 1]).size().get(4).put(5, [f(1.0), i([1, 2])], [0, 1])
    sc.size().background().put(6, [f(1.0), i(6)], [0, 1]).check_blocked().get(5).join().size()
    sc = add(Scenario("memory_limit_strings", [STR], memory_limit=30))
    sc.put(1, [s(b"abc")], [0]).put(2, [s([b"abc", b"de"])], [0]).put(3, [s([])], [0]).size()

    # Blocking: a put into a full map waits for a get; completing a partial tuple does not.
    sc = add(Scenario("capacity", [F32, I32], capacity=2, ordered=True))
    sc.put(1, [f(1.0), i(1)], [0, 1]).put(2, [f(2.0), i(2)], [0, 1])
    sc.background().put(3, [f(3.0), i(3)], [0, 1]).check_blocked().size()
    sc.get(1).join().size()
    sc.put(4, [f(4.0)], [0]).incomplete_size().put(4, [i(4)], [1]).size().incomplete_size()
    sc.get().get().get().size()

    # Blocking: a get or peek of a missing key waits until it is put.
    sc = add(Scenario("get_waits_for_put", [I32]))
    sc.background().get(5).check_blocked().put(4, [i(4)], [0]).check_blocked()
    sc.put(5, [i(5)], [0]).join().size()
    sc.background().peek(6).check_blocked().put(6, [i(6)], [0]).join().size()
    sc = add(Scenario("no_key_get_waits", [I32], ordered=True))
    sc.background().get().check_blocked().put(9, [i(9)], [0]).join().size()
    sc = add(Scenario("partial_put_does_not_wake", [F32, I32]))
    sc.background().get(1).put(1, [f(1.0)], [0]).check_blocked().incomplete_size()
    sc.put(1, [i(1)], [1]).join().size()
    return out


def main():
    cases = []
    for sc in scenarios():
        record(sc)
        cases.append({"name": sc.name, "area": sc.area, "steps": sc.steps})
    with open(os.path.join(HERE, "expected.json"), "w") as fh:
        json.dump(cases, fh, indent=1)
        fh.write("\n")
    print(f"{len(cases)} scenarios, {sum(len(c['steps']) for c in cases)} steps")


if __name__ == "__main__":
    main()
