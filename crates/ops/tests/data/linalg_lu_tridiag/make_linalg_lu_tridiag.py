"""Writes expected.json: tf.linalg.lu and its composites (lu_solve, lu_matrix_inverse,
lu_reconstruct), tridiagonal_solve and tridiagonal_matmul as TensorFlow 2.21 (graph mode, CPU)
computes them, for linalg_lu_tridiag.rs.

Each case: name, fn, inputs (specs: dtype, dims, values; complex values as [re, im] pairs
flattened; floats as the bits of their float64 values), unknown (feed the inputs through placeholders of
unknown shape), kwargs, and either outputs + static_shapes, error {code, message} (run time) or
build_error {type, message} (graph construction)."""
import json
import os

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

rng = np.random.RandomState(7)
CASES = []


def num(x):
    """A float as the bits of its float64 value (float32 values convert exactly)."""
    return int(np.array(float(x), np.float64).view(np.uint64))


def spec(a):
    a = np.asarray(a)
    if a.dtype.kind == "c":
        vals = []
        for z in a.reshape(-1):
            vals += [num(z.real), num(z.imag)]
    elif a.dtype.kind == "f":
        vals = [num(v) for v in a.reshape(-1)]
    else:
        vals = [int(v) for v in a.reshape(-1)]
    return {"dtype": a.dtype.name, "dims": list(a.shape), "values": vals}


def shape_list(s):
    if s.rank is None:
        return None
    return [d for d in s.as_list()]


FNS = {
    "lu": lambda xs, kw: list(tf.linalg.lu(xs[0], **kw)),
    "lu_solve": lambda xs, kw: [tf.linalg.lu_solve(xs[0], xs[1], xs[2], **kw)],
    "lu_matrix_inverse": lambda xs, kw: [tf.linalg.lu_matrix_inverse(xs[0], xs[1], **kw)],
    "lu_reconstruct": lambda xs, kw: [tf.linalg.lu_reconstruct(xs[0], xs[1], **kw)],
    "tridiagonal_solve": lambda xs, kw: [tf.linalg.tridiagonal_solve(xs[0], xs[1], **kw)],
    "tridiagonal_solve_seq": lambda xs, kw: [
        tf.linalg.tridiagonal_solve((xs[0], xs[1], xs[2]), xs[3], diagonals_format="sequence", **kw)],
    "tridiagonal_solve_matrix": lambda xs, kw: [
        tf.linalg.tridiagonal_solve(xs[0], xs[1], diagonals_format="matrix", **kw)],
    "tridiagonal_matmul": lambda xs, kw: [tf.linalg.tridiagonal_matmul(xs[0], xs[1], **kw)],
    "tridiagonal_matmul_seq": lambda xs, kw: [
        tf.linalg.tridiagonal_matmul((xs[0], xs[1], xs[2]), xs[3], diagonals_format="sequence")],
    "tridiagonal_matmul_matrix": lambda xs, kw: [
        tf.linalg.tridiagonal_matmul(xs[0], xs[1], diagonals_format="matrix")],
    "raw_tridiagonal_solve": lambda xs, kw: [tf.raw_ops.TridiagonalSolve(diagonals=xs[0], rhs=xs[1], **kw)],
    "banded_triangular_solve": lambda xs, kw: [tf.linalg.banded_triangular_solve(xs[0], xs[1], **kw)],
    "eig": lambda xs, kw: list(tf.linalg.eig(xs[0])),
    "eigvals": lambda xs, kw: [tf.linalg.eigvals(xs[0])],
    "raw_tridiagonal_matmul": lambda xs, kw: [
        tf.raw_ops.TridiagonalMatMul(superdiag=xs[0], maindiag=xs[1], subdiag=xs[2], rhs=xs[3])],
}


