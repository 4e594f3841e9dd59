"""Writes expected.json: what TensorFlow 2.21 (tf.compat.v1 graph mode, CPU) does with
`StagingArea` (tensorflow.python.ops.data_flow_ops.StagingArea, the class behind
tf.contrib.staging.StagingArea) and its ops Stage, Unstage, StagePeek, StageSize and
StageClear, for weir's crates/ops/tests/integration/data_flow_staging.rs.

Run: ~/.cache/weir-bench/venv/bin/python make_data_flow_staging.py

A case is a little program: "areas" (the StagingArea constructor arguments: dtypes, shapes,
names, shared_name, capacity, memory_limit) built in order, then "steps" built in order (each
adds one op with the area's put/get/peek/size/clear), inside name scope "scope" if given;
then the steps run in order in "sessions" sessions. A step:
  {"op": "put", "area", "values": [tensor] | {"name": tensor} (with "keys", their order),
   "single" (a bare tensor rather than a list), "fed_shapes" (values fed through placeholders
   of these static shapes), "name"}
  {"op": "get" | "size" | "clear", "area", "name"}
  {"op": "peek", "area", "index", "index_tensor" (a tf.constant index rather than an int),
   "name"}
  {"op": "raw_peek_index", "area", "index": tensor} (StagePeek with an index tensor of any
   shape)
and at run time "session" (which session runs it, default 0), "async" (run on its own thread;
"blocked" records whether it was still running 0.5 s later), "join" (wait for the async step
with this index first), "timeout_ms" (RunOptions.timeout_in_ms), "forever" (an async step
TensorFlow never returns from: it is left blocked).
Recorded per step: "names" (the op or output tensor names), "static_shapes" (get/peek), and
"outputs" (tensors; a dict for an area with names) or "error": {"code", "message"}; a case
whose building failed has "build_error": {"type", "message", "at"}, the steps up to the one
that failed, and no run. "graph_ops" lists the graph's [name, type] pairs; "graph_def" (some
cases) is the graph's serialized GraphDef, base64. A tensor is {"dtype", "dims", "values"}:
floats as bit patterns, strings base64.

TensorFlow's Unstage and StagePeek ignore a run's timeout: case "get_timeout_waits_for_put"
records that such a get returns DeadlineExceeded only once a put lets it take the element.
"""

import base64
import json
import os
import re
import threading
import time

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402
from tensorflow.python.ops import data_flow_ops  # noqa: E402

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
BLOCK_CHECK_S = 0.5
CASES = []
LIVE = []  # sessions kept alive until os._exit, so none is deleted while a step blocks in it


def spec(value, dtype):
    a = np.asarray(value, dtype=object if dtype == "string" else np.dtype(dtype))
    if dtype == "string":
        vals = [base64.b64encode(x if isinstance(x, bytes) else x.encode()).decode()
                for x in a.ravel().tolist()]
    elif dtype == "float32":
        vals = a.view(np.uint32).ravel().tolist()
    elif dtype == "float64":
        vals = a.view(np.uint64).ravel().tolist()
    elif dtype == "float16":
        vals = a.view(np.uint16).ravel().tolist()
    elif dtype == "bool":
        vals = [bool(x) for x in a.ravel().tolist()]
    else:
        vals = [int(x) for x in a.ravel().tolist()]
    return {"dtype": dtype, "dims": list(a.shape), "values": vals}


def unspec(s):
    dims, vals, dt = s["dims"], s["values"], s["dtype"]
    if dt == "string":
        return np.array([base64.b64decode(v) for v in vals], dtype=object).reshape(dims)
    bits = {"float32": np.uint32, "float64": np.uint64, "float16": np.uint16}
    if dt in bits:
        return np.array(vals, dtype=bits[dt]).view(dt).reshape(dims)
    return np.array(vals, dtype=dt).reshape(dims)


def out_spec(v):
    a = np.asarray(v)
    if a.dtype.kind in "SO":
        return spec(a.astype(object), "string")
    return spec(a, a.dtype.name)


