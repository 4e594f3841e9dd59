"""Records TensorFlow 2.21's sparse arithmetic ops into expected.json.

Run with TensorFlow 2.21:  python make_sparse_math.py  (writes expected.json next to it).

Each case builds one raw op in a tf.compat.v1 graph and runs it in a Session:
"matmul" (`SparseTensorDenseMatMul`, attrs adjoint_a/adjoint_b), "cwise_mul", "cwise_div",
"cwise_add" (`SparseDenseCwise{Mul,Div,Add}`), "dense_add" (`SparseTensorDenseAdd`),
"sparse_add" (`SparseAdd`), "add_grad" (`SparseAddGrad`), "reduce_sum", "reduce_max",
"reduce_sum_sparse", "reduce_max_sparse" (`SparseReduce{Sum,Max}[Sparse]`, attr keep_dims).
Every input is a placeholder fed its value, of the value's own static shape unless the input
has `shape` (a list with null for an unknown dim, or "unknown"), or a constant when it has
`"const": true`. A tensor is {dtype, dims, values}: values flat, float32/float64 as their bit
patterns. Recorded: `static_shapes` and `outputs`, or the error (`build_error` when building
failed, `error` when running did) as TensorFlow's canonical code and message, without
TensorFlow's " for '{{node ...}}'" suffix.

grads.json holds tf.gradients of float64 cases of the differentiable ops (see GRAD_CASES).
"""
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()


def np_of(spec):
    dt, dims, vals = spec["dtype"], spec["dims"], spec["values"]
    if dt == "float32":
        return np.array(vals, dtype=np.uint32).view(np.float32).reshape(dims)
    if dt == "float64":
        return np.array(vals, dtype=np.uint64).view(np.float64).reshape(dims)
    return np.array(vals, dtype=dt).reshape(dims)


def spec_of(arr, dtype):
    arr = np.asarray(arr)
    dims = list(arr.shape)
    flat = arr.reshape(-1).tolist()
    if dtype == "float32":
        vals = np.asarray(flat, dtype=np.float32).view(np.uint32).tolist()
    elif dtype == "float64":
        vals = np.asarray(flat, dtype=np.float64).view(np.uint64).tolist()
    else:
        vals = [int(v) for v in flat]
    return {"dtype": dtype, "dims": dims, "values": vals}


def tensor(dtype, values, dims=None):
    a = np.array(values, dtype=dtype)
    if dims is not None:
        a = a.reshape(dims)
    return spec_of(a, dtype)


def build_message(e):
    m = str(e)
    return m.split(" for '{{node")[0].split("\n\t; NodeDef")[0]


def run_message(e):
    m = e.message
    at = m.rfind("Node: '")
    if at >= 0:
        m = m[m.index("\n", at) + 1:]
    elif m.startswith("Graph execution error:\n\n"):
        m = m[len("Graph execution error:\n\n"):]
    m = m.split("\n\t [[")[0]
    return m.split(" for node {{node")[0]


def source(spec, feeds):
    v = np_of(spec)
    if spec.get("const"):
        return tf.constant(v)
    shape = spec.get("shape", spec["dims"])
    shape = None if shape == "unknown" else shape
    p = tf.placeholder(tf.as_dtype(spec["dtype"]), shape)
    feeds[p] = v
    return p


def build(c):
    feeds = {}
    x = [source(s, feeds) for s in c["inputs"]]
    op = c["op"]
    a = c.get("attrs", {})
    if op == "matmul":
        return [tf.raw_ops.SparseTensorDenseMatMul(
            a_indices=x[0], a_values=x[1], a_shape=x[2], b=x[3], **a)], feeds
    if op.startswith("cwise_"):
        f = {"cwise_mul": tf.raw_ops.SparseDenseCwiseMul, "cwise_div": tf.raw_ops.SparseDenseCwiseDiv,
             "cwise_add": tf.raw_ops.SparseDenseCwiseAdd}[op]
        return [f(sp_indices=x[0], sp_values=x[1], sp_shape=x[2], dense=x[3])], feeds
    if op == "dense_add":
        return [tf.raw_ops.SparseTensorDenseAdd(a_indices=x[0], a_values=x[1], a_shape=x[2],
                                                b=x[3])], feeds
    if op == "sparse_add":
        return list(tf.raw_ops.SparseAdd(a_indices=x[0], a_values=x[1], a_shape=x[2],
                                         b_indices=x[3], b_values=x[4], b_shape=x[5],
                                         thresh=x[6])), feeds
    if op == "add_grad":
        return list(tf.raw_ops.SparseAddGrad(backprop_val_grad=x[0], a_indices=x[1],
                                             b_indices=x[2], sum_indices=x[3])), feeds
    f = {"reduce_sum": tf.raw_ops.SparseReduceSum, "reduce_max": tf.raw_ops.SparseReduceMax,
         "reduce_sum_sparse": tf.raw_ops.SparseReduceSumSparse,
         "reduce_max_sparse": tf.raw_ops.SparseReduceMaxSparse}[op]
    out = f(input_indices=x[0], input_values=x[1], input_shape=x[2], reduction_axes=x[3],
            keep_dims=a.get("keep_dims", False))
    return (list(out) if op.endswith("sparse") else [out]), feeds


def record(c):
    g = tf.Graph()
    with g.as_default():
        try:
            outs, feeds = build(c)
        except (ValueError, TypeError, tf.errors.OpError) as e:
            code = e.error_code if isinstance(e, tf.errors.OpError) else 3
            c["build_error"] = {"code": code, "message": build_message(e)}
            return c
        c["static_shapes"] = [o.shape.as_list() if o.shape.rank is not None else None
                              for o in outs]
        with tf.Session(graph=g) as sess:
            try:
                v = sess.run(outs, feed_dict=feeds)
            except tf.errors.OpError as e:
                c["error"] = {"code": e.error_code, "message": run_message(e)}
                return c
        c["outputs"] = [spec_of(t, o.dtype.name) for t, o in zip(v, outs)]
    return c


