//! `SparseSlice`: the entries of a sparse tensor inside a box, re-based at its corner.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Result, Shape, Tensor,
};

use super::checks::{dims_of, sparse_shapes};
use super::tensors_map::take_values;
use super::SparseOutput;
use crate::array::IndexArg;

/// `tf.sparse.slice(sp_input, start, size)` (op `SparseSlice`): the entries `x` with
/// `start <= x < start + size` in every dim, at `x - start`, in input order; the dense shape is
/// `size` clipped to the input's bounds. `start` and `size` are int64 vectors of the input's
/// rank (lists become constants).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_slice, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let sp = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[2, 2], vec![0i64, 2, 1, 5])?)?,
///     constant(&g, vec![1i32, 2])?,
///     constant(&g, vec![2i64, 7])?,
/// )?;
/// let part = sparse_slice(&sp, [0, 4], [2, 3])?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&part.indices)?.to_vec::<i64>()?, [1, 1]);
/// assert_eq!(sess.eval(&part.dense_shape)?.to_vec::<i64>()?, [2, 3]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_slice(
    sp: &SparseOutput,
    start: impl Into<IndexArg>,
    size: impl Into<IndexArg>,
) -> Result<SparseOutput> {
    let g = sp.graph().clone();
    let start = int64_arg(&g, start.into())?;
    let size = int64_arg(&g, size.into())?;
    crate::util::same_graph(&[&sp.indices, &start, &size])?;
    let _scope = g.name_scope("SparseSlice");
    let op = crate::new_op(&g, "SparseSlice")
        .input(&sp.indices)
        .input(&sp.values)
        .input(&sp.dense_shape)
        .input(start)
        .input(size)
        .build()?;
    SparseOutput::from_op(&op)
}

/// An index argument as the int64 tensor TensorFlow's Python converts it to.
pub(super) fn int64_arg(g: &weir_graph::Graph, a: IndexArg) -> Result<weir_graph::Output> {
    match a {
        IndexArg::List(v) => crate::array::constant(g, Tensor::from(v)),
        IndexArg::Tensor(t) if t.dtype() == DType::I64 => Ok(t),
        IndexArg::Tensor(t) => Err(Error::invalid_argument(format!(
            "Tensor conversion requested dtype int64 for Tensor with dtype {}: {}",
            t.dtype(),
            t.name()
        ))),
    }
}

/// The output shape of a slice of `shape` (TensorFlow's `SparseTensor::Slice`).
fn sliced_shape(shape: &[i64], start: &[i64], size: &[i64]) -> Result<Vec<i64>> {
    let mut out = Vec::with_capacity(shape.len());
    for ((&d, &b), &s) in shape.iter().zip(start).zip(size) {
        if s < 0 {
            return Err(Error::invalid_argument(format!(
                "Expected a non-negative size, got {s}"
            )));
        }
        out.push(if b < d.saturating_sub(s) {
            s
        } else if b < d {
            d.wrapping_sub(b)
        } else {
            0
        });
    }
    Ok(out)
}

struct SliceKernel;

impl Kernel for SliceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs: Vec<Tensor> = ctx.inputs().to_vec();
        let (indices, values, shape) = (&inputs[0], &inputs[1], &inputs[2]);
        let (start_t, size_t) = (&inputs[3], &inputs[4]);
        let (n, rank) = sparse_shapes(indices, values, shape)?;
        for (what, t) in [("start", start_t), ("size", size_t)] {
            if t.rank() != 1 {
                return Err(Error::invalid_argument(format!(
                    "Input {what} should be a vector but received shape {}",
                    dims_of(t)
                )));
            }
        }
        for (what, t) in [("start", start_t), ("size", size_t)] {
            if t.num_elements() != rank {
                return Err(Error::invalid_argument(format!(
                    "Expected {what} to be a vector of length {rank} but got length {}",
                    t.num_elements()
                )));
            }
        }
        let dense = shape.to_vec::<i64>()?;
        if let Some(&d) = dense.iter().find(|&&d| d < 0) {
            return Err(Error::invalid_argument(format!(
                "Expected shape dimensions to be non-negative, got {d}"
            )));
        }
        let start = start_t.to_vec::<i64>()?;
        let size = size_t.to_vec::<i64>()?;
        let out_shape = sliced_shape(&dense, &start, &size)?;
        let ix = indices.as_slice::<i64>()?;
        let mut keep = Vec::new();
        let mut out_ix = Vec::new();
        for i in 0..n {
            let row = &ix[i * rank..(i + 1) * rank];
            let inside = row
                .iter()
                .zip(start.iter().zip(&size))
                .all(|(&x, (&b, &s))| x >= b && x < b.saturating_add(s));
            if inside {
                keep.push(i);
                out_ix.extend(row.iter().zip(&start).map(|(&x, &b)| x.wrapping_sub(b)));
            }
        }
        ctx.set_output(0, Tensor::from_vec(&[keep.len(), rank], out_ix)?);
        ctx.set_output(1, take_values(values, &keep)?);
        ctx.set_output(2, Tensor::from(out_shape));
        Ok(())
    }
}

/// TensorFlow's `NumElements` of a static shape: known only when every dim is.
pub(super) fn num_elements(s: &Shape) -> Option<usize> {
    s.dims()?
        .iter()
        .try_fold(1usize, |acc, d| d.map(|d| acc * d))
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let shape = ctx.input_shape(2).clone();
    ctx.set_output(0, Shape::new(vec![None, num_elements(&shape)]));
    ctx.set_output(1, Shape::new(vec![None]));
    ctx.set_output(2, shape);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("SparseSlice")
            .input("indices", ArgType::Fixed(DType::I64))
            .input("values", ArgType::Attr("T"))
            .input("shape", ArgType::Fixed(DType::I64))
            .input("start", ArgType::Fixed(DType::I64))
            .input("size", ArgType::Fixed(DType::I64))
            .output("output_indices", ArgType::Fixed(DType::I64))
            .output("output_values", ArgType::Attr("T"))
            .output("output_shape", ArgType::Fixed(DType::I64))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(shape_fn),
    );
    register_kernel("SparseSlice", |_| Ok(Box::new(SliceKernel)));
}

#[cfg(test)]
mod tests {
    use super::sliced_shape;

    #[test]
    fn clips_like_tensorflow() {
        assert_eq!(sliced_shape(&[4, 7], &[1, 3], &[10, 10]).unwrap(), [3, 4]);
        assert_eq!(sliced_shape(&[4, 7], &[5, 0], &[2, 2]).unwrap(), [0, 2]);
        assert_eq!(sliced_shape(&[4, 7], &[-1, 0], &[2, 2]).unwrap(), [2, 2]);
        assert_eq!(
            sliced_shape(&[3, 2], &[1, 1], &[1 << 62, 1 << 62]).unwrap(),
            [2, 1]
        );
        assert_eq!(
            sliced_shape(&[4, 7], &[0, 0], &[2, -2])
                .unwrap_err()
                .message(),
            "Expected a non-negative size, got -2"
        );
    }
}
