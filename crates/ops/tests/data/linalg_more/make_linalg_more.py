"""Records what TensorFlow 2.21 (tf.compat.v1, graph mode) computes for the linear-algebra ops
of crates/ops/tests/integration/linalg_more.rs and crates/train/tests/integration/
linalg_more_grad.rs: MatrixSolve, MatrixSolveLs, LogMatrixDeterminant (and tf.linalg.logdet),
Qr, SelfAdjointEigV2, Svd (and tf.linalg.pinv), MatrixSquareRoot, tf.linalg.expm and Cross, on small fixed inputs, with their
values, errors and gradients.

Run: ~/.cache/weir-bench/venv/bin/python make_linalg_more.py   (writes expected.json beside it)

Each case: {"name", "fn", "inputs": {name: tensor}, "attrs", "dynamic", and either "outputs":
[tensor...] or "error": {"type", "message"}}. Eigenvectors and singular vectors are unique only
up to sign, so "sign_free" lists the outputs to compare column by column up to sign (and
"free_from": {output: first column} the columns that are any orthonormal completion, not
compared). Differentiable cases have "loss": [[output, "id" | "square"], ...] (a sign-invariant
objective sum_i sum(w_i * f_i(output_i)), with "weights" [tensor...]) and "grads": {input name:
tensor}, or "grad_error" when TensorFlow's gradient function raises. A tensor is {"dtype",
"shape", "values" (flat, row-major; non-finite floats as strings)}.
"""

import json
import math
import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import gen_linalg_ops, gen_math_ops

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []
f32, f64, i32 = np.float32, np.float64, np.int32


def enc(a):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        vals = [v if math.isfinite(v) else str(v) for v in a.reshape(-1).tolist()]
    else:
        vals = [int(v) for v in a.reshape(-1).tolist()]
    return {"dtype": str(a.dtype), "shape": list(a.shape), "values": vals}


def err_message(e):
    """TensorFlow's own message, without node context and traceback."""
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    return msg.strip()


def weights(shape, seed):
    n = int(np.prod(shape))
    return np.array([0.5 + ((i * 7919 + 13 + seed * 101) % 1000) / 1000.0
                     for i in range(n)]).reshape(shape)


def case(name, fn, inputs, build, attrs=None, grad=(), loss=((0, "id"),), dynamic=False,
         sign_free=(), free_from=None):
    """Runs `build(tensors)` in a fresh graph; `grad` names the inputs to differentiate the
    objective `loss` with respect to. With `dynamic`, inputs have unknown static shapes."""
    rec = {"name": name, "fn": fn, "inputs": {k: enc(v) for k, v in inputs.items()},
           "attrs": attrs or {}, "dynamic": dynamic, "sign_free": list(sign_free),
           "free_from": {str(k): v for k, v in (free_from or {}).items()}}
    g = tf.Graph()
    with g.as_default():
        try:
            ts = {}
            for k, v in inputs.items():
                v = np.asarray(v)
                shape = None if dynamic else v.shape
                ts[k] = tf.placeholder_with_default(v, shape, name=k)
            out = build(ts)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            with tf.Session() as s:
                rec["outputs"] = [enc(v) for v in s.run(outs)]
        except (tf.errors.OpError, ValueError) as e:
            rec["error"] = {"type": type(e).__name__, "message": err_message(e)}
            rec.pop("outputs", None)
        if grad and "outputs" in rec:
            rec["loss"] = [list(l) for l in loss]
            ws, total = [], []
            for j, (i, f) in enumerate(loss):
                y = outs[i]
                w = weights(y.shape.as_list(), j).astype(y.dtype.as_numpy_dtype)
                ws.append(enc(w))
                t = y if f == "id" else tf.square(y)
                total.append(tf.reduce_sum(tf.constant(w) * t))
            rec["weights"] = ws
            try:
                gs = tf.gradients(tf.add_n(total), [ts[k] for k in grad])
                with tf.Session() as s:
                    rec["grads"] = {k: enc(v) for k, v in zip(grad, s.run(gs))}
            except (NotImplementedError, ValueError) as e:
                rec["grad_names"] = list(grad)
                rec["grad_error"] = {"type": type(e).__name__, "message": str(e)}
    CASES.append(rec)