CASES = []


def add(name, op, inputs, **kw):
    c = {"name": name, "op": op, "inputs": inputs}
    c.update(kw)
    CASES.append(c)


U = "unknown"


def sp(indices, dtype, values, shape, rank=None, shapes=(None, None, None), idx_dtype="int64"):
    rank = rank if rank is not None else (len(indices[0]) if indices else len(shape))
    flat = [x for row in indices for x in row]
    specs = [tensor(idx_dtype, flat, [len(indices), rank]), tensor(dtype, values, [len(values)]),
             tensor("int64", shape, [len(shape)])]
    for s, sh in zip(specs, shapes):
        if sh is not None:
            s["shape"] = sh
    return specs


def dense(dtype, arr, shape=None, const=False):
    s = spec_of(np.asarray(arr, dtype=dtype), dtype)
    if shape is not None:
        s["shape"] = shape
    if const:
        s["const"] = True
    return s


def unk(spec, shape=U):
    s = dict(spec)
    s["shape"] = shape
    return s


rng = np.random.RandomState(7)


def rand(dtype, n):
    if dtype.startswith("float"):
        return (rng.randn(n) * 3).astype(dtype).tolist()
    return rng.randint(-9, 10, size=n).tolist()


def rand_sparse(dtype, shape, nnz, sort=True, unique=True):
    total = int(np.prod(shape))
    flat = rng.choice(total, nnz, replace=not unique) if total else np.array([], dtype=int)
    if sort:
        flat = np.sort(flat)
    idx = [list(np.unravel_index(f, shape)) for f in flat]
    return sp([[int(i) for i in r] for r in idx], dtype, rand(dtype, nnz), shape,
              rank=len(shape))


# --- SparseTensorDenseMatMul ----------------------------------------------------------------
# int64 values have no CPU kernel in TensorFlow 2.21 (a run-time error there, a build-time
# dtype error in weir), so only float32, float64 and int32 are recorded.
for dt in ["float32", "float64", "int32"]:
    for aa in (False, True):
        for ab in (False, True):
            m, k, n = 3, 4, 5
            a_shape = [k, m] if aa else [m, k]
            b_shape = [n, k] if ab else [k, n]
            add(f"mm_{dt}_{int(aa)}{int(ab)}", "matmul",
                rand_sparse(dt, a_shape, 6) + [dense(dt, np.array(rand(dt, k * n)).reshape(b_shape))],
                attrs={"adjoint_a": aa, "adjoint_b": ab})
for n in (31, 32, 33, 70):
    for ab in (False, True):
        b_shape = [n, 6] if ab else [6, n]
        add(f"mm_wide_{n}_{int(ab)}", "matmul",
            rand_sparse("float32", [4, 6], 12, sort=False) +
            [dense("float32", np.array(rand("float32", 6 * n)).reshape(b_shape))],
            attrs={"adjoint_a": False, "adjoint_b": ab})
add("mm_duplicates_unsorted", "matmul",
    sp([[1, 2], [0, 0], [1, 2], [1, 0]], "float32", [0.1, 0.2, 0.7, 1e8], [2, 3]) +
    [dense("float32", [[1.5, 2.0], [3.0, -1.0], [0.3, 1e-8]])])
add("mm_f64_wide_dup", "matmul",
    sp([[0, 1], [0, 0], [0, 1]], "float64", [0.1, 0.2, 0.3], [1, 2]) +
    [dense("float64", np.array(rand("float64", 80)).reshape(2, 40))])
add("mm_empty_sparse", "matmul", sp([], "float32", [], [2, 3]) + [dense("float32", np.ones((3, 2)))])
add("mm_zero_out", "matmul", sp([], "float32", [], [0, 3]) + [dense("float32", np.ones((3, 2)))])
add("mm_zero_inner", "matmul", sp([], "float32", [], [2, 0]) + [dense("float32", np.ones((0, 2)))])
add("mm_int32_indices", "matmul",
    sp([[0, 1], [1, 0]], "float32", [2.0, 3.0], [2, 2], idx_dtype="int32") +
    [dense("float32", [[1.0, 2.0], [3.0, 4.0]])])
add("mm_nan_inf", "matmul",
    sp([[0, 0], [1, 1]], "float32", [float("inf"), 2.0], [2, 2]) +
    [dense("float32", [[0.0, 1.0], [float("nan"), 4.0]])])
add("mm_inner_mismatch", "matmul", sp([[0, 0]], "float32", [1.0], [2, 3], shapes=(None, None, U)) +
    [dense("float32", np.ones((4, 2)))])
add("mm_inner_mismatch_adj", "matmul", sp([[0, 0]], "float32", [1.0], [2, 3], shapes=(None, None, U)) +
    [dense("float32", np.ones((4, 2)))], attrs={"adjoint_a": True, "adjoint_b": True})
add("mm_k_out_of_bounds", "matmul", sp([[0, 0], [1, 3]], "float32", [1.0, 2.0], [2, 3]) +
    [dense("float32", np.ones((3, 2)))])
add("mm_m_out_of_bounds", "matmul", sp([[0, 0], [2, 1]], "float32", [1.0, 2.0], [2, 3]) +
    [dense("float32", np.ones((3, 2)))])
add("mm_negative_index", "matmul", sp([[0, -1]], "float32", [1.0], [2, 3]) +
    [dense("float32", np.ones((3, 2)))])
add("mm_negative_m_adj", "matmul", sp([[0, 0], [-2, 1]], "float32", [1.0, 1.0], [2, 3]) +
    [dense("float32", np.ones((2, 2)))], attrs={"adjoint_a": True, "adjoint_b": False})
add("mm_oob_wide", "matmul", sp([[0, 0], [5, 1]], "float32", [1.0, 2.0], [2, 3]) +
    [dense("float32", np.ones((3, 40)))])
