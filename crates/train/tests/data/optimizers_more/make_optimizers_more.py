"""Writes expected.json: what TensorFlow's remaining TF1 optimizers (Adadelta, Ftrl,
ProximalAdagrad, ProximalGradientDescent, AdagradDA) do on fixed variables and gradients, for
weir's test crates/train/tests/integration/optimizers_more.rs.

Run with TensorFlow 2.x (written with 2.21) from any directory:

    python make_optimizers_more.py

tf.compat.v1 graph mode with ref variables (`disable_resource_variables`), as weir's variables.
Every float is recorded as its IEEE bit pattern (hex of the float32), so the comparison is exact.

* "inputs": the variables' starting values, the dense gradients, and for the sparse cases the
  gathered indices (with a duplicate) and the coefficients `c` of the loss
  `reduce_sum(gather(w, idx) * c)`, whose gradient is IndexedSlices(values=c, indices=idx).
* "cases": optimizer x configuration x mode (dense 2-D and 1-D through apply_gradients with
  constant gradients, sparse 2-D and 1-D through minimize of the gather loss, and minimize of
  the quadratic `reduce_sum(square(w - target))`): the optimizer's slot names, the global
  variables' names, and the variable and every slot after each of STEPS steps.
* "raw": the raw kernels with options the optimizers do not use (multiply_linear_by_lr).
* "checkpoint": a tf.train.Saver checkpoint (ckpt/model.ckpt.*) of Ftrl and Adadelta
  variables and slots after a few steps, their values, and the values one step later.
* "op_defs": the ops' input, output and attr names, types and defaults.
* "errors": the Python errors of the constructors and apply_gradients, and the kernels' errors
  on bad shapes and indices (message up to the node annotation).
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402
from tensorflow.python.ops import gen_training_ops as gto  # noqa: E402

tf.disable_v2_behavior()
tf.disable_resource_variables()
tf.get_logger().setLevel("ERROR")

HERE = os.path.dirname(os.path.abspath(__file__))
F = np.float32
STEPS = 3

W2 = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.5], [-0.75, 0.1, 2.0], [1.25, -0.3, 0.6]], F)
G2 = np.array([[0.3, -1.5, 2.0], [0.01, 0.7, -0.2], [1.1, -0.05, 0.4], [0.0, 0.9, -2.5]], F)
W1 = np.array([0.5, -1.0, 2.0, -0.25, 1.5], F)
G1 = np.array([0.2, -0.4, 1.5, 0.0, -0.9], F)
IDX = np.array([2, 0, 2], np.int32)
C2 = np.array([[0.5, -1.0, 0.25], [1.5, 0.3, -0.7], [0.2, 0.6, -0.1]], F)
C1 = np.array([0.5, -1.5, 0.3], F)
T2 = np.array([[0.5, 0.5, 0.5], [-1.0, 1.0, 0.0], [0.2, -0.2, 1.0], [0.0, 0.0, 0.3]], F)
T1 = np.array([1.0, 0.0, -1.0, 0.5, 0.25], F)


def bits(a):
    return [format(int(x), "08x") for x in np.asarray(a, F).reshape(-1).view(np.uint32)]


def make_opt(kind, cfg, step):
    cfg = dict(cfg)
    if kind == "Adadelta":
        return tf.train.AdadeltaOptimizer(**cfg)
    if kind == "Ftrl":
        return tf.train.FtrlOptimizer(**cfg)
    if kind == "ProximalAdagrad":
        return tf.train.ProximalAdagradOptimizer(**cfg)
    if kind == "ProximalGradientDescent":
        return tf.train.ProximalGradientDescentOptimizer(**cfg)
    if kind == "AdagradDA":
        return tf.train.AdagradDAOptimizer(global_step=step, **cfg)
    raise ValueError(kind)


CONFIGS = {
    "Adadelta": [
        {},
        {"learning_rate": 1.0, "rho": 0.9, "epsilon": 1e-6},
    ],
    "Ftrl": [
        {"learning_rate": 0.1},
        {"learning_rate": 0.2, "l1_regularization_strength": 0.05,
         "l2_regularization_strength": 0.1},
        {"learning_rate": 0.2, "l1_regularization_strength": 0.01,
         "l2_regularization_strength": 0.02, "l2_shrinkage_regularization_strength": 0.1},
        {"learning_rate": 0.3, "learning_rate_power": -0.7, "initial_accumulator_value": 0.5,
         "l1_regularization_strength": 0.02},
        {"learning_rate": 0.1, "l2_regularization_strength": 0.1, "beta": 0.3},
    ],
    "ProximalAdagrad": [
        {"learning_rate": 0.1},
        {"learning_rate": 0.2, "l1_regularization_strength": 0.05,
         "l2_regularization_strength": 0.1},
        {"learning_rate": 0.3, "initial_accumulator_value": 0.3,
         "l2_regularization_strength": 0.2},
    ],
    "ProximalGradientDescent": [
        {"learning_rate": 0.1},
        {"learning_rate": 0.2, "l1_regularization_strength": 0.05,
         "l2_regularization_strength": 0.1},
        {"learning_rate": 0.3, "l1_regularization_strength": 0.4},
        {"learning_rate": 0.3, "l2_regularization_strength": 0.2},
    ],
    "AdagradDA": [
        {"learning_rate": 0.1},
        {"learning_rate": 0.2, "l1_regularization_strength": 0.05,
         "l2_regularization_strength": 0.1},
        {"learning_rate": 0.3, "initial_gradient_squared_accumulator_value": 0.3,
         "l1_regularization_strength": 0.5},
    ],
}

MODES = ["dense2", "dense1", "sparse2", "sparse1", "quadratic2"]


def run_case(kind, cfg, mode):
    g = tf.Graph()
    with g.as_default():
        two = mode.endswith("2")
        w = tf.Variable(W2 if two else W1, name="w")
        step = tf.train.get_or_create_global_step()
        opt = make_opt(kind, cfg, step)
        if mode.startswith("dense"):
            grad = tf.constant(G2 if two else G1)
            train = opt.apply_gradients([(grad, w)], global_step=step)
        elif mode.startswith("sparse"):
            c = tf.constant(C2 if two else C1)
            loss = tf.reduce_sum(tf.gather(w, tf.constant(IDX)) * c)
            gv = opt.compute_gradients(loss, [w])
            assert isinstance(gv[0][0], tf.IndexedSlices), gv
            train = opt.apply_gradients(gv, global_step=step)
        else:
            loss = tf.reduce_sum(tf.square(w - tf.constant(T2 if two else T1)))
            train = opt.minimize(loss, global_step=step)
        slot_names = sorted(opt.get_slot_names())
        slots = {s: opt.get_slot(w, s) for s in slot_names}
        out = {
            "optimizer": kind,
            "config": cfg,
            "mode": mode,
            "train_op": train.name,
            "slot_names": slot_names,
            "slot_variables": {s: v.op.name for s, v in slots.items()},
            "global_variables": [v.op.name for v in tf.global_variables()],
            "steps": [],
        }
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["initial_slots"] = {s: bits(sess.run(v)) for s, v in slots.items()}
            for _ in range(STEPS):
                sess.run(train)
                out["steps"].append({
                    "var": bits(sess.run(w)),
                    "slots": {s: bits(sess.run(v)) for s, v in slots.items()},
                })
            out["global_step"] = int(sess.run(step))
        return out


def msg(e):
    """The message without TensorFlow's node annotations: the kernel's own text."""
    m = getattr(e, "message", None) or str(e)
    m = m.split("\n\t [[")[0]
    if m.startswith("Graph execution error:"):
        m = m.split("\nNode: ", 1)[1].split("\n", 1)[1]
    return m.split(" for '{{node")[0]


def python_errors():
    errs = []

    def attempt(name, fn):
        try:
            fn()
            errs.append({"case": name, "error": None})
        except Exception as e:  # noqa: BLE001
            errs.append({"case": name, "type": type(e).__name__, "error": msg(e)})

    ftrl_bad = [
        ("ftrl_lr_power", {"learning_rate_power": 0.5}),
        ("ftrl_initial_accumulator", {"initial_accumulator_value": -0.1}),
        ("ftrl_l1", {"l1_regularization_strength": -1.0}),
        ("ftrl_l2", {"l2_regularization_strength": -2.0}),
        ("ftrl_l2_shrinkage", {"l2_shrinkage_regularization_strength": -0.5}),
    ]
    for name, kw in ftrl_bad:
        attempt(name, lambda kw=kw: tf.train.FtrlOptimizer(0.1, **kw))
    attempt("proximal_adagrad_initial_accumulator",
            lambda: tf.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0))

    def da_init():
        with tf.Graph().as_default():
            tf.train.AdagradDAOptimizer(
                0.1, tf.train.get_or_create_global_step(),
                initial_gradient_squared_accumulator_value=0.0)
    attempt("adagrad_da_initial_accumulator", da_init)

    def da_no_step():
        with tf.Graph().as_default():
            w = tf.Variable(W1, name="w")
            tf.train.AdagradDAOptimizer(0.1, None).apply_gradients([(tf.constant(G1), w)])
    attempt("adagrad_da_no_global_step", da_no_step)
    return errs


def kernel_errors():
    """Runs each raw kernel on bad input and records the message."""
    out = []

    def case(name, build):
        g = tf.Graph()
        with g.as_default():
            try:
                op = build()
                with tf.Session() as sess:
                    sess.run(tf.global_variables_initializer())
                    sess.run(op)
                out.append({"case": name, "error": None})
            except Exception as e:  # noqa: BLE001
                out.append({"case": name, "type": type(e).__name__, "error": msg(e)})

    def v(val, name):
        return tf.Variable(np.asarray(val, F), name=name)

    s = lambda x: tf.constant(F(x))  # noqa: E731
    vec = lambda x: tf.constant(np.asarray(x, F))  # noqa: E731
    ids = lambda x: tf.constant(np.asarray(x, np.int32))  # noqa: E731
    z2 = np.zeros([4, 3], F)
    rows = np.ones([2, 3], F)

    # Placeholders defeat shape inference so that the kernels' checks run.
    def p(val, dtype=tf.float32):
        ph = tf.placeholder_with_default(np.asarray(val, dtype.as_numpy_dtype), shape=None)
        return ph

    kinds = {
        "Adadelta": lambda var, sl, gr, ix: (
            gto.apply_adadelta(var, sl[0], sl[1], s(1.0), s(0.9), s(1e-6), gr) if ix is None
            else gto.sparse_apply_adadelta(var, sl[0], sl[1], s(1.0), s(0.9), s(1e-6), gr, ix)),
        "Ftrl": lambda var, sl, gr, ix: (
            gto.apply_ftrl(var, sl[0], sl[1], gr, s(0.1), s(0.0), s(0.0), s(-0.5)) if ix is None
            else gto.sparse_apply_ftrl(var, sl[0], sl[1], gr, ix, s(0.1), s(0.0), s(0.0),
                                       s(-0.5))),
        "FtrlV2": lambda var, sl, gr, ix: (
            gto.apply_ftrl_v2(var, sl[0], sl[1], gr, s(0.1), s(0.0), s(0.0), s(0.1), s(-0.5))
            if ix is None
            else gto.sparse_apply_ftrl_v2(var, sl[0], sl[1], gr, ix, s(0.1), s(0.0), s(0.0),
                                          s(0.1), s(-0.5))),
        "ProximalAdagrad": lambda var, sl, gr, ix: (
            gto.apply_proximal_adagrad(var, sl[0], s(0.1), s(0.0), s(0.0), gr) if ix is None
            else gto.sparse_apply_proximal_adagrad(var, sl[0], s(0.1), s(0.0), s(0.0), gr, ix)),
        "ProximalGradientDescent": lambda var, sl, gr, ix: (
            gto.apply_proximal_gradient_descent(var, s(0.1), s(0.0), s(0.0), gr) if ix is None
            else gto.sparse_apply_proximal_gradient_descent(var, s(0.1), s(0.0), s(0.0), gr,
                                                            ix)),
        "AdagradDA": lambda var, sl, gr, ix: (
            gto.apply_adagrad_da(var, sl[0], sl[1], gr, s(0.1), s(0.0), s(0.0),
                                 tf.constant(np.int64(1))) if ix is None
            else gto.sparse_apply_adagrad_da(var, sl[0], sl[1], gr, ix, s(0.1), s(0.0), s(0.0),
                                             tf.constant(np.int64(1)))),
    }
    nslots = {"Adadelta": 2, "Ftrl": 2, "FtrlV2": 2, "ProximalAdagrad": 1,
              "ProximalGradientDescent": 0, "AdagradDA": 2}
    for kind, f in kinds.items():
        def slots(shape_bad=False):
            out_ = []
            for i in range(nslots[kind]):
                val = np.ones([4, 2], F) if (shape_bad and i == nslots[kind] - 1) else z2 + 0.5
                out_.append(v(val, "s%d" % i))
            return out_
        case(kind + "/dense_grad_shape",
             lambda f=f: f(v(W2, "w"), slots(), p(np.ones([4, 2], F)), None))
        if nslots[kind]:
            case(kind + "/dense_slot_shape",
                 lambda f=f: f(v(W2, "w"), slots(True), p(G2), None))
            case(kind + "/sparse_slot_shape",
                 lambda f=f: f(v(W2, "w"), slots(True), p(rows), p([0, 1], tf.int32)))
        case(kind + "/sparse_index_out_of_range",
             lambda f=f: f(v(W2, "w"), slots(), p(rows), p([1, 4], tf.int32)))
        case(kind + "/sparse_negative_index",
             lambda f=f: f(v(W2, "w"), slots(), p(rows), p([-1, 0], tf.int32)))
        case(kind + "/sparse_indices_rank",
             lambda f=f: f(v(W2, "w"), slots(), p(rows), p([[0, 1]], tf.int32)))
        case(kind + "/sparse_grad_rows",
             lambda f=f: f(v(W2, "w"), slots(), p(rows), p([0, 1, 2], tf.int32)))
        case(kind + "/sparse_grad_inner",
             lambda f=f: f(v(W2, "w"), slots(), p(np.ones([2, 2], F)), p([0, 1], tf.int32)))
        case(kind + "/sparse_scalar_var",
             lambda f=f: f(tf.Variable(F(1.0), name="w"),
                           [tf.Variable(F(0.5), name="s%d" % i) for i in range(nslots[kind])],
                           p(rows), p([0, 1], tf.int32)))
        case(kind + "/lr_not_scalar", lambda kind=kind: {
            "Adadelta": lambda: gto.apply_adadelta(v(W2, "w"), v(z2, "a"), v(z2, "b"),
                                                   p([1.0, 2.0]), s(0.9), s(1e-6), p(G2)),
            "Ftrl": lambda: gto.apply_ftrl(v(W2, "w"), v(z2 + 0.1, "a"), v(z2, "b"), p(G2),
                                           p([0.1, 0.2]), s(0.0), s(0.0), s(-0.5)),
            "FtrlV2": lambda: gto.apply_ftrl_v2(v(W2, "w"), v(z2 + 0.1, "a"), v(z2, "b"),
                                                p(G2), s(0.1), s(0.0), s(0.0), p([0.1, 0.1]),
                                                s(-0.5)),
            "ProximalAdagrad": lambda: gto.apply_proximal_adagrad(
                v(W2, "w"), v(z2 + 0.1, "a"), p([0.1, 0.2]), s(0.0), s(0.0), p(G2)),
            "ProximalGradientDescent": lambda: gto.apply_proximal_gradient_descent(
                v(W2, "w"), s(0.1), p([0.0, 0.0]), s(0.0), p(G2)),
            "AdagradDA": lambda: gto.apply_adagrad_da(
                v(W2, "w"), v(z2, "a"), v(z2 + 0.1, "b"), p(G2), s(0.1), s(0.0), s(0.0),
                p(np.array([1, 2], np.int64), tf.int64)),
        }[kind]())
    return out


SCALAR_OPS = {
    "ApplyAdadelta": ["lr", "rho", "epsilon"],
    "SparseApplyAdadelta": ["lr", "rho", "epsilon"],
    "ApplyFtrl": ["lr", "l1", "l2", "lr_power"],
    "SparseApplyFtrl": ["lr", "l1", "l2", "lr_power"],
    "ApplyFtrlV2": ["lr", "l1", "l2", "l2_shrinkage", "lr_power"],
    "SparseApplyFtrlV2": ["lr", "l1", "l2", "l2_shrinkage", "lr_power"],
    "ApplyProximalAdagrad": ["lr", "l1", "l2"],
    "SparseApplyProximalAdagrad": ["lr", "l1", "l2"],
    "ApplyProximalGradientDescent": ["alpha", "l1", "l2"],
    "SparseApplyProximalGradientDescent": ["alpha", "l1", "l2"],
    "ApplyAdagradDA": ["lr", "l1", "l2", "global_step"],
    "SparseApplyAdagradDA": ["lr", "l1", "l2", "global_step"],
}
SCALAR_DEFAULTS = {"lr": 0.1, "rho": 0.9, "epsilon": 1e-6, "l1": 0.0, "l2": 0.0,
                   "l2_shrinkage": 0.0, "lr_power": -0.5, "alpha": 0.1, "global_step": 1}


def scalar_errors():
    """Each kernel with each scalar input replaced by a vector, a negative and a zero."""
    from tensorflow.python.framework import op_def_registry
    out = []
    for op, scalars in SCALAR_OPS.items():
        d = op_def_registry.get(op)
        for name in scalars:
            for bad in ["vector", -1.0, 0.0]:
                g = tf.Graph()
                with g.as_default():
                    kw = {}
                    for a in d.input_arg:
                        n = a.name
                        if n == "var":
                            kw[n] = tf.Variable(W2, name="w")
                        elif n in ("grad", "delta"):
                            kw[n] = tf.constant(C2[:2] if "indices" in
                                                [x.name for x in d.input_arg] else G2)
                        elif n == "indices":
                            kw[n] = tf.constant(np.array([2, 0], np.int32))
                        elif n in SCALAR_DEFAULTS:
                            dt = np.int64 if n == "global_step" else F
                            val = SCALAR_DEFAULTS[n]
                            if n == name:
                                val = [val, val] if bad == "vector" else bad
                            ph = tf.placeholder_with_default(np.asarray(val, dt), shape=None)
                            kw[n] = ph
                        else:
                            kw[n] = tf.Variable(np.full(W2.shape, 0.5, F), name=n)
                    o = getattr(tf.raw_ops, op)(**kw)
                    try:
                        with tf.Session() as sess:
                            sess.run(tf.global_variables_initializer())
                            sess.run(o)
                        err = None
                    except Exception as e:  # noqa: BLE001
                        err = msg(e)
                out.append({"op": op, "input": name, "bad": bad, "error": err})
    return out


def raw_cases():
    """Kernels with options the optimizers never set: FTRL's multiply_linear_by_lr."""
    out = []
    for v2 in [False, True]:
        for sparse in [False, True]:
            for two in [True, False]:
                g = tf.Graph()
                with g.as_default():
                    w = tf.Variable(W2 if two else W1, name="w")
                    shape = W2.shape if two else W1.shape
                    acc = tf.Variable(np.full(shape, 0.1, F), name="accum")
                    lin = tf.Variable(np.zeros(shape, F), name="linear")
                    sc = [tf.constant(F(x)) for x in (0.2, 0.05, 0.1)]
                    shrink = [tf.constant(F(0.1))] if v2 else []
                    lrp = tf.constant(F(-0.5))
                    if sparse:
                        gv = tf.constant(C2[:2] if two else C1[:2])
                        ix = tf.constant(np.array([2, 0], np.int32))
                        fn = gto.sparse_apply_ftrl_v2 if v2 else gto.sparse_apply_ftrl
                        op = fn(w, acc, lin, gv, ix, *sc, *shrink, lrp,
                                multiply_linear_by_lr=True)
                    else:
                        gv = tf.constant(G2 if two else G1)
                        fn = gto.apply_ftrl_v2 if v2 else gto.apply_ftrl
                        op = fn(w, acc, lin, gv, *sc, *shrink, lrp, multiply_linear_by_lr=True)
                    with tf.Session() as sess:
                        sess.run(tf.global_variables_initializer())
                        steps = []
                        for _ in range(STEPS):
                            sess.run(op)
                            steps.append({"var": bits(sess.run(w)), "accum": bits(sess.run(acc)),
                                          "linear": bits(sess.run(lin))})
                out.append({"v2": v2, "sparse": sparse, "two": two, "steps": steps})
    return out


