//! `Qr` (`tf.linalg.qr`): the QR decomposition of batches of matrices by Householder
//! reflections with Eigen's conventions, so `Q` and `R` (signs included) are TensorFlow's.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    Result, Shape, Tensor, TensorType,
};

use super::batch::{checked_len, Real, REAL};
use super::decompose::{householder_q, householder_qr};
use super::solve::{batch_of, matrix_dims};

/// `tf.linalg.qr(input, full_matrices=False)`: `(q, r)` with `input = q r`, `q` orthonormal
/// (`[..., M, P]`) and `r` upper triangular (`[..., P, N]`), `P = min(M, N)`, or `P = M` with
/// `full_matrices`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::qr};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 2], vec![3.0f64, 1.0, 4.0, 2.0])?)?;
/// let (_q, r) = qr(&a, false)?;
/// let r = Session::new(&g)?.eval(&r)?.to_vec::<f64>()?;
/// assert!((r[0] + 5.0).abs() < 1e-12 && r[2] == 0.0);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn qr(input: impl Into<Output>, full_matrices: bool) -> Result<(Output, Output)> {
    let x = input.into();
    let op = crate::new_op(&x.graph().clone(), "Qr")
        .input(x)
        .attr("full_matrices", full_matrices)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

fn qr_typed<T: Real>(x: &Tensor, full: bool) -> Result<(Tensor, Tensor)> {
    let s = x.shape();
    let batch = batch_of(&[s])?;
    let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
    let p = if full { m } else { m.min(n) };
    let (mut qs, mut rs) = (batch.clone(), batch);
    qs.extend([m, p]);
    rs.extend([p, n]);
    let zero = <T as TensorType>::zero();
    let (mut q, mut r) = (vec![zero; checked_len(&qs)?], vec![zero; checked_len(&rs)?]);
    let src = x.as_slice::<T>()?;
    let nb = src.len().checked_div(m * n).unwrap_or(0);
    let (mut work, mut tau) = (vec![zero; m * n], vec![zero; m.min(n)]);
    for b in 0..nb {
        work.copy_from_slice(&src[b * m * n..(b + 1) * m * n]);
        householder_qr(&mut work, m, n, &mut tau);
        householder_q(&work, m, n, &tau, &mut q[b * m * p..(b + 1) * m * p], p);
        let rb = &mut r[b * p * n..(b + 1) * p * n];
        for i in 0..p.min(m) {
            for j in i..n {
                rb[i * n + j] = work[i * n + j];
            }
        }
    }
    if nb == 0 && m * p > 0 {
        // An empty input (n = 0) still has an orthonormal Q: the leading identity columns.
        for b in q.chunks_exact_mut(m * p) {
            for i in 0..m.min(p) {
                b[i * p + i] = T::one();
            }
        }
    }
    Ok((Tensor::from_vec(&qs, q)?, Tensor::from_vec(&rs, r)?))
}

struct QrKernel(bool);

impl Kernel for QrKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let (q, r) = match x.dtype() {
            DType::F64 => qr_typed::<f64>(x, self.0)?,
            _ => qr_typed::<f32>(x, self.0)?,
        };
        ctx.set_output(0, q);
        ctx.set_output(1, r);
        Ok(())
    }
}

fn qr_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let full: bool = ctx.attr("full_matrices")?;
    let Some(d) = matrix_dims(ctx.input_shape(0))? else {
        ctx.set_output(0, Shape::unknown());
        ctx.set_output(1, Shape::unknown());
        return Ok(());
    };
    let r = d.len();
    let (m, n) = (d[r - 2], d[r - 1]);
    let p = if full {
        m
    } else {
        match (m, n) {
            (Some(a), Some(b)) => Some(a.min(b)),
            _ => None,
        }
    };
    let batch = &d[..r - 2];
    let mut q = batch.to_vec();
    q.extend([m, p]);
    let mut rr = batch.to_vec();
    rr.extend([p, n]);
    ctx.set_output(0, Shape::new(q));
    ctx.set_output(1, Shape::new(rr));
    Ok(())
}

fn make_qr(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(QrKernel(node.attr("full_matrices")?)))
}

pub(super) fn register() {
    register_op(
        OpDef::new("Qr")
            .input("input", ArgType::Attr("T"))
            .output("q", ArgType::Attr("T"))
            .output("r", ArgType::Attr("T"))
            .attr(
                "full_matrices",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .type_attr("T", REAL)
            .shape_fn(qr_shape_fn),
    );
    register_kernel("Qr", make_qr);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_has_eigens_signs_and_empty_input_keeps_an_orthonormal_q() {
        let a = Tensor::from_vec(&[3, 2], vec![2.0f64, 1.0, 1.0, 2.0, 0.0, 1.0]).unwrap();
        let (q, r) = qr_typed::<f64>(&a, false).unwrap();
        assert_eq!((q.shape(), r.shape()), (&[3usize, 2][..], &[2usize, 2][..]));
        let r = r.to_vec::<f64>().unwrap();
        assert!((r[0] + 5f64.sqrt()).abs() < 1e-12, "{r:?}");
        let e = Tensor::from_vec(&[2, 0], Vec::<f64>::new()).unwrap();
        let (q, r) = qr_typed::<f64>(&e, true).unwrap();
        assert_eq!(q.to_vec::<f64>().unwrap(), vec![1.0, 0.0, 0.0, 1.0]);
        assert_eq!(r.shape(), &[2, 0]);
    }
}
