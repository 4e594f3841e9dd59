"""Records TensorFlow 2.21's ragged ops (RaggedRange, RaggedGather, RaggedTensorToSparse,
RaggedTensorToTensor, RaggedFillEmptyRows(+Grad)) and count ops (DenseCountSparseOutput,
SparseCountSparseOutput, RaggedCountSparseOutput, SparseBincount, RaggedBincount) into
expected.json: each case names the raw op, its inputs (fed through placeholders of unknown
shape, so every check is the kernel's), its attrs, and the outputs or the error (code and
message). Tensors are {dtype, dims, values}: floats as bit patterns, strings base64."""
import base64
import json
import os
import re

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
BITS = {"float16": np.uint16, "float32": np.uint32, "float64": np.uint64}


def enc(a):
    a = np.asarray(a)
    flat = a.reshape(-1)
    name = a.dtype.name
    if a.dtype.kind in "SOU":
        name = "string"
        vals = [base64.b64encode(v if isinstance(v, bytes) else str(v).encode()).decode() for v in flat]
    elif name in BITS:
        vals = [int(v) for v in flat.view(BITS[name])]
    elif name == "bool":
        vals = [bool(v) for v in flat]
    else:
        vals = [int(v) for v in flat]
    return {"dtype": name, "dims": list(a.shape), "values": vals}


def arr(v, dt):
    if dt == "string":
        return np.array([x.encode() for x in np.array(v).reshape(-1)], dtype=object).reshape(np.array(v).shape)
    return np.array(v, dtype=dt)


CASES = []


def case(name, op, inputs, attrs=None):
    """inputs: list of (arg, value) where value is an array or a list of arrays."""
    CASES.append((name, op, inputs, attrs or {}))


# RaggedRange
for T in ["int32", "int64", "float32", "float64"]:
    for S in ["int32", "int64"]:
        case(f"range_{T}_{S}", "RaggedRange", [("starts", arr([0, 5, 8, 3], T)), ("limits", arr([3, 3, 12, -2], T)),
             ("deltas", arr([1, 1, 2, -2], T))], {"Tsplits": S})
case("range_scalar", "RaggedRange", [("starts", arr(0, "int32")), ("limits", arr(5, "int32")), ("deltas", arr(1, "int32"))])
case("range_broadcast", "RaggedRange", [("starts", arr(1, "int64")), ("limits", arr([0, 1, 4, 7], "int64")), ("deltas", arr(3, "int64"))])
case("range_float_frac", "RaggedRange", [("starts", arr([0.0, 1.5, -1.0], "float32")), ("limits", arr(3.0, "float32")), ("deltas", arr([0.5, 0.7, 0.1], "float32"))])
case("range_double_neg", "RaggedRange", [("starts", arr([2.5, 0.0], "float64")), ("limits", arr([-1.0, 0.0], "float64")), ("deltas", arr(-0.75, "float64"))])
case("range_large", "RaggedRange", [("starts", arr([10**12, -(10**15)], "int64")), ("limits", arr([10**12 + 5, -(10**15) + 2], "int64")), ("deltas", arr([2, 1], "int64"))])
case("range_empty", "RaggedRange", [("starts", arr([], "int32")), ("limits", arr([], "int32")), ("deltas", arr(1, "int32"))])
case("range_delta_zero", "RaggedRange", [("starts", arr([0, 1], "int32")), ("limits", arr([3, 4], "int32")), ("deltas", arr([1, 0], "int32"))])
case("range_mismatch", "RaggedRange", [("starts", arr([0, 1], "int32")), ("limits", arr([3, 4, 5], "int32")), ("deltas", arr(1, "int32"))])
case("range_rank2", "RaggedRange", [("starts", arr([[0]], "int32")), ("limits", arr(3, "int32")), ("deltas", arr(1, "int32"))])
case("range_rank2_limits", "RaggedRange", [("starts", arr(0, "int32")), ("limits", arr([[3]], "int32")), ("deltas", arr(1, "int32"))])

