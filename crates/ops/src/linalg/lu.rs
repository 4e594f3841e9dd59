//! `MatrixInverse` (`tf.linalg.inv`) and `MatrixDeterminant` (`tf.linalg.det`) of batches of
//! square matrices, by LU decomposition with partial pivoting (as Eigen's `PartialPivLU`,
//! which TensorFlow's CPU kernels use).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    Result, Shape, Tensor,
};

use super::batch::{count, square_shape, square_size, Real, REAL};
use weir_graph::TensorType;

/// `tf.linalg.inv(input, adjoint=False)`: the inverse of each square matrix of `input`;
/// InvalidArgument "Input is not invertible." when a pivot is exactly zero.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::matrix_inverse};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 2], vec![4.0f64, 7.0, 2.0, 6.0])?)?;
/// let inv = Session::new(&g)?.eval(&matrix_inverse(&a, false)?)?.to_vec::<f64>()?;
/// assert!((inv[0] - 0.6).abs() < 1e-12 && (inv[1] + 0.7).abs() < 1e-12);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn matrix_inverse(input: impl Into<Output>, adjoint: bool) -> Result<Output> {
    let x = input.into();
    crate::new_op(&x.graph().clone(), "MatrixInverse")
        .input(x)
        .attr("adjoint", adjoint)
        .build()?
        .output(0)
}

/// `tf.linalg.det(input)`: the determinant of each square matrix of `input` (1 for a 0x0
/// matrix).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::matrix_determinant};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 2], vec![4.0f64, 7.0, 2.0, 6.0])?)?;
/// let det = Session::new(&g)?.eval(&matrix_determinant(&a)?)?.to_scalar::<f64>()?;
/// assert!((det - 10.0).abs() < 1e-12);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn matrix_determinant(input: impl Into<Output>) -> Result<Output> {
    let x = input.into();
    crate::new_op(&x.graph().clone(), "MatrixDeterminant")
        .input(x)
        .build()?
        .output(0)
}

/// LU-decomposes the row-major `n x n` matrix `a` in place (unit lower `L` below the
/// diagonal, `U` on and above it) with row pivoting; `perm[i]` is the original row of row
/// `i`. Returns the permutation's sign. A zero column leaves a zero pivot and goes on, as
/// Eigen does.
pub(crate) fn lu_in_place<T: Real>(a: &mut [T], n: usize, perm: &mut [usize]) -> T {
    let mut sign = T::one();
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for k in 0..n {
        let mut best = k;
        for i in k + 1..n {
            if a[i * n + k].abs() > a[best * n + k].abs() {
                best = i;
            }
        }
        if best != k {
            for j in 0..n {
                a.swap(k * n + j, best * n + j);
            }
            perm.swap(k, best);
            sign = -sign;
        }
        let pivot = a[k * n + k];
        if pivot == <T as TensorType>::zero() {
            continue;
        }
        for i in k + 1..n {
            let f = a[i * n + k] / pivot;
            a[i * n + k] = f;
            if f != <T as TensorType>::zero() {
                for j in k + 1..n {
                    let u = a[k * n + j];
                    a[i * n + j] -= f * u;
                }
            }
        }
    }
    sign
}

/// The inverse of one matrix into `out`, from its LU factors; false when a pivot is zero.
fn invert<T: Real>(lu: &[T], perm: &[usize], n: usize, out: &mut [T], col: &mut [T]) -> bool {
    if (0..n).any(|i| lu[i * n + i] == <T as TensorType>::zero()) {
        return false;
    }
    for j in 0..n {
        // Solve L U x = P e_j.
        for (i, c) in col.iter_mut().enumerate() {
            *c = if perm[i] == j {
                T::one()
            } else {
                <T as TensorType>::zero()
            };
        }
        for i in 0..n {
            let mut s = col[i];
            for k in 0..i {
                s -= lu[i * n + k] * col[k];
            }
            col[i] = s;
        }
        for i in (0..n).rev() {
            let mut s = col[i];
            for k in i + 1..n {
                s -= lu[i * n + k] * col[k];
            }
            col[i] = s / lu[i * n + i];
        }
        for i in 0..n {
            out[i * n + j] = col[i];
        }
    }
    true
}

fn inverse_typed<T: Real>(x: &Tensor, adjoint: bool) -> Result<Tensor> {
    let n = square_size(x.shape())?;
    let src = x.as_slice::<T>()?;
    let mut out = vec![<T as TensorType>::zero(); src.len()];
    let (mut work, mut perm, mut col) = (
        vec![<T as TensorType>::zero(); n * n],
        vec![0usize; n],
        vec![<T as TensorType>::zero(); n],
    );
    for b in 0..count(src.len(), n) {
        let m = &src[b * n * n..(b + 1) * n * n];
        if adjoint {
            for i in 0..n {
                for j in 0..n {
                    work[i * n + j] = m[j * n + i];
                }
            }
        } else {
            work.copy_from_slice(m);
        }
        lu_in_place(&mut work, n, &mut perm);
        if !invert(
            &work,
            &perm,
            n,
            &mut out[b * n * n..(b + 1) * n * n],
            &mut col,
        ) {
            return Err(Error::invalid_argument("Input is not invertible."));
        }
    }
    Tensor::from_vec(x.shape(), out)
}