def redact(msg):
    msg = msg.split("\n\t [[")[0].rstrip()
    msg = re.split(r"\nNode: '[^']*'\n", msg)[-1]
    msg = re.sub(r"^Graph execution error:\n\n", "", msg)
    # weir names the node in the error's context instead.
    return re.sub(r" for node \{\{node [^}]*\}\}$", "", msg)


def static(t):
    s = t.shape
    return None if s.rank is None else s.as_list()


def shape_arg(s):
    return None if s is None else tf.TensorShape(s)


def build_area(a):
    return data_flow_ops.StagingArea(
        [tf.as_dtype(d) for d in a["dtypes"]],
        shapes=None if a.get("shapes") is None else [shape_arg(s) for s in a["shapes"]],
        names=a.get("names"),
        shared_name=a.get("shared_name"),
        capacity=a.get("capacity", 0),
        memory_limit=a.get("memory_limit", 0))


def value_tensor(s, fed_shape, feeds):
    v = unspec(s)
    if fed_shape is False:
        return tf.constant(v, dtype=tf.as_dtype(s["dtype"]))
    p = tf.placeholder(tf.as_dtype(s["dtype"]), shape_arg(fed_shape))
    feeds[p] = v
    return p


def names_of(ret):
    if isinstance(ret, dict):
        return {k: t.name for k, t in ret.items()}, {k: static(t) for k, t in ret.items()}
    return [t.name for t in ret], [static(t) for t in ret]


def build_step(areas, st, feeds):
    """Adds the step's op; returns (fetch, names, static shapes)."""
    area = areas[st.get("area", 0)]
    kind = st["op"]
    name = st.get("name")
    if kind == "put":
        fed = st.get("fed_shapes")
        vals = st["values"]
        if isinstance(vals, dict):
            st["keys"] = list(vals)  # the order the values are made in (JSON readers may sort)
            arg = {k: value_tensor(s, fed[k] if fed else False, feeds) for k, s in vals.items()}
        else:
            arg = [value_tensor(s, fed[i] if fed else False, feeds) for i, s in enumerate(vals)]
            if st.get("single"):
                arg = arg[0]
        op = area.put(arg, name=name)
        return op, [op.name], None
    if kind in ("get", "peek", "raw_peek_index"):
        if kind == "get":
            ret = area.get(name=name)
        elif kind == "peek":
            idx = st["index"]
            if st.get("index_tensor"):
                idx = tf.constant(idx)
            ret = area.peek(idx, name=name)
        else:
            ret = area.peek(tf.constant(unspec(st["index"])), name=name)
        names, shapes = names_of(ret)
        return ret, names, shapes
    if kind == "size":
        t = area.size(name=name)
        return t, [t.name], None
    if kind == "clear":
        op = area.clear(name=name)
        return op, [op.name], None
    raise ValueError(kind)


def encode(vals):
    if isinstance(vals, dict):
        return {k: out_spec(v) for k, v in vals.items()}
    if isinstance(vals, (list, tuple)):
        return [out_spec(v) for v in vals]
    return None if vals is None else [out_spec(vals)]


