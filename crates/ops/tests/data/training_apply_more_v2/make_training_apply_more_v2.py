"""Records TensorFlow 2.21's CPU results of the optimizer update ops ApplyAdaMax, ApplyAdagradV2,
SparseApplyAdagradV2, ApplyAddSign, ApplyPowerSign (each also as its Resource* form),
ResourceApplyAdamWithAmsgrad, ResourceApplyKerasMomentum and ResourceSparseApplyKerasMomentum,
for crates/ops/tests/integration/training_apply_more_v2.rs.

Every op runs through tf.raw_ops in a tf.compat.v1 graph on variables (ref variables for the
Apply* ops, resource variables for the Resource* ops) for every type TensorFlow's CPU kernels
take, several steps in a row; the scalars and gradients are fed through placeholders of unknown
shape. A "value" case records the variables' starting values and, after each step, the op's
output (the ref ops) and every variable. An "error" case records where TensorFlow refused
("build": when the node is added, a ValueError of the shape function; "run": a tf.errors class)
and its message up to the node annotation, or "ok" and the variables after the step where
TensorFlow takes an odd input without complaint); inputs named in "const" are constants (so their
static shapes are known when the node is added), the others placeholders.

Tensors are encoded by ../tensor_json.py (half and float elements as their IEEE bit patterns,
complex elements as [re, im] pairs of them, integers as they are).

"op_defs" records each op's input, output and attr names, types, defaults and allowed types.

Run with TensorFlow 2.21: python make_training_apply_more_v2.py (writes expected.json beside it).
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.compat.v1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from tensor_json import encode  # noqa: E402

NP = {
    "float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32,
    "float64": np.float64, "complex64": np.complex64, "complex128": np.complex128,
}
HALVES = ["bfloat16", "float16"]
FLOATS = HALVES + ["float32", "float64"]
ALL = FLOATS + ["complex64", "complex128"]
RS = np.random.RandomState(20260315)

# op -> (variable inputs, other inputs in TensorFlow's order, registered types)
SPECS = {
    "ApplyAdaMax": (["var", "m", "v"],
                    ["beta1_power", "lr", "beta1", "beta2", "epsilon", "grad"],
                    ["float16", "float32", "float64"]),
    "ApplyAdagradV2": (["var", "accum"], ["lr", "epsilon", "grad"], ALL),
    "SparseApplyAdagradV2": (["var", "accum"], ["lr", "epsilon", "grad", "indices"], ALL),
    "ApplyAddSign": (["var", "m"], ["lr", "alpha", "sign_decay", "beta", "grad"], FLOATS),
    "ApplyPowerSign": (["var", "m"], ["lr", "logbase", "sign_decay", "beta", "grad"], FLOATS),
    "ApplyAdamWithAmsgrad": (["var", "m", "v", "vhat"],
                             ["beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon",
                              "grad"], FLOATS),
    "ApplyKerasMomentum": (["var", "accum"], ["lr", "grad", "momentum"], ALL),
    "SparseApplyKerasMomentum": (["var", "accum"], ["lr", "grad", "indices", "momentum"], ALL),
}
# Ops TensorFlow has only in their Resource* form.
RESOURCE_ONLY = {"ApplyAdamWithAmsgrad", "ApplyKerasMomentum", "SparseApplyKerasMomentum"}

CASES = []


def arr(dtype, v):
    return np.asarray(v).astype(NP[dtype])


def values(dtype, shape, lo=-2.0, hi=2.0):
    n = int(np.prod(shape))
    v = RS.uniform(lo, hi, n)
    if dtype.startswith("complex"):
        v = v + 1j * RS.uniform(lo, hi, n)
    return arr(dtype, v.reshape(shape))


def scalar(dtype, x):
    return arr(dtype, x)


def op_names(base):
    if base in RESOURCE_ONLY:
        return ["Resource" + base]
    return [base, "Resource" + base]


def build(g, name, var_inits, inputs, attrs, const=()):
    base = name[len("Resource"):] if name.startswith("Resource") else name
    resource = name.startswith("Resource")
    var_names, rest, _ = SPECS[base]
    with g.as_default():
        vs = [tf.compat.v1.Variable(init, name=n, use_resource=resource)
              for n, init in zip(var_names, var_inits)]
        kwargs, phs = {}, {}
        for n, v in zip(var_names, vs):
            kwargs[n] = v.handle if resource else v._ref()
        for n in rest:
            value = inputs[n]
            if n in const:
                kwargs[n] = tf.constant(value, name=n)
            else:
                p = tf.compat.v1.placeholder(tf.as_dtype(value.dtype), shape=None, name=n)
                kwargs[n] = p
                phs[n] = p
        kwargs.update(attrs)
        op = getattr(tf.raw_ops, name)(**kwargs)
        reads = [v.value() if resource else v for v in vs]
        init = tf.compat.v1.global_variables_initializer()
    return vs, phs, op, reads, init


def record_values(name, dtype, var_inits, steps, attrs):
    """Runs `name` for every step (a dict of the non-variable inputs)."""
    g = tf.Graph()
    _, phs, op, reads, init = build(g, name, var_inits, steps[0], attrs)
    out_steps = []
    with tf.compat.v1.Session(graph=g) as s:
        s.run(init)
        for st in steps:
            feed = {phs[k]: v for k, v in st.items()}
            out = s.run(op, feed)
            after = s.run(reads)
            out_steps.append({
                "inputs": [[k, encode(v)] for k, v in st.items()],
                "out": None if out is None else encode(out),
                "vars": [encode(a) for a in after],
            })
    base = name[len("Resource"):] if name.startswith("Resource") else name
    CASES.append({
        "kind": "value", "name": f"{name}/{dtype}/{len(CASES)}", "op": name, "attrs": attrs,
        "vars": [[n, encode(v)] for n, v in zip(SPECS[base][0], var_inits)],
        "steps": out_steps,
    })


def kernel_message(m):
    """The kernel's own words in a graph execution error: the line after "Node: '...'"."""
    if "\nNode: '" in m:
        m = m.split("\nNode: '", 1)[1].split("\n", 1)[1]
    return m.split("\n")[0]


