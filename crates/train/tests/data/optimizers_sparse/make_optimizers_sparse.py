"""Writes expected.json: how TensorFlow's Momentum, RMSProp, Adagrad and Adam optimizers apply
a gathered (embedding) gradient, for weir's test
crates/train/tests/integration/optimizers_sparse.rs.

Run with TensorFlow 2.x (written with 2.21) from any directory:

    python make_optimizers_sparse.py

tf.compat.v1 graph mode with ref variables (`disable_resource_variables`), as weir's variables.
The loss is `reduce_sum(gather(w, idx) * c)` (idx, fed per step, with a duplicate), whose
gradient is
IndexedSlices: Momentum, RMSProp and Adagrad apply it with SparseApplyMomentum,
SparseApplyRMSProp / SparseApplyCenteredRMSProp and SparseApplyAdagrad, which touch only the
gathered rows; Adam decays m and v on every row and scatters the gathered rows' gradient.
A second variable `u` gets a dense gradient in the same step. Every float is recorded as its
IEEE bit pattern (hex of the float32), so the comparison is exact.

* "inputs": the starting values, the gathered indices of each step and the loss coefficients.
* "kernel_errors": the sparse kernels' errors on bad indices, shapes and scalars.
* "op_defs": the sparse ops' input, output and attr names, types and defaults.
* "cases": optimizer x configuration x mode (sparse2: a 4x3 variable, sparse1: a vector of 5):
  slot names, global variable names, and the variable and every slot after each step.
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
tf.disable_resource_variables()
tf.get_logger().setLevel("ERROR")

HERE = os.path.dirname(os.path.abspath(__file__))
F = np.float32
STEPS = 3

W2 = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.5], [-0.75, 0.1, 2.0], [1.25, -0.3, 0.6]], F)
W1 = np.array([0.5, -1.0, 2.0, -0.25, 1.5], F)
# The gathered rows of each step (each with a duplicate): rows gathered once and then left out
# keep their slots in the sparse kernels, where a dense update would decay them.
IDX_STEPS = np.array([[2, 0, 2], [1, 3, 1], [0, 2, 0]], np.int32)
C2 = np.array([[0.5, -1.0, 0.25], [1.5, 0.3, -0.7], [0.2, 0.6, -0.1]], F)
C1 = np.array([0.5, -1.5, 0.3], F)
U = np.array([0.3, -0.6], F)
GU = np.array([0.7, -0.2], F)


def bits(a):
    return [format(int(x), "08x") for x in np.asarray(a, F).reshape(-1).view(np.uint32)]


CONFIGS = {
    "Momentum": [
        {"learning_rate": 0.1, "momentum": 0.9},
        {"learning_rate": 0.2, "momentum": 0.7, "use_nesterov": True},
    ],
    "RMSProp": [
        {"learning_rate": 0.1},
        {"learning_rate": 0.05, "decay": 0.8, "momentum": 0.5, "epsilon": 1e-3},
        {"learning_rate": 0.1, "centered": True},
        {"learning_rate": 0.05, "decay": 0.8, "momentum": 0.5, "epsilon": 1e-3,
         "centered": True},
    ],
    "Adagrad": [
        {"learning_rate": 0.1},
        {"learning_rate": 0.3, "initial_accumulator_value": 0.5},
    ],
    "Adam": [
        {"learning_rate": 0.1},
        {"learning_rate": 0.05, "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-3},
    ],
}

MODES = ["sparse2", "sparse1"]


def make_opt(kind, cfg):
    return {
        "Momentum": tf.train.MomentumOptimizer,
        "RMSProp": tf.train.RMSPropOptimizer,
        "Adagrad": tf.train.AdagradOptimizer,
        "Adam": tf.train.AdamOptimizer,
    }[kind](**cfg)


def run_case(kind, cfg, mode):
    g = tf.Graph()
    with g.as_default():
        two = mode.endswith("2")
        w = tf.Variable(W2 if two else W1, name="w")
        u = tf.Variable(U, name="u")
        step = tf.train.get_or_create_global_step()
        opt = make_opt(kind, cfg)
        c = tf.constant(C2 if two else C1)
        idx = tf.placeholder(tf.int32, [3], name="idx")
        loss = tf.reduce_sum(tf.gather(w, idx) * c)
        gv = opt.compute_gradients(loss, [w])
        assert isinstance(gv[0][0], tf.IndexedSlices), gv
        gv.append((tf.constant(GU), u))
        train = opt.apply_gradients(gv, global_step=step)
        slot_names = sorted(opt.get_slot_names())
        variables = {"w": w, "u": u}
        for s in slot_names:
            variables["w/" + s] = opt.get_slot(w, s)
            variables["u/" + s] = opt.get_slot(u, s)
        out = {
            "optimizer": kind,
            "config": cfg,
            "mode": mode,
            "train_op": train.name,
            "slot_names": slot_names,
            "slot_variables": {k: v.op.name for k, v in variables.items()},
            "global_variables": [v.op.name for v in tf.global_variables()],
            "steps": [],
        }
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["initial"] = {k: bits(sess.run(v)) for k, v in variables.items()}
            for k in range(STEPS):
                sess.run(train, {idx: IDX_STEPS[k]})
                out["steps"].append({k: bits(sess.run(v)) for k, v in variables.items()})
            out["global_step"] = int(sess.run(step))
        return out


def op_defs():
    from tensorflow.python.framework import op_def_registry
    names = ["SparseApplyMomentum", "SparseApplyRMSProp", "SparseApplyCenteredRMSProp",
             "SparseApplyAdagrad"]
    names += ["Resource" + n for n in names]
    out = {}
    for n in names:
        d = op_def_registry.get(n)

        def arg_type(a):
            return a.type_attr or tf.as_dtype(a.type).name

        def default(a):
            if not a.HasField("default_value"):
                return None
            which = a.default_value.WhichOneof("value")
            return {"b": a.default_value.b}.get(which, which)

        out[n] = {
            "inputs": [a.name for a in d.input_arg],
            "input_types": [arg_type(a) for a in d.input_arg],
            "outputs": [a.name for a in d.output_arg],
            "output_types": [arg_type(a) for a in d.output_arg],
            "attrs": [a.name for a in d.attr],
            "attr_types": [a.type for a in d.attr],
            "attr_defaults": [default(a) for a in d.attr],
        }
    return out


SCALARS = {"lr": 0.1, "momentum": 0.9, "rho": 0.9, "epsilon": 1e-6}
SPARSE_OPS = ["SparseApplyMomentum", "SparseApplyRMSProp", "SparseApplyCenteredRMSProp",
              "SparseApplyAdagrad"]


def msg(e):
    """The message without TensorFlow's node annotations: the kernel's own text."""
    m = getattr(e, "message", None) or str(e)
    m = m.split("\n\t [[")[0]
    if m.startswith("Graph execution error:"):
        m = m.split("\nNode: ", 1)[1].split("\n", 1)[1]
    return m.split(" for '{{node")[0]


def kernel_errors():
    """Each sparse kernel on bad input (placeholders without static shape, so that the
    kernel's own checks run): the message, or the build-time error ("build": true)."""
    from tensorflow.python.framework import op_def_registry
    rows = np.ones([2, 3], F)
    cases = {
        "index_out_of_range": dict(grad=rows, indices=[1, 4]),
        "negative_index": dict(grad=rows, indices=[-1, 0]),
        "indices_rank": dict(grad=rows, indices=[[0, 1]]),
        "grad_rows": dict(grad=rows, indices=[0, 1, 2]),
        "grad_inner": dict(grad=np.ones([2, 2], F), indices=[0, 1]),
        "scalar_var": dict(grad=rows, indices=[0, 1], scalar_var=True),
        "slot_shape": dict(grad=rows, indices=[0, 1], bad_slot=True),
        "fine": dict(grad=rows, indices=[0, 1]),
    }
    out = []
    for op in SPARSE_OPS:
        d = op_def_registry.get(op)
        names = [a.name for a in d.input_arg]
        variants = [(c, kw, None) for c, kw in cases.items()]
        variants += [("%s_not_scalar" % n, cases["fine"], n) for n in names if n in SCALARS]
        for case, kw, vector in variants:
            g = tf.Graph()
            with g.as_default():
                build = True
                try:
                    args = {}
                    nvars = names.index("lr")
                    for k, n in enumerate(names):
                        if k < nvars:
                            if kw.get("scalar_var"):
                                val = F(1.0)
                            elif kw.get("bad_slot") and k == nvars - 1:
                                val = np.ones([4, 2], F)
                            else:
                                val = W2 if k == 0 else np.full([4, 3], 0.5, F)
                            args[n] = tf.Variable(val, name=n)
                        elif n == "grad":
                            args[n] = tf.placeholder_with_default(kw["grad"], shape=None)
                        elif n == "indices":
                            args[n] = tf.placeholder_with_default(
                                np.asarray(kw["indices"], np.int32), shape=None)
                        else:
                            val = [SCALARS[n]] * 2 if n == vector else SCALARS[n]
                            args[n] = tf.placeholder_with_default(np.asarray(val, F),
                                                                  shape=None)
                    o = getattr(tf.raw_ops, op)(**args)
                    build = False
                    with tf.Session() as sess:
                        sess.run(tf.global_variables_initializer())
                        sess.run(o)
                    err = None
                except Exception as e:  # noqa: BLE001
                    err = msg(e)
                out.append({"op": op, "case": case, "build": build, "error": err})
    return out


def main():
    cases = []
    for kind, cfgs in CONFIGS.items():
        for cfg in cfgs:
            for mode in MODES:
                cases.append(run_case(kind, cfg, mode))
    doc = {
        "inputs": {"w2": bits(W2), "w1": bits(W1), "idx_steps": IDX_STEPS.tolist(), "c2": bits(C2),
                   "c1": bits(C1), "u": bits(U), "gu": bits(GU)},
        "steps": STEPS,
        "cases": cases,
        "op_defs": op_defs(),
        "kernel_errors": kernel_errors(),
    }
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