add("mm_oob_wide_adj_b", "matmul", sp([[0, 7]], "float32", [1.0], [2, 3]) +
    [dense("float32", np.ones((40, 3)))], attrs={"adjoint_a": False, "adjoint_b": True})
add("mm_oob_empty_b", "matmul", sp([[9, 9]], "float32", [1.0], [2, 0]) +
    [dense("float32", np.ones((0, 3)))])
add("mm_b_not_matrix", "matmul", sp([[0, 0]], "float32", [1.0], [2, 3]) +
    [dense("float32", np.ones(3), shape=U)])
add("mm_b_not_matrix_build", "matmul", sp([[0, 0]], "float32", [1.0], [2, 3]) +
    [dense("float32", np.ones(3))])
add("mm_shape_3_elems", "matmul", sp([[0, 0, 0]], "float32", [1.0], [2, 3, 1], shapes=(U, U, U)) +
    [dense("float32", np.ones((3, 2)))])
add("mm_shape_3_elems_build", "matmul", sp([[0, 0, 0]], "float32", [1.0], [2, 3, 1]) +
    [dense("float32", np.ones((3, 2)))])
add("mm_shape_not_vector", "matmul",
    [unk(tensor("int64", [0, 0], [1, 2])), unk(tensor("float32", [1.0])),
     unk(tensor("int64", [2, 3], [1, 2])), dense("float32", np.ones((3, 2)))])
add("mm_values_not_vector", "matmul",
    [unk(tensor("int64", [0, 0], [1, 2])), unk(tensor("float32", [1.0], [1, 1])),
     unk(tensor("int64", [2, 3])), dense("float32", np.ones((3, 2)))])
add("mm_indices_not_matrix", "matmul",
    [unk(tensor("int64", [0, 0])), unk(tensor("float32", [1.0])),
     unk(tensor("int64", [2, 3])), dense("float32", np.ones((3, 2)))])
add("mm_nnz_mismatch", "matmul", sp([[0, 0]], "float32", [1.0, 2.0], [2, 3], shapes=(U, U, U)) +
    [dense("float32", np.ones((3, 2)))])
add("mm_rank_mismatch", "matmul", sp([[0]], "float32", [1.0], [2, 3], rank=1, shapes=(U, U, U)) +
    [dense("float32", np.ones((3, 2)))])
add("mm_const_shape", "matmul",
    [tensor("int64", [0, 1], [1, 2]), tensor("float32", [2.0]), dict(tensor("int64", [2, 3]), const=True),
     dense("float32", np.ones((3, 4)), shape=[None, 4])])
add("mm_const_shape_mismatch", "matmul",
    [tensor("int64", [0, 1], [1, 2]), tensor("float32", [2.0]), dict(tensor("int64", [2, 3]), const=True),
     dense("float32", np.ones((4, 4)))])
add("mm_unknown_b", "matmul", sp([[0, 1]], "float32", [2.0], [2, 3]) +
    [dense("float32", np.ones((3, 4)), shape=U)], attrs={"adjoint_a": True, "adjoint_b": True})
add("mm_partial_b", "matmul", sp([[0, 1]], "float32", [2.0], [2, 3]) +
    [dense("float32", np.ones((3, 4)), shape=[3, None])])
add("mm_partial_b_adj", "matmul", sp([[0, 1]], "float32", [2.0], [2, 3]) +
    [dense("float32", np.ones((4, 3)), shape=[None, 3])], attrs={"adjoint_a": False, "adjoint_b": True})

# --- SparseDenseCwise{Mul,Div,Add} ------------------------------------------------------------
for op in ("cwise_mul", "cwise_div", "cwise_add"):
    for dt in ("float32", "float64", "int32", "int64"):
        add(f"{op}_{dt}_same", op, rand_sparse(dt, [3, 4], 5) +
            [dense(dt, np.array(rand(dt, 12)).reshape(3, 4) if not dt.startswith("int")
                   else np.array([v if v else 3 for v in rand(dt, 12)]).reshape(3, 4))])
    add(f"{op}_bcast_row", op, rand_sparse("float32", [3, 4], 6) + [dense("float32", [1.5, -2.0, 4.0, 0.25])])
    add(f"{op}_bcast_col", op, rand_sparse("float64", [3, 4], 6) + [dense("float64", [[2.0], [3.0], [-0.5]])])
    add(f"{op}_bcast_scalar", op, rand_sparse("float32", [3, 4], 4) + [dense("float32", 3.0)])
    add(f"{op}_bcast_rank3", op, rand_sparse("float32", [2, 3, 4], 7) +
        [dense("float32", np.arange(1, 5, dtype=np.float32).reshape(1, 4))])
    add(f"{op}_rank5", op, rand_sparse("float32", [2, 1, 2, 2, 3], 5) +
        [dense("float32", np.arange(1, 4, dtype=np.float32))])
    add(f"{op}_rank6", op, rand_sparse("float32", [2, 1, 1, 2, 1, 2], 3) +
        [dense("float32", [1.0, 2.0])])
    add(f"{op}_rank1", op, sp([[3], [0]], "float32", [1.0, 2.0], [4]) + [dense("float32", [1.0, 2.0, 3.0, 4.0])])
    add(f"{op}_empty", op, sp([], "float32", [], [2, 3]) + [dense("float32", np.ones((2, 3)))])
    add(f"{op}_dense_bigger", op, sp([[0, 0]], "float32", [1.0], [2, 3]) + [dense("float32", np.ones((3, 3)))])
    add(f"{op}_dense_higher_rank", op, sp([[0]], "float32", [1.0], [3]) + [dense("float32", np.ones((1, 3)))])
    add(f"{op}_incompatible", op, sp([[0, 0]], "float32", [1.0], [2, 3]) + [dense("float32", np.ones(2))])
    add(f"{op}_oob", op, sp([[0, 0], [2, 1]], "float32", [1.0, 2.0], [2, 3]) + [dense("float32", np.ones(3))])
    add(f"{op}_negative", op, sp([[0, -1]], "float32", [1.0], [2, 3]) + [dense("float32", np.ones((2, 3)))])
    add(f"{op}_indices_vector", op, [unk(tensor("int64", [0, 0])), unk(tensor("float32", [1.0])),
                                     unk(tensor("int64", [2, 3])), dense("float32", np.ones(3))])
    add(f"{op}_indices_vector_build", op, [tensor("int64", [0, 0]), tensor("float32", [1.0]),
                                           tensor("int64", [2, 3]), dense("float32", np.ones(3))])
    add(f"{op}_values_matrix", op, [unk(tensor("int64", [0, 0], [1, 2])), unk(tensor("float32", [1.0], [1, 1])),
                                    unk(tensor("int64", [2, 3])), dense("float32", np.ones(3))])
    add(f"{op}_shape_matrix", op, [unk(tensor("int64", [0, 0], [1, 2])), unk(tensor("float32", [1.0])),
                                   unk(tensor("int64", [2, 3], [1, 2])), dense("float32", np.ones(3))])
    add(f"{op}_nnz_mismatch", op, sp([[0, 0]], "float32", [1.0, 2.0], [2, 3], shapes=(U, U, U)) +
        [dense("float32", np.ones(3))])
    add(f"{op}_rank_mismatch", op, sp([[0, 0]], "float32", [1.0], [2, 3, 4], shapes=(U, U, U)) +
        [dense("float32", np.ones(3))])
    add(f"{op}_rank0", op, [tensor("int64", [], [1, 0]), tensor("float32", [1.0]), tensor("int64", [], [0]),
                            dense("float32", 2.0)])
    add(f"{op}_unknown_nnz", op, sp([[0, 0], [1, 2]], "float32", [1.0, 2.0], [2, 3], shapes=([None, 2], U, U)) +
        [dense("float32", np.ones(3), shape=U)])
    add(f"{op}_nan_inf", op, sp([[0], [1], [2]], "float32", [float("nan"), float("inf"), 0.0], [3]) +
        [dense("float32", [0.0, 0.0, 0.0])])
    add(f"{op}_negative_shape", op, sp([[0, 0]], "float32", [1.0], [-2, 3]) + [dense("float32", np.ones(3))])
