"""Records TensorFlow 2.21's conditional accumulators for weir's data_flow_accumulator test:
tf.compat.v1.ConditionalAccumulator (ResourceConditionalAccumulator and the
ResourceAccumulator* ops), TF 1.x's ref-handle ConditionalAccumulator ops, and
tf.compat.v1.SparseConditionalAccumulator, in float16, float32 and float64, MEAN and SUM.

Each scenario is a list of steps run one `Session.run` at a time against one accumulator
(gradients, steps and counts fed through placeholders), with every step's outputs or error.
Tensors use tensor_json's encoding (floats as IEEE bit patterns), so weir's values are checked
bit for bit. Run: $HOME/.cache/weir-bench/venv/bin/python make_data_flow_accumulator.py
"""
import json
import os
import sys
import threading
import time

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import gen_data_flow_ops as gen

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tensor_json import encode  # noqa: E402

tf.compat.v1.disable_eager_execution()
v1 = tf.compat.v1
HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.default_rng(20240611)
FLOATS = ["float16", "float32", "float64"]


def err_message(e):
    """TensorFlow's own message, without the traceback or the `[[{{node ...}}]]` suffix."""
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    if msg.startswith("Graph execution error:"):
        msg = msg[len("Graph execution error:"):]
    return msg.strip()


def error_of(e):
    return {"type": type(e).__name__, "code": getattr(e, "error_code", 3),
            "message": err_message(e)}


def grad(dtype, shape):
    """Gradient values with fractions that round differently in each float type."""
    return (RNG.standard_normal(shape) * 3).astype(dtype)


def shape_json(shape):
    return None if shape is None else [None if d is None else int(d) for d in shape]


class Graph:
    """One accumulator and the placeholder-fed ops of a scenario."""

    def __init__(self, kind, dtype, shape, reduction):
        tf_dtype = tf.as_dtype(dtype)
        self.kind = kind
        self.dtype = dtype
        self.step = v1.placeholder(tf.int64, shape=[], name="local_step")
        self.num = v1.placeholder(tf.int32, shape=[], name="num_required")
        self.new_step = v1.placeholder(tf.int64, shape=[], name="new_global_step")
        if kind == "dense":
            acc = v1.ConditionalAccumulator(tf_dtype, shape=shape, reduction_type=reduction)
            self.grad = v1.placeholder(tf_dtype, name="grad")
            self.apply = acc.apply_grad(self.grad, local_step=self.step)
            self.take = acc.take_grad(self.num)
            self.count = acc.num_accumulated()
            self.set_step = acc.set_global_step(self.new_step)
        elif kind == "dense_ref":
            h = gen.conditional_accumulator(dtype=tf_dtype, shape=shape, reduction_type=reduction)
            self.grad = v1.placeholder(tf_dtype, name="grad")
            self.apply = gen.accumulator_apply_gradient(h, self.step, self.grad)
            self.take = gen.accumulator_take_gradient(h, self.num, dtype=tf_dtype)
            self.count = gen.accumulator_num_accumulated(h)
            self.set_step = gen.accumulator_set_global_step(h, self.new_step)
        else:
            acc = v1.SparseConditionalAccumulator(tf_dtype, shape=shape, reduction_type=reduction)
            self.indices = v1.placeholder(tf.int64, name="indices")
            self.values = v1.placeholder(tf_dtype, name="values")
            self.dense_shape = v1.placeholder(tf.int64, name="dense_shape")
            self.apply = acc.apply_grad(self.indices, self.values, local_step=self.step)
            self.apply_shaped = acc.apply_grad(self.indices, self.values,
                                               grad_shape=self.dense_shape, local_step=self.step)
            self.take = list(acc.take_grad(self.num))
            self.count = acc.num_accumulated()
            self.set_step = acc.set_global_step(self.new_step)

    def run(self, sess, st):
        op = st["op"]
        opts = None
        if op == "take":
            # A take that should not block long still gets a bound, so a mistake cannot hang.
            opts = v1.RunOptions(timeout_in_ms=st.get("timeout_ms", 20000))
        if op == "apply":
            return sess.run(self.apply, {self.grad: st["grad_np"], self.step: st["local_step"]})
        if op == "sparse_apply":
            feed = {self.indices: st["indices_np"], self.values: st["values_np"],
                    self.step: st["local_step"]}
            if st.get("grad_shape") is not None:
                feed[self.dense_shape] = np.asarray(st["grad_shape"], np.int64)
                return sess.run(self.apply_shaped, feed)
            return sess.run(self.apply, feed)
        if op == "take":
            out = sess.run(self.take, {self.num: st["num_required"]}, options=opts)
            return out if isinstance(out, list) else [out]
        if op == "num":
            return [sess.run(self.count)]
        if op == "set_step":
            return sess.run(self.set_step, {self.new_step: st["step"]})
        raise ValueError(op)


