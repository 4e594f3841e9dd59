//! `LogMatrixDeterminant` (`tf.linalg.slogdet`): the sign and log of the absolute determinant
//! of batches of square matrices, by LU with partial pivoting as TensorFlow's `SLogDet`; and
//! `tf.linalg.logdet`, TensorFlow's Python composite through the Cholesky factor.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, InferenceContext, Kernel, OpContext, OpDef, Output, Result, Shape, Tensor,
    TensorType,
};

use super::batch::{count, square_shape, square_size, Real, REAL};
use super::lu::lu_in_place;

/// `tf.linalg.slogdet(input)`: `(sign, log_abs_determinant)` of each square matrix of
/// `input`; a singular matrix has sign 0 (signed like the row permutation, as TensorFlow's)
/// and log -inf, an empty one sign 1 and log 0.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::log_matrix_determinant};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 2], vec![1.0f64, 2.0, 3.0, 4.0])?)?;
/// let (sign, log_abs) = log_matrix_determinant(&a)?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&sign)?.to_scalar::<f64>()?, -1.0);
/// assert!((sess.eval(&log_abs)?.to_scalar::<f64>()? - 2f64.ln()).abs() < 1e-12);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn log_matrix_determinant(input: impl Into<Output>) -> Result<(Output, Output)> {
    let x = input.into();
    let op = crate::new_op(&x.graph().clone(), "LogMatrixDeterminant")
        .input(x)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `tf.linalg.logdet(matrix)`: the log determinant of each Hermitian positive-definite matrix,
/// `2 * sum(log(diag(cholesky(matrix))))` under the name scope `logdet`, as TensorFlow builds it.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::logdet};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 2], vec![4.0f64, 2.0, 2.0, 3.0])?)?;
/// let v = Session::new(&g)?.eval(&logdet(&a)?)?.to_scalar::<f64>()?;
/// assert!((v - 8f64.ln()).abs() < 1e-12);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn logdet(matrix: impl Into<Output>) -> Result<Output> {
    let x = matrix.into();
    let g = x.graph().clone();
    let _scope = g.name_scope("logdet");
    let chol = super::cholesky(&x)?;
    let logs = crate::math::log(super::matrix_diag_part(&chol)?)?;
    let sum = crate::math::reduce_sum(&logs, vec![-1i64])?;
    let two = crate::array::constant(&g, weir_graph::scalar_of(x.dtype(), 2.0)?)?;
    crate::math::mul(&two, &sum)
}

fn slogdet_typed<T: Real>(x: &Tensor) -> Result<(Tensor, Tensor)> {
    let n = square_size(x.shape())?;
    let src = x.as_slice::<T>()?;
    let s = x.shape();
    let batch = &s[..s.len() - 2];
    let nb: usize = batch.iter().product();
    let (mut signs, mut logs) = (vec![T::one(); nb], vec![<T as TensorType>::zero(); nb]);
    let (mut work, mut perm) = (vec![<T as TensorType>::zero(); n * n], vec![0usize; n]);
    for b in 0..count(src.len(), n) {
        work.copy_from_slice(&src[b * n * n..(b + 1) * n * n]);
        let mut sign = lu_in_place(&mut work, n, &mut perm);
        let mut log_abs = <T as TensorType>::zero();
        for i in 0..n {
            let u = work[i * n + i];
            log_abs += u.abs().ln();
            // u / |u|: 0 / 0 is NaN in Eigen, but TensorFlow reports a zero sign there.
            if u == <T as TensorType>::zero() {
                sign = sign * <T as TensorType>::zero();
            } else if u < <T as TensorType>::zero() {
                sign = -sign;
            } else if u.is_nan() {
                sign = u;
            }
        }
        signs[b] = sign;
        logs[b] = log_abs;
    }
    Ok((
        Tensor::from_vec(batch, signs)?,
        Tensor::from_vec(batch, logs)?,
    ))
}

struct SlogdetKernel;

impl Kernel for SlogdetKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let (sign, log) = match x.dtype() {
            DType::F64 => slogdet_typed::<f64>(x)?,
            _ => slogdet_typed::<f32>(x)?,
        };
        ctx.set_output(0, sign);
        ctx.set_output(1, log);
        Ok(())
    }
}

fn slogdet_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = square_shape(ctx, 0)?;
    let out = match s.dims() {
        Some(d) => Shape::new(d[..d.len() - 2].to_vec()),
        None => Shape::unknown(),
    };
    ctx.set_output(0, out.clone());
    ctx.set_output(1, out);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("LogMatrixDeterminant")
            .input("input", ArgType::Attr("T"))
            .output("sign", ArgType::Attr("T"))
            .output("log_abs_determinant", ArgType::Attr("T"))
            .type_attr("T", REAL)
            .shape_fn(slogdet_shape_fn),
    );
    register_kernel("LogMatrixDeterminant", |_| Ok(Box::new(SlogdetKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_follow_pivots_and_singular_input_has_zero_sign() {
        let a =
            Tensor::from_vec(&[2, 2, 2], vec![1.0f64, 2.0, 3.0, 4.0, 2.0, 1.0, 4.0, 2.0]).unwrap();
        let (s, l) = slogdet_typed::<f64>(&a).unwrap();
        let (s, l) = (s.to_vec::<f64>().unwrap(), l.to_vec::<f64>().unwrap());
        assert_eq!(s[0], -1.0);
        assert!((l[0] - 2f64.ln()).abs() < 1e-12);
        assert_eq!(s[1], 0.0);
        assert!(s[1].is_sign_negative(), "one row swap: -0 as TensorFlow");
        assert_eq!(l[1], f64::NEG_INFINITY);
    }
}