def record_error(label, name, var_inits, inputs, attrs, const=()):
    g = tf.Graph()
    stage, cls, msg = None, None, None
    try:
        _, phs, op, reads, init = build(g, name, var_inits, inputs, attrs, const)
    except ValueError as e:
        stage, cls, msg = "build", "ValueError", str(e)
    if stage is None:
        with tf.compat.v1.Session(graph=g) as s:
            try:
                s.run(init)
                s.run(op, {phs[k]: v for k, v in inputs.items() if k in phs})
                stage, after = "ok", [encode(a) for a in s.run(reads)]
            except tf.errors.OpError as e:
                stage, cls, msg = "run", type(e).__name__, kernel_message(e.message)
    base = name[len("Resource"):] if name.startswith("Resource") else name
    CASES.append({
        "kind": "error", "name": f"{name}/{label}", "op": name, "attrs": attrs,
        "vars": [[n, encode(v)] for n, v in zip(SPECS[base][0], var_inits)],
        "inputs": [[k, encode(v)] for k, v in inputs.items()],
        "const": list(const),
        "error": {"stage": stage, "class": cls, "message": msg and msg.split("\n")[0]},
    })
    if stage == "ok":
        CASES[-1]["after"] = after


def eps_of(dtype):
    return 1e-3 if dtype in HALVES else 1e-7


# ---- AdaMax and AMSGrad: three steps, beta powers advancing --------------------------------

def adam_like(base, dtype, shape):
    b1, b2, lr = 0.9, 0.999, 0.05
    nv = len(SPECS[base][0])
    inits = [values(dtype, shape)] + [
        arr(dtype, np.abs(values("float64", shape)) * (0.1 if i > 0 else 1.0))
        for i in range(1, nv)]
    steps = []
    for t in range(1, 4):
        st = {"beta1_power": scalar(dtype, b1 ** t)}
        if base == "ApplyAdamWithAmsgrad":
            st["beta2_power"] = scalar(dtype, b2 ** t)
        st.update({"lr": scalar(dtype, lr), "beta1": scalar(dtype, b1),
                   "beta2": scalar(dtype, b2), "epsilon": scalar(dtype, eps_of(dtype)),
                   "grad": values(dtype, shape, -3, 3)})
        steps.append(st)
    for name in op_names(base):
        record_values(name, dtype, inits, steps, {"use_locking": False})