rs = np.random.RandomState(7)


def rnd(*shape, dt=f64):
    return rs.randn(*shape).astype(dt)


def spd(n, dt=f64, batch=()):
    b = rs.randn(*batch, n, n)
    return (b @ np.swapaxes(b, -1, -2) + n * np.eye(n)).astype(dt)


def sym(n, dt=f64, batch=()):
    b = rs.randn(*batch, n, n)
    return ((b + np.swapaxes(b, -1, -2)) / 2).astype(dt)


# --- MatrixSolve ------------------------------------------------------------------------------
def solve(adjoint=False):
    return lambda t: gen_linalg_ops.matrix_solve(t["matrix"], t["rhs"], adjoint=adjoint)


case("solve_f64", "matrix_solve", {"matrix": rnd(3, 3) + 3 * np.eye(3), "rhs": rnd(3, 2)},
     solve(), grad=("matrix", "rhs"))
case("solve_adjoint_f64", "matrix_solve", {"matrix": rnd(3, 3) + 3 * np.eye(3), "rhs": rnd(3, 1)},
     solve(True), attrs={"adjoint": True}, grad=("matrix", "rhs"))
case("solve_batch_f64", "matrix_solve",
     {"matrix": rnd(2, 3, 3) + 3 * np.eye(3), "rhs": rnd(2, 3, 2)}, solve(), grad=("matrix", "rhs"))
case("solve_f32", "matrix_solve",
     {"matrix": (rnd(4, 4) + 4 * np.eye(4)).astype(f32), "rhs": rnd(4, 2, dt=f32)}, solve(),
     grad=("matrix", "rhs"))
case("solve_pivoting_f64", "matrix_solve",
     {"matrix": np.array([[0., 1, 2], [1, 0, 3], [4, -3, 8]]), "rhs": np.eye(3)}, solve())
case("solve_singular", "matrix_solve",
     {"matrix": np.array([[1., 2], [2, 4]]), "rhs": np.ones((2, 1))}, solve())
case("solve_nan", "matrix_solve",
     {"matrix": np.array([[np.nan, 1.], [1, 1]]), "rhs": np.ones((2, 1))}, solve())
case("solve_empty", "matrix_solve", {"matrix": np.zeros((0, 0)), "rhs": np.zeros((0, 3))}, solve())
case("solve_no_rhs_columns", "matrix_solve", {"matrix": np.eye(2), "rhs": np.zeros((2, 0))}, solve())
case("solve_nonsquare_static", "matrix_solve", {"matrix": np.ones((2, 3)), "rhs": np.ones((2, 1))},
     solve())
case("solve_nonsquare", "matrix_solve", {"matrix": np.ones((2, 3)), "rhs": np.ones((2, 1))},
     solve(), dynamic=True)
case("solve_rows_mismatch", "matrix_solve", {"matrix": np.eye(2), "rhs": np.ones((3, 1))},
     solve(), dynamic=True)
case("solve_batch_mismatch", "matrix_solve",
     {"matrix": np.ones((3, 2, 2)), "rhs": np.ones((2, 2, 1))}, solve(), dynamic=True)
case("solve_rank_mismatch", "matrix_solve", {"matrix": np.eye(2), "rhs": np.ones(2)}, solve(),
     dynamic=True)
case("solve_rank1", "matrix_solve", {"matrix": np.ones(2), "rhs": np.ones((2, 1))}, solve(),
     dynamic=True)


# --- MatrixSolveLs ----------------------------------------------------------------------------
def lstsq(l2=0.0, fast=True):
    return lambda t: gen_linalg_ops.matrix_solve_ls(t["matrix"], t["rhs"], l2, fast=fast)


case("lstsq_tall_f64", "matrix_solve_ls", {"matrix": rnd(5, 3), "rhs": rnd(5, 2)}, lstsq(),
     attrs={"l2_regularizer": 0.0, "fast": True}, grad=("matrix", "rhs"))
case("lstsq_square_f64", "matrix_solve_ls", {"matrix": rnd(3, 3) + 3 * np.eye(3), "rhs": rnd(3, 1)},
     lstsq(), attrs={"l2_regularizer": 0.0, "fast": True}, grad=("matrix", "rhs"))
