//! `SelfAdjointEigV2` (`tf.linalg.eigh`, `tf.linalg.eigvalsh`): eigenvalues (ascending) and
//! eigenvectors of batches of symmetric matrices, reading their lower triangles as
//! TensorFlow's Eigen solver does, by cyclic Jacobi.
//!
//! Eigenvectors are unique only up to sign (and, for repeated eigenvalues, rotation); weir's
//! signs are those Jacobi produces, not necessarily TensorFlow's, which follow from Eigen's
//! tridiagonal QR iteration and have no simple rule.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor, TensorType,
};

use super::batch::{count, square_shape, square_size, Real, REAL};
use super::decompose::symmetric_eigen;

/// `tf.linalg.eigh(tensor)`: `(e, v)`, the eigenvalues (ascending) and the eigenvectors (the
/// columns of `v`) of each symmetric matrix of `tensor`, of which only the lower triangle is
/// read.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::self_adjoint_eig};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 2], vec![2.0f64, 1.0, 1.0, 2.0])?)?;
/// let (e, _v) = self_adjoint_eig(&a)?;
/// let e = Session::new(&g)?.eval(&e)?.to_vec::<f64>()?;
/// assert!((e[0] - 1.0).abs() < 1e-12 && (e[1] - 3.0).abs() < 1e-12);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn self_adjoint_eig(tensor: impl Into<Output>) -> Result<(Output, Output)> {
    let op = eig_op(tensor.into(), true)?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `tf.linalg.eigvalsh(tensor)`: the eigenvalues (ascending) of each symmetric matrix of
/// `tensor` (`SelfAdjointEigV2` with `compute_v=False`).
pub fn self_adjoint_eigvals(tensor: impl Into<Output>) -> Result<Output> {
    eig_op(tensor.into(), false)?.output(0)
}

fn eig_op(x: Output, compute_v: bool) -> Result<weir_graph::Operation> {
    crate::new_op(&x.graph().clone(), "SelfAdjointEigV2")
        .input(x)
        .attr("compute_v", compute_v)
        .build()
}

fn eig_typed<T: Real>(x: &Tensor, compute_v: bool) -> Result<(Tensor, Tensor)> {
    let n = square_size(x.shape())?;
    let src = x.as_slice::<T>()?;
    let s = x.shape();
    let mut es = s[..s.len() - 1].to_vec();
    let zero = <T as TensorType>::zero();
    let nb = count(src.len(), n);
    let mut e = vec![zero; es.iter().product()];
    let mut v = vec![zero; if compute_v { src.len() } else { 0 }];
    let mut work = vec![zero; n * n];
    for b in 0..nb {
        work.copy_from_slice(&src[b * n * n..(b + 1) * n * n]);
        let lower_finite = (0..n).all(|i| (0..=i).all(|j| work[i * n + j].is_finite()));
        if !lower_finite {
            return Err(Error::invalid_argument(
                "Self-adjoint eigen decomposition was not successful. The input might not be \
                 valid.",
            ));
        }
        let vb = if compute_v {
            Some(&mut v[b * n * n..(b + 1) * n * n])
        } else {
            None
        };
        symmetric_eigen(&mut work, n, &mut e[b * n..(b + 1) * n], vb);
    }
    let e = Tensor::from_vec(&es, e)?;
    let v = if compute_v {
        Tensor::from_vec(s, v)?
    } else {
        es.clear();
        es.push(0);
        Tensor::from_vec(&es, v)?
    };
    Ok((e, v))
}

struct EigKernel(bool);

impl Kernel for EigKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let (e, v) = match x.dtype() {
            DType::F64 => eig_typed::<f64>(x, self.0)?,
            _ => eig_typed::<f32>(x, self.0)?,
        };
        ctx.set_output(0, e);
        ctx.set_output(1, v);
        Ok(())
    }
}

fn eig_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let compute_v: bool = ctx.attr("compute_v")?;
    let s = square_shape(ctx, 0)?;
    let e = match s.dims() {
        Some(d) => Shape::new(d[..d.len() - 1].to_vec()),
        None => Shape::unknown(),
    };
    ctx.set_output(0, e);
    ctx.set_output(1, if compute_v { s } else { Shape::known(&[0]) });
    Ok(())
}

fn make_eig(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(EigKernel(node.attr("compute_v")?)))
}

pub(super) fn register() {
    register_op(
        OpDef::new("SelfAdjointEigV2")
            .input("input", ArgType::Attr("T"))
            .output("e", ArgType::Attr("T"))
            .output("v", ArgType::Attr("T"))
            .attr("compute_v", AttrKind::Bool, Some(AttrValue::Bool(true)))
            .type_attr("T", REAL)
            .shape_fn(eig_shape_fn),
    );
    register_kernel("SelfAdjointEigV2", make_eig);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_lower_triangle_and_rejects_nan() {
        let a = Tensor::from_vec(&[2, 2], vec![2.0f64, 100.0, 1.0, 2.0]).unwrap();
        let (e, v) = eig_typed::<f64>(&a, false).unwrap();
        let e = e.to_vec::<f64>().unwrap();
        assert!(
            (e[0] - 1.0).abs() < 1e-12 && (e[1] - 3.0).abs() < 1e-12,
            "{e:?}"
        );
        assert_eq!(v.shape(), &[0]);
        let bad = Tensor::from_vec(&[2, 2], vec![f32::NAN, 0.0, 1.0, 1.0]).unwrap();
        assert!(eig_typed::<f32>(&bad, true)
            .unwrap_err()
            .is_invalid_argument());
    }
}