for base in ["ApplyAdaMax", "ApplyAdamWithAmsgrad"]:
    for dt in SPECS[base][2]:
        for shape in [(3, 5), (16,)]:
            adam_like(base, dt, shape)

# ---- AddSign and PowerSign: signs of every kind, zeros included -----------------------------


def sign_op(base, dtype, shape):
    inits = [values(dtype, shape), values(dtype, shape)]
    flat = inits[1].reshape(-1)
    flat[0] = 0  # sign(m) = 0 on the first step where the gradient is 0 too
    steps = []
    # PowerSign's exp on varied arguments: Eigen's differs from the C library's on some
    # (1.2345678 * 0.987654 in float, for one).
    logbases = [1.0, np.log(2.5), 1.2345678, np.log(1.7), 0.3, np.log(5.0)]
    decays = [1.0, 0.75, 0.987654, 0.3, 0.55, 0.123]
    for t in range(6):
        grad = values(dtype, shape, -3, 3)
        grad.reshape(-1)[0] = 0
        st = {"lr": scalar(dtype, 0.1)}
        if base == "ApplyAddSign":
            st["alpha"] = scalar(dtype, [1.0, 0.5, 2.0, 1.0, 0.25, 1.0][t])
        else:
            st["logbase"] = scalar(dtype, logbases[t])
        st.update({"sign_decay": scalar(dtype, decays[t]),
                   "beta": scalar(dtype, 0.9), "grad": grad})
        steps.append(st)
    for name in op_names(base):
        record_values(name, dtype, inits, steps, {"use_locking": False})


for base in ["ApplyAddSign", "ApplyPowerSign"]:
    for dt in SPECS[base][2]:
        for shape in [(3, 5), (16,)]:
            sign_op(base, dt, shape)

# ---- AdagradV2 and Keras momentum, dense ----------------------------------------------------


def adagrad_v2(dtype, shape, update_slots):
    inits = [values(dtype, shape), arr(dtype, np.abs(values("float64", shape)) + 0.1)]
    if dtype.startswith("complex"):
        inits[1] = arr(dtype, inits[1] + 0.3j)
    lr = 0.1 + 0.05j if dtype.startswith("complex") else 0.1
    steps = [{"lr": scalar(dtype, lr), "epsilon": scalar(dtype, eps_of(dtype)),
              "grad": values(dtype, shape, -3, 3)} for _ in range(3)]
    for name in op_names("ApplyAdagradV2"):
        record_values(name, dtype, inits, steps,
                      {"use_locking": False, "update_slots": update_slots})


def keras_momentum(dtype, shape, nesterov):
    inits = [values(dtype, shape), values(dtype, shape, -0.5, 0.5)]
    lr = 0.1 - 0.02j if dtype.startswith("complex") else 0.1
    steps = [{"lr": scalar(dtype, lr), "grad": values(dtype, shape, -3, 3),
              "momentum": scalar(dtype, 0.9)} for _ in range(3)]
    for name in op_names("ApplyKerasMomentum"):
        record_values(name, dtype, inits, steps,
                      {"use_locking": False, "use_nesterov": nesterov})


for dt in ALL:
    for shape in [(3, 5), (16,)]:
        adagrad_v2(dt, shape, True)
        keras_momentum(dt, shape, shape == (16,))
    adagrad_v2(dt, (2, 3), False)
    keras_momentum(dt, (2, 3), True)

# ---- Sparse AdagradV2 and Keras momentum: rows, vectors, repeated indices -------------------

SPARSE_SHAPES = [((5, 3), [3, 0, 3, 1]), ((6,), [4, 1, 4]), ((4, 2, 2), [2, 2]), ((5, 3), [])]


