"""Writes expected.json: TensorFlow 2.21's tf.gradients (graph mode, CPU) through
TridiagonalSolve, TridiagonalMatMul, BandedTriangularSolve (raw and through the Python wrappers' formats) and the
lu_* composites, with fixed grad_ys, for linalg_lu_tridiag_grad.rs. Floats are recorded as the
bits of their float64 values; complex as (re, im) pairs. A case whose tf.gradients raises records
the exception (LookupError for Lu, which has no registered gradient)."""
import json
import os

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
rng = np.random.RandomState(11)
CASES = []


def num(x):
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


def rand(shape, dt):
    if np.dtype(dt).kind == "c":
        return (rng.randn(*shape) + 1j * rng.randn(*shape)).astype(dt)
    return rng.randn(*shape).astype(dt)


FNS = {
    "tridiagonal_solve": lambda xs, kw: tf.linalg.tridiagonal_solve(xs[0], xs[1], **kw),
    "tridiagonal_solve_seq": lambda xs, kw: tf.linalg.tridiagonal_solve(
        (xs[0], xs[1], xs[2]), xs[3], diagonals_format="sequence", **kw),
    "tridiagonal_matmul": lambda xs, kw: tf.linalg.tridiagonal_matmul(xs[0], xs[1]),
    "tridiagonal_matmul_seq": lambda xs, kw: tf.linalg.tridiagonal_matmul(
        (xs[0], xs[1], xs[2]), xs[3], diagonals_format="sequence"),
    "banded_triangular_solve": lambda xs, kw: tf.linalg.banded_triangular_solve(xs[0], xs[1], **kw),
    "lu": lambda xs, kw: tf.linalg.lu(xs[0])[0],
    "lu_solve": lambda xs, kw: tf.linalg.lu_solve(xs[0], xs[1], xs[2]),
    "lu_reconstruct": lambda xs, kw: tf.linalg.lu_reconstruct(xs[0], xs[1]),
    "lu_matrix_inverse": lambda xs, kw: tf.linalg.lu_matrix_inverse(xs[0], xs[1]),
}


def case(name, fn, inputs, wrt, **kw):
    inputs = [np.asarray(x) for x in inputs]
    c = {"name": name, "fn": fn, "inputs": [spec(x) for x in inputs], "wrt": wrt, "kwargs": kw}
    g = tf.Graph()
    with g.as_default():
        xs = [tf.constant(x) for x in inputs]
        y = FNS[fn](xs, kw)
        gy = rand(y.shape.as_list(), y.dtype.as_numpy_dtype)
        c["grad_ys"] = spec(gy)
        try:
            grads = tf.gradients(y, [xs[i] for i in wrt], grad_ys=tf.constant(gy))
        except LookupError as e:
            c["error"] = {"type": "LookupError", "message": str(e).split(".")[0]}
            CASES.append(c)
            return
        c["backward_ops"] = sorted({o.type for o in g.get_operations()} - {"Const"})
        with tf1.Session(graph=g) as s:
            yv, gv = s.run([y, grads])
        c["y"] = spec(yv)
        c["grads"] = [spec(v) for v in gv]
    CASES.append(c)


def diags(batch, n, dt):
    d = rand(batch + [3, n], dt)
    d[..., 1, :] += 3
    return d


for dt in ["float32", "float64", "complex128"]:
    case(f"tdm_{dt}", "tridiagonal_matmul", [rand([3, 5], dt), rand([5, 2], dt)], [0, 1])
    case(f"tdm_batch_{dt}", "tridiagonal_matmul", [rand([2, 3, 4], dt), rand([2, 4, 3], dt)], [0, 1])
    case(f"tdm_seq_{dt}", "tridiagonal_matmul_seq",
         [rand([4], dt), rand([4], dt), rand([4], dt), rand([4, 2], dt)], [0, 1, 2, 3])
    case(f"tds_{dt}", "tridiagonal_solve", [diags([], 5, dt), rand([5, 2], dt)], [0, 1])
    case(f"tds_batch_{dt}", "tridiagonal_solve", [diags([2], 4, dt), rand([2, 4, 3], dt)], [0, 1])
    case(f"tds_nopiv_{dt}", "tridiagonal_solve", [diags([], 4, dt), rand([4, 2], dt)], [0, 1],
         partial_pivoting=False)
    case(f"tds_perturb_{dt}", "tridiagonal_solve", [diags([], 4, dt), rand([4, 1], dt)], [0, 1],
         perturb_singular=True)
    case(f"tds_seq_{dt}", "tridiagonal_solve_seq",
         [rand([3], dt), rand([4], dt) + 3, rand([3], dt), rand([4, 2], dt)], [0, 1, 2, 3])
case("tds_n1_float64", "tridiagonal_solve", [diags([], 1, "float64"), rand([1, 2], "float64")], [0, 1])
case("tds_pivoting_float64", "tridiagonal_solve",
     [np.array([[2, 1, 0], [0.1, 1, 3], [0, 5, 1]], np.float64), rand([3, 2], "float64")], [0, 1])


def lu_np(a):
    with tf.Graph().as_default(), tf1.Session() as s:
        return s.run(tf.linalg.lu(tf.constant(a)))


for dt in ["float32", "float64"]:
    case(f"lu_{dt}", "lu", [rand([3, 3], dt)], [0])
    lu, p = lu_np(rand([4, 4], dt))
    case(f"lu_solve_{dt}", "lu_solve", [lu, p, rand([4, 2], dt)], [0, 2])
    case(f"lu_reconstruct_{dt}", "lu_reconstruct", [lu, p], [0])
    case(f"lu_inverse_{dt}", "lu_matrix_inverse", [lu, p], [0])
    lu, p = lu_np(rand([2, 3, 3], dt))
    case(f"lu_solve_batch_{dt}", "lu_solve", [lu, p, rand([2, 3, 2], dt)], [0, 2])
    case(f"lu_reconstruct_batch_{dt}", "lu_reconstruct", [lu, p], [0])

for dt in ["float32", "float64", "complex128"]:
    for lower in [True, False]:
        for adjoint in [False, True]:
            tag = f"{dt}_{'lower' if lower else 'upper'}{'_adj' if adjoint else ''}"
            b = rand([3, 5], dt)
            b[0 if lower else 2] += 3
            case(f"bts_{tag}", "banded_triangular_solve", [b, rand([5, 2], dt)], [0, 1],
                 lower=lower, adjoint=adjoint)
    b = rand([2, 1, 2, 4], dt)
    b[..., 0, :] += 3
    case(f"bts_bcast_{dt}", "banded_triangular_solve", [b, rand([3, 4, 2], dt)], [0, 1])

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
with open(out, "w") as f:
    json.dump(CASES, f, indent=0)
print(len(CASES), "cases")