add("cwise_div_int_zero", "cwise_div", sp([[0, 0]], "int32", [7], [2, 3]) + [dense("int32", [1, 0, 2])])
add("cwise_div_int64_neg", "cwise_div", sp([[0, 0], [0, 1]], "int64", [-7, 7], [1, 2]) + [dense("int64", [2, -2])])
add("cwise_div_float_zero", "cwise_div", sp([[0, 1]], "float32", [1.0], [2, 3]) + [dense("float32", [1.0, 0.0, 2.0])])
add("cwise_mul_dup_unsorted", "cwise_mul", sp([[1, 1], [0, 2], [1, 1]], "float32", [1.0, 2.0, 3.0], [2, 3]) +
    [dense("float32", [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])])

# --- SparseTensorDenseAdd ----------------------------------------------------------------------
for dt in ("float32", "float64", "int32", "int64"):
    add(f"dadd_{dt}", "dense_add", rand_sparse(dt, [3, 4], 6) + [dense(dt, np.array(rand(dt, 12)).reshape(3, 4))])
add("dadd_dup_unsorted", "dense_add", sp([[1, 1], [0, 2], [1, 1]], "float32", [0.1, 2.0, 0.2], [2, 3]) +
    [dense("float32", [[1.0, 2.0, 3.0], [4.0, 5.0, 0.3]])])
add("dadd_int32_indices", "dense_add", sp([[1], [0]], "float32", [1.0, 2.0], [3], idx_dtype="int32")[:2] +
    [tensor("int32", [3]), dense("float32", [1.0, 1.0, 1.0])])
add("dadd_rank1", "dense_add", sp([[2]], "float64", [1.0], [3]) + [dense("float64", [1.0, 2.0, 3.0])])
add("dadd_rank5", "dense_add", rand_sparse("float32", [2, 1, 2, 2, 3], 4) +
    [dense("float32", np.arange(24, dtype=np.float32).reshape(2, 1, 2, 2, 3))])
add("dadd_rank6", "dense_add", sp([[0, 0, 0, 0, 0, 0]], "float32", [1.0], [1] * 6) + [dense("float32", np.ones([1] * 6))])
add("dadd_rank0", "dense_add", [tensor("int64", [], [1, 0]), tensor("float32", [1.0]), tensor("int64", [], [0]),
                                dense("float32", 2.0)])
add("dadd_empty", "dense_add", sp([], "float32", [], [2, 3]) + [dense("float32", np.ones((2, 3)))])
add("dadd_shape_mismatch", "dense_add", sp([[0, 0]], "float32", [1.0], [2, 3]) + [dense("float32", np.ones((2, 4)))])
add("dadd_rank_mismatch", "dense_add", sp([[0, 0]], "float32", [1.0], [2, 3]) + [dense("float32", np.ones(3))])
add("dadd_no_broadcast", "dense_add", sp([[0, 0]], "float32", [1.0], [2, 3]) + [dense("float32", np.ones((1, 3)))])
add("dadd_oob", "dense_add", sp([[0, 0], [1, 3]], "float32", [1.0, 2.0], [2, 3]) + [dense("float32", np.ones((2, 3)))])
add("dadd_negative", "dense_add", sp([[-1, 0]], "float32", [1.0], [2, 3]) + [dense("float32", np.ones((2, 3)))])
add("dadd_nnz_mismatch", "dense_add", sp([[0, 0]], "float32", [1.0, 2.0], [2, 3], shapes=(U, U, U)) +
    [dense("float32", np.ones((2, 3)))])
add("dadd_ndims_mismatch", "dense_add", sp([[0, 0]], "float32", [1.0], [2, 3, 1], shapes=(U, U, U)) +
    [dense("float32", np.ones((2, 3)))])