def case(name, fn, inputs, unknown=False, **kw):
    inputs = [np.asarray(x) for x in inputs]
    c = {"name": name, "fn": fn, "inputs": [spec(x) for x in inputs], "unknown": unknown,
         "kwargs": {k: (v.name if isinstance(v, tf.DType) else v) for k, v in kw.items()}}
    g = tf.Graph()
    with g.as_default():
        feeds = {}
        xs = []
        for i, x in enumerate(inputs):
            if unknown:
                p = tf1.placeholder(x.dtype, shape=None)
                feeds[p] = x
                xs.append(p)
            else:
                xs.append(tf.constant(x))
        try:
            outs = FNS[fn](xs, kw)
        except (ValueError, TypeError) as e:
            c["build_error"] = {"type": type(e).__name__, "message": str(e)}
            CASES.append(c)
            return
        c["static_shapes"] = [shape_list(o.shape) for o in outs]
        with tf1.Session(graph=g) as s:
            try:
                vals = s.run(outs, feeds)
                c["outputs"] = [spec(v) for v in vals]
            except tf.errors.OpError as e:
                c["error"] = {"code": e.error_code, "message": kernel_message(e.message)}
    CASES.append(c)


def kernel_message(m):
    """The kernel's own message: what follows the "Node: '...'" line, up to the node list."""
    lines = m.split("\n")
    for i, l in enumerate(lines):
        if l.startswith("Node: '"):
            lines = lines[i + 1:]
            break
    return "\n".join(lines).split("\n\t [[")[0]


def rand(shape, dtype):
    if np.dtype(dtype).kind == "c":
        return (rng.randn(*shape) + 1j * rng.randn(*shape)).astype(dtype)
    return rng.randn(*shape).astype(dtype)


# --- Lu ---------------------------------------------------------------------------------------
for dt in ["float32", "float64", "complex64", "complex128"]:
    case(f"lu_3x3_{dt}", "lu", [rand([3, 3], dt)])
    case(f"lu_batch_{dt}", "lu", [rand([2, 3, 4, 4], dt)])
for dt in ["float32", "float64"]:
    case(f"lu_20x20_{dt}", "lu", [rand([20, 20], dt)])
    case(f"lu_40x40_{dt}", "lu", [rand([2, 40, 40], dt)])
    case(f"lu_int64_{dt}", "lu", [rand([3, 5, 5], dt)], output_idx_type=tf.int64)
    case(f"lu_ties_{dt}", "lu", [np.array([[1, 2, 3], [-1, 3, 1], [1, -5, 2]], dt)])
    case(f"lu_pivot_{dt}", "lu", [np.array([[0, 1, 2], [1, 0, 3], [4, -3, 8]], dt)])
    case(f"lu_singular_{dt}", "lu", [np.array([[1, 2], [2, 4]], dt)])
    case(f"lu_singular_batch_{dt}", "lu", [np.array([[[1, 2], [3, 4]], [[0, 0], [0, 0]]], dt)])
    case(f"lu_empty_{dt}", "lu", [np.zeros([2, 0, 0], dt)])
    case(f"lu_empty_batch_{dt}", "lu", [np.zeros([0, 3, 3], dt)])
    case(f"lu_1x1_{dt}", "lu", [np.array([[-2.5]], dt)])
    case(f"lu_unknown_{dt}", "lu", [rand([2, 3, 3], dt)], unknown=True)
case("lu_nonsquare", "lu", [rand([2, 3], "float32")])
case("lu_rank1", "lu", [rand([3], "float32")])
case("lu_int32", "lu", [np.eye(2, dtype=np.int32)])
case("lu_half", "lu", [np.eye(2, dtype=np.float16)])
case("lu_unknown_rank1", "lu", [rand([3], "float32")], unknown=True)
case("lu_unknown_nonsquare", "lu", [rand([2, 3], "float64")], unknown=True)
case("lu_unknown_singular", "lu", [np.zeros([1, 2, 2], np.float32)], unknown=True)

# --- lu composites ----------------------------------------------------------------------------
def lu_np(a):
    with tf.Graph().as_default(), tf1.Session() as s:
        return s.run(tf.linalg.lu(tf.constant(a)))