def apply(dtype, shape, local_step=0, values=None):
    g = grad(dtype, shape) if values is None else np.asarray(values, dtype)
    return {"op": "apply", "grad_np": g, "local_step": local_step}


def sparse_apply(dtype, indices, row_shape, local_step=0, grad_shape=None, values=None):
    idx = np.asarray(indices, np.int64)
    vals = grad(dtype, [len(indices)] + list(row_shape)) if values is None else np.asarray(values, dtype)
    return {"op": "sparse_apply", "indices_np": idx, "values_np": vals,
            "local_step": local_step, "grad_shape": grad_shape}


def take(n, timeout_ms=None):
    st = {"op": "take", "num_required": n}
    if timeout_ms is not None:
        st["timeout_ms"] = timeout_ms
    return st


NUM = {"op": "num"}


def set_step(n):
    return {"op": "set_step", "step": n}


def record(kind, name, dtype, shape, reduction, steps):
    with tf.Graph().as_default():
        gr = Graph(kind, dtype, shape, reduction)
        out_steps = []
        with v1.Session() as sess:
            for st in steps:
                rec = {k: v for k, v in st.items() if not k.endswith("_np")}
                for k in ("grad_np", "indices_np", "values_np"):
                    if k in st:
                        rec[k[:-3]] = encode(st[k])
                try:
                    outs = gr.run(sess, st)
                    if st["op"] in ("take", "num"):
                        rec["outputs"] = [encode(o) for o in outs]
                except tf.errors.OpError as e:
                    rec["error"] = error_of(e)
                out_steps.append(rec)
    return {"kind": kind, "name": name, "dtype": dtype, "shape": shape_json(shape),
            "reduction_type": reduction, "steps": out_steps}


def dense_scenarios():
    cases = []
    for dt in FLOATS:
        for red in ["MEAN", "SUM"]:
            tag = f"{dt}_{red.lower()}"
            s = [2, 3]
            cases.append(record("dense", f"accumulate_three_{tag}", dt, s, red, [
                NUM, apply(dt, s), apply(dt, s), NUM, apply(dt, s), NUM, take(3), NUM,
                apply(dt, s, 1), take(1)]))
            cases.append(record("dense", f"stale_gradients_dropped_{tag}", dt, s, red, [
                apply(dt, s, 0), take(1), apply(dt, s, 0), NUM, apply(dt, s, 1),
                apply(dt, s, 5), NUM, take(2), apply(dt, s, 1), NUM, apply(dt, s, 2), take(1)]))
            cases.append(record("dense", f"set_global_step_{tag}", dt, s, red, [
                set_step(5), apply(dt, s, 4), NUM, apply(dt, s, 5), apply(dt, s, 7), NUM,
                take(2), apply(dt, s, 5), NUM, set_step(2), apply(dt, s, 2), apply(dt, s, 1),
                NUM, take(1), NUM]))
            cases.append(record("dense", f"take_more_than_required_{tag}", dt, [4], red, [
                apply(dt, [4]), apply(dt, [4]), apply(dt, [4]), apply(dt, [4]), take(2),
                NUM, apply(dt, [4], 1), take(1)]))
            cases.append(record("dense_ref", f"ref_ops_{tag}", dt, s, red, [
                apply(dt, s), apply(dt, s), NUM, take(2), apply(dt, s, 0), NUM,
                set_step(3), apply(dt, s, 3), take(1)]))
    # Shapes: the declared shape (partial or unknown) and the first gradient's shape.
    dt = "float32"
    cases.append(record("dense", "declared_shape_mismatch", dt, [2, 3], "MEAN", [
        apply(dt, [3, 2]), apply(dt, [2]), apply(dt, [2, 3, 1]), apply(dt, []), NUM,
        apply(dt, [2, 3]), take(1)]))
    cases.append(record("dense", "partial_shape", dt, [None, 2], "MEAN", [
        apply(dt, [3, 2]), apply(dt, [4, 2]), apply(dt, [3, 3]), apply(dt, [3, 2]), NUM,
        take(2), apply(dt, [5, 2], 1), take(1)]))
    cases.append(record("dense", "unknown_shape", dt, None, "SUM", [
        apply(dt, [2, 2]), apply(dt, [4]), apply(dt, [2, 2]), take(2), apply(dt, [], 1),
        apply(dt, [], 1), take(2), apply(dt, [1, 2, 1], 2), take(1)]))
    cases.append(record("dense", "scalar_shape", "float64", [], "MEAN", [
        apply("float64", []), apply("float64", []), apply("float64", [1]), take(2)]))
    cases.append(record("dense", "stale_gradient_of_bad_shape_dropped", dt, [2], "MEAN", [
        set_step(3), apply(dt, [5], 2), apply(dt, [7, 7], 0), NUM, apply(dt, [5], 3), NUM]))
    cases.append(record("dense", "num_required_not_positive", dt, [2], "MEAN", [
        apply(dt, [2]), take(0), take(-3), NUM, take(1)]))
    # A take that times out leaves no attempt behind: a later, smaller take succeeds.
    cases.append(record("dense", "take_times_out", dt, [2], "MEAN", [
        apply(dt, [2]), take(2, timeout_ms=150), NUM, take(1), take(1, timeout_ms=100),
        apply(dt, [2], 1), take(1)]))
    return cases


