//! `BandedTriangularSolve` (`tf.linalg.banded_triangular_solve`): solves batches of triangular
//! systems whose matrices are given as `K` bands (`[..., K, M]`), with broadcast batch
//! dimensions, in the order of TensorFlow's sequential CPU kernel.

use std::cmp::Ordering;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor,
};

use super::scalar::{with_field, Field};
use super::shapes::{at_least, batch, dim_back, merge_dim};
use crate::linalg::batch::{batch_index, broadcast, dims};

/// `tf.linalg.banded_triangular_solve(bands, rhs, lower=True, adjoint=False)`: `X` with
/// `A X = rhs` (`A^H X = rhs` with `adjoint`) for the triangular `A` of `bands`: for `lower`,
/// row 0 the diagonal and row `k` the `k`-th subdiagonal (padded at the start); otherwise row
/// `K - 1` the diagonal and row `K - 1 - k` the `k`-th superdiagonal (padded at the end).
pub fn banded_triangular_solve(
    bands: impl Into<Output>,
    rhs: impl Into<Output>,
    lower: bool,
    adjoint: bool,
) -> Result<Output> {
    let (a, b) = (bands.into(), rhs.into());
    let g = crate::util::same_graph(&[&a, &b])?.clone();
    crate::new_op(&g, "BandedTriangularSolve")
        .input(a)
        .input(b)
        .attr("lower", lower)
        .attr("adjoint", adjoint)
        .build()?
        .output(0)
}

/// `BandedTriangularSolveShapeFn`.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let lhs = at_least(ctx.input_shape(0), 2)?;
    let rhs = at_least(ctx.input_shape(1), 2)?;
    let (k, m) = (dim_back(&lhs, 2), dim_back(&lhs, 1));
    if let Some(k) = k {
        if k == 0 {
            return Err(Error::invalid_argument(
                "Number of bands must be positive, but is 0",
            ));
        }
        if let Some(m) = m {
            if k > m {
                return Err(Error::invalid_argument(format!(
                    "Number of bands {k} cannot exceed the size of the matrix {m}"
                )));
            }
        }
    }
    let out_batch = match (batch(&lhs).dims(), batch(&rhs).dims()) {
        (Some(a), Some(b)) => {
            let n = a.len().max(b.len());
            let at = |s: &[weir_graph::Dim], i: usize| {
                if i + s.len() >= n {
                    s[i + s.len() - n]
                } else {
                    Some(1)
                }
            };
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                out.push(match (at(a, i), at(b, i)) {
                    (Some(1), y) => y,
                    (x, Some(1)) => x,
                    (Some(x), Some(y)) if x != y => {
                        return Err(Error::invalid_argument(format!(
                            "Dimensions must be equal, but are {x} and {y}"
                        )))
                    }
                    (x, y) => x.or(y),
                });
            }
            Shape::new(out)
        }
        _ => Shape::unknown(),
    };
    let m = merge_dim(m, dim_back(&rhs, 2))?;
    ctx.set_output(
        0,
        out_batch.concatenate(&Shape::new(vec![m, dim_back(&rhs, 1)])),
    );
    Ok(())
}

/// One system: `a` the `kb x m` bands, `b` and `x` row-major `m x n`.
fn solve_one<T: Field>(
    a: &[T],
    b: &[T],
    x: &mut [T],
    (kb, m, n): (usize, usize, usize),
    (lower, adj): (bool, bool),
) {
    let at = |r: usize, c: usize| a[r * m + c];
    let cj = |v: T| if adj { v.conjugate() } else { v };
    match (lower, adj) {
        (true, false) => {
            for i in 0..m {
                let len = i.min(kb - 1);
                for j in 0..n {
                    let mut s = T::fzero();
                    for t in (1..=len).rev() {
                        s = s + at(t, i) * x[(i - t) * n + j];
                    }
                    x[i * n + j] = (b[i * n + j] - s).quot(at(0, i));
                }
            }
        }
        (false, false) => {
            for k in (0..m).rev() {
                let len = (m - 1 - k).min(kb - 1);
                for j in 0..n {
                    let mut s = T::fzero();
                    for t in 1..=len {
                        s = s + at(kb - 1 - t, k) * x[(k + t) * n + j];
                    }
                    x[k * n + j] = (b[k * n + j] - s).quot(at(kb - 1, k));
                }
            }
        }
        (true, true) => {
            for i in (0..m).rev() {
                for j in 0..n {
                    let mut v = b[i * n + j];
                    for r in i + 1..m.min(i + kb) {
                        v = v - cj(at(r - i, r)) * x[r * n + j];
                    }
                    x[i * n + j] = v.quot(cj(at(0, i)));
                }
            }
        }
        (false, true) => {
            for i in 0..m {
                for j in 0..n {
                    let mut v = b[i * n + j];
                    for r in i.saturating_sub(kb - 1)..i {
                        v = v - cj(at(kb - 1 - (i - r), r)) * x[r * n + j];
                    }
                    x[i * n + j] = v.quot(cj(at(kb - 1, i)));
                }
            }
        }
    }
}