def record(case):
    print(case["name"], flush=True)
    g = tf.Graph()
    feeds = {}
    built = []
    with g.as_default():
        scope = tf.name_scope(case["scope"]) if case.get("scope") else None
        if scope is not None:
            scope.__enter__()
        try:
            areas = []
            for i, a in enumerate(case["areas"]):
                where = "area %d" % i
                areas.append(build_area(a))
                a["area_name"] = areas[-1].name
            for i, st in enumerate(case["steps"]):
                where = "step %d" % i
                fetch, names, shapes = build_step(areas, st, feeds)
                st["names"] = names
                if shapes is not None:
                    st["static_shapes"] = shapes
                built.append(fetch)
        except (ValueError, TypeError) as e:
            case["build_error"] = {"type": type(e).__name__, "message": str(e), "at": where}
            # Up to the step that failed (none when an area did).
            case["steps"] = case["steps"][:len(built) + 1] if where.startswith("step") else []
        finally:
            if scope is not None:
                scope.__exit__(None, None, None)
        case["graph_ops"] = [[op.name, op.type] for op in g.get_operations()]
        if case.get("graph_def"):
            case["graph_def"] = base64.b64encode(g.as_graph_def().SerializeToString()).decode()
        if "build_error" in case:
            CASES.append(case)
            return
        # Threads of their own, so a step blocked in one case cannot starve the next.
        config = tf.ConfigProto(inter_op_parallelism_threads=4, use_per_session_threads=True)
        sessions = [tf.Session(graph=g, config=config) for _ in range(case.get("sessions", 1))]
        LIVE.extend(sessions)
        threads = {}

        def run(i, st):
            sess = sessions[st.get("session", 0)]
            opts = None
            if "timeout_ms" in st:
                opts = tf.RunOptions(timeout_in_ms=st["timeout_ms"])
            try:
                vals = sess.run(built[i], feed_dict=feeds, options=opts)
                out = encode(vals)
                if out is not None:
                    st["outputs"] = out
            except tf.errors.OpError as e:
                st["error"] = {"code": e.error_code, "message": redact(e.message)}

        for i, st in enumerate(case["steps"]):
            if "join" in st:
                t = threads.pop(st["join"])
                t.join(30)
                assert not t.is_alive(), "%s: step %d never finished" % (case["name"], st["join"])
            if st.get("async"):
                t = threading.Thread(target=run, args=(i, st), daemon=True)
                t.start()
                time.sleep(BLOCK_CHECK_S)
                st["blocked"] = t.is_alive()
                threads[i] = t
            else:
                run(i, st)
        forever = [i for i in threads if case["steps"][i].get("forever")]
        assert sorted(forever) == sorted(threads), "%s: steps never joined" % case["name"]
        for i in forever:
            assert case["steps"][i]["blocked"], "%s: step %d returned" % (case["name"], i)
        if not forever:
            # A session with a step still blocked (TensorFlow cannot cancel it) is left open.
            for s in sessions:
                s.close()
    CASES.append(case)


def area(dtypes, **kw):
    a = {"dtypes": dtypes}
    a.update(kw)
    return a


def case(name, areas, steps, **kw):
    c = {"name": name, "areas": areas, "steps": steps}
    c.update(kw)
    record(c)


F = lambda v: spec(np.array(v, np.float32), "float32")  # noqa: E731
I = lambda v: spec(np.array(v, np.int32), "int32")  # noqa: E731
S = lambda *v: spec(np.array([x.encode() for x in v], dtype=object), "string")  # noqa: E731
S0 = lambda v: spec(np.array(v.encode(), dtype=object), "string")  # noqa: E731


def put(*values, **kw):
    st = {"op": "put", "values": list(values)}
    st.update(kw)
    return st


def op(kind, **kw):
    st = {"op": kind}
    st.update(kw)
    return st


# Values, order, peek, size and names.
case("put_get_order_and_peek",
     [area(["float32", "int32"], shapes=[[2], []])],
     [put(F([1, 2]), I(10)), put(F([3, 4]), I(20)), put(F([-0.0, 1e-40]), I(30)),
      op("size"), op("get"), op("peek", index=0), op("peek", index=1), op("size"),
      op("get"), op("get"), op("size")],
     graph_def=True)
case("single_tensor_put",
     [area(["string"])],
     [put(S("a", "bc"), single=True), put(S(""), single=True),
      op("get"), op("get")])
case("many_dtypes_bit_for_bit",
     [area(["float64", "float16", "int64", "uint8", "bool", "int8", "uint16"])],
     [put(spec(np.array([np.pi, -np.inf, np.nan]), "float64"),
          spec(np.array([[1.5, 65504], [-0.0, 6e-8]], np.float16), "float16"),
          spec(np.array(-(2 ** 62), np.int64), "int64"),
          spec(np.array([0, 255], np.uint8), "uint8"),
          spec(np.array([True, False, True]), "bool"),
          spec(np.array([-128], np.int8), "int8"),
          spec(np.zeros([0, 3], np.uint16), "uint16")),
      op("peek", index=0), op("get"), op("size")])
