//! The input checks of the cross kernels: TensorFlow's `ValidateInput` of
//! `sparse_cross_op.cc`, with its messages, and the scalar inputs of `SparseCrossHashed`.

use weir_graph::{format_dims, DType, Error, Result, Tensor};

/// TensorFlow's `ValidateInput`; `internal_type` only for `SparseCross`.
pub(super) fn validate(
    indices: &[Tensor],
    values: &[Tensor],
    shapes: &[Tensor],
    dense: &[Tensor],
    internal_type: Option<DType>,
) -> Result<i64> {
    let bad = |m: String| Err(Error::invalid_argument(m));
    let dims = |t: &Tensor| format_dims(t.shape());
    let size = indices.len();
    for (i, t) in indices.iter().enumerate() {
        if t.rank() != 2 {
            return bad(format!(
                "Input indices should be a matrix but received shape {} at position {i}",
                dims(t)
            ));
        }
        if t.shape()[1] != 2 {
            return bad(format!(
                "Expected D2 of index to be 2 got {} at position {i}",
                t.shape()[1]
            ));
        }
    }
    if values.len() != size {
        return bad(format!(
            "Expected {size} input values, got {}",
            values.len()
        ));
    }
    let string_internal = internal_type == Some(DType::String);
    let internal = |what: &str, t: &Tensor| {
        bad(format!(
            "{what} should be of internal type {} but received {}",
            DType::String.proto_number(),
            t.dtype().proto_number()
        ))
    };
    for (i, (v, ix)) in values.iter().zip(indices).enumerate() {
        if string_internal && v.dtype() == DType::I64 {
            return internal("Input values", v);
        }
        if v.rank() != 1 {
            return bad(format!(
                "Input values should be a vector but received shape {} at position {i}",
                dims(v)
            ));
        }
        if ix.shape()[0] != v.shape()[0] {
            return bad(format!(
                "Expected size of values to be {} got {} at position {i}",
                ix.shape()[0],
                v.shape()[0]
            ));
        }
    }
    if shapes.len() != size {
        return bad(format!(
            "Expected {size} input shapes, got {}",
            shapes.len()
        ));
    }
    for (i, s) in shapes.iter().enumerate() {
        if s.rank() != 1 {
            return bad(format!(
                "Input shapes should be a vector but received shape {} at position {i}",
                dims(s)
            ));
        }
        if s.shape()[0] != 2 {
            return bad(format!(
                "shape should imply a 2D tensor, but got {} at position {i}",
                dims(s)
            ));
        }
    }
    for (i, d) in dense.iter().enumerate() {
        if string_internal && d.dtype() == DType::I64 {
            return internal("Dense inputs", d);
        }
        if d.rank() != 2 {
            return bad(format!(
                "Dense inputs should be a matrix but received shape {} at position {i}",
                dims(d)
            ));
        }
    }
    let batch = match (shapes.first(), dense.first()) {
        (Some(s), _) => s.as_slice::<i64>()?[0],
        (None, Some(d)) => d.shape()[0] as i64,
        (None, None) => 0,
    };
    for (i, s) in shapes.iter().enumerate() {
        let got = s.as_slice::<i64>()?[0];
        if got != batch {
            return bad(format!(
                "Expected batch size {batch} got {got} at position {i}"
            ));
        }
    }
    for (i, d) in dense.iter().enumerate() {
        if d.shape()[0] as i64 != batch {
            return bad(format!(
                "Expected batch size {batch} got {} at dense tensor {i}",
                d.shape()[0]
            ));
        }
    }
    Ok(batch)
}

/// The value of a tensor TensorFlow reads with `scalar<T>()` (one element, any shape).
pub(super) fn single<T: weir_graph::TensorType + Copy>(t: &Tensor, what: &str) -> Result<T> {
    match t.as_slice::<T>()? {
        [v] => Ok(*v),
        _ => Err(Error::invalid_argument(format!(
            "Input \"{what}\" must have one element but has shape {}",
            format_dims(t.shape())
        ))),
    }
}