def sparse_case(base, dtype, shape, idx, index_dtype, flag):
    inits = [values(dtype, shape)]
    if base == "SparseApplyAdagradV2":
        acc = arr(dtype, np.abs(values("float64", shape)) + 0.1)
        if dtype.startswith("complex"):
            acc = arr(dtype, acc + 0.3j)
        inits.append(acc)
    else:
        inits.append(values(dtype, shape, -0.5, 0.5))
    gshape = (len(idx),) + tuple(shape[1:])
    steps = []
    for t in range(3):
        lr = (0.1 + 0.05j) if dtype.startswith("complex") else 0.1
        st = {"lr": scalar(dtype, lr)}
        if base == "SparseApplyAdagradV2":
            st["epsilon"] = scalar(dtype, eps_of(dtype))
        st["grad"] = values(dtype, gshape, -3, 3)
        st["indices"] = np.array(idx, index_dtype)
        if base == "SparseApplyKerasMomentum":
            st["momentum"] = scalar(dtype, 0.9)
        steps.append(st)
    attrs = {"use_locking": False}
    if base == "SparseApplyAdagradV2":
        attrs["update_slots"] = flag
    else:
        attrs["use_nesterov"] = flag
    for name in op_names(base):
        record_values(name, dtype, inits, steps, attrs)


for base in ["SparseApplyAdagradV2", "SparseApplyKerasMomentum"]:
    for dt in ALL:
        for k, (shape, idx) in enumerate(SPARSE_SHAPES):
            sparse_case(base, dt, shape, idx, np.int64 if k % 2 else np.int32, k != 1)
    sparse_case(base, "float32", (5, 3), [3, 0, 3, 1], np.int64, False)

# ---- Errors ---------------------------------------------------------------------------------

F32 = "float32"


def f(v):
    return np.asarray(v, np.float32)


def good_inputs(base, shape, idx=None):
    ins = {}
    for n in SPECS[base][1]:
        if n == "grad":
            gshape = shape if idx is None else (len(idx),) + tuple(shape[1:])
            ins[n] = values(F32, gshape)
        elif n == "indices":
            ins[n] = np.array(idx, np.int32)
        else:
            ins[n] = f(0.5)
    return ins


def err(label, base, shape=(3,), idx=None, var_shapes=None, const=(), attrs=None, names=None,
        **changes):
    nv = len(SPECS[base][0])
    shapes = var_shapes or [shape] * nv
    inits = [values(F32, s) for s in shapes]
    ins = good_inputs(base, shape, idx)
    ins.update(changes)
    a = {"use_locking": False}
    a.update(attrs or {})
    for name in names or op_names(base):
        record_error(label, name, inits, ins, a, const)