case("unshaped_elements_vary",
     [area(["int32"])],
     [put(I([[1, 2], [3, 4]])), put(I(5)), put(I([])), op("get"), op("get"), op("get")])
case("dict_put_with_names",
     [area(["float32", "string"], shapes=[[], None], names=["x", "label"])],
     [{"op": "put", "values": {"label": S0("cat"), "x": F(0.5)}},
      {"op": "put", "values": {"x": F(1.5), "label": S("dog", "pup")}},
      op("peek", index=1), op("get"), op("size"), op("get")],
     graph_def=True)
case("dict_put_with_some_names",
     [area(["int32", "int32"], names=["a", "b"])],
     [{"op": "put", "values": {"b": I(2)}}, op("size"), op("get"), op("size")])
case("list_put_with_fewer_values",
     [area(["int32", "int32"])],
     [put(I(1)), op("peek", index=0), op("get"), op("size")])
case("explicit_names",
     [area(["int32"])],
     [put(I(1), name="stage_it"), put(I(2), name="stage_it"), op("peek", index=0, name="look"),
      op("get", name="take"), op("size", name="count"), op("clear", name="wipe"),
      op("size", name="count")])
case("name_scope_and_two_areas",
     [area(["int32"]), area(["int32"])],
     [put(I(1)), put(I(2), area=1), put(I(3), area=1), op("size"), op("size", area=1),
      op("get", area=1), op("peek", index=0, index_tensor=True), op("clear", area=1),
      op("size", area=1)],
     scope="outer")
case("size_and_clear",
     [area(["int32"])],
     [put(I(1)), put(I(2)), put(I(3)), op("size"), op("clear"), op("size"), op("clear"),
      put(I(4)), op("get"), op("size")])

# Sharing.
case("shared_name_shares_a_buffer",
     [area(["int32"], shared_name="pipe"), area(["int32"], shared_name="pipe")],
     [put(I(7)), op("size", area=1), op("get", area=1), op("size")])
case("sessions_do_not_share",
     [area(["int32"], shared_name="pipe")],
     [put(I(7)), op("size"), op("size", session=1), op("get")],
     sessions=2)
case("shared_name_other_dtype",
     [area(["int32"], shared_name="pipe"), area(["float32"], shared_name="pipe")],
     [put(I(7)), op("get", area=1), op("size")])
case("shared_name_first_capacity_wins",
     [area(["int32"], shared_name="pipe", capacity=1), area(["int32"], shared_name="pipe")],
     [put(I(1)), put(I(2), area=1, **{"async": True}), op("get", area=1),
      op("size", join=1), op("get")])

# Blocking.
case("get_blocks_until_put",
     [area(["int32"])],
     [op("get", **{"async": True}), put(I(5)), op("size", join=0)])
case("peek_blocks_until_index_exists",
     [area(["int32"])],
     [put(I(1)), op("peek", index=2, **{"async": True}), put(I(2)), op("size"), put(I(3)),
      op("size", join=1)])
case("capacity_blocks_put_until_get",
     [area(["int32"], capacity=2)],
     [put(I(1)), put(I(2)), put(I(3), **{"async": True}), op("size"), op("get"),
      op("size", join=2), op("get"), op("get"), op("size")],
     graph_def=True)
case("capacity_put_unblocked_by_clear",
     [area(["int32"], capacity=1)],
     [put(I(1)), put(I(2), **{"async": True}), op("clear"), op("size", join=1), op("get")])
case("memory_limit_blocks_put_until_get",
     [area(["float32"], memory_limit=16)],
     [put(F([1, 2])), put(F([3, 4])), put(F([5, 6]), **{"async": True}), op("size"), op("get"),
      op("size", join=2), op("get"), op("get")])