case("lstsq_wide_f64", "matrix_solve_ls", {"matrix": rnd(2, 4), "rhs": rnd(2, 3)}, lstsq(),
     attrs={"l2_regularizer": 0.0, "fast": True}, grad=("matrix", "rhs"))
case("lstsq_tall_l2_f64", "matrix_solve_ls", {"matrix": rnd(4, 2), "rhs": rnd(4, 1)}, lstsq(0.5),
     attrs={"l2_regularizer": 0.5, "fast": True}, grad=("matrix", "rhs"))
case("lstsq_wide_l2_f64", "matrix_solve_ls", {"matrix": rnd(2, 3), "rhs": rnd(2, 2)}, lstsq(0.25),
     attrs={"l2_regularizer": 0.25, "fast": True}, grad=("matrix", "rhs"))
case("lstsq_batch_f32", "matrix_solve_ls", {"matrix": rnd(2, 4, 3, dt=f32), "rhs": rnd(2, 4, 2, dt=f32)},
     lstsq(), attrs={"l2_regularizer": 0.0, "fast": True}, grad=("matrix", "rhs"))
case("lstsq_slow_tall_f64", "matrix_solve_ls", {"matrix": rnd(5, 3), "rhs": rnd(5, 2)},
     lstsq(10.0, False), attrs={"l2_regularizer": 10.0, "fast": False}, grad=("matrix",))
case("lstsq_slow_wide_f64", "matrix_solve_ls", {"matrix": rnd(2, 4), "rhs": rnd(2, 1)},
     lstsq(0.0, False), attrs={"l2_regularizer": 0.0, "fast": False})
case("lstsq_slow_rank_deficient", "matrix_solve_ls",
     {"matrix": np.array([[1., 2], [2, 4], [3, 6]]), "rhs": np.array([[1.], [2], [4]])},
     lstsq(0.0, False), attrs={"l2_regularizer": 0.0, "fast": False})
case("lstsq_rank_deficient", "matrix_solve_ls", {"matrix": np.ones((3, 2)), "rhs": np.ones((3, 1))},
     lstsq(), attrs={"l2_regularizer": 0.0, "fast": True})
case("lstsq_negative_l2", "matrix_solve_ls", {"matrix": rnd(3, 2), "rhs": rnd(3, 1)}, lstsq(-1.0),
     attrs={"l2_regularizer": -1.0, "fast": True})
case("lstsq_rows_mismatch", "matrix_solve_ls", {"matrix": rnd(3, 2), "rhs": rnd(2, 1)}, lstsq(),
     attrs={"l2_regularizer": 0.0, "fast": True}, dynamic=True)
case("lstsq_rows_mismatch_static", "matrix_solve_ls", {"matrix": rnd(3, 2), "rhs": rnd(2, 1)},
     lstsq(), attrs={"l2_regularizer": 0.0, "fast": True})


def lstsq_py(l2=0.0, fast=True):
    return lambda t: tf.linalg.lstsq(t["matrix"], t["rhs"], l2_regularizer=l2, fast=fast)


# tf.linalg.lstsq itself: the Cholesky composite for these sizes (a cond on the shape when it is
# unknown), the op for fast=False.
case("lstsq_py_tall_f64", "lstsq", {"matrix": rnd(5, 3), "rhs": rnd(5, 2)}, lstsq_py(),
     attrs={"l2_regularizer": 0.0, "fast": True}, grad=("matrix", "rhs"))
case("lstsq_py_wide_l2_f64", "lstsq", {"matrix": rnd(2, 4), "rhs": rnd(2, 1)}, lstsq_py(0.5),
     attrs={"l2_regularizer": 0.5, "fast": True}, grad=("matrix", "rhs"))
case("lstsq_py_batch_l2_f32", "lstsq", {"matrix": rnd(2, 4, 3, dt=f32), "rhs": rnd(2, 4, 1, dt=f32)},
     lstsq_py(0.25), attrs={"l2_regularizer": 0.25, "fast": True}, grad=("matrix", "rhs"))
case("lstsq_py_dynamic_tall_f64", "lstsq", {"matrix": rnd(4, 2), "rhs": rnd(4, 1)}, lstsq_py(),
     attrs={"l2_regularizer": 0.0, "fast": True}, dynamic=True)