for dt in ["float32", "float64"]:
    a = rand([4, 4], dt)
    lu, p = lu_np(a)
    case(f"lu_solve_{dt}", "lu_solve", [lu, p, rand([4, 3], dt)])
    case(f"lu_inverse_{dt}", "lu_matrix_inverse", [lu, p])
    case(f"lu_reconstruct_{dt}", "lu_reconstruct", [lu, p])
    a = rand([2, 3, 3, 3], dt)
    lu, p = lu_np(a)
    case(f"lu_solve_batch_{dt}", "lu_solve", [lu, p, rand([2, 3, 3, 2], dt)])
    case(f"lu_solve_bcast_rhs_{dt}", "lu_solve", [lu, p, rand([3, 2], dt)])
    case(f"lu_solve_bcast_lu_{dt}", "lu_solve", [lu[0, 0], p[0, 0], rand([2, 3, 3, 1], dt)])
    case(f"lu_inverse_batch_{dt}", "lu_matrix_inverse", [lu, p])
    case(f"lu_reconstruct_batch_{dt}", "lu_reconstruct", [lu, p])
    case(f"lu_reconstruct_unknown_{dt}", "lu_reconstruct", [lu, p], unknown=True)
    case(f"lu_solve_unknown_{dt}", "lu_solve", [lu, p, rand([2, 3, 3, 2], dt)], unknown=True)
    case(f"lu_inverse_unknown_{dt}", "lu_matrix_inverse", [lu, p], unknown=True)
lu, p = lu_np(rand([3, 3], "float32"))
case("lu_solve_rhs_rank1", "lu_solve", [lu, p, rand([3], "float32")])
case("lu_solve_rhs_rows", "lu_solve", [lu, p, rand([4, 2], "float32")])
case("lu_solve_perm_rank", "lu_solve", [lu, p[None], rand([3, 2], "float32")])
case("lu_reconstruct_rank1", "lu_reconstruct", [lu[0], p[:1]])
case("lu_reconstruct_nonsquare", "lu_reconstruct", [lu[:2], p[:2]])

# --- TridiagonalSolve -------------------------------------------------------------------------
def diags(batch, n, dt, dominant=False):
    d = rand(batch + [3, n], dt)
    if dominant:
        d[..., 1, :] += 4
    return d


for dt in ["float32", "float64", "complex64", "complex128"]:
    for n in [1, 2, 3, 6]:
        case(f"tds_{dt}_n{n}", "tridiagonal_solve", [diags([], n, dt), rand([n, 2], dt)])
        case(f"tds_nopiv_{dt}_n{n}", "tridiagonal_solve",
             [diags([], n, dt, True), rand([n, 2], dt)], partial_pivoting=False)
        case(f"tds_perturb_{dt}_n{n}", "tridiagonal_solve",
             [diags([], n, dt), rand([n, 2], dt)], perturb_singular=True)
    case(f"tds_batch_{dt}", "tridiagonal_solve", [diags([2, 3], 5, dt), rand([2, 3, 5, 3], dt)])
    case(f"tds_vector_rhs_{dt}", "tridiagonal_solve", [diags([2], 4, dt), rand([2, 4], dt)])
    case(f"tds_transpose_rhs_{dt}", "tridiagonal_solve", [diags([], 4, dt), rand([3, 4], dt)],
         transpose_rhs=True, conjugate_rhs=True)
    case(f"tds_conj_rhs_{dt}", "tridiagonal_solve", [diags([], 4, dt), rand([4, 2], dt)],
         conjugate_rhs=True)
    case(f"tds_seq_{dt}", "tridiagonal_solve_seq",
         [rand([2, 4], dt), rand([2, 5], dt), rand([2, 4], dt), rand([2, 5, 2], dt)])
    case(f"tds_seq_full_{dt}", "tridiagonal_solve_seq",
         [rand([5], dt), rand([5], dt), rand([5], dt), rand([5, 1], dt)])
    case(f"tds_matrix_{dt}", "tridiagonal_solve_matrix", [rand([2, 4, 4], dt), rand([2, 4, 2], dt)])
    sing = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], dt)  # super, main, sub: singular
    case(f"tds_singular_{dt}", "tridiagonal_solve",
         [np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], dt), rand([3, 1], dt)])
    case(f"tds_singular2_{dt}", "tridiagonal_solve", [np.array([[1, 0], [1, 1], [0, 1]], dt), rand([2, 2], dt)])
    case(f"tds_zero_1x1_{dt}", "tridiagonal_solve", [np.array([[0], [0], [0]], dt), rand([1, 2], dt)])
    case(f"tds_thomas_fail_{dt}", "tridiagonal_solve",
         [np.array([[1, 1, 0], [0, 1, 1], [0, 1, 1]], dt), rand([3, 1], dt)], partial_pivoting=False)
    case(f"tds_perturb_singular_{dt}", "tridiagonal_solve",
         [np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], dt), rand([3, 2], dt)], perturb_singular=True)
    case(f"tds_perturb_zero_{dt}", "tridiagonal_solve",
         [np.zeros([3, 3], dt), rand([3, 2], dt)], perturb_singular=True)
    case(f"tds_empty_{dt}", "tridiagonal_solve", [np.zeros([3, 0], dt), np.zeros([0, 2], dt)])
    case(f"tds_empty_batch_{dt}", "tridiagonal_solve", [np.zeros([0, 3, 4], dt), np.zeros([0, 4, 2], dt)])