def op_defs():
    from tensorflow.python.framework import op_def_registry
    names = ["ApplyAdadelta", "SparseApplyAdadelta", "ApplyFtrl", "ApplyFtrlV2", "SparseApplyFtrl",
             "SparseApplyFtrlV2", "ApplyProximalAdagrad", "SparseApplyProximalAdagrad",
             "ApplyProximalGradientDescent", "SparseApplyProximalGradientDescent",
             "ApplyAdagradDA", "SparseApplyAdagradDA"]
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
            "allowed_dtypes": [sorted(tf.as_dtype(t).name for t in a.allowed_values.list.type)
                               for a in d.attr],
        }
    return out


CKPT_STEPS = 3


def checkpoint_case():
    """Ftrl (V2: l1, l2, shrinkage) on a matrix `a` and Adadelta on a vector `b`, trained on a
    quadratic for CKPT_STEPS steps and saved (variables, slots, global step) to
    ckpt/model.ckpt; then every global variable at the save and after one more step."""
    g = tf.Graph()
    with g.as_default():
        a = tf.Variable(W2, name="a")
        b = tf.Variable(W1, name="b")
        step = tf.train.get_or_create_global_step()
        loss = (tf.reduce_sum(tf.square(a - tf.constant(T2)))
                + tf.reduce_sum(tf.square(b - tf.constant(T1))))
        ftrl = tf.train.FtrlOptimizer(0.2, l1_regularization_strength=0.01,
                                      l2_regularization_strength=0.02,
                                      l2_shrinkage_regularization_strength=0.1)
        ada = tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6)
        t1 = ftrl.minimize(loss, var_list=[a], global_step=step)
        t2 = ada.minimize(loss, var_list=[b])
        train = tf.group(t1, t2, name="train")
        names = [v.op.name for v in tf.global_variables()]
        saver = tf.train.Saver()
        out = {"steps": CKPT_STEPS, "global_variables": names,
               "slots": {"a": {s: ftrl.get_slot(a, s).op.name
                               for s in sorted(ftrl.get_slot_names())},
                         "b": {s: ada.get_slot(b, s).op.name
                               for s in sorted(ada.get_slot_names())}}}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(CKPT_STEPS):
                sess.run(train)
            os.makedirs(os.path.join(HERE, "ckpt"), exist_ok=True)
            saver.save(sess, os.path.join(HERE, "ckpt", "model.ckpt"), write_meta_graph=False,
                       write_state=False)
            vs = tf.global_variables()

            def values():
                return {v.op.name: (int(x) if v.dtype.base_dtype == tf.int64 else bits(x))
                        for v, x in zip(vs, sess.run(vs))}
            out["saved"] = values()
            sess.run(train)
            out["next"] = values()
        return out


def main():
    cases = []
    for kind, cfgs in CONFIGS.items():
        for cfg in cfgs:
            for mode in MODES:
                cases.append(run_case(kind, cfg, mode))
    doc = {
        "inputs": {
            "w2": bits(W2), "g2": bits(G2), "w1": bits(W1), "g1": bits(G1),
            "idx": IDX.tolist(), "c2": bits(C2), "c1": bits(C1), "t2": bits(T2),
            "t1": bits(T1),
        },
        "steps": STEPS,
        "cases": cases,
        "raw": raw_cases(),
        "errors": python_errors(),
        "kernel_errors": kernel_errors(),
        "scalar_errors": scalar_errors(),
        "op_defs": op_defs(),
        "checkpoint": checkpoint_case(),
    }
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