fn solve_typed<T: Field>(a: &Tensor, b: &Tensor, lower: bool, adj: bool) -> Result<Tensor> {
    let (sa, sb) = (a.shape(), b.shape());
    for (i, s) in [sa, sb].iter().enumerate() {
        if s.len() < 2 {
            return Err(Error::invalid_argument(format!(
                "In[{i}] ndims must be >= 2: {}",
                s.len()
            )));
        }
    }
    for (i, t) in [a, b].iter().enumerate() {
        if t.num_elements() == 0 {
            return Err(Error::invalid_argument(format!(
                "In[{i}] must not be an empty tensor: Tensor<type: {} shape: {} values: >",
                t.dtype(),
                dims(t.shape())
            )));
        }
    }
    let (ra, rb) = (sa.len(), sb.len());
    let out_batch = broadcast(&sa[..ra - 2], &sb[..rb - 2]).ok_or_else(|| {
        Error::invalid_argument(format!(
            "In[0] and In[1] must have compatible batch dimensions: {} vs. {}",
            dims(sa),
            dims(sb)
        ))
    })?;
    let (kb, m, n) = (sa[ra - 2], sa[ra - 1], sb[rb - 1]);
    if m != sb[rb - 2] {
        return Err(Error::invalid_argument(format!(
            "In[0] mismatch In[1] shape: {m} vs. {}: {} {} {} {}",
            sb[rb - 2],
            dims(sa),
            dims(sb),
            u8::from(lower),
            u8::from(adj)
        )));
    }
    let mut out_dims = out_batch.clone();
    out_dims.extend([m, n]);
    let total: usize = out_dims.iter().product();
    let mut out = vec![T::fzero(); total];
    if total == 0 {
        return Tensor::from_vec(&out_dims, out);
    }
    let av = a.as_slice::<T>()?;
    let bv = b.as_slice::<T>()?;
    // TensorFlow checks the diagonal of the first matrix of the batch only.
    let diag_row = if lower { 0 } else { kb - 1 };
    let zero = <T::Real as num_traits::Zero>::zero();
    let min = av[diag_row * m..(diag_row + 1) * m]
        .iter()
        .map(|v| v.modulus())
        .fold(None, |acc: Option<T::Real>, v| match acc {
            Some(p) if p.partial_cmp(&v) != Some(Ordering::Greater) => Some(p),
            _ => Some(v),
        });
    if min.is_some_and(|v| v.partial_cmp(&zero) != Some(Ordering::Greater)) {
        return Err(Error::invalid_argument("Input matrix is not invertible."));
    }
    let (ba, bb) = (&sa[..ra - 2], &sb[..rb - 2]);
    for (o, x) in out.chunks_exact_mut(m * n).enumerate() {
        // Each operand's batch index for this output matrix (broadcasting).
        let (ia, ib) = (
            batch_index(&out_batch, ba, o),
            batch_index(&out_batch, bb, o),
        );
        solve_one(
            &av[ia * kb * m..(ia + 1) * kb * m],
            &bv[ib * m * n..(ib + 1) * m * n],
            x,
            (kb, m, n),
            (lower, adj),
        );
    }
    Tensor::from_vec(&out_dims, out)
}

struct BandedKernel {
    lower: bool,
    adjoint: bool,
}

impl Kernel for BandedKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        let out = with_field!(a.dtype(), T => solve_typed::<T>(a, b, self.lower, self.adjoint))?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let t: DType = node.attr("T")?;
    let (lower, adjoint): (bool, bool) = (node.attr("lower")?, node.attr("adjoint")?);
    if t == DType::F16 {
        return Err(Error::invalid_argument(format!(
            "No OpKernel was registered to support Op 'BandedTriangularSolve' used by \
             {{{{node {}}}}} with these attrs: [adjoint={adjoint}, lower={lower}, T=DT_HALF]",
            node.name()
        )));
    }
    Ok(Box::new(BandedKernel { lower, adjoint }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("BandedTriangularSolve")
            .input("matrix", ArgType::Attr("T"))
            .input("rhs", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .attr("lower", AttrKind::Bool, Some(AttrValue::Bool(true)))
            .attr("adjoint", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .type_attr(
                "T",
                &[DType::F64, DType::F32, DType::F16, DType::C64, DType::C128],
            )
            .shape_fn(shape_fn),
    );
    register_kernel("BandedTriangularSolve", make);
}