case("lstsq_py_dynamic_wide_f64", "lstsq", {"matrix": rnd(2, 3), "rhs": rnd(2, 2)}, lstsq_py(1.0),
     attrs={"l2_regularizer": 1.0, "fast": True}, dynamic=True)
case("lstsq_py_slow_f64", "lstsq", {"matrix": rnd(4, 3), "rhs": rnd(4, 1)}, lstsq_py(0.0, False),
     attrs={"l2_regularizer": 0.0, "fast": False})


# --- LogMatrixDeterminant and logdet --------------------------------------------------------
def slogdet(t):
    return list(gen_linalg_ops.log_matrix_determinant(t["input"]))


case("slogdet_f64", "log_matrix_determinant", {"input": rnd(3, 3)}, slogdet, grad=("input",),
     loss=((1, "id"),))
case("slogdet_batch_f32", "log_matrix_determinant", {"input": rnd(2, 3, 3, dt=f32)}, slogdet,
     grad=("input",), loss=((1, "id"),))
case("slogdet_negative", "log_matrix_determinant", {"input": np.array([[1., 2], [3, 4]])}, slogdet)
case("slogdet_singular", "log_matrix_determinant",
     {"input": np.array([[[2., 1], [4, 2]], [[0, 0], [0, 0]]])}, slogdet)
case("slogdet_empty", "log_matrix_determinant", {"input": np.zeros((2, 0, 0))}, slogdet)
case("slogdet_nonsquare", "log_matrix_determinant", {"input": np.ones((2, 3))}, slogdet,
     dynamic=True)
case("slogdet_rank1", "log_matrix_determinant", {"input": np.ones(3)}, slogdet, dynamic=True)
case("logdet_f64", "logdet", {"input": spd(3)}, lambda t: tf.linalg.logdet(t["input"]),
     grad=("input",))
case("logdet_batch_f32", "logdet", {"input": spd(3, f32, (2,))},
     lambda t: tf.linalg.logdet(t["input"]), grad=("input",))


# --- Qr ---------------------------------------------------------------------------------------
def qr(full=False):
    return lambda t: list(gen_linalg_ops.qr(t["input"], full_matrices=full))


QR_LOSS = ((0, "id"), (1, "id"))
case("qr_tall_f64", "qr", {"input": rnd(4, 3)}, qr(), grad=("input",), loss=QR_LOSS)
case("qr_square_f64", "qr", {"input": rnd(3, 3)}, qr(), grad=("input",), loss=QR_LOSS)
case("qr_wide_f64", "qr", {"input": rnd(3, 5)}, qr(), grad=("input",), loss=QR_LOSS)
case("qr_full_wide_f64", "qr", {"input": rnd(2, 4)}, qr(True), attrs={"full_matrices": True},
     grad=("input",), loss=QR_LOSS)
case("qr_full_tall_f64", "qr", {"input": rnd(4, 2)}, qr(True), attrs={"full_matrices": True},
     grad=("input",), loss=QR_LOSS)
case("qr_batch_f32", "qr", {"input": rnd(2, 4, 3, dt=f32)}, qr(), grad=("input",), loss=QR_LOSS)
case("qr_zero_subcolumn", "qr", {"input": np.array([[-2., 1, 3], [0, 0, 1], [0, 0, 2]])}, qr())
case("qr_empty_rows", "qr", {"input": np.zeros((0, 2))}, qr(True), attrs={"full_matrices": True})
case("qr_empty_cols", "qr", {"input": np.zeros((2, 0))}, qr(True), attrs={"full_matrices": True})
case("qr_rank1", "qr", {"input": np.ones(3)}, qr(), dynamic=True)


# --- SelfAdjointEigV2 -------------------------------------------------------------------------
def eigh(compute_v=True):
    def build(t):
        e, v = gen_linalg_ops.self_adjoint_eig_v2(t["input"], compute_v=compute_v)
        return [e, v] if compute_v else [e]
    return build


EIG_LOSS = ((0, "id"), (1, "square"))
case("eigh_f64", "self_adjoint_eig", {"input": sym(4)}, eigh(), grad=("input",), loss=EIG_LOSS,
     sign_free=(1,))
