//! `SparseDenseCwiseMul`, `SparseDenseCwiseDiv` and `SparseDenseCwiseAdd`: a sparse tensor's
//! values combined with the entries of a dense tensor broadcast to its shape (`sp * dense`,
//! `sp / dense` in Python; the add has no Python wrapper).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
    Shape, Tensor,
};

use super::arith::{build_shape, Real};
use super::SparseOutput;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cwise {
    Mul,
    Div,
    Add,
}

impl Cwise {
    fn op_type(self) -> &'static str {
        match self {
            Cwise::Mul => "SparseDenseCwiseMul",
            Cwise::Div => "SparseDenseCwiseDiv",
            Cwise::Add => "SparseDenseCwiseAdd",
        }
    }
}

fn build(kind: Cwise, sp: &SparseOutput, dense: Output) -> Result<SparseOutput> {
    let g = crate::util::same_graph(&[&sp.indices, &dense])?.clone();
    let values = crate::new_op(&g, kind.op_type())
        .input(&sp.indices)
        .input(&sp.values)
        .input(&sp.dense_shape)
        .input(&dense)
        .build()?
        .output(0)?;
    SparseOutput::new(sp.indices.clone(), values, sp.dense_shape.clone())
}

/// `sp * dense` (op `SparseDenseCwiseMul`): each value of `sp` times the entry of `dense`
/// (broadcast to `sp`'s shape, never the other way) at its index; the result keeps `sp`'s
/// indices and shape, so implicit zeros stay zero.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_dense_cwise_mul, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let sp = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[2, 2], vec![0i64, 1, 1, 0])?)?,
///     constant(&g, vec![2.0f32, 3.0])?,
///     constant(&g, vec![2i64, 2])?,
/// )?;
/// let y = sparse_dense_cwise_mul(&sp, constant(&g, vec![10.0f32, 100.0])?)?;
/// assert_eq!(Session::new(&g)?.eval(&y.values)?.to_vec::<f32>()?, [200.0, 30.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_dense_cwise_mul(sp: &SparseOutput, dense: impl Into<Output>) -> Result<SparseOutput> {
    build(Cwise::Mul, sp, dense.into())
}

/// `sp / dense` (op `SparseDenseCwiseDiv`): as [`sparse_dense_cwise_mul`], dividing; a zero
/// divisor at any of `sp`'s indices is InvalidArgument (for floats too, as in TensorFlow).
pub fn sparse_dense_cwise_div(sp: &SparseOutput, dense: impl Into<Output>) -> Result<SparseOutput> {
    build(Cwise::Div, sp, dense.into())
}

/// Op `SparseDenseCwiseAdd`: as [`sparse_dense_cwise_mul`], adding; only the stored values
/// change (the implicit zeros of `sp` do not become `dense`'s entries).
pub fn sparse_dense_cwise_add(sp: &SparseOutput, dense: impl Into<Output>) -> Result<SparseOutput> {
    build(Cwise::Add, sp, dense.into())
}

fn invalid(msg: String) -> Error {
    Error::invalid_argument(msg)
}

struct CwiseKernel(Cwise);

impl Kernel for CwiseKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (indices, values, shape, dense) =
            (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        if indices.rank() != 2 {
            return Err(invalid(format!(
                "Input sp_indices should be a matrix but received shape: {}",
                format_dims(indices.shape())
            )));
        }
        if values.rank() != 1 || shape.rank() != 1 {
            return Err(invalid(format!(
                "Inputs sp_values and sp_shape should be vectors but received shapes: {} and {}",
                format_dims(values.shape()),
                format_dims(shape.shape())
            )));
        }
        let (nnz, rank) = (indices.shape()[0], indices.shape()[1]);
        if values.shape()[0] != nnz {
            return Err(invalid(format!(
                "The first dimension of values and indices should match. ({} vs. {nnz})",
                values.shape()[0]
            )));
        }
        if shape.shape()[0] != rank {
            return Err(invalid(format!(
                "Number of dimensions must match second dimension of indices. Got {} \
                 dimensions, indices shape: {}",
                shape.shape()[0],
                format_dims(indices.shape())
            )));
        }
        if rank == 0 {
            return Err(invalid(
                "The shape argument requires at least one element.".into(),
            ));
        }
        let lhs = build_shape(shape.as_slice::<i64>()?)?;
        let rhs = dense.shape();
        let bcast = broadcast_dims(&lhs, rhs).ok_or_else(|| {
            let join = |d: &[usize]| d.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
            invalid(format!(
                "SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible \
                 shapes: [{}] vs. [{}]",
                join(&lhs),
                join(rhs)
            ))
        })?;
        if rank > 5 {
            return Err(invalid(format!(
                "Only tensors with ranks between 1 and 5 are currently supported.  Tensor \
                 rank: {rank}"
            )));
        }
        let offsets = dense_offsets(indices.as_slice::<i64>()?, &bcast, rhs)?;
        let out = weir_graph::match_real_dtype!(values.dtype(), T => apply::<T>(self.0, values, dense, &offsets)?,
            _ => return Err(invalid(format!("{} does not support {}", self.0.op_type(), values.dtype()))));
        ctx.set_output(0, out);
        Ok(())
    }
}