add("dadd_indices_vector", "dense_add", [unk(tensor("int64", [0, 0])), unk(tensor("float32", [1.0])),
                                         unk(tensor("int64", [2, 3])), dense("float32", np.ones((2, 3)))])
add("dadd_values_matrix", "dense_add", [unk(tensor("int64", [0, 0], [1, 2])), unk(tensor("float32", [1.0], [1, 1])),
                                        unk(tensor("int64", [2, 3])), dense("float32", np.ones((2, 3)))])
add("dadd_partial_dense", "dense_add", sp([[0, 0]], "float32", [1.0], [2, 3]) +
    [dense("float32", np.ones((2, 3)), shape=[None, 3])])

# --- SparseAdd -------------------------------------------------------------------------------
for dt in ("float32", "float64", "int32", "int64"):
    zero = 0.0 if dt.startswith("float") else 0
    add(f"sadd_{dt}", "sparse_add", rand_sparse(dt, [3, 4], 5) + rand_sparse(dt, [3, 4], 6) +
        [tensor(dt, zero)])
add("sadd_cancel_thresh0", "sparse_add", sp([[0, 0], [1, 1]], "float32", [1.0, 2.0], [2, 2]) +
    sp([[0, 0], [1, 0]], "float32", [-1.0, 3.0], [2, 2]) + [tensor("float32", 0.0)])
add("sadd_thresh_eq", "sparse_add", sp([[0, 0], [1, 1]], "float32", [1.0, 2.0], [2, 2]) +
    sp([[0, 0], [1, 1]], "float32", [-0.5, -1.0], [2, 2]) + [tensor("float32", 0.5)])
add("sadd_thresh_only_sums", "sparse_add", sp([[0, 0], [1, 1]], "float32", [0.01, 2.0], [2, 2]) +
    sp([[0, 1], [1, 1]], "float32", [-0.01, -1.99], [2, 2]) + [tensor("float32", 0.5)])
add("sadd_thresh_neg", "sparse_add", sp([[0, 0]], "float64", [1.0], [2, 2]) +
    sp([[0, 0]], "float64", [-1.0], [2, 2]) + [tensor("float64", -1.0)])
add("sadd_int_thresh", "sparse_add", sp([[0, 0], [0, 1]], "int32", [3, 5], [1, 2]) +
    sp([[0, 0], [0, 1]], "int32", [-1, -4], [1, 2]) + [tensor("int32", 2)])
add("sadd_nan", "sparse_add", sp([[0], [1]], "float32", [float("nan"), 1.0], [2]) +
    sp([[0], [1]], "float32", [1.0, float("inf")], [2]) + [tensor("float32", 1.0)])
add("sadd_rank3", "sparse_add", rand_sparse("float32", [2, 3, 2], 5) + rand_sparse("float32", [2, 3, 2], 5) +
    [tensor("float32", 0.0)])
add("sadd_empty_a", "sparse_add", sp([], "float32", [], [2, 3]) + sp([[1, 2]], "float32", [4.0], [2, 3]) +
    [tensor("float32", 0.0)])
add("sadd_both_empty", "sparse_add", sp([], "float32", [], [2, 3]) + sp([], "float32", [], [2, 3]) +
    [tensor("float32", 0.0)])
add("sadd_unsorted", "sparse_add", sp([[1, 0], [0, 1]], "float32", [1.0, 2.0], [2, 2]) +
    sp([[0, 1], [1, 0]], "float32", [10.0, 20.0], [2, 2]) + [tensor("float32", 0.0)])
add("sadd_duplicates", "sparse_add", sp([[0, 1], [0, 1]], "float32", [1.0, 2.0], [2, 2]) +
    sp([[0, 1]], "float32", [10.0], [2, 2]) + [tensor("float32", 0.0)])
add("sadd_shape_mismatch", "sparse_add", sp([[0, 0]], "float32", [1.0], [2, 3]) +
    sp([[0, 0]], "float32", [1.0], [2, 4]) + [tensor("float32", 0.0)])
add("sadd_rank_mismatch", "sparse_add", sp([[0, 0]], "float32", [1.0], [2, 3]) +
    sp([[0, 0, 0]], "float32", [1.0], [2, 3, 1]) + [tensor("float32", 0.0)])
add("sadd_oob", "sparse_add", sp([[0, 5]], "float32", [1.0], [2, 3]) +
    sp([[0, 0]], "float32", [1.0], [2, 3]) + [tensor("float32", 0.0)])
add("sadd_oob_b", "sparse_add", sp([[0, 1]], "float32", [1.0], [2, 3]) +
    sp([[-1, 0]], "float32", [1.0], [2, 3]) + [tensor("float32", 0.0)])
add("sadd_shape_ranks_differ", "sparse_add", sp([[0, 0]], "float32", [1.0], [2, 3], shapes=(U, U, U)) +
    sp([[0, 0]], "float32", [1.0], [2, 3, 4], shapes=(U, U, U)) + [tensor("float32", 0.0)])
add("sadd_a_shape_len", "sparse_add", sp([[0, 0]], "float32", [1.0], [2, 3, 4], shapes=(U, U, U)) +
    sp([[0, 0]], "float32", [1.0], [2, 3], shapes=(U, U, U)) + [tensor("float32", 0.0)])
add("sadd_thresh_vector", "sparse_add", sp([[0, 0]], "float32", [1.0], [2, 3]) +
    sp([[0, 0]], "float32", [1.0], [2, 3]) + [unk(tensor("float32", [0.0]))])
add("sadd_thresh_vector_build", "sparse_add", sp([[0, 0]], "float32", [1.0], [2, 3]) +
    sp([[0, 0]], "float32", [1.0], [2, 3]) + [tensor("float32", [0.0])])
add("sadd_nnz_mismatch", "sparse_add", sp([[0, 0]], "float32", [1.0, 2.0], [2, 3], shapes=(U, U, U)) +
    sp([[0, 0]], "float32", [1.0], [2, 3]) + [tensor("float32", 0.0)])