case("tds_pivot_needed", "tridiagonal_solve",
     [np.array([[2, 1, 0], [0, 1, 3], [0, 5, 1]], np.float64), rand([3, 2], "float64")])
case("tds_pivot_needed_nopiv", "tridiagonal_solve",
     [np.array([[2, 1, 0], [0, 1, 3], [0, 5, 1]], np.float64), rand([3, 2], "float64")],
     partial_pivoting=False)
case("tds_tiny_pivot_perturb", "tridiagonal_solve",
     [np.array([[1, 1, 0], [1e-30, 1, 1e-30], [0, 1, 1]], np.float32), rand([3, 1], "float32")],
     perturb_singular=True)
case("tds_4_diags", "tridiagonal_solve", [rand([4, 3], "float32"), rand([3, 1], "float32")])
case("tds_rank1", "tridiagonal_solve", [rand([3], "float32"), rand([3, 1], "float32")])
case("tds_mismatch", "tridiagonal_solve", [rand([3, 3], "float32"), rand([4, 1], "float32")])
case("tds_rhs_rank", "tridiagonal_solve", [rand([2, 3, 3], "float32"), rand([2, 2, 3, 1], "float32")])
case("tds_batch_mismatch", "tridiagonal_solve", [rand([2, 3, 3], "float32"), rand([3, 3, 1], "float32")])
case("tds_perturb_nopiv", "tridiagonal_solve", [rand([3, 3], "float32"), rand([3, 1], "float32")],
     partial_pivoting=False, perturb_singular=True)
case("tds_int", "tridiagonal_solve", [np.ones([3, 3], np.int32), np.ones([3, 1], np.int32)])
case("tds_seq_bad_len", "tridiagonal_solve_seq",
     [rand([2], "float32"), rand([4], "float32"), rand([4], "float32"), rand([4, 1], "float32")])
case("tds_matrix_nonsquare", "tridiagonal_solve_matrix", [rand([3, 4], "float32"), rand([4, 1], "float32")])
case("tds_raw", "raw_tridiagonal_solve", [diags([2], 4, "float64"), rand([2, 4, 2], "float64")])
case("tds_raw_shape_error", "raw_tridiagonal_solve", [rand([4, 3], "float32"), rand([3, 1], "float32")])
case("tds_raw_m_error", "raw_tridiagonal_solve", [rand([3, 3], "float32"), rand([2, 1], "float32")])
case("tds_unknown_4_diags", "raw_tridiagonal_solve", [rand([4, 3], "float32"), rand([3, 1], "float32")],
     unknown=True)
case("tds_unknown_m", "raw_tridiagonal_solve", [rand([3, 3], "float32"), rand([2, 1], "float32")],
     unknown=True)
case("tds_unknown_rank", "raw_tridiagonal_solve", [rand([3], "float32"), rand([3, 1], "float32")],
     unknown=True)
case("tds_unknown_rank_mismatch", "raw_tridiagonal_solve",
     [rand([2, 3, 3], "float32"), rand([3, 1], "float32")], unknown=True)
case("tds_unknown_batch_mismatch", "raw_tridiagonal_solve",
     [rand([2, 3, 3], "float32"), rand([3, 3, 1], "float32")], unknown=True)
case("tds_raw_perturb_nopiv", "raw_tridiagonal_solve", [rand([3, 3], "float32"), rand([3, 1], "float32")],
     partial_pivoting=False, perturb_singular=True)