# RaggedGather
S5 = arr(["a", "b", "c", "d", "e"], "string")
case("gather_1d", "RaggedGather", [("params_nested_splits", [arr([0, 2, 2, 5], "int64")]), ("params_dense_values", S5), ("indices", arr([2, 0, 1, 2], "int32"))], {"OUTPUT_RAGGED_RANK": 1})
case("gather_int32_splits", "RaggedGather", [("params_nested_splits", [arr([0, 2, 2, 5], "int32")]), ("params_dense_values", arr([1.5, 2, 3, 4, 5], "float32")), ("indices", arr([1, 1, 0], "int64"))], {"OUTPUT_RAGGED_RANK": 1})
case("gather_2d_indices", "RaggedGather", [("params_nested_splits", [arr([0, 2, 2, 5], "int64")]), ("params_dense_values", arr([1, 2, 3, 4, 5], "int32")), ("indices", arr([[2, 0], [1, 2], [0, 0]], "int64"))], {"OUTPUT_RAGGED_RANK": 2})
case("gather_scalar_index", "RaggedGather", [("params_nested_splits", [arr([0, 2, 2, 5], "int64")]), ("params_dense_values", arr([1, 2, 3, 4, 5], "int64")), ("indices", arr(2, "int32"))], {"OUTPUT_RAGGED_RANK": 0})
case("gather_nested", "RaggedGather", [("params_nested_splits", [arr([0, 2, 3, 3], "int64"), arr([0, 1, 4, 6], "int64")]), ("params_dense_values", arr([10, 11, 12, 13, 14, 15], "int32")), ("indices", arr([0, 2, 1, 0], "int32"))], {"OUTPUT_RAGGED_RANK": 2})
case("gather_nested_scalar", "RaggedGather", [("params_nested_splits", [arr([0, 2, 3, 3], "int64"), arr([0, 1, 4, 6], "int64")]), ("params_dense_values", arr([10, 11, 12, 13, 14, 15], "int32")), ("indices", arr(0, "int32"))], {"OUTPUT_RAGGED_RANK": 1})
case("gather_2d_values", "RaggedGather", [("params_nested_splits", [arr([0, 1, 3], "int64")]), ("params_dense_values", arr([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "float64")), ("indices", arr([1, 0, 1], "int32"))], {"OUTPUT_RAGGED_RANK": 1})
case("gather_bool", "RaggedGather", [("params_nested_splits", [arr([0, 1, 3], "int64")]), ("params_dense_values", arr([True, False, True], "bool")), ("indices", arr([1], "int32"))], {"OUTPUT_RAGGED_RANK": 1})
case("gather_empty_indices", "RaggedGather", [("params_nested_splits", [arr([0, 2, 2, 5], "int64")]), ("params_dense_values", arr([1, 2, 3, 4, 5], "int32")), ("indices", arr([], "int32"))], {"OUTPUT_RAGGED_RANK": 1})
case("gather_oob", "RaggedGather", [("params_nested_splits", [arr([0, 2, 2, 5], "int64")]), ("params_dense_values", S5), ("indices", arr([0, 3], "int32"))], {"OUTPUT_RAGGED_RANK": 1})
case("gather_oob_2d", "RaggedGather", [("params_nested_splits", [arr([0, 2, 2, 5], "int64")]), ("params_dense_values", S5), ("indices", arr([[0, 1], [-1, 0]], "int64"))], {"OUTPUT_RAGGED_RANK": 2})
case("gather_unsorted_splits", "RaggedGather", [("params_nested_splits", [arr([0, 3, 2, 5], "int64")]), ("params_dense_values", S5), ("indices", arr([0], "int32"))], {"OUTPUT_RAGGED_RANK": 1})
case("gather_splits_past_values", "RaggedGather", [("params_nested_splits", [arr([0, 2, 6], "int64")]), ("params_dense_values", S5), ("indices", arr([0], "int32"))], {"OUTPUT_RAGGED_RANK": 1})
case("gather_negative_splits", "RaggedGather", [("params_nested_splits", [arr([-1, 2, 5], "int64")]), ("params_dense_values", S5), ("indices", arr([0], "int32"))], {"OUTPUT_RAGGED_RANK": 1})
case("gather_scalar_values", "RaggedGather", [("params_nested_splits", [arr([0, 0], "int64")]), ("params_dense_values", arr(1, "int32")), ("indices", arr([0], "int32"))], {"OUTPUT_RAGGED_RANK": 1})

# RaggedTensorToSparse
case("to_sparse_1", "RaggedTensorToSparse", [("rt_nested_splits", [arr([0, 2, 2, 5], "int64")]), ("rt_dense_values", S5)])
case("to_sparse_int32", "RaggedTensorToSparse", [("rt_nested_splits", [arr([0, 1, 4], "int32")]), ("rt_dense_values", arr([1.0, 2, 3, 4], "float32"))])
case("to_sparse_nested", "RaggedTensorToSparse", [("rt_nested_splits", [arr([0, 2, 3, 3], "int64"), arr([0, 1, 4, 6], "int64")]), ("rt_dense_values", arr([10, 11, 12, 13, 14, 15], "int32"))])
case("to_sparse_2d_values", "RaggedTensorToSparse", [("rt_nested_splits", [arr([0, 1, 3], "int64")]), ("rt_dense_values", arr([[1, 2], [3, 4], [5, 6]], "int64"))])
case("to_sparse_empty", "RaggedTensorToSparse", [("rt_nested_splits", [arr([0, 0, 0], "int64")]), ("rt_dense_values", arr([], "float64"))])
case("to_sparse_no_rows", "RaggedTensorToSparse", [("rt_nested_splits", [arr([0], "int64")]), ("rt_dense_values", arr([], "int32"))])
case("to_sparse_bad_start", "RaggedTensorToSparse", [("rt_nested_splits", [arr([1, 2, 5], "int64")]), ("rt_dense_values", S5)])
case("to_sparse_decreasing", "RaggedTensorToSparse", [("rt_nested_splits", [arr([0, 3, 2, 5], "int64")]), ("rt_dense_values", S5)])
case("to_sparse_bad_end", "RaggedTensorToSparse", [("rt_nested_splits", [arr([0, 2, 4], "int64")]), ("rt_dense_values", S5)])
case("to_sparse_bad_nested", "RaggedTensorToSparse", [("rt_nested_splits", [arr([0, 2, 3], "int64"), arr([0, 1, 5], "int64")]), ("rt_dense_values", S5)])
case("to_sparse_empty_splits", "RaggedTensorToSparse", [("rt_nested_splits", [arr([], "int64")]), ("rt_dense_values", S5)])

# RaggedTensorToTensor
V6 = arr([1, 2, 3, 4, 5, 6], "int32")
RS = ["ROW_SPLITS"]
def to_tensor(name, shape, values, default, parts, types):
    case(name, "RaggedTensorToTensor", [("shape", shape), ("values", values), ("default_value", default), ("row_partition_tensors", parts)], {"row_partition_types": types})
to_tensor("to_tensor_splits", arr(-1, "int64"), V6, arr(0, "int32"), [arr([0, 2, 2, 6], "int64")], RS)
to_tensor("to_tensor_splits_i32", arr(-1, "int32"), arr([1.5, 2, 3, 4, 5, 6], "float32"), arr(-1.0, "float32"), [arr([0, 2, 2, 6], "int32")], RS)
to_tensor("to_tensor_shape_pad", arr([4, 5], "int64"), V6, arr(9, "int32"), [arr([0, 2, 2, 6], "int64")], RS)
to_tensor("to_tensor_shape_trunc", arr([2, 2], "int64"), V6, arr(9, "int32"), [arr([0, 3, 3, 6], "int64")], RS)
to_tensor("to_tensor_shape_partial", arr([-1, 2], "int64"), V6, arr(9, "int32"), [arr([0, 3, 3, 6], "int64")], RS)
to_tensor("to_tensor_strings", arr(-1, "int64"), S5, arr("?", "string"), [arr([0, 1, 1, 5], "int64")], RS)
to_tensor("to_tensor_rowids", arr(-1, "int64"), V6, arr(0, "int32"), [arr(4, "int64"), arr([0, 0, 2, 2, 2, 3], "int64")], ["FIRST_DIM_SIZE", "VALUE_ROWIDS"])
to_tensor("to_tensor_rowids_shape", arr([3, 2], "int64"), V6, arr(7, "int32"), [arr(4, "int64"), arr([0, 0, 2, 2, 2, 3], "int64")], ["FIRST_DIM_SIZE", "VALUE_ROWIDS"])
to_tensor("to_tensor_rowids_nested", arr(-1, "int64"), V6, arr(0, "int32"), [arr(2, "int64"), arr([0, 0, 1], "int64"), arr([0, 1, 1, 2, 2, 2], "int64")], ["FIRST_DIM_SIZE", "VALUE_ROWIDS", "VALUE_ROWIDS"])
to_tensor("to_tensor_nested", arr(-1, "int64"), V6, arr(0, "int32"), [arr([0, 2, 3], "int64"), arr([0, 1, 1, 6], "int64")], RS * 2)
to_tensor("to_tensor_nested_shape", arr([2, 1, 3], "int64"), V6, arr(0, "int32"), [arr([0, 2, 3], "int64"), arr([0, 1, 1, 6], "int64")], RS * 2)
to_tensor("to_tensor_2d_values", arr(-1, "int64"), arr([[1, 2], [3, 4], [5, 6]], "int64"), arr(0, "int64"), [arr([0, 1, 3], "int64")], RS)
to_tensor("to_tensor_2d_values_bcast", arr(-1, "int64"), arr([[1, 2], [3, 4], [5, 6]], "int64"), arr([8, 9], "int64"), [arr([0, 1, 1, 3], "int64")], RS)
to_tensor("to_tensor_2d_values_shape", arr([2, 3, 2], "int64"), arr([[1, 2], [3, 4], [5, 6]], "float64"), arr([0.5, 1.5], "float64"), [arr([0, 1, 3], "int64")], RS)
to_tensor("to_tensor_bool", arr(-1, "int64"), arr([True, True, True], "bool"), arr(False, "bool"), [arr([0, 1, 3], "int64")], RS)
to_tensor("to_tensor_empty_values", arr(-1, "int64"), arr([], "int32"), arr(0, "int32"), [arr([0, 0, 0], "int64")], RS)
to_tensor("to_tensor_no_rows", arr(-1, "int64"), arr([], "int32"), arr(0, "int32"), [arr([0], "int64")], RS)
to_tensor("to_tensor_bad_default", arr(-1, "int64"), arr([[1, 2], [3, 4], [5, 6]], "int64"), arr([1, 2, 3], "int64"), [arr([0, 1, 3], "int64")], RS)
to_tensor("to_tensor_bad_shape_rank", arr([2, 2, 2], "int64"), V6, arr(0, "int32"), [arr([0, 3, 3, 6], "int64")], RS)
to_tensor("to_tensor_short_splits", arr(-1, "int64"), V6, arr(0, "int32"), [arr([0, 2, 4], "int64")], RS)
to_tensor("to_tensor_empty_first", arr(-1, "int64"), V6, arr(0, "int32"), [arr([], "int64")], RS)
to_tensor("to_tensor_rowids_first", arr(-1, "int64"), V6, arr(0, "int32"), [arr([0, 0, 1, 1, 1, 1], "int64")], ["VALUE_ROWIDS"])
to_tensor("to_tensor_rowids_oob", arr(-1, "int64"), V6, arr(0, "int32"), [arr(2, "int64"), arr([0, 0, 1, 1, 2, 2], "int64")], ["FIRST_DIM_SIZE", "VALUE_ROWIDS"])
to_tensor("to_tensor_decreasing", arr(-1, "int64"), V6, arr(0, "int32"), [arr([0, 4, 2, 6], "int64")], RS)
to_tensor("to_tensor_negative_rowid", arr(-1, "int64"), V6, arr(0, "int32"), [arr(2, "int64"), arr([0, 0, 1, 1, -1, 1], "int64")], ["FIRST_DIM_SIZE", "VALUE_ROWIDS"])
to_tensor("to_tensor_short_rowids", arr(-1, "int64"), V6, arr(0, "int32"), [arr(2, "int64"), arr([0, 0, 1], "int64")], ["FIRST_DIM_SIZE", "VALUE_ROWIDS"])
to_tensor("to_tensor_negative_first_dim", arr(-1, "int64"), V6, arr(0, "int32"), [arr(-2, "int64"), arr([0, 0, 1], "int64")], ["FIRST_DIM_SIZE", "VALUE_ROWIDS"])
to_tensor("to_tensor_shape_partial_rows", arr([3, -1], "int64"), V6, arr(0, "int32"), [arr([0, 2, 2, 6], "int64")], RS)
to_tensor("to_tensor_inner_mismatch", arr([2, 3, 3], "int64"), arr([[1, 2], [3, 4], [5, 6]], "int32"), arr(0, "int32"), [arr([0, 2, 3], "int64")], RS)
to_tensor("to_tensor_bad_shape_dim", arr([-2, 3], "int64"), V6, arr(0, "int32"), [arr([0, 2, 3, 6], "int64")], RS)
to_tensor("to_tensor_default_rank", arr(-1, "int64"), V6, arr([[1]], "int32"), [arr([0, 2, 3, 6], "int64")], RS)
to_tensor("to_tensor_default_rank2", arr(-1, "int64"), arr([[1, 2], [3, 4], [5, 6]], "int32"), arr([[1, 2]], "int32"), [arr([0, 2, 3], "int64")], RS)
to_tensor("to_tensor_default_row", arr([3, 2, 2], "int32"), arr([[1, 2], [3, 4], [5, 6]], "float32"), arr([[7.5], [8.5]], "float32")[0], [arr([0, 1, 1, 3], "int32")], RS)
to_tensor("to_tensor_bad_type", arr(-1, "int64"), V6, arr(0, "int32"), [arr([0, 2, 6], "int64")], ["ROW_LENGTHS"])

# RaggedFillEmptyRows and its gradient
def fill(name, rowids, values, nrows, default):
    case(name, "RaggedFillEmptyRows", [("value_rowids", rowids), ("values", values), ("nrows", nrows), ("default_value", default)])
fill("fill_basic", arr([0, 0, 2, 2, 4], "int64"), arr([1.0, 2, 3, 4, 5], "float32"), arr(6, "int64"), arr(-1.0, "float32"))
fill("fill_full", arr([0, 1, 2], "int64"), arr([1, 2, 3], "int32"), arr(3, "int64"), arr(0, "int32"))
fill("fill_strings", arr([1, 1], "int64"), arr(["x", "y"], "string"), arr(3, "int64"), arr("-", "string"))
fill("fill_empty", arr([], "int64"), arr([], "int64"), arr(2, "int64"), arr(7, "int64"))
fill("fill_zero_rows", arr([], "int64"), arr([], "int64"), arr(0, "int64"), arr(7, "int64"))
fill("fill_unordered", arr([2, 0, 2], "int64"), arr([1, 2, 3], "int32"), arr(4, "int64"), arr(0, "int32"))
fill("fill_oob", arr([0, 5], "int64"), arr([1, 2], "int32"), arr(3, "int64"), arr(0, "int32"))
fill("fill_negative", arr([-1, 1], "int64"), arr([1, 2], "int32"), arr(3, "int64"), arr(0, "int32"))
fill("fill_len_mismatch", arr([0, 1], "int64"), arr([1, 2, 3], "int32"), arr(3, "int64"), arr(0, "int32"))
fill("fill_default_not_scalar", arr([0, 1], "int64"), arr([1, 2], "int32"), arr(3, "int64"), arr([0], "int32"))
fill("fill_nrows_not_scalar", arr([0, 1], "int64"), arr([1, 2], "int32"), arr([3], "int64"), arr(0, "int32"))
case("fill_grad", "RaggedFillEmptyRowsGrad", [("reverse_index_map", arr([0, 1, 3, 4, 6], "int64")), ("grad_values", arr([1.0, 2, 3, 4, 5, 6, 7, 8], "float32"))])
case("fill_grad_f64_empty", "RaggedFillEmptyRowsGrad", [("reverse_index_map", arr([], "int64")), ("grad_values", arr([1.0, 2], "float64"))])
case("fill_grad_oob", "RaggedFillEmptyRowsGrad", [("reverse_index_map", arr([0, 9], "int64")), ("grad_values", arr([1.0, 2], "float32"))])

# Count ops with sparse output
def counts(prefix, op, inputs, T, W):
    for attrs in [dict(binary_output=False), dict(binary_output=True), dict(binary_output=False, minlength=9), dict(binary_output=False, maxlength=3)]:
        tag = "_".join(f"{k}{int(v)}" for k, v in attrs.items())
        case(f"{prefix}_{T}_{W}_{tag}", op, inputs, attrs)
for T in ["int32", "int64"]:
    dense2 = arr([[1, 2, 2, 5], [0, 7, 3, 2]], T)
    counts("dense_count", "DenseCountSparseOutput", [("values", dense2), ("weights", arr([], "float32"))], T, "none")
    counts("dense_count_w", "DenseCountSparseOutput", [("values", dense2), ("weights", arr([[0.5, 1, 2, 3], [1, 1, 1, 0.25]], "float64"))], T, "f64")
    counts("dense_count_1d", "DenseCountSparseOutput", [("values", arr([3, 1, 3, 0], T)), ("weights", arr([], "int64"))], T, "none")
    sp_ix = arr([[0, 0], [0, 3], [2, 1], [2, 2], [2, 4]], "int64")
    counts("sparse_count", "SparseCountSparseOutput", [("indices", sp_ix), ("values", arr([4, 1, 1, 6, 4], T)), ("dense_shape", arr([3, 5], "int64")), ("weights", arr([], "int32"))], T, "none")
    counts("sparse_count_w", "SparseCountSparseOutput", [("indices", sp_ix), ("values", arr([4, 1, 1, 6, 4], T)), ("dense_shape", arr([3, 5], "int64")), ("weights", arr([2, 3, 4, 5, 6], "int32"))], T, "i32")
    counts("ragged_count", "RaggedCountSparseOutput", [("splits", arr([0, 3, 3, 6], "int64")), ("values", arr([2, 5, 2, 0, 1, 8], T)), ("weights", arr([], "float32"))], T, "none")
    counts("ragged_count_w", "RaggedCountSparseOutput", [("splits", arr([0, 3, 3, 6], "int64")), ("values", arr([2, 5, 2, 0, 1, 8], T)), ("weights", arr([1.5, 2, 3, 4, 5, 6], "float32"))], T, "f32")
E32 = arr([], "int32")
case("dense_count_negative", "DenseCountSparseOutput", [("values", arr([[1, -1]], "int64")), ("weights", E32)], {"binary_output": False})
case("dense_count_3d", "DenseCountSparseOutput", [("values", arr([[[1]]], "int32")), ("weights", E32)], {"binary_output": False})
case("dense_count_bad_weights", "DenseCountSparseOutput", [("values", arr([1, 2], "int32")), ("weights", arr([1, 2, 3], "int32"))], {"binary_output": False})
case("dense_count_zero_batch", "DenseCountSparseOutput", [("values", np.zeros([0, 3], "int32")), ("weights", E32)], {"binary_output": False})
case("dense_count_empty_1d", "DenseCountSparseOutput", [("values", arr([], "int64")), ("weights", E32)], {"binary_output": False, "minlength": 2})
case("sparse_count_1d", "SparseCountSparseOutput", [("indices", arr([[1], [3]], "int64")), ("values", arr([2, 2], "int32")), ("dense_shape", arr([5], "int64")), ("weights", E32)], {"binary_output": False})
case("sparse_count_bad_index", "SparseCountSparseOutput", [("indices", arr([[0, 0], [3, 1]], "int64")), ("values", arr([2, 2], "int32")), ("dense_shape", arr([3, 4], "int64")), ("weights", E32)], {"binary_output": False})
case("sparse_count_bad_weights", "SparseCountSparseOutput", [("indices", arr([[0, 0], [1, 1]], "int64")), ("values", arr([2, 2], "int32")), ("dense_shape", arr([3, 4], "int64")), ("weights", arr([1], "int32"))], {"binary_output": False})
case("sparse_count_values_mismatch", "SparseCountSparseOutput", [("indices", arr([[0, 0], [1, 1]], "int64")), ("values", arr([2], "int32")), ("dense_shape", arr([3, 4], "int64")), ("weights", E32)], {"binary_output": False})
case("sparse_count_rank_mismatch", "SparseCountSparseOutput", [("indices", arr([[0, 0], [1, 1]], "int64")), ("values", arr([2, 2], "int32")), ("dense_shape", arr([3], "int64")), ("weights", E32)], {"binary_output": False})
case("sparse_count_negative", "SparseCountSparseOutput", [("indices", arr([[0, 0], [1, 1]], "int64")), ("values", arr([2, -2], "int64")), ("dense_shape", arr([3, 4], "int64")), ("weights", E32)], {"binary_output": False})
case("ragged_count_negative", "RaggedCountSparseOutput", [("splits", arr([0, 1, 3], "int64")), ("values", arr([2, -5, 2], "int32")), ("weights", E32)], {"binary_output": False})
case("sparse_count_zero_batch", "SparseCountSparseOutput", [("indices", np.zeros([0, 2], "int64")), ("values", arr([], "int32")), ("dense_shape", arr([0, 4], "int64")), ("weights", E32)], {"binary_output": False})
case("ragged_count_bad_start", "RaggedCountSparseOutput", [("splits", arr([1, 3], "int64")), ("values", arr([2, 5, 2], "int32")), ("weights", E32)], {"binary_output": False})
case("ragged_count_bad_end", "RaggedCountSparseOutput", [("splits", arr([0, 2], "int64")), ("values", arr([2, 5, 2], "int32")), ("weights", E32)], {"binary_output": False})
case("ragged_count_short", "RaggedCountSparseOutput", [("splits", arr([0], "int64")), ("values", arr([], "int32")), ("weights", E32)], {"binary_output": False})
case("ragged_count_bad_weights", "RaggedCountSparseOutput", [("splits", arr([0, 3], "int64")), ("values", arr([2, 5, 2], "int32")), ("weights", arr([1, 2], "int32"))], {"binary_output": False})

# SparseBincount and RaggedBincount (dense output)
for Tidx in ["int32", "int64"]:
    for W, w in [("none", arr([], "float32")), ("f64", arr([0.5, 1, 2, 3, 4], "float64")), ("i64", arr([1, 2, 3, 4, 5], "int64"))]:
        for binary in [False, True]:
            sp = [("indices", arr([[0, 0], [0, 3], [2, 1], [2, 2], [2, 4]], "int64")), ("values", arr([4, 1, 1, 6, 4], Tidx)), ("dense_shape", arr([3, 5], "int64"))]
            case(f"sparse_bincount_2d_{Tidx}_{W}_{int(binary)}", "SparseBincount", sp + [("size", arr(5, Tidx)), ("weights", w)], {"binary_output": binary})
            case(f"sparse_bincount_1d_{Tidx}_{W}_{int(binary)}", "SparseBincount", [("indices", arr([[0], [1], [3], [4], [6]], "int64")), ("values", arr([4, 1, 1, 6, 4], Tidx)), ("dense_shape", arr([7], "int64")), ("size", arr(6, Tidx)), ("weights", w)], {"binary_output": binary})
            case(f"ragged_bincount_{Tidx}_{W}_{int(binary)}", "RaggedBincount", [("splits", arr([0, 3, 3, 5], "int64")), ("values", arr([4, 1, 1, 6, 4], Tidx)), ("size", arr(5, Tidx)), ("weights", w)], {"binary_output": binary})
case("sparse_bincount_negative", "SparseBincount", [("indices", arr([[0], [1]], "int64")), ("values", arr([1, -1], "int32")), ("dense_shape", arr([2], "int64")), ("size", arr(3, "int32")), ("weights", arr([], "int32"))])
case("sparse_bincount_neg_size", "SparseBincount", [("indices", arr([[0], [1]], "int64")), ("values", arr([1, 1], "int32")), ("dense_shape", arr([2], "int64")), ("size", arr(-3, "int32")), ("weights", arr([], "int32"))])
case("ragged_bincount_negative", "RaggedBincount", [("splits", arr([0, 2], "int64")), ("values", arr([1, -1], "int32")), ("size", arr(3, "int32")), ("weights", arr([], "int32"))])
case("ragged_bincount_neg_size", "RaggedBincount", [("splits", arr([0, 2], "int64")), ("values", arr([1, 1], "int32")), ("size", arr(-3, "int32")), ("weights", arr([], "int32"))])
case("ragged_bincount_bad_splits", "RaggedBincount", [("splits", arr([0, 3], "int64")), ("values", arr([1, 1], "int32")), ("size", arr(3, "int32")), ("weights", arr([], "int32"))])
case("ragged_bincount_bad_start", "RaggedBincount", [("splits", arr([1, 2], "int64")), ("values", arr([1, 1], "int32")), ("size", arr(3, "int32")), ("weights", arr([], "int32"))])
# (RaggedBincount with weights shorter than values reads past them in TensorFlow: not recorded.)
case("sparse_bincount_2d_negative", "SparseBincount", [("indices", arr([[0, 0], [1, 1]], "int64")), ("values", arr([1, -1], "int64")), ("dense_shape", arr([2, 2], "int64")), ("size", arr(3, "int64")), ("weights", arr([], "int32"))])
case("sparse_bincount_2d_bad_batch", "SparseBincount", [("indices", arr([[0, 0], [4, 1]], "int64")), ("values", arr([1, 1], "int64")), ("dense_shape", arr([2, 2], "int64")), ("size", arr(3, "int64")), ("weights", arr([], "int32"))])
case("sparse_bincount_1d_bad_weights", "SparseBincount", [("indices", arr([[0], [1]], "int64")), ("values", arr([1, 1], "int32")), ("dense_shape", arr([2], "int64")), ("size", arr(3, "int32")), ("weights", arr([1.0], "float32"))])
case("ragged_bincount_empty_rows", "RaggedBincount", [("splits", arr([0, 0, 2, 2], "int64")), ("values", arr([0, 2], "int64")), ("size", arr(0, "int64")), ("weights", arr([], "float64"))])
case("ragged_count_empty_rows", "RaggedCountSparseOutput", [("splits", arr([0, 0, 2, 2], "int64")), ("values", arr([0, 2], "int64")), ("weights", arr([], "float64"))], {"binary_output": False})

# RaggedCross
KEY = 956888297470
def cross(name, rv, rs, si, sv, ss, dense, order, hashed=False, buckets=0, key=KEY, splits_type="int64"):
    case(name, "RaggedCross", [("ragged_values", rv), ("ragged_row_splits", rs), ("sparse_indices", si),
         ("sparse_values", sv), ("sparse_shape", ss), ("dense_inputs", dense)],
         {"input_order": order, "hashed_output": hashed, "num_buckets": buckets, "hash_key": key,
          "out_values_type": "int64" if hashed else "string", "out_row_splits_type": splits_type})
RS1 = (arr(["a", "b", "c"], "string"), arr([0, 2, 3], "int64"))
RI1 = (arr([1, 2, 3], "int64"), arr([0, 1, 3], "int64"))
SP1 = (arr([[0, 0], [1, 0], [1, 1]], "int64"), arr(["x", "y", "z"], "string"), arr([2, 2], "int64"))
DN1 = arr([["d1"], ["d2"]], "string")
DI1 = arr([[7, 8], [9, 10]], "int64")
for hashed, buckets in [(False, 0), (True, 0), (True, 10)]:
    tag = f"{int(hashed)}_{buckets}"
    cross(f"cross_rr_{tag}", [RS1[0], RI1[0]], [RS1[1], RI1[1]], [], [], [], [], "RR", hashed, buckets)
    cross(f"cross_rsd_{tag}", [RS1[0]], [RS1[1]], [SP1[0]], [SP1[1]], [SP1[2]], [DN1], "RSD", hashed, buckets)
    cross(f"cross_dsr_{tag}", [RI1[0]], [RI1[1]], [SP1[0]], [SP1[1]], [SP1[2]], [DI1], "DSR", hashed, buckets)
    cross(f"cross_dense_only_{tag}", [], [], [], [], [], [DN1, DI1], "DD", hashed, buckets)
    cross(f"cross_sparse_only_{tag}", [], [], [SP1[0]], [SP1[1]], [SP1[2]], [], "S", hashed, buckets)
cross("cross_big_key", [RS1[0], RI1[0]], [RS1[1], RI1[1]], [], [], [], [], "RR", True, 0, key=-(2**62) - 12345)
cross("cross_int32_splits", [RS1[0]], [arr([0, 2, 3], "int32")], [], [], [], [DI1], "RD", False, 0, splits_type="int32")
cross("cross_empty_row", [RS1[0], RI1[0]], [arr([0, 0, 3], "int64"), RI1[1]], [], [], [], [], "RR")
cross("cross_batch_mismatch", [RS1[0]], [RS1[1]], [], [], [], [arr([["d"]], "string")], "RD")
cross("cross_bad_splits_start", [RS1[0]], [arr([1, 2, 3], "int64")], [], [], [], [], "R")
cross("cross_bad_splits_end", [RS1[0]], [arr([0, 2, 4], "int64")], [], [], [], [], "R")
cross("cross_bad_splits_order", [RS1[0]], [arr([0, 3, 2, 3], "int64")], [], [], [], [], "R")
cross("cross_empty_splits", [arr([], "string")], [arr([], "int64")], [], [], [], [], "R")
cross("cross_dense_rank1", [], [], [], [], [], [arr(["a"], "string")], "D")
cross("cross_sparse_rank3", [], [], [arr([[0, 0, 0]], "int64")], [arr(["q"], "string")], [arr([1, 1, 1], "int64")], [], "S")

TFDT = {"string": tf.string}


def run_case(name, op, inputs, attrs):
    g = tf.Graph()
    out = {"name": name, "op": op, "attrs": attrs, "inputs": []}
    with g.as_default():
        kwargs, feed = {}, {}
        for arg, v in inputs:
            vs = v if isinstance(v, list) else [v]
            phs = []
            for x in vs:
                ph = tf.compat.v1.placeholder(tf.as_dtype(x.dtype) if x.dtype != object else tf.string, shape=None)
                feed[ph] = x
                phs.append(ph)
            kwargs[arg] = phs if isinstance(v, list) else phs[0]
            out["inputs"].append({"arg": arg, "list": isinstance(v, list), "values": [enc(x) for x in vs]})
        fn = getattr(tf.raw_ops, op)
        try:
            res = fn(**kwargs, **{k: (tf.as_dtype(v) if k.startswith("out_") else v) for k, v in attrs.items()})
        except Exception as e:  # build-time
            out["build_error"] = {"class": type(e).__name__, "message": str(e)}
            return out
        flat = tf.nest.flatten(res)
        with tf.compat.v1.Session(graph=g) as s:
            try:
                vals = s.run(flat, feed)
                out["outputs"] = [enc(v) for v in vals]
            except tf.errors.OpError as e:
                out["error"] = {"code": e.error_code, "class": type(e).__name__, "message": re.split(r"Node: '[^']*'\n", e.message)[-1].split("\n\t [[")[0]}
    return out


# The Python functions a user calls, over constants: each records its named inputs and the
# result's components (a RaggedTensor as flat_values then its row splits, outermost first; a
# SparseTensor as indices, values, dense_shape).
PY = []


def py(name, inputs, fn):
    PY.append((name, inputs, fn))


def rt(t, vals, *splits):
    return tf.RaggedTensor.from_nested_row_splits(t[vals], [t[s] for s in splits], validate=False)


py("py_range_limits_only", {"n": arr([3, 0, 2], "int64")}, lambda t: tf.ragged.range(t["n"]))
py("py_range_mixed_dtypes", {"s": arr([0, 3], "int32"), "l": arr(7.5, "float32"), "d": arr(2, "int32")},
   lambda t: tf.ragged.range(t["s"], t["l"], t["d"]))
py("py_range_int32_splits", {"s": arr([1, 2], "int32"), "l": arr([4, 4], "int32")},
   lambda t: tf.ragged.range(t["s"], t["l"], row_splits_dtype=tf.int32))
NEST = {"v": arr([10, 11, 12, 13, 14, 15], "int32"), "s0": arr([0, 2, 3, 3], "int64"), "s1": arr([0, 1, 4, 6], "int64")}
py("py_gather_2d", dict(NEST, i=arr([[1, 0], [2, 2]], "int64")), lambda t: tf.gather(rt(t, "v", "s0", "s1"), t["i"]))
py("py_gather_scalar", dict(NEST, i=arr(0, "int32")), lambda t: tf.gather(rt(t, "v", "s0", "s1"), t["i"]))
py("py_to_tensor_default", NEST, lambda t: rt(t, "v", "s0", "s1").to_tensor())
py("py_to_tensor_shape", {"v": arr([1.5, 2, 3], "float32"), "s0": arr([0, 2, 2, 3], "int32")},
   lambda t: rt(t, "v", "s0").to_tensor(default_value=-1.0, shape=[None, 1]))
py("py_to_sparse", NEST, lambda t: rt(t, "v", "s0", "s1").to_sparse())
D2 = {"x": arr([[1, 3, 3], [0, 2, 9]], "int32"), "w": arr([[0.5, 1, 2], [3, 4, 5]], "float32")}
py("py_sparse_bincount_axis0", D2, lambda t: tf.sparse.bincount(t["x"], weights=t["w"], minlength=12))
py("py_sparse_bincount_axis_last", D2, lambda t: tf.sparse.bincount(t["x"], axis=-1, maxlength=4, binary_output=True))
SPX = {"i": arr([[0, 1], [1, 0], [1, 2]], "int64"), "v": arr([4, 2, 4], "int64"), "sh": arr([3, 3], "int64")}
py("py_sparse_bincount_sparse", SPX, lambda t: tf.sparse.bincount(tf.SparseTensor(t["i"], t["v"], t["sh"]), axis=-1))
py("py_sparse_bincount_sparse_axis0", SPX, lambda t: tf.sparse.bincount(tf.SparseTensor(t["i"], t["v"], t["sh"])))
RG = {"v": arr([3, 1, 3, 0], "int64"), "s0": arr([0, 3, 3, 4], "int64")}
py("py_sparse_bincount_ragged", RG, lambda t: tf.sparse.bincount(rt(t, "v", "s0"), axis=-1))
py("py_sparse_bincount_ragged_axis0", RG, lambda t: tf.sparse.bincount(rt(t, "v", "s0")))
CR = {"a": arr(["a", "b", "c"], "string"), "s": arr([0, 2, 3], "int64"), "d": arr([[7], [8]], "int32")}
py("py_cross", CR, lambda t: tf.ragged.cross([rt(t, "a", "s"), t["d"]]))
py("py_cross_hashed", CR, lambda t: tf.ragged.cross_hashed([rt(t, "a", "s"), t["d"]], num_buckets=7))

SPM = {"i": arr([[0, 1], [1, 0], [1, 2]], "int64"), "v": arr([4, 2, 4], "int32"), "sh": arr([3, 3], "int64"),
       "w": arr([0.5, 1.5, 2.5], "float64")}
py("py_math_bincount_sparse", SPM, lambda t: tf.math.bincount(tf.SparseTensor(t["i"], t["v"], t["sh"]), axis=-1))
py("py_math_bincount_sparse_w", SPM, lambda t: tf.math.bincount(tf.SparseTensor(t["i"], t["v"], t["sh"]), weights=tf.SparseTensor(t["i"], t["w"], t["sh"]), axis=-1, minlength=7))
py("py_math_bincount_sparse_axis0", SPM, lambda t: tf.math.bincount(tf.SparseTensor(t["i"], t["v"], t["sh"]), maxlength=3, dtype=tf.int64))
RGM = {"v": arr([3, 1, 3, 0], "int32"), "s0": arr([0, 3, 3, 4], "int64"), "w": arr([1.0, 2, 3, 4], "float32")}
py("py_math_bincount_ragged", RGM, lambda t: tf.math.bincount(rt(t, "v", "s0"), axis=-1))
py("py_math_bincount_ragged_w", RGM, lambda t: tf.math.bincount(rt(t, "v", "s0"), weights=rt(t, "w", "s0"), axis=-1))
py("py_math_bincount_ragged_axis0", RGM, lambda t: tf.math.bincount(rt(t, "v", "s0"), binary_output=True, minlength=6))


def run_py(name, inputs, fn):
    g = tf.Graph()
    with g.as_default():
        t = {k: tf.constant(v) for k, v in inputs.items()}
        res = fn(t)
        if isinstance(res, tf.RaggedTensor):
            comps = [res.flat_values] + list(res.nested_row_splits)
        elif isinstance(res, tf.SparseTensor):
            comps = [res.indices, res.values, res.dense_shape]
        else:
            comps = [res]
        with tf.compat.v1.Session(graph=g) as s:
            vals = s.run(comps)
    return {"name": name, "op": "python", "inputs": [{"arg": k, "list": False, "values": [enc(v)]} for k, v in inputs.items()],
            "attrs": {}, "outputs": [enc(v) for v in vals]}


results = [run_case(*c) for c in CASES] + [run_py(*c) for c in PY]
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "expected.json"), "w") as f:
    json.dump(results, f, indent=1)
print(len(results), "cases;", sum("error" in r for r in results), "errors;", sum("build_error" in r for r in results), "build errors")
