//! `SparseSplit`: a sparse tensor cut into pieces along one dimension.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Result, Shape, Tensor,
};

use super::checks::{dims_of, indices_in_bounds, sparse_shapes};
use super::slice::num_elements;
use super::tensors_map::take_values;
use super::SparseOutput;

/// `tf.sparse.split(sp_input, num_split, axis)` (op `SparseSplit`): `num_split` sparse tensors
/// cutting `sp` along `axis` (negative counts from the end); when the axis' size `d` is not a
/// multiple, the first `d % num_split` pieces get one more. Entries keep their input order.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_split, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let sp = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[2, 2], vec![0i64, 2, 1, 5])?)?,
///     constant(&g, vec![1i32, 2])?,
///     constant(&g, vec![2i64, 7])?,
/// )?;
/// let parts = sparse_split(&sp, 2, 1)?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&parts[1].indices)?.to_vec::<i64>()?, [1, 1]);
/// assert_eq!(sess.eval(&parts[1].dense_shape)?.to_vec::<i64>()?, [2, 3]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_split(sp: &SparseOutput, num_split: usize, axis: i64) -> Result<Vec<SparseOutput>> {
    let g = sp.graph().clone();
    let _scope = g.name_scope("SparseSplit");
    let axis = crate::array::constant(&g, axis)?;
    let op = crate::new_op(&g, "SparseSplit")
        .input(axis)
        .input(&sp.indices)
        .input(&sp.values)
        .input(&sp.dense_shape)
        .attr("num_split", num_split as i64)
        .build()?;
    (0..num_split)
        .map(|i| {
            SparseOutput::new(
                op.output(i)?,
                op.output(num_split + i)?,
                op.output(2 * num_split + i)?,
            )
        })
        .collect()
}

/// Which piece position `x` of an axis cut into `num_split` falls in, and where in it
/// (TensorFlow's `GetSliceIndex` and `GetDimensionInSlice`).
fn piece_of(x: i64, size: i64, num_split: i64) -> (i64, i64) {
    let base = size / num_split;
    let extra = size % num_split;
    let wide = extra * (base + 1);
    if x < wide {
        (x / (base + 1), x % (base + 1))
    } else {
        (extra + (x - wide) / base, (x - wide) % base)
    }
}

struct SplitKernel {
    num_split: usize,
}

impl Kernel for SplitKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs: Vec<Tensor> = ctx.inputs().to_vec();
        let (axis_t, indices, values, shape) = (&inputs[0], &inputs[1], &inputs[2], &inputs[3]);
        if indices.rank() != 2 {
            return Err(Error::invalid_argument(format!(
                "Input indices should be a matrix but received shape {}",
                dims_of(indices)
            )));
        }
        if values.rank() != 1 {
            // TensorFlow prints the indices' shape here.
            return Err(Error::invalid_argument(format!(
                "Input values should be a vector but received shape {}",
                dims_of(indices)
            )));
        }
        if shape.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "Input shape should be a vector but received shape {}",
                dims_of(shape)
            )));
        }
        let axis_in = axis_t.to_scalar::<i64>()?;
        let dense = shape.to_vec::<i64>()?;
        let rank = dense.len() as i64;
        let axis = if axis_in < 0 { rank + axis_in } else { axis_in };
        if axis < 0 || axis >= rank {
            return Err(Error::invalid_argument(format!(
                "Input axis should be in range [{}, {rank}), got {axis_in}",
                -rank
            )));
        }
        let axis = axis as usize;
        let k = self.num_split as i64;
        if k < 1 || k > dense[axis] {
            return Err(Error::invalid_argument(format!(
                "Input num_split should be between 1 and the splitting dimension size ({}), got {k}",
                dense[axis]
            )));
        }
        if let Some(&d) = dense.iter().find(|&&d| d < 0) {
            return Err(Error::invalid_argument(format!(
                "Expected a non-negative size, got {d}"
            )));
        }
        let (n, r) = sparse_shapes(indices, values, shape)?;
        let ix = indices.as_slice::<i64>()?;
        indices_in_bounds(ix, r, &dense)?;
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); self.num_split];
        let mut rows: Vec<Vec<i64>> = vec![Vec::new(); self.num_split];
        for i in 0..n {
            let row = &ix[i * r..(i + 1) * r];
            let (piece, at) = piece_of(row[axis], dense[axis], k);
            let p = piece as usize;
            members[p].push(i);
            rows[p].extend(
                row.iter()
                    .enumerate()
                    .map(|(d, &x)| if d == axis { at } else { x }),
            );
        }
        let (base, extra) = (dense[axis] / k, dense[axis] % k);
        let m = self.num_split;
        for (p, (keep, out_ix)) in members.iter().zip(rows).enumerate() {
            let mut piece_shape = dense.clone();
            piece_shape[axis] = base + i64::from((p as i64) < extra);
            ctx.set_output(p, Tensor::from_vec(&[keep.len(), r], out_ix)?);
            ctx.set_output(m + p, take_values(values, keep)?);
            ctx.set_output(2 * m + p, Tensor::from(piece_shape));
        }
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let m = ctx.attr::<i64>("num_split")?.max(0) as usize;
    let shape = ctx.input_shape(3).clone();
    for p in 0..m {
        ctx.set_output(p, Shape::new(vec![None, num_elements(&shape)]));
        ctx.set_output(m + p, Shape::new(vec![None]));
        ctx.set_output(2 * m + p, shape.clone());
    }
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("SparseSplit")
            .input("split_dim", ArgType::Fixed(DType::I64))
            .input("indices", ArgType::Fixed(DType::I64))
            .input("values", ArgType::Attr("T"))
            .input("shape", ArgType::Fixed(DType::I64))
            .output(
                "output_indices",
                ArgType::RepeatedFixed {
                    count: "num_split",
                    dtype: DType::I64,
                },
            )
            .output(
                "output_values",
                ArgType::Repeated {
                    count: "num_split",
                    ty: "T",
                },
            )
            .output(
                "output_shape",
                ArgType::RepeatedFixed {
                    count: "num_split",
                    dtype: DType::I64,
                },
            )
            .int_attr_min("num_split", 1)
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(shape_fn),
    );
    register_kernel("SparseSplit", |node| {
        Ok(Box::new(SplitKernel {
            num_split: node.attr::<i64>("num_split")?.max(0) as usize,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::piece_of;

    #[test]
    fn uneven_pieces_put_the_extra_first() {
        // 7 in 3: sizes 3, 2, 2.
        let got: Vec<(i64, i64)> = (0..7).map(|x| piece_of(x, 7, 3)).collect();
        assert_eq!(
            got,
            [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0), (2, 1)]
        );
        assert_eq!(piece_of(5, 6, 2), (1, 2));
    }
}