def sparse_scenarios():
    cases = []
    for dt in FLOATS:
        for red in ["MEAN", "SUM"]:
            tag = f"{dt}_{red.lower()}"
            cases.append(record("sparse", f"merge_sorted_{tag}", dt, [6, 2], red, [
                sparse_apply(dt, [0, 2, 5], [2]), sparse_apply(dt, [1, 2], [2]), NUM,
                sparse_apply(dt, [2, 4, 5], [2]), take(3), NUM,
                sparse_apply(dt, [3], [2], 1), take(1)]))
            cases.append(record("sparse", f"merge_unsorted_repeated_{tag}", dt, [8, 3], red, [
                sparse_apply(dt, [5, 1, 1, 3], [3]), sparse_apply(dt, [1, 4], [3]),
                sparse_apply(dt, [0, 5, 5], [3]), sparse_apply(dt, [7, 2], [3]), take(4)]))
            cases.append(record("sparse", f"stale_and_global_step_{tag}", dt, [4, 2], red, [
                sparse_apply(dt, [1], [2], 0), take(1), sparse_apply(dt, [2], [2], 0), NUM,
                set_step(4), sparse_apply(dt, [0, 3], [2], 3), sparse_apply(dt, [0, 1], [2], 4),
                sparse_apply(dt, [3], [2], 9), NUM, take(2), NUM]))
    dt = "float32"
    cases.append(record("sparse", "known_shapes", dt, [5, 2], "MEAN", [
        sparse_apply(dt, [1, 3], [2], grad_shape=[5, 2]), sparse_apply(dt, [3], [2], grad_shape=[5, 2]),
        sparse_apply(dt, [0], [2], grad_shape=[4, 2]), sparse_apply(dt, [0], [2], grad_shape=[5, 3]),
        sparse_apply(dt, [0], [2], grad_shape=[5]), sparse_apply(dt, [0], [2], grad_shape=[5, 2, 7]),
        NUM, take(2)]))
    cases.append(record("sparse", "unknown_first_dim", dt, [None, 2], "SUM", [
        sparse_apply(dt, [9, 40], [2]), sparse_apply(dt, [40], [2], grad_shape=[100, 2]),
        sparse_apply(dt, [-2], [2]), take(3)]))
    cases.append(record("sparse", "unknown_shape", dt, None, "MEAN", [
        sparse_apply(dt, [3, 1], [2, 2], grad_shape=[4, 2, 2]), sparse_apply(dt, [1], [2, 2]),
        sparse_apply(dt, [1], [2, 3]), sparse_apply(dt, [1], [2]), take(2),
        sparse_apply(dt, [0, 2], [], 1), take(1)]))
    cases.append(record("sparse", "index_out_of_range", dt, [3, 2], "MEAN", [
        sparse_apply(dt, [0, 3], [2]), sparse_apply(dt, [1, 2, 7], [2]), NUM,
        sparse_apply(dt, [2, 0], [2]), take(1)]))
    cases.append(record("sparse", "bad_inputs", dt, [3, 2], "MEAN", [
        sparse_apply(dt, [[0], [1]], [2], values=np.ones([2, 2])),
        sparse_apply(dt, [0], [], values=np.float32(1.0)),
        sparse_apply(dt, [0, 1], [2], values=np.ones([3, 2])),
        sparse_apply(dt, [0], [3]), sparse_apply(dt, [0], []), NUM,
        sparse_apply(dt, [0], [2]), sparse_apply(dt, [1], [2, 1]), sparse_apply(dt, [1], [3]),
        sparse_apply(dt, [1], []), NUM, take(1)]))
    cases.append(record("sparse", "stale_bad_gradient_dropped", dt, [3, 2], "MEAN", [
        set_step(2), sparse_apply(dt, [9], [7], 1), sparse_apply(dt, [[1]], [2], 0, values=np.ones([1, 2])),
        NUM, sparse_apply(dt, [1], [2], 2), take(1)]))
    cases.append(record("sparse", "empty_gradients", dt, [3, 2], "MEAN", [
        sparse_apply(dt, [], [2], values=np.zeros([0, 2])), sparse_apply(dt, [1], [2]),
        sparse_apply(dt, [], [2], values=np.zeros([0, 2])), take(3)]))
    cases.append(record("sparse", "num_required_not_positive", dt, [3], "MEAN", [
        sparse_apply(dt, [1], []), take(0), NUM, take(1)]))
    return cases