case("memory_limit_counts_string_bytes",
     [area(["string"], memory_limit=60)],
     [put(S("a")), put(S("")), put(S("bb"), **{"async": True}), op("get"),
      op("size", join=2), op("get"), op("get")])
case("memory_limit_and_capacity",
     [area(["int32"], capacity=3, memory_limit=8)],
     [put(I([1])), put(I([2])), put(I([3]), **{"async": True}), op("size"), op("get"),
      op("size", join=2), op("clear")])
case("memory_limit_empty_tensors_take_no_room",
     [area(["float32"], memory_limit=1)],
     [put(spec(np.zeros([0, 4], np.float32), "float32")),
      put(spec(np.zeros([3, 0], np.float32), "float32")), op("size"), op("get")])
case("several_blocked_gets_in_order",
     [area(["int32"])],
     [op("get", **{"async": True}), put(I(1)), op("size", join=0),
      op("get", **{"async": True}), put(I(2)), op("size", join=3)])

# Errors.
case("oversize_element",
     [area(["float32", "int32"], memory_limit=8)],
     [put(F([1, 2]), I(3)), op("size")])
case("oversize_string_element",
     [area(["string"], memory_limit=24)],
     [put(S("")), put(S("a")), op("size")])
case("peek_index_not_scalar",
     [area(["int32"])],
     [put(I(1)), {"op": "raw_peek_index", "index": I([0])}])
case("fed_value_of_another_shape",
     [area(["int32"], shapes=[[None]])],
     [put(I([1, 2, 3]), fed_shapes=[None]), op("get")])
case("get_timeout_waits_for_put",
     [area(["int32"])],
     [op("get", timeout_ms=300, **{"async": True}), put(I(9)), op("size", join=0)])
# Last: the step TensorFlow never returns from keeps one of its threads.
case("peek_negative_index_waits_forever",
     [area(["int32"])],
     [put(I(1)), op("peek", index=-1, forever=True, **{"async": True}), op("size"),
      op("get")])


def build_error(name, areas, steps=(), **kw):
    case(name, areas, list(steps), **kw)
    assert "build_error" in CASES[-1], name


build_error("names_length", [area(["int32"], names=["a", "b"])])
build_error("shapes_length", [area(["int32"], shapes=[[1], [2]])])
build_error("negative_capacity", [area(["int32"], capacity=-1)], [put(I(1))])
build_error("negative_memory_limit", [area(["int32"], memory_limit=-5)], [op("size")])
build_error("put_nothing", [area(["int32"])], [{"op": "put", "values": []}])
build_error("put_too_many", [area(["int32"])], [put(I(1), I(2))])
build_error("put_wrong_dtype", [area(["int32"])], [put(F(1))])
build_error("put_wrong_dtype_second", [area(["int32", "string"])], [put(I(1), I(2))])
build_error("put_incompatible_shape", [area(["int32"], shapes=[[2]])], [put(I([1, 2, 3]))])
build_error("put_incompatible_rank", [area(["int32"], shapes=[[None, 2]])],
            [put(I([1, 2]), fed_shapes=[[2]])])
build_error("dict_without_names", [area(["int32"])], [{"op": "put", "values": {"a": I(1)}}])
build_error("list_with_names", [area(["int32"], names=["a"])], [put(I(1))])
build_error("dict_unknown_key", [area(["int32", "int32"], names=["a", "b"])],
            [{"op": "put", "values": {"a": I(1), "c": I(2)}}])
build_error("dict_empty", [area(["int32"], names=["a"])], [{"op": "put", "values": {}}])
build_error("dict_wrong_dtype", [area(["int32", "float32"], names=["a", "b"])],
            [{"op": "put", "values": {"b": I(1)}}])

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(CASES, f, indent=1)
    f.write("\n")
print("wrote %d cases" % len(CASES))
os._exit(0)