/// The broadcast shape of `lhs` and `rhs` when `rhs` broadcasts to `lhs` only (TensorFlow's
/// `BCast` validity plus its `VecGreaterEq`): `None` otherwise.
fn broadcast_dims(lhs: &[usize], rhs: &[usize]) -> Option<Vec<usize>> {
    if lhs.len() < rhs.len() {
        return None;
    }
    let pad = lhs.len() - rhs.len();
    let mut out = lhs.to_vec();
    for (i, &r) in rhs.iter().enumerate() {
        let l = lhs[pad + i];
        if l < r {
            return None;
        }
        out[pad + i] = match (l, r) {
            _ if l == r => l,
            (1, _) => r,
            (_, 1) => l,
            _ => return None,
        };
    }
    Some(out)
}

/// For each sparse index, the flat offset of the dense entry it meets, after TensorFlow's bound
/// check against the broadcast shape.
fn dense_offsets(ix: &[i64], bcast: &[usize], rhs: &[usize]) -> Result<Vec<usize>> {
    let rank = bcast.len();
    let pad = rank - rhs.len();
    let mut strides = vec![0usize; rank];
    let mut s = 1usize;
    for d in (pad..rank).rev() {
        let r = rhs[d - pad];
        strides[d] = if r == 1 { 0 } else { s };
        s *= r;
    }
    ix.chunks_exact(rank.max(1))
        .map(|idx| {
            let ok = idx
                .iter()
                .zip(bcast)
                .all(|(&x, &d)| x >= 0 && (x as u64) < d as u64);
            if !ok {
                return Err(invalid(
                    "Provided indices are out-of-bounds w.r.t. dense side with broadcasted shape"
                        .into(),
                ));
            }
            Ok(idx
                .iter()
                .zip(&strides)
                .map(|(&x, &st)| x as usize * st)
                .sum())
        })
        .collect()
}

fn apply<T: Real>(
    kind: Cwise,
    values: &Tensor,
    dense: &Tensor,
    offsets: &[usize],
) -> Result<Tensor> {
    let (v, d) = (values.as_slice::<T>()?, dense.as_slice::<T>()?);
    let mut out = Vec::with_capacity(offsets.len());
    for (&x, &o) in v.iter().zip(offsets) {
        let y = d[o];
        out.push(match kind {
            Cwise::Mul => x.mul(y),
            Cwise::Add => x.add(y),
            Cwise::Div => {
                if y.is_zero() {
                    return Err(invalid(
                        "SparseDenseCwiseDiv cannot divide by zero,but input dense tensor \
                         contains zero "
                            .into(),
                    ));
                }
                x.div(y)
            }
        });
    }
    Tensor::from_vec(&[out.len()], out)
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let ix = ctx.with_rank(0, 2)?;
    ctx.set_output(0, Shape::new(vec![ix.dim(0)]));
    Ok(())
}

pub(super) fn register() {
    for kind in [Cwise::Mul, Cwise::Div, Cwise::Add] {
        register_op(
            OpDef::new(kind.op_type())
                .input("sp_indices", ArgType::Fixed(DType::I64))
                .input("sp_values", ArgType::Attr("T"))
                .input("sp_shape", ArgType::Fixed(DType::I64))
                .input("dense", ArgType::Attr("T"))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", DType::REAL_NUMBER)
                .shape_fn(shape_fn),
        );
    }
    register_kernel("SparseDenseCwiseMul", |_| {
        Ok(Box::new(CwiseKernel(Cwise::Mul)))
    });
    register_kernel("SparseDenseCwiseDiv", |_| {
        Ok(Box::new(CwiseKernel(Cwise::Div)))
    });
    register_kernel("SparseDenseCwiseAdd", |_| {
        Ok(Box::new(CwiseKernel(Cwise::Add)))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_broadcasts_to_sparse_only() {
        assert_eq!(broadcast_dims(&[2, 3], &[3]), Some(vec![2, 3]));
        assert_eq!(broadcast_dims(&[2, 3], &[2, 1]), Some(vec![2, 3]));
        assert_eq!(broadcast_dims(&[2, 3], &[]), Some(vec![2, 3]));
        assert_eq!(broadcast_dims(&[2, 3], &[3, 3]), None);
        assert_eq!(broadcast_dims(&[3], &[1, 3]), None);
        assert_eq!(broadcast_dims(&[4, 3], &[2, 3]), None);
    }

    #[test]
    fn offsets_skip_broadcast_dims_and_check_bounds() {
        // dense [2, 1] against sparse [2, 3]: column ignored.
        let o = dense_offsets(&[1, 2, 0, 1], &[2, 3], &[2, 1]).unwrap();
        assert_eq!(o, vec![1, 0]);
        assert!(dense_offsets(&[0, 3], &[2, 3], &[3]).is_err());
        assert!(dense_offsets(&[-1, 0], &[2, 3], &[3]).is_err());
    }

    #[test]
    fn dividing_by_a_zero_entry_fails() {
        let v = Tensor::from_vec(&[1], vec![1.0f32]).unwrap();
        let d = Tensor::from_vec(&[2], vec![0.0f32, 2.0]).unwrap();
        assert!(apply::<f32>(Cwise::Div, &v, &d, &[0]).is_err());
        let r = apply::<f32>(Cwise::Div, &v, &d, &[1]).unwrap();
        assert_eq!(r.to_vec::<f32>().unwrap(), [0.5]);
    }
}