case("eigh_batch_f32", "self_adjoint_eig", {"input": sym(3, f32, (2,))}, eigh(), grad=("input",),
     loss=EIG_LOSS, sign_free=(1,))
case("eigh_reads_lower_f64", "self_adjoint_eig", {"input": rnd(3, 3)}, eigh(), grad=("input",),
     loss=EIG_LOSS, sign_free=(1,))
case("eigh_vectors_only_loss_f64", "self_adjoint_eig", {"input": sym(3)}, eigh(), grad=("input",),
     loss=((1, "square"),), sign_free=(1,))
case("eigvalsh_f64", "self_adjoint_eigvals", {"input": sym(4)}, eigh(False),
     attrs={"compute_v": False}, grad=("input",))
case("eigh_nan", "self_adjoint_eig", {"input": np.array([[np.nan, 1.], [1, 1]])}, eigh())
case("eigh_empty", "self_adjoint_eig", {"input": np.zeros((0, 0))}, eigh())
case("eigh_nonsquare", "self_adjoint_eig", {"input": np.ones((2, 3))}, eigh(), dynamic=True)
case("eigh_nonsquare_static", "self_adjoint_eig", {"input": np.ones((2, 3))}, eigh())


# --- Svd and pinv -----------------------------------------------------------------------------
def svd(full=False, compute_uv=True):
    def build(t):
        s, u, v = gen_linalg_ops.svd(t["input"], compute_uv=compute_uv, full_matrices=full)
        return [s, u, v] if compute_uv else [s]
    return build


SVD_LOSS = ((0, "id"), (1, "square"), (2, "square"))
case("svd_tall_f64", "svd", {"input": rnd(4, 3)}, svd(), grad=("input",), loss=SVD_LOSS,
     sign_free=(1, 2))
case("svd_wide_f64", "svd", {"input": rnd(3, 5)}, svd(), grad=("input",), loss=SVD_LOSS,
     sign_free=(1, 2))
case("svd_square_f64", "svd", {"input": rnd(3, 3)}, svd(), grad=("input",), loss=SVD_LOSS,
     sign_free=(1, 2))
case("svd_full_tall_f64", "svd", {"input": rnd(4, 3)}, svd(True), attrs={"full_matrices": True},
     grad=("input",), loss=SVD_LOSS, sign_free=(1, 2))
case("svd_full_wide_f64", "svd", {"input": rnd(2, 3)}, svd(True), attrs={"full_matrices": True},
     grad=("input",), loss=SVD_LOSS, sign_free=(1, 2))
case("svd_full_very_tall_f64", "svd", {"input": rnd(5, 2)}, svd(True),
     attrs={"full_matrices": True}, grad=("input",), loss=SVD_LOSS, sign_free=(1, 2),
     free_from={1: 2})
case("svd_values_only_f64", "svd", {"input": rnd(3, 4)}, svd(compute_uv=False),
     attrs={"compute_uv": False}, grad=("input",))
case("svd_batch_f32", "svd", {"input": rnd(2, 3, 2, dt=f32)}, svd(), grad=("input",),
     loss=SVD_LOSS, sign_free=(1, 2))
case("svd_rank_deficient_f64", "svd", {"input": np.array([[1., 2, 3], [2, 4, 6], [1, 0, 1]])},
     svd(), sign_free=(1, 2), free_from={1: 2, 2: 2})
case("svd_nan", "svd", {"input": np.array([[np.nan, 1.], [1, 1]])}, svd())
case("svd_empty", "svd", {"input": np.zeros((0, 3))}, svd(True), attrs={"full_matrices": True})
case("svd_rank1", "svd", {"input": np.ones(3)}, svd(), dynamic=True)
case("pinv_tall_f64", "pinv", {"input": rnd(3, 2)}, lambda t: tf.linalg.pinv(t["input"]),
     grad=("input",))
case("pinv_rank_deficient_f64", "pinv", {"input": np.array([[1., 2, 3], [2, 4, 6], [1, 0, 1]])},
     lambda t: tf.linalg.pinv(t["input"]))
case("pinv_dynamic_f64", "pinv", {"input": rnd(2, 4, 3)}, lambda t: tf.linalg.pinv(t["input"]),
     dynamic=True)