def no_kernel_cases():
    out = []
    for kind in ["dense", "dense_ref", "sparse"]:
        for dt in ["int32", "bfloat16", "complex64"]:
            with tf.Graph().as_default():
                tf_dtype = tf.as_dtype(dt)
                if kind == "dense":
                    h = v1.ConditionalAccumulator(tf_dtype, shape=[2], name="acc").accumulator_ref
                elif kind == "dense_ref":
                    h = gen.conditional_accumulator(dtype=tf_dtype, shape=[2], name="acc")
                else:
                    h = v1.SparseConditionalAccumulator(tf_dtype, shape=[2], name="acc").accumulator_ref
                count = (gen.resource_accumulator_num_accumulated(h) if kind == "dense"
                         else gen.accumulator_num_accumulated(h))
                with v1.Session() as sess:
                    try:
                        sess.run(count)
                        raise AssertionError("expected no kernel")
                    except tf.errors.OpError as e:
                        out.append({"kind": "no_kernel", "name": f"no_kernel_{kind}_{dt}",
                                    "accumulator": kind, "dtype": dt, "error": error_of(e)})
    return out


def build_cases():
    """Errors TensorFlow's Python raises while building the graph, and node names."""
    out = []

    def case(name, fn):
        with tf.Graph().as_default() as g:
            c = {"kind": "build", "name": name}
            try:
                fn()
                c["nodes"] = [[op.name, op.type, [i.name for i in op.inputs]]
                              for op in g.get_operations()]
            except (ValueError, TypeError) as e:
                c["build_error"] = {"type": type(e).__name__, "message": str(e)}
            out.append(c)

    def names():
        acc = v1.ConditionalAccumulator(tf.float32, shape=[2])
        acc.apply_grad(tf.constant([1.0, 2.0]))
        acc.apply_grad(tf.constant([1.0, 2.0]), local_step=3)
        acc.take_grad(2)
        acc.num_accumulated()
        acc.set_global_step(4)
        acc2 = v1.ConditionalAccumulator(tf.float64, name="second", reduction_type="SUM")
        acc2.num_accumulated()
        acc2.num_accumulated(name="count")
        acc2.take_grad(1, name="taken")
        sp = v1.SparseConditionalAccumulator(tf.float32, shape=[3, 2])
        idx = tf.constant([0, 2], tf.int64)
        vals = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        sp.apply_grad(idx, vals)
        sp.apply_grad(idx, vals, grad_shape=tf.constant([3, 2], tf.int64), local_step=tf.constant(2, tf.int64))
        sp.take_grad(1)
        sp.take_indexed_slices_grad(2)
        sp.num_accumulated()
        sp.set_global_step(tf.constant(7, tf.int64))
    case("node_names", names)

    def bad_shape():
        acc = v1.ConditionalAccumulator(tf.float32, shape=[2, 2])
        acc.apply_grad(tf.constant([1.0, 2.0, 3.0]))
    case("static_shape_mismatch", bad_shape)

    def bad_partial_shape():
        acc = v1.ConditionalAccumulator(tf.float32, shape=[None, 3])
        acc.apply_grad(tf.zeros([4, 2]))
    case("static_partial_shape_mismatch", bad_partial_shape)

    def bad_dtype():
        acc = v1.ConditionalAccumulator(tf.float32, shape=[1])
        acc.apply_grad(tf.constant([1.0], tf.float64))
    case("gradient_dtype_mismatch", bad_dtype)

    def bad_reduction():
        gen.resource_conditional_accumulator(dtype=tf.float32, shape=[2], reduction_type="MAX")
    case("bad_reduction_type", bad_reduction)

    def bad_step_rank():
        acc = v1.ConditionalAccumulator(tf.float32, shape=[1])
        acc.apply_grad(tf.constant([1.0]), local_step=tf.constant([1, 2], tf.int64))
    case("local_step_not_scalar", bad_step_rank)

    def bad_num_rank():
        acc = v1.ConditionalAccumulator(tf.float32, shape=[1])
        acc.take_grad(tf.constant([1, 2]))
    case("num_required_not_scalar", bad_num_rank)
    return out