add("sadd_indices_vector", "sparse_add", [unk(tensor("int64", [0, 0])), unk(tensor("float32", [1.0])),
                                          unk(tensor("int64", [2, 3]))] +
    sp([[0, 0]], "float32", [1.0], [2, 3]) + [tensor("float32", 0.0)])
add("sadd_values_matrix", "sparse_add", [unk(tensor("int64", [0, 0], [1, 2])), unk(tensor("float32", [1.0], [1, 1])),
                                         unk(tensor("int64", [2, 3]))] +
    sp([[0, 0]], "float32", [1.0], [2, 3]) + [tensor("float32", 0.0)])
add("sadd_shape_matrix", "sparse_add", [unk(tensor("int64", [0, 0], [1, 2])), unk(tensor("float32", [1.0])),
                                        unk(tensor("int64", [2, 3], [1, 2]))] +
    sp([[0, 0]], "float32", [1.0], [2, 3]) + [tensor("float32", 0.0)])
add("sadd_index_rank_mismatch", "sparse_add", sp([[0, 0, 0]], "float32", [1.0], [2, 3], shapes=(U, U, U)) +
    sp([[0, 0]], "float32", [1.0], [2, 3]) + [tensor("float32", 0.0)])
add("sadd_unknown_shapes", "sparse_add", sp([[0, 0]], "float32", [1.0], [2, 3], shapes=(U, U, U)) +
    sp([[1, 0]], "float32", [1.0], [2, 3], shapes=(U, U, U)) + [tensor("float32", 0.0)])
add("sadd_rank0", "sparse_add", [tensor("int64", [], [1, 0]), tensor("float32", [1.0]), tensor("int64", [], [0])] +
    [tensor("int64", [], [1, 0]), tensor("float32", [2.0]), tensor("int64", [], [0])] + [tensor("float32", 0.0)])

# --- SparseAddGrad ---------------------------------------------------------------------------
add("agrad_basic", "add_grad", [tensor("float32", [1.0, 2.0, 3.0, 4.0]),
                                tensor("int64", [0, 0, 1, 1], [2, 2]), tensor("int64", [0, 1, 1, 1, 2, 0], [3, 2]),
                                tensor("int64", [0, 0, 0, 1, 1, 1, 2, 0], [4, 2])])
add("agrad_thresholded", "add_grad", [tensor("float64", [5.0]),
                                      tensor("int64", [0, 0, 1, 1], [2, 2]), tensor("int64", [1, 1], [1, 2]),
                                      tensor("int64", [0, 0], [1, 2])])
add("agrad_empty", "add_grad", [tensor("float32", []), tensor("int64", [], [0, 2]),
                                tensor("int64", [], [0, 2]), tensor("int64", [], [0, 2])])
add("agrad_grad_not_vector", "add_grad", [unk(tensor("float32", [1.0], [1, 1])),
                                          unk(tensor("int64", [0, 0], [1, 2])), unk(tensor("int64", [0, 0], [1, 2])),
                                          unk(tensor("int64", [0, 0], [1, 2]))])
add("agrad_indices_not_matrix", "add_grad", [unk(tensor("float32", [1.0])),
                                             unk(tensor("int64", [0, 0])), unk(tensor("int64", [0, 0], [1, 2])),
                                             unk(tensor("int64", [0, 0], [1, 2]))])
add("agrad_rank_mismatch", "add_grad", [unk(tensor("float32", [1.0])),
                                        unk(tensor("int64", [0, 0, 0], [1, 3])), unk(tensor("int64", [0, 0], [1, 2])),
                                        unk(tensor("int64", [0, 0], [1, 2]))])
add("agrad_grad_len_mismatch", "add_grad", [unk(tensor("float32", [1.0, 2.0])),
                                            unk(tensor("int64", [0, 0], [1, 2])), unk(tensor("int64", [0, 0], [1, 2])),
                                            unk(tensor("int64", [0, 0], [1, 2]))])