case("pinv_batch_f32", "pinv", {"input": rnd(2, 2, 3, dt=f32)}, lambda t: tf.linalg.pinv(t["input"]))


# --- MatrixSquareRoot ------------------------------------------------------------------------
def sqrtm(t):
    return tf.linalg.sqrtm(t["input"])


case("sqrtm_spd_f64", "matrix_square_root", {"input": spd(3)}, sqrtm, grad=("input",))
case("sqrtm_nonsymmetric_f64", "matrix_square_root",
     {"input": np.array([[4., 1, 0.5], [0.3, 3, 0.2], [0.1, -0.4, 2]])}, sqrtm, grad=("input",))
case("sqrtm_complex_pair_f64", "matrix_square_root", {"input": np.array([[1., -2], [2, 1]])}, sqrtm,
     grad=("input",))
case("sqrtm_jordan_f64", "matrix_square_root", {"input": np.array([[1., 1], [0, 1]])}, sqrtm)
case("sqrtm_batch_f32", "matrix_square_root", {"input": spd(2, f32, (2,))}, sqrtm, grad=("input",))
case("sqrtm_singular_psd", "matrix_square_root", {"input": np.array([[0., 0], [0, 1]])}, sqrtm)
case("sqrtm_negative_eigenvalue", "matrix_square_root", {"input": np.array([[-1., 0], [0, 4]])},
     sqrtm)
case("sqrtm_nan", "matrix_square_root", {"input": np.array([[np.nan, 1.], [1, 1]])}, sqrtm)
case("sqrtm_empty", "matrix_square_root", {"input": np.zeros((2, 0, 0))}, sqrtm)
case("sqrtm_nonsquare", "matrix_square_root", {"input": np.ones((2, 3))}, sqrtm, dynamic=True)


# --- tf.linalg.expm (a Python composite) -----------------------------------------------------
def expm(t):
    return tf.linalg.expm(t["input"])


case("expm_small_f64", "expm", {"input": 0.005 * rnd(3, 3)}, expm, grad=("input",))
case("expm_rotation_f64", "expm", {"input": np.array([[0., 1], [-1, 0]])}, expm, grad=("input",))
case("expm_large_f64", "expm", {"input": 6 * rnd(3, 3)}, expm, grad=("input",))
case("expm_batch_degrees_f64", "expm",
     {"input": np.stack([0.001 * rnd(2, 2), 0.1 * rnd(2, 2), 0.5 * rnd(2, 2), rnd(2, 2),
                         20 * rnd(2, 2)])}, expm, grad=("input",))
case("expm_batch_f32", "expm", {"input": np.stack([0.1 * rnd(3, 3), rnd(3, 3), 5 * rnd(3, 3)])
                                .astype(f32)}, expm, grad=("input",))
case("expm_dynamic_f64", "expm", {"input": rnd(2, 2, 2)}, expm, dynamic=True)
case("expm_nan", "expm", {"input": np.array([[np.nan, 1.], [0, 1]])}, expm)
case("expm_empty", "expm", {"input": np.zeros((2, 0, 0))}, expm)


# --- Cross ------------------------------------------------------------------------------------
def cross(t):
    return gen_math_ops.cross(t["a"], t["b"])


case("cross_f64", "cross", {"a": rnd(2, 3), "b": rnd(2, 3)}, cross, grad=("a", "b"))
case("cross_f32", "cross", {"a": rnd(3, dt=f32), "b": rnd(3, dt=f32)}, cross, grad=("a", "b"))
case("cross_int32", "cross", {"a": np.array([[1, 2, 3], [4, 5, 6]], i32),
                             "b": np.array([[7, 8, 9], [1, -1, 2]], i32)}, cross)
case("cross_not_3_static", "cross", {"a": np.ones((2, 2)), "b": np.ones((2, 2))}, cross)
case("cross_not_3", "cross", {"a": np.ones((2, 2)), "b": np.ones((2, 2))}, cross, dynamic=True)
case("cross_shape_mismatch", "cross", {"a": np.ones((2, 3)), "b": np.ones((3, 3))}, cross,
     dynamic=True)
case("cross_scalar", "cross", {"a": np.float64(1), "b": np.float64(2)}, cross, dynamic=True)

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": CASES}, f, indent=1)
print(len(CASES), "cases")
