//! Helpers the ragged kernels share: reading split and index tensors, bounding allocations,
//! and copying rows of values of any dtype.

use weir_graph::{format_dims, DType, Error, Result, Tensor, TensorType};

/// The most elements a ragged kernel allocates for one output: a bound on sizes read from
/// input values, so a bad split or range cannot ask for unbounded memory.
pub(super) const MAX_ELEMENTS: usize = 1 << 31;

/// `n` checked against [`MAX_ELEMENTS`] (ResourceExhausted, as TensorFlow's allocator).
pub(super) fn bounded(n: i64, dtype: DType, dims: &[usize]) -> Result<usize> {
    if n < 0 || n as u64 > MAX_ELEMENTS as u64 {
        return Err(Error::resource_exhausted(format!(
            "OOM when allocating tensor with shape{} and type {dtype} on \
             /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu",
            format_dims(dims)
        )));
    }
    Ok(n as usize)
}

/// The elements of an int32 or int64 tensor as `i64`s.
pub(super) fn ints(t: &Tensor) -> Result<Vec<i64>> {
    crate::array::shape_util::to_i64s(t)
}

/// The number of scalars in one row (element along axis 0) of `t`.
pub(super) fn row_size(t: &Tensor) -> usize {
    t.shape().iter().skip(1).product()
}

fn gather_typed<T: TensorType>(
    values: &Tensor,
    rows: &[usize],
    width: usize,
    dims: &[usize],
) -> Result<Tensor> {
    let v = values.as_slice::<T>()?;
    let mut out = Vec::with_capacity(rows.len() * width);
    for &r in rows {
        let row = v
            .get(r * width..(r + 1) * width)
            .ok_or_else(|| Error::internal(format!("row {r} out of range")))?;
        out.extend_from_slice(row);
    }
    Tensor::from_vec(dims, out)
}

/// The rows `rows` of `values` (each in range), stacked: shape `[rows.len(), values.shape[1..]]`.
pub(super) fn gather_rows(values: &Tensor, rows: &[usize]) -> Result<Tensor> {
    let mut dims = values.shape().to_vec();
    if dims.is_empty() {
        return Err(Error::invalid_argument("params.rank must be nonzero"));
    }
    dims[0] = rows.len();
    let width = row_size(values);
    let dt = values.dtype();
    weir_graph::match_data_dtype!(dt, T => gather_typed::<T>(values, rows, width, &dims),
        _ => Err(Error::invalid_argument(format!("ragged ops do not support {dt}"))))
}

/// Gives the type attr `name` of `def` the default `dtype` (TensorFlow's `Tsplits: {int32,
/// int64} = DT_INT64`), which `OpDef::type_attr` cannot express alone.
pub(super) fn set_type_default(def: &mut weir_graph::OpDef, name: &str, dtype: DType) {
    if let Some(a) = def.attrs.iter_mut().find(|a| a.name == name) {
        a.default = Some(weir_graph::AttrValue::Type(dtype));
    }
}