def threaded_case():
    """take_grad blocks in one thread until another thread's applies reach num_required."""
    dt = "float32"
    grads = [grad(dt, [3]) for _ in range(3)]
    with tf.Graph().as_default():
        acc = v1.ConditionalAccumulator(tf.float32, shape=[3])
        p = v1.placeholder(tf.float32, [3])
        ap = acc.apply_grad(p)
        tk = acc.take_grad(3)
        cnt = acc.num_accumulated()
        with v1.Session() as sess:
            result = {}

            def taker():
                result["value"] = sess.run(tk)
            th = threading.Thread(target=taker)
            th.start()
            counts = []
            for gv in grads:
                time.sleep(0.2)
                assert "value" not in result
                counts.append(int(sess.run(cnt)))
                sess.run(ap, {p: gv})
            th.join(30)
            assert not th.is_alive()
            after = int(sess.run(cnt))
    return {"kind": "threaded", "name": "take_blocks_until_enough", "dtype": dt,
            "grads": [encode(gv) for gv in grads], "counts_before_each": counts,
            "value": encode(result["value"]), "count_after": after}


def graph_def_case():
    """A GraphDef with all three accumulator kinds (accumulator_graph.pb): weir imports it and
    runs the same steps."""
    with tf.Graph().as_default() as g:
        acc = v1.ConditionalAccumulator(tf.float32, shape=[2], name="dense")
        acc.apply_grad(tf.constant(grad("float32", [2])), name="apply_dense")
        acc.apply_grad(tf.constant(grad("float32", [2])), name="apply_dense_2")
        acc.take_grad(2, name="take_dense")
        acc.num_accumulated(name="count_dense")
        ref = gen.conditional_accumulator(dtype=tf.float64, shape=[2], name="ref",
                                          reduction_type="SUM")
        step = tf.constant(0, tf.int64, name="step")
        gen.accumulator_apply_gradient(ref, step, tf.constant(grad("float64", [2])),
                                       name="apply_ref")
        gen.accumulator_take_gradient(ref, 1, dtype=tf.float64, name="take_ref")
        gen.accumulator_set_global_step(ref, tf.constant(5, tf.int64), name="set_step_ref")
        gen.accumulator_num_accumulated(ref, name="count_ref")
        sp = v1.SparseConditionalAccumulator(tf.float16, shape=[4, 2], name="sparse")
        sp.apply_grad(tf.constant([3, 1], tf.int64), tf.constant(grad("float16", [2, 2])),
                      grad_shape=[4, 2], name="apply_sparse")
        sp.apply_grad(tf.constant([1], tf.int64), tf.constant(grad("float16", [1, 2])),
                      name="apply_sparse_2")
        sp.take_grad(2, name="take_sparse")
        with open(os.path.join(HERE, "accumulator_graph.pb"), "wb") as f:
            f.write(g.as_graph_def().SerializeToString())
        runs = [
            {"targets": ["apply_dense", "apply_dense_2"]},
            {"targets": ["apply_dense"]},
            {"fetches": ["count_dense:0"]},
            {"fetches": ["take_dense:0"]},
            {"fetches": ["count_dense:0"]},
            {"targets": ["apply_ref"]},
            {"targets": ["apply_ref"]},
            {"fetches": ["take_ref:0"]},
            {"targets": ["apply_ref"]},
            {"fetches": ["count_ref:0"]},
            {"targets": ["set_step_ref"]},
            {"targets": ["apply_ref"]},
            {"fetches": ["count_ref:0"]},
            {"targets": ["apply_sparse"]},
            {"targets": ["apply_sparse_2"]},
            {"fetches": ["take_sparse:0", "take_sparse:1", "take_sparse:2"]},
        ]
        with v1.Session() as sess:
            for r in runs:
                outs = sess.run([g.get_tensor_by_name(n) for n in r.get("fetches", [])]
                                + [g.get_operation_by_name(n) for n in r.get("targets", [])])
                if "fetches" in r:
                    r["outputs"] = [encode(o) for o in outs[:len(r["fetches"])]]
    return {"kind": "graph_def", "name": "accumulator_graph", "runs": runs}


def main():
    cases = dense_scenarios() + sparse_scenarios() + no_kernel_cases() + build_cases()
    cases.append(threaded_case())
    cases.append(graph_def_case())
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    print(len(cases), "cases")


if __name__ == "__main__":
    main()