# --- TridiagonalMatMul ------------------------------------------------------------------------
for dt in ["float32", "float64", "complex64", "complex128"]:
    for n in [1, 2, 5]:
        case(f"tdm_{dt}_n{n}", "tridiagonal_matmul", [rand([3, n], dt), rand([n, 3], dt)])
    case(f"tdm_batch_{dt}", "tridiagonal_matmul", [rand([2, 3, 3, 4], dt), rand([2, 3, 4, 2], dt)])
    case(f"tdm_seq_{dt}", "tridiagonal_matmul_seq", [rand([2, 4], dt), rand([2, 4], dt), rand([2, 4], dt),
                                                     rand([2, 4, 3], dt)])
    case(f"tdm_matrix_{dt}", "tridiagonal_matmul_matrix", [rand([2, 4, 4], dt), rand([2, 4, 2], dt)])
    case(f"tdm_empty_rhs_cols_{dt}", "tridiagonal_matmul", [rand([3, 3], dt), np.zeros([3, 0], dt)])
    case(f"tdm_empty_batch_{dt}", "tridiagonal_matmul", [np.zeros([0, 3, 3], dt), np.zeros([0, 3, 2], dt)])
case("tdm_mismatch", "tridiagonal_matmul", [rand([3, 3], "float32"), rand([4, 2], "float32")])
case("tdm_seq_mismatch", "tridiagonal_matmul_seq",
     [rand([3], "float32"), rand([4], "float32"), rand([4], "float32"), rand([4, 1], "float32")])
case("tdm_matrix_nonsquare", "tridiagonal_matmul_matrix", [rand([3, 4], "float32"), rand([4, 1], "float32")])
case("tdm_int", "tridiagonal_matmul", [np.ones([3, 3], np.int32), np.ones([3, 1], np.int32)])
case("tdm_raw_not_1", "raw_tridiagonal_matmul",
     [rand([2, 3], "float32"), rand([2, 3], "float32"), rand([2, 3], "float32"), rand([3, 1], "float32")])
case("tdm_unknown_super", "raw_tridiagonal_matmul",
     [rand([1, 2], "float32"), rand([1, 3], "float32"), rand([1, 3], "float32"), rand([3, 1], "float32")],
     unknown=True)
case("tdm_unknown_main", "raw_tridiagonal_matmul",
     [rand([1, 3], "float32"), rand([2, 3], "float32"), rand([1, 3], "float32"), rand([3, 1], "float32")],
     unknown=True)
case("tdm_unknown_sub", "raw_tridiagonal_matmul",
     [rand([1, 3], "float32"), rand([1, 3], "float32"), rand([1, 4], "float32"), rand([3, 1], "float32")],
     unknown=True)
case("tdm_unknown_ok", "raw_tridiagonal_matmul",
     [rand([2, 1, 3], "float64"), rand([2, 1, 3], "float64"), rand([2, 1, 3], "float64"),
      rand([2, 3, 2], "float64")], unknown=True)

# --- Eig -------------------------------------------------------------------------------------
for dt in ["float32", "float64", "complex64", "complex128"]:
    case(f"eig_3x3_{dt}", "eig", [rand([3, 3], dt)])
    case(f"eig_batch_{dt}", "eig", [rand([2, 4, 4], dt)])
    case(f"eigvals_{dt}", "eigvals", [rand([5, 5], dt)])
    case(f"eig_empty_{dt}", "eig", [np.zeros([2, 0, 0], dt)])
    case(f"eig_1x1_{dt}", "eig", [np.array([[-3.5]], dt)])
for dt in ["float32", "float64"]:
    case(f"eig_rotation_{dt}", "eig", [np.array([[0, -1], [1, 0]], dt)])
    case(f"eig_symmetric_{dt}", "eig", [np.array([[2, 1, 0], [1, 3, 1], [0, 1, 4]], dt)])
    case(f"eig_triangular_{dt}", "eig", [np.array([[1, 2, 3], [0, -4, 5], [0, 0, 6]], dt)])
    case(f"eig_repeated_{dt}", "eig", [np.diag([2, 2, -1]).astype(dt)])
    case(f"eig_12x12_{dt}", "eig", [rand([12, 12], dt)])
    case(f"eig_zero_{dt}", "eig", [np.zeros([3, 3], dt)])
    case(f"eig_jordan_{dt}", "eig", [np.array([[1, 1], [0, 1]], dt)])