# --- SparseReduce{Sum,Max}[Sparse] -------------------------------------------------------------
for op in ("reduce_sum", "reduce_max", "reduce_sum_sparse", "reduce_max_sparse"):
    for dt in ("float32", "float64", "int32", "int64"):
        add(f"{op}_{dt}_axis1", op, rand_sparse(dt, [3, 4], 6) + [tensor("int32", [1])])
    for kd in (False, True):
        k = f"_kd{int(kd)}"
        a = {"keep_dims": kd}
        add(f"{op}_all{k}", op, rand_sparse("float32", [3, 4], 6) + [tensor("int32", [0, 1])], attrs=a)
        add(f"{op}_none{k}", op, rand_sparse("float32", [3, 4], 6) + [tensor("int32", [], [0])], attrs=a)
        add(f"{op}_axis0{k}", op, rand_sparse("float32", [3, 4], 6) + [tensor("int32", 0)], attrs=a)
        add(f"{op}_neg{k}", op, rand_sparse("float64", [2, 3, 4], 9) + [tensor("int32", [-1])], attrs=a)
        add(f"{op}_rank3_02{k}", op, rand_sparse("float64", [2, 3, 4], 9) + [tensor("int32", [2, -3])], attrs=a)
        add(f"{op}_const{k}", op, rand_sparse("float32", [2, 3, 4], 5)[:2] +
            [dict(tensor("int64", [2, 3, 4]), const=True), dict(tensor("int32", [1, -1]), const=True)], attrs=a)
        add(f"{op}_const_all{k}", op, rand_sparse("float32", [2, 3], 3)[:2] +
            [dict(tensor("int64", [2, 3]), const=True), dict(tensor("int32", [0, 1, -1]), const=True)], attrs=a)
    add(f"{op}_unsorted", op, sp([[2, 1], [0, 3], [2, 0], [0, 0]], "float32", [1.0, -2.0, 3.5, -4.0], [3, 4]) +
        [tensor("int32", [1])])
    add(f"{op}_unsorted_axis0", op, sp([[2, 1], [0, 3], [1, 1], [0, 1]], "float32", [1.0, -2.0, 3.5, -4.0], [3, 4]) +
        [tensor("int32", [0])])
    add(f"{op}_duplicates", op, sp([[1, 1], [1, 1], [0, 0]], "int32", [5, 7, -3], [2, 2]) + [tensor("int32", [1])])
    add(f"{op}_dup_axis_repeat", op, rand_sparse("float32", [2, 3], 4) + [tensor("int32", [1, 1, -1])])
    add(f"{op}_negatives", op, sp([[0, 0], [0, 2], [1, 1]], "float32", [-3.0, -1.0, -2.0], [3, 3]) +
        [tensor("int32", [1])])
    add(f"{op}_neg_inf_nan", op, sp([[0, 0], [1, 0], [1, 1], [2, 1], [2, 2]], "float32",
                                    [float("-inf"), float("nan"), 1.0, 2.0, float("nan")], [3, 3]) +
        [tensor("int32", [1])])
    add(f"{op}_long_row_f32", op, sp([[0, i] for i in range(37)] + [[1, i] for i in range(0, 40, 3)], "float32",
                                     rand("float32", 37 + 14), [2, 40]) + [tensor("int32", [1])])
    add(f"{op}_longer_rows_f32", op, sp([[0, i] for i in range(70)] + [[1, i] for i in range(23)], "float32",
                                        rand("float32", 93), [2, 70]) + [tensor("int32", [1])])
    add(f"{op}_longer_rows_f64", op, sp([[0, i] for i in range(45)] + [[1, i] for i in range(9)], "float64",
                                        rand("float64", 54), [2, 45]) + [tensor("int32", [-1])])
    add(f"{op}_values_matrix", op, [unk(tensor("int64", [0, 0], [1, 2])), unk(tensor("float32", [1.0], [1, 1])),
                                    unk(tensor("int64", [2, 3])), tensor("int32", [0])])
    add(f"{op}_long_row_f64", op, sp([[i, 0] for i in range(21)], "float64", rand("float64", 21), [21, 2]) +
        [tensor("int32", [0])])
    add(f"{op}_empty", op, sp([], "float32", [], [2, 3]) + [tensor("int32", [1])])
    add(f"{op}_empty_all", op, sp([], "float32", [], [2, 3]) + [tensor("int32", [0, 1])])
    add(f"{op}_axis_oob", op, rand_sparse("float32", [3, 4], 3) + [tensor("int32", [2])])
    add(f"{op}_axis_oob_neg", op, rand_sparse("float32", [3, 4], 3) + [tensor("int32", [-3])])
    add(f"{op}_axes_matrix", op, rand_sparse("float32", [3, 4], 3) + [unk(tensor("int32", [0], [1, 1]))])
    add(f"{op}_shape_matrix", op, [unk(tensor("int64", [0, 0], [1, 2])), unk(tensor("float32", [1.0])),
                                   unk(tensor("int64", [2, 3], [1, 2])), tensor("int32", [0])])
    add(f"{op}_index_oob", op, sp([[0, 0], [1, 5]], "float32", [1.0, 2.0], [2, 3]) + [tensor("int32", [1])])
    add(f"{op}_index_negative", op, sp([[0, -1]], "float32", [1.0], [2, 3]) + [tensor("int32", [0])])
    add(f"{op}_nnz_mismatch", op, sp([[0, 0]], "float32", [1.0, 2.0], [2, 3], shapes=(U, U, U)) + [tensor("int32", [0])])
    add(f"{op}_rank_mismatch", op, sp([[0, 0]], "float32", [1.0], [2, 3, 4], shapes=(U, U, U)) + [tensor("int32", [0])])
    add(f"{op}_indices_vector", op, [unk(tensor("int64", [0, 0])), unk(tensor("float32", [1.0])),
                                     unk(tensor("int64", [2, 3])), tensor("int32", [0])])
    add(f"{op}_negative_shape", op, sp([[0, 0]], "float32", [1.0], [-2, 3]) + [tensor("int32", [0])])
    add(f"{op}_rank0", op, [tensor("int64", [], [1, 0]), tensor("float32", [1.0]), tensor("int64", [], [0]),
                            tensor("int32", [], [0])])
    add(f"{op}_rank0_const", op, [tensor("int64", [], [1, 0]), tensor("float32", [1.0]),
                                  dict(tensor("int64", [], [0]), const=True), dict(tensor("int32", [], [0]), const=True)])
    add(f"{op}_zero_dim", op, sp([], "float32", [], [0, 3]) + [tensor("int32", [0])])
    add(f"{op}_zero_dim_kept", op, sp([], "float32", [], [0, 3]) + [tensor("int32", [1])])


# Long groups: Eigen's four-accumulator order over thousands of values (bigger groups can be
# split across threads by Eigen's cost model, which this machine-independent record avoids).
add("reduce_sum_group_3000_f32", "reduce_sum", sp([[0, i] for i in range(3000)], "float32",
                                                  rand("float32", 3000), [1, 3000]) + [tensor("int32", [1])])
add("reduce_sum_group_2500_f64", "reduce_sum", sp([[i, 0] for i in range(2500)], "float64",
                                                  rand("float64", 2500), [2500, 1]) + [tensor("int32", [0])])

# --- Narrow integer types ----------------------------------------------------------------------
for dt in ("int8", "int16", "uint8", "uint16"):
    lo = 0 if dt.startswith("u") else -100
    hi = 250 if dt == "uint8" else (120 if dt == "int8" else 1000)
    vals = rng.randint(lo, hi, size=6).tolist()
    dn = rng.randint(1, 9, size=12).tolist()
    ix = [[0, 0], [0, 3], [1, 1], [2, 0], [2, 2], [2, 3]]
    for op in ("cwise_mul", "cwise_div", "cwise_add"):
        add(f"{op}_{dt}", op, sp(ix, dt, vals, [3, 4]) + [dense(dt, np.array(dn).reshape(3, 4))])
    add(f"dadd_{dt}", "dense_add", sp(ix, dt, vals, [3, 4]) + [dense(dt, np.array(dn).reshape(3, 4) * 30)])
    for op in ("reduce_sum", "reduce_max", "reduce_sum_sparse", "reduce_max_sparse"):
        add(f"{op}_{dt}", op, sp(ix, dt, vals, [3, 4]) + [tensor("int32", [1])])
        add(f"{op}_{dt}_all", op, sp(ix, dt, vals, [3, 4]) + [tensor("int32", [0, 1])])
