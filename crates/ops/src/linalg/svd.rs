//! `Svd` (`tf.linalg.svd`): singular values (descending) and vectors of batches of matrices,
//! by one-sided Jacobi; and `tf.linalg.pinv`, TensorFlow's Python composite on top of it.
//!
//! Singular vectors are unique only up to a common sign per pair (`u_i`, `v_i`); weir's signs
//! are Jacobi's, not necessarily those of TensorFlow's Eigen `BDCSVD`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    Result, Shape, Tensor, TensorType,
};

use super::batch::{checked_len, Real, REAL};
use super::decompose::svd as svd_one;
use super::solve::{batch_of, matrix_dims};

/// `tf.linalg.svd(tensor, full_matrices=False, compute_uv=True)`: `(s, u, v)` (TensorFlow's
/// Python order) with `tensor = u diag(s) v^T`; `s` descending, `u` `[..., M, P]` and `v`
/// `[..., N, P]` (`P = min(M, N)`, or `M` and `N` with `full_matrices`). Without
/// `compute_uv`, `u` and `v` are empty (`[0]`).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::svd};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 2], vec![3.0f64, 0.0, 0.0, -4.0])?)?;
/// let (s, _u, _v) = svd(&a, false, true)?;
/// assert_eq!(Session::new(&g)?.eval(&s)?.to_vec::<f64>()?, vec![4.0, 3.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn svd(
    tensor: impl Into<Output>,
    full_matrices: bool,
    compute_uv: bool,
) -> Result<(Output, Output, Output)> {
    let x = tensor.into();
    let op = crate::new_op(&x.graph().clone(), "Svd")
        .input(x)
        .attr("compute_uv", compute_uv)
        .attr("full_matrices", full_matrices)
        .build()?;
    Ok((op.output(0)?, op.output(1)?, op.output(2)?))
}

/// `tf.linalg.pinv(a, rcond=None)`: the Moore-Penrose pseudo-inverse of each matrix of `a`,
/// `v diag(1/s) u^T` with singular values at or below `rcond * max(s)` dropped; the default
/// `rcond` is `10 * max(M, N) * eps`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::pinv};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 1], vec![3.0f64, 4.0])?)?;
/// let p = Session::new(&g)?.eval(&pinv(&a, None)?)?.to_vec::<f64>()?;
/// assert!((p[0] - 0.12).abs() < 1e-12 && (p[1] - 0.16).abs() < 1e-12);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn pinv(a: impl Into<Output>, rcond: Option<f64>) -> Result<Output> {
    use crate::array::{constant, expand_dims, SliceItem};
    use crate::math::{cast, greater, maximum, mul, realdiv, reduce_max, select_v2, MatMul};
    let a = a.into();
    let g = a.graph().clone();
    let _scope = g.name_scope("pinv");
    let dtype = a.dtype();
    let eps = if dtype == DType::F64 {
        f64::EPSILON
    } else {
        f64::from(f32::EPSILON)
    };
    let sh = a.shape();
    let rcond = match (rcond, sh.dim(-2), sh.dim(-1)) {
        (Some(r), _, _) => constant(&g, weir_graph::scalar_of(dtype, r)?)?,
        (None, Some(m), Some(n)) => constant(
            &g,
            weir_graph::scalar_of(dtype, 10.0 * m.max(n) as f64 * eps)?,
        )?,
        // `10 * max(rows, cols) * eps` with the dimensions read at run time.
        (None, _, _) => {
            let dims = crate::array::shape(&a)?;
            let at = |i: i64| crate::array::strided_slice_items(&dims, &[SliceItem::Index(i)]);
            let larger = maximum(at(-2)?, at(-1)?)?;
            let scale = constant(&g, weir_graph::scalar_of(dtype, 10.0)?)?;
            let eps = constant(&g, weir_graph::scalar_of(dtype, eps)?)?;
            mul(mul(&scale, cast(&larger, dtype)?)?, &eps)?
        }
    };
    let (s, u, v) = svd(&a, false, true)?;
    let cutoff = mul(&rcond, reduce_max(&s, vec![-1i64])?)?;
    let keep = greater(&s, expand_dims(&cutoff, -1)?)?;
    let inf = constant(&g, weir_graph::scalar_of(dtype, f64::INFINITY)?)?;
    let s = select_v2(&keep, &s, &inf)?;
    let scaled = realdiv(&v, expand_dims(&s, -2)?)?;
    MatMul::new().transpose_b(true).build(&scaled, &u)
}