case("eig_nan", "eig", [np.array([[1, np.nan], [0, 1]], np.float64)])
case("eig_inf", "eigvals", [np.array([[1, np.inf], [0, 1]], np.float32)])
case("eig_nonsquare", "eig", [rand([2, 3], "float32")])
case("eig_rank1", "eig", [rand([3], "float32")])
case("eig_unknown_nonsquare", "eig", [rand([2, 3], "float64")], unknown=True)
case("eig_unknown_rank1", "eigvals", [rand([3], "float64")], unknown=True)
case("eig_unknown_ok", "eig", [rand([2, 3, 3], "float64")], unknown=True)

# --- BandedTriangularSolve ------------------------------------------------------------------
def bands(shape, dt):
    b = rand(shape, dt)
    return b


for dt in ["float32", "float64", "complex64", "complex128"]:
    for lower in [True, False]:
        for adjoint in [False, True]:
            tag = f"{dt}_{'lower' if lower else 'upper'}{'_adj' if adjoint else ''}"
            d = 0 if lower else 2
            b = bands([3, 5], dt)
            b[d] += 3
            case(f"bts_{tag}", "banded_triangular_solve", [b, rand([5, 2], dt)], lower=lower, adjoint=adjoint)
            b = bands([2, 1, 4, 6], dt)
            b[..., 0 if lower else 3, :] += 3
            case(f"bts_bcast_{tag}", "banded_triangular_solve", [b, rand([3, 6, 2], dt)],
                 lower=lower, adjoint=adjoint)
    b = bands([1, 4], dt) + 2
    case(f"bts_diag_{dt}", "banded_triangular_solve", [b, rand([4, 3], dt)])
    b = bands([4, 4], dt)
    b[0] += 3
    case(f"bts_full_{dt}", "banded_triangular_solve", [b, rand([4, 1], dt)])
case("bts_singular", "banded_triangular_solve",
     [np.array([[1, 0, 2], [1, 1, 1]], np.float32), rand([3, 1], "float32")])
case("bts_singular_upper", "banded_triangular_solve",
     [np.array([[1, 0, 2], [1, 1, 0]], np.float64), rand([3, 1], "float64")], lower=False)
case("bts_singular_second_batch", "banded_triangular_solve",
     [np.array([[[1, 1, 2], [1, 1, 1]], [[0, 0, 0], [1, 1, 1]]], np.float32), rand([2, 3, 1], "float32")])
case("bts_too_many_bands", "banded_triangular_solve", [rand([4, 3], "float32"), rand([3, 1], "float32")])
case("bts_zero_bands", "banded_triangular_solve", [np.zeros([0, 3], np.float32), rand([3, 1], "float32")])
case("bts_m_mismatch", "banded_triangular_solve", [rand([2, 3], "float32"), rand([4, 1], "float32")])
case("bts_batch_mismatch", "banded_triangular_solve",
     [rand([2, 2, 3], "float32"), rand([3, 3, 1], "float32")])
case("bts_rank1", "banded_triangular_solve", [rand([3], "float32"), rand([3, 1], "float32")])
case("bts_empty_rhs", "banded_triangular_solve", [rand([2, 3], "float32") + 2, np.zeros([3, 0], np.float32)])
case("bts_half", "banded_triangular_solve", [np.ones([2, 3], np.float16), np.ones([3, 1], np.float16)])
case("bts_unknown_m", "banded_triangular_solve", [rand([2, 3], "float32"), rand([4, 1], "float32")],
     unknown=True)
case("bts_unknown_batch", "banded_triangular_solve",
     [rand([2, 2, 3], "float32"), rand([3, 3, 1], "float32")], unknown=True)
case("bts_unknown_rank", "banded_triangular_solve", [rand([3], "float32"), rand([3, 1], "float32")],
     unknown=True)
case("bts_unknown_ok", "banded_triangular_solve", [rand([2, 2, 3], "float64") + 3, rand([2, 3, 2], "float64")],
     unknown=True)

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
with open(out, "w") as f:
    json.dump(CASES, f, indent=0)
print(len(CASES), "cases")
