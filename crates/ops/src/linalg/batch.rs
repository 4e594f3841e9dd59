//! What the matrix ops share: the float element trait, TensorFlow's checks on batches of
//! square matrices (`LinearAlgebraOp`), and the matching shape function.

use std::ops::{AddAssign, SubAssign};

use num_traits::Float;
use weir_graph::{format_dims, DType, Error, InferenceContext, Result, Shape, TensorType};

/// The element types of the float-only matrix ops (TensorFlow's `float`, `double`).
pub(crate) trait Real: TensorType + Float + AddAssign + SubAssign + Default {}

impl Real for f32 {}
impl Real for f64 {}

/// The dtypes of the float-only matrix ops.
pub(crate) const REAL: &[DType] = DType::FLOAT;

/// Checks a batch of square matrices at run time and returns `n`: TensorFlow's messages
/// ("Input tensor 0 must have rank >= 2, got 1", "Input matrix must be square.").
pub(crate) fn square_size(shape: &[usize]) -> Result<usize> {
    let r = shape.len();
    if r < 2 {
        return Err(Error::invalid_argument(format!(
            "Input tensor 0 must have rank >= 2, got {r}"
        )));
    }
    if shape[r - 1] != shape[r - 2] {
        return Err(Error::invalid_argument("Input matrix must be square."));
    }
    Ok(shape[r - 1])
}

/// The static checks of a batch of square matrices: rank at least 2 and equal last dims,
/// which fill each other in. Returns the merged shape.
pub(crate) fn square_shape(ctx: &InferenceContext<'_>, i: usize) -> Result<Shape> {
    let s = ctx.input_shape(i).clone();
    let Some(d) = s.dims() else {
        return Ok(s);
    };
    let r = d.len();
    if r < 2 {
        return Err(Error::invalid_argument(format!(
            "Shape must be at least rank 2 but is rank {r}"
        )));
    }
    let n = match (d[r - 2], d[r - 1]) {
        (Some(a), Some(b)) if a != b => {
            return Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {a} and {b}"
            )))
        }
        (a, b) => a.or(b),
    };
    let mut out = d.to_vec();
    out[r - 2] = n;
    out[r - 1] = n;
    Ok(Shape::new(out))
}

/// Matrices of `n x n` in a buffer of `len` elements: how many.
pub(crate) fn count(len: usize, n: usize) -> usize {
    if n == 0 {
        0
    } else {
        len / (n * n)
    }
}

/// The number of elements of a tensor of `dims`; InvalidArgument (TensorFlow's words) when it
/// does not fit.
pub(crate) fn checked_len(dims: &[usize]) -> Result<usize> {
    dims.iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&n| i64::try_from(n).is_ok())
        .ok_or_else(|| {
            Error::invalid_argument(format!(
                "Shape {} would have more than 2**63 - 1 elements",
                format_dims(dims)
            ))
        })
}

/// The broadcast of two batch shapes, or None when they do not broadcast.
pub(crate) fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    crate::math::broadcast_shapes(a, b).ok()
}

/// The flat batch index into `s` (broadcast against `out`) of output batch `flat`.
pub(crate) fn batch_index(out: &[usize], s: &[usize], mut flat: usize) -> usize {
    let (mut idx, mut stride) = (0, 1);
    for j in (0..out.len()).rev() {
        let c = flat % out[j];
        flat /= out[j];
        if let Some(k) = (j + s.len()).checked_sub(out.len()) {
            if s[k] != 1 {
                idx += c * stride;
            }
            stride *= s[k];
        }
    }
    idx
}

/// A shape for messages.
pub(crate) fn dims(shape: &[usize]) -> String {
    format_dims(shape)
}