for dt in ("int8", "int16"):
    add(f"sadd_{dt}", "sparse_add", sp([[0, 0], [0, 1], [1, 1]], dt, [-100, 100, 5], [2, 2]) +
        sp([[0, 0], [0, 1], [1, 0]], dt, [-28, 27, 3], [2, 2]) + [tensor(dt, 0)])
    add(f"sadd_{dt}_thresh", "sparse_add", sp([[0, 0], [0, 1]], dt, [-100, 100], [1, 2]) +
        sp([[0, 0], [0, 1]], dt, [-28, -95], [1, 2]) + [tensor(dt, 6)])
add("sadd_int32_min", "sparse_add", sp([[0]], "int32", [-2147483647], [2]) +
    sp([[0]], "int32", [-1], [2]) + [tensor("int32", 0)])
add("mm_int32_wrap", "matmul", sp([[0, 0], [0, 1]], "int32", [2147483647, 3], [1, 2]) +
    [dense("int32", [[2], [5]])])

# --- Gradients (written to grads.json) --------------------------------------------------------
# Each case: float64 inputs (all fed), the op's differentiated output (`out`: the values
# output of a sparse result), `grad_ys` for it, and tf.gradients with respect to the inputs
# listed in `wrt` (their positions in `inputs`).
GRAD_CASES = []


def grad_case(name, op, inputs, wrt, out=0, **kw):
    c = {"name": name, "op": op, "inputs": inputs, "wrt": wrt, "out": out}
    c.update(kw)
    GRAD_CASES.append(c)


GIX = [[0, 1], [1, 0], [1, 3], [2, 2], [2, 3]]
for aa in (False, True):
    for ab in (False, True):
        ix = [[j, i] for i, j in GIX] if aa else GIX
        grad_case(f"g_mm_{int(aa)}{int(ab)}", "matmul",
                  sp(ix, "float64", rand("float64", 5), [4, 3] if aa else [3, 4]) +
                  [dense("float64", np.array(rand("float64", 20)).reshape([5, 4] if ab else [4, 5]))],
                  [1, 3], attrs={"adjoint_a": aa, "adjoint_b": ab})
for op in ("cwise_mul", "cwise_div"):
    for dims in ([3, 4], [4], [3, 1], [1, 4]):
        n = int(np.prod(dims))
        grad_case(f"g_{op}_{'x'.join(map(str, dims))}", op,
                  sp(GIX, "float64", rand("float64", 5), [3, 4]) +
                  [dense("float64", (np.abs(rand("float64", n)) + 0.5).reshape(dims))], [1, 3])
grad_case("g_dense_add", "dense_add", sp([[0, 1], [1, 2], [0, 1]], "float64", rand("float64", 3), [2, 3]) +
          [dense("float64", np.array(rand("float64", 6)).reshape(2, 3))], [1, 3])
grad_case("g_sparse_add", "sparse_add", sp([[0, 0], [0, 2], [1, 1], [2, 0]], "float64", rand("float64", 4), [3, 3]) +
          sp([[0, 2], [1, 0], [2, 0], [2, 2]], "float64", rand("float64", 4), [3, 3]) + [tensor("float64", 0.0)],
          [1, 4], out=1)
grad_case("g_sparse_add_thresh", "sparse_add", sp([[0, 0], [1, 1]], "float64", [1.0, 2.0], [2, 2]) +
          sp([[0, 0], [1, 0]], "float64", [-0.5, 4.0], [2, 2]) + [tensor("float64", 1.5)], [1, 4], out=1)
RIX = [[0, 1, 0], [1, 2, 0], [1, 1, 0], [1, 2, 3], [1, 0, 0]]
for axes, kd in (([1], False), ([0, 2], True), ([-1], False), ([0, 1, 2], False), ([0, 1, 2], True), ([], False)):
    grad_case(f"g_reduce_sum_{'_'.join(map(str, axes)) or 'none'}_kd{int(kd)}", "reduce_sum",
              sp(RIX, "float64", rand("float64", 5), [2, 3, 4]) + [tensor("int32", axes, [len(axes)])], [1],
              attrs={"keep_dims": kd})


def record_grad(c):
    g = tf.Graph()
    with g.as_default():
        outs, feeds = build(c)
        y = outs[c["out"]]
        with tf.Session(graph=g) as sess:
            yv = sess.run(y, feed_dict=feeds)
        gy = rng.randn(*yv.shape) if yv.ndim else np.array(rng.randn())
        c["grad_ys"] = spec_of(gy, "float64")
        phs = [p for p in feeds]
        xs = [phs[i] for i in c["wrt"]]
        grads = tf.gradients(y, xs, grad_ys=tf.constant(gy))
        with tf.Session(graph=g) as sess:
            gv = sess.run(grads, feed_dict=feeds)
        c["grads"] = [spec_of(v, "float64") for v in gv]
    return c


def main():
    grads = [record_grad(c) for c in GRAD_CASES]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "grads.json")
    with open(path, "w") as f:
        json.dump(grads, f, indent=None, separators=(",", ":"))
        f.write("\n")
    out = [record(c) for c in CASES]
    names = [c["name"] for c in out]
    assert len(names) == len(set(names)), "duplicate names"
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(len(out), "cases;", sum(1 for c in out if "error" in c or "build_error" in c), "errors")


if __name__ == "__main__":
    main()