fn determinant_typed<T: Real>(x: &Tensor) -> Result<Tensor> {
    let n = square_size(x.shape())?;
    let src = x.as_slice::<T>()?;
    let s = x.shape();
    let batch = &s[..s.len() - 2];
    let nb: usize = batch.iter().product();
    let mut out = vec![T::one(); nb];
    let (mut work, mut perm) = (vec![<T as TensorType>::zero(); n * n], vec![0usize; n]);
    for (b, o) in out.iter_mut().enumerate().take(count(src.len(), n)) {
        work.copy_from_slice(&src[b * n * n..(b + 1) * n * n]);
        // TensorFlow's SLogDet: the sign of the product and the sum of the logs of |U_ii|.
        let mut sign = lu_in_place(&mut work, n, &mut perm);
        let mut log_abs = <T as TensorType>::zero();
        for i in 0..n {
            let u = work[i * n + i];
            log_abs += u.abs().ln();
            if u < <T as TensorType>::zero() {
                sign = -sign;
            }
        }
        *o = sign * log_abs.exp();
        if !o.is_finite() {
            return Err(Error::invalid_argument("The determinant is not finite."));
        }
    }
    Tensor::from_vec(batch, out)
}

struct InverseKernel(bool);

impl Kernel for InverseKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let out = match x.dtype() {
            weir_graph::DType::F64 => inverse_typed::<f64>(x, self.0)?,
            _ => inverse_typed::<f32>(x, self.0)?,
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

struct DeterminantKernel;

impl Kernel for DeterminantKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let out = match x.dtype() {
            weir_graph::DType::F64 => determinant_typed::<f64>(x)?,
            _ => determinant_typed::<f32>(x)?,
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn inverse_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = square_shape(ctx, 0)?;
    ctx.set_output(0, s);
    Ok(())
}

fn determinant_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = square_shape(ctx, 0)?;
    let out = match s.dims() {
        Some(d) => Shape::new(d[..d.len() - 2].to_vec()),
        None => Shape::unknown(),
    };
    ctx.set_output(0, out);
    Ok(())
}

fn make_inverse(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(InverseKernel(node.attr("adjoint")?)))
}

pub(super) fn register() {
    register_op(
        OpDef::new("MatrixInverse")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .attr("adjoint", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .type_attr("T", REAL)
            .shape_fn(inverse_shape_fn),
    );
    register_kernel("MatrixInverse", make_inverse);
    register_op(
        OpDef::new("MatrixDeterminant")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", REAL)
            .shape_fn(determinant_shape_fn),
    );
    register_kernel("MatrixDeterminant", |_| Ok(Box::new(DeterminantKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_and_determinant_pivot_and_report_singular_input() {
        let a = Tensor::from_vec(
            &[3, 3],
            vec![0.0f64, 1.0, 2.0, 1.0, 0.0, 3.0, 4.0, -3.0, 8.0],
        )
        .unwrap();
        let inv = inverse_typed::<f64>(&a, false)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        let want = [-4.5, 7.0, -1.5, -2.0, 4.0, -1.0, 1.5, -2.0, 0.5];
        for (g, w) in inv.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{inv:?}");
        }
        let det = determinant_typed::<f64>(&a)
            .unwrap()
            .to_scalar::<f64>()
            .unwrap();
        assert!((det + 2.0).abs() < 1e-12, "{det}");
        let s = Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 2.0, 4.0]).unwrap();
        let e = inverse_typed::<f32>(&s, false).unwrap_err();
        assert!(e.is_invalid_argument());
        assert_eq!(e.message(), "Input is not invertible.");
        assert_eq!(
            determinant_typed::<f32>(&s)
                .unwrap()
                .to_scalar::<f32>()
                .unwrap(),
            0.0
        );
        let e = inverse_typed::<f32>(&Tensor::from(vec![1.0f32]), false).unwrap_err();
        assert_eq!(e.message(), "Input tensor 0 must have rank >= 2, got 1");
        let r = Tensor::from_vec(&[1, 2], vec![1.0f32, 2.0]).unwrap();
        assert_eq!(
            determinant_typed::<f32>(&r).unwrap_err().message(),
            "Input matrix must be square."
        );
        let empty = Tensor::from_vec(&[3, 0, 0], Vec::<f64>::new()).unwrap();
        assert_eq!(
            determinant_typed::<f64>(&empty)
                .unwrap()
                .to_vec::<f64>()
                .unwrap(),
            vec![1.0; 3]
        );
    }
}