for base in SPECS:
    sparse = base.startswith("Sparse")
    shape, idx = ((4, 2), [1, 3]) if sparse else ((3,), None)
    # Each scalar input given a vector, at run time and (as a constant) when the node is added.
    for n in SPECS[base][1]:
        if n in ("grad", "indices"):
            continue
        # TensorFlow's AddSign and PowerSign kernels check alpha's (logbase's) shape in place of
        # sign_decay's, and abort the process on a vector sign_decay: not recorded.
        if n != "sign_decay":
            err(f"{n}_not_scalar", base, shape, idx, **{n: f([0.5, 0.5])})
        err(f"{n}_not_scalar_static", base, shape, idx, const=(n,), **{n: f([0.5, 0.5])})
    # A slot whose shape differs from the variable's: the shape functions refuse it.
    err("slot_shape", base, shape, idx,
        var_shapes=[shape] + [(5,) + tuple(shape[1:])] * (len(SPECS[base][0]) - 1))
    err("slot_rank", base, shape, idx,
        var_shapes=[shape] + [(2,) + tuple(shape)] * (len(SPECS[base][0]) - 1))
    if not sparse:
        err("grad_shape", base, shape, grad=values(F32, (4,)))
        err("grad_shape_static", base, shape, const=("grad",), grad=values(F32, (4,)))
        err("grad_rank", base, shape, grad=values(F32, (3, 1)))
        # Which check comes first.
        err("lr_and_grad", base, shape, lr=f([0.1, 0.2]), grad=values(F32, (4,)))
    else:
        err("index_out_of_range", base, shape, [1, 4], indices=np.array([1, 4], np.int32))
        err("negative_index", base, shape, [1, 3], indices=np.array([-1, 3], np.int64))
        err("index_out_of_range_vector", base, (5,), [0, 9, 2],
            indices=np.array([0, 9, 2], np.int32))
        err("indices_matrix", base, shape, [1, 3], indices=np.array([[1, 3]], np.int32))
        err("indices_grad_rows", base, shape, [1, 3], grad=values(F32, (3, 2)))
        err("grad_inner_dim", base, shape, [1, 3], grad=values(F32, (2, 3)))
        err("grad_rank", base, shape, [1, 3], grad=values(F32, (2, 2, 1)))
        err("var_scalar", base, (), [0], var_shapes=[()] * 2, grad=values(F32, (1,)))
        # Which check comes first.
        err("lr_and_var_scalar", base, (), [0], var_shapes=[()] * 2, grad=values(F32, (1,)),
            lr=f([0.1, 0.2]))
        err("lr_and_indices", base, shape, [1, 3], lr=f([0.1, 0.2]),
            indices=np.array([[1, 3]], np.int32))
        last = SPECS[base][1][-1] if base.endswith("Momentum") else "epsilon"
        err(f"{last}_and_rows", base, shape, [1, 3], grad=values(F32, (3, 2)),
            **{last: f([0.1, 0.2])})
        err("rows_and_index", base, shape, [1, 4], grad=values(F32, (3, 2)),
            indices=np.array([1, 4], np.int32))
        if base == "SparseApplyAdagradV2":
            err("grad_rank_and_dim", base, shape, [1, 3], grad=values(F32, (2, 3, 1)))
            err("grad_rank_low", base, shape, [1, 3], grad=values(F32, (2,)))
            err("grad_rank_and_rows", base, shape, [1, 3], grad=values(F32, (3, 2, 1)))
            err("grad_rank_and_indices", base, shape, [1, 3], grad=values(F32, (2, 2, 1)),
                indices=np.array([[1, 3]], np.int32))
        err("inner_zero", base, (3, 0), [1], grad=np.zeros((1, 0), np.float32))
        # The Resource* forms take the gradient's static shape from its (absent) handle data:
        # only the ref forms refuse these when the node is added.
        err("indices_grad_static", base, shape, [1, 3], const=("grad", "indices"),
            grad=values(F32, (3, 2)))
        err("grad_inner_static", base, shape, [1, 3], const=("grad",), grad=values(F32, (2, 3)))
        err("indices_matrix_static", base, shape, [1, 3], const=("indices",),
            indices=np.array([[1, 3]], np.int32))

# Types without a CPU kernel.
for base, dt in [("ApplyAdaMax", "bfloat16"), ("ApplyAddSign", "complex64"),
                 ("ApplyAdamWithAmsgrad", "complex128")]:
    ins = {k: arr(dt, v) for k, v in good_inputs(base, (3,)).items()}
    nv = len(SPECS[base][0])
    for name in op_names(base):
        record_error(f"no_kernel_{dt}", name, [values(dt, (3,))] * nv, ins,
                     {"use_locking": False})



def op_defs():
    """Every op's input, output and attr names, types, defaults and allowed types."""
    from tensorflow.python.framework import op_def_registry
    out = {}
    for base in SPECS:
        for n in op_names(base):
            d = op_def_registry.get(n)

            def default(a):
                if not a.HasField("default_value"):
                    return None
                return a.default_value.b if a.type == "bool" else str(a.default_value)

            out[n] = {
                "inputs": [[a.name, a.type_attr or tf.as_dtype(a.type).name]
                           for a in d.input_arg],
                "outputs": [[a.name, a.type_attr] for a in d.output_arg],
                "attrs": [[a.name, a.type, default(a),
                           sorted(tf.as_dtype(t).name for t in a.allowed_values.list.type)]
                          for a in d.attr],
            }
    return out


with open(os.path.join(HERE, "expected.json"), "w") as fh:
    json.dump({"tensorflow": tf.__version__, "cases": CASES, "op_defs": op_defs()}, fh,
              separators=(",", ":"))
print(len(CASES), "cases;", sum(c["kind"] == "error" for c in CASES), "errors")