fn svd_typed<T: Real>(x: &Tensor, compute_uv: bool, full: bool) -> Result<Vec<Tensor>> {
    let sh = x.shape();
    let batch = batch_of(&[sh])?;
    let (m, n) = (sh[sh.len() - 2], sh[sh.len() - 1]);
    let p = m.min(n);
    let (uc, vc) = if full { (m, n) } else { (p, p) };
    let dims = |tail: &[usize]| {
        let mut d = batch.clone();
        d.extend_from_slice(tail);
        d
    };
    let (ss, us, vs) = if compute_uv {
        (dims(&[p]), dims(&[m, uc]), dims(&[n, vc]))
    } else {
        (dims(&[p]), vec![0], vec![0])
    };
    let zero = <T as TensorType>::zero();
    let mut s = vec![zero; checked_len(&ss)?];
    let (mut u, mut v) = (vec![zero; checked_len(&us)?], vec![zero; checked_len(&vs)?]);
    let nb: usize = batch.iter().product();
    let src = x.as_slice::<T>()?;
    for b in 0..nb {
        let a = &src[b * m * n..(b + 1) * m * n];
        let sb = &mut s[b * p..(b + 1) * p];
        if !compute_uv {
            if a.iter().all(|x| x.is_finite()) {
                svd_one(a, m, n, sb, None);
            } else {
                sb.iter_mut().for_each(|x| *x = T::nan());
            }
            continue;
        }
        let ub = &mut u[b * m * uc..(b + 1) * m * uc];
        let vb = &mut v[b * n * vc..(b + 1) * n * vc];
        if !a.iter().all(|x| x.is_finite()) {
            // Eigen's BDCSVD fails on non-finite input and TensorFlow returns NaNs.
            for o in [&mut *sb, &mut *ub, &mut *vb] {
                o.iter_mut().for_each(|x| *x = T::nan());
            }
            continue;
        }
        if p == 0 {
            // Nothing to decompose: the full bases are identities, as TensorFlow's.
            for i in 0..m.min(uc) {
                ub[i * uc + i] = T::one();
            }
            for i in 0..n.min(vc) {
                vb[i * vc + i] = T::one();
            }
            continue;
        }
        svd_one(a, m, n, sb, Some((ub, vb, full)));
    }
    Ok(vec![
        Tensor::from_vec(&ss, s)?,
        Tensor::from_vec(&us, u)?,
        Tensor::from_vec(&vs, v)?,
    ])
}

struct SvdKernel {
    compute_uv: bool,
    full: bool,
}

impl Kernel for SvdKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let outs = match x.dtype() {
            DType::F64 => svd_typed::<f64>(x, self.compute_uv, self.full)?,
            _ => svd_typed::<f32>(x, self.compute_uv, self.full)?,
        };
        for (i, t) in outs.into_iter().enumerate() {
            ctx.set_output(i, t);
        }
        Ok(())
    }
}

fn svd_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let (compute_uv, full): (bool, bool) = (ctx.attr("compute_uv")?, ctx.attr("full_matrices")?);
    let Some(d) = matrix_dims(ctx.input_shape(0))? else {
        for i in 0..3 {
            let s = if i > 0 && !compute_uv {
                Shape::known(&[0])
            } else {
                Shape::unknown()
            };
            ctx.set_output(i, s);
        }
        return Ok(());
    };
    let r = d.len();
    let (m, n) = (d[r - 2], d[r - 1]);
    let p = match (m, n) {
        (Some(a), Some(b)) => Some(a.min(b)),
        _ => None,
    };
    let with = |tail: &[Option<usize>]| {
        let mut v = d[..r - 2].to_vec();
        v.extend_from_slice(tail);
        Shape::new(v)
    };
    ctx.set_output(0, with(&[p]));
    if compute_uv {
        let (uc, vc) = if full { (m, n) } else { (p, p) };
        ctx.set_output(1, with(&[m, uc]));
        ctx.set_output(2, with(&[n, vc]));
    } else {
        ctx.set_output(1, Shape::known(&[0]));
        ctx.set_output(2, Shape::known(&[0]));
    }
    Ok(())
}

fn make_svd(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(SvdKernel {
        compute_uv: node.attr("compute_uv")?,
        full: node.attr("full_matrices")?,
    }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("Svd")
            .input("input", ArgType::Attr("T"))
            .output("s", ArgType::Attr("T"))
            .output("u", ArgType::Attr("T"))
            .output("v", ArgType::Attr("T"))
            .attr("compute_uv", AttrKind::Bool, Some(AttrValue::Bool(true)))
            .attr(
                "full_matrices",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .type_attr("T", REAL)
            .shape_fn(svd_shape_fn),
    );
    register_kernel("Svd", make_svd);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_non_finite_inputs_follow_tensorflow() {
        let e = Tensor::from_vec(&[0, 2], Vec::<f64>::new()).unwrap();
        let out = svd_typed::<f64>(&e, true, true).unwrap();
        assert_eq!(out[1].shape(), &[0, 0]);
        assert_eq!(out[2].to_vec::<f64>().unwrap(), vec![1.0, 0.0, 0.0, 1.0]);
        let bad = Tensor::from_vec(&[1, 2], vec![f32::NAN, 1.0]).unwrap();
        let out = svd_typed::<f32>(&bad, true, false).unwrap();
        assert!(out[0].to_vec::<f32>().unwrap()[0].is_nan());
        let out = svd_typed::<f32>(&bad, false, false).unwrap();
        assert_eq!(out[1].shape(), &[0]);
    }
}
