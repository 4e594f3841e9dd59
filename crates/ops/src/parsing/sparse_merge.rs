//! `SparseFeatureMerge`: builds a `SparseFeature`'s sparse tensor from the VarLen features of
//! its indices and values, as Python's `sparse_merge` (concat of the row indices with the ids,
//! then `SparseReorder`) does for `tf.io.SparseFeature`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, match_data_dtype, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext,
    Kernel, Node, OpContext, OpDef, Result, Shape, SparseTensor, Tensor,
};

use super::features::SparseFeatureOutput;

/// Adds the merge of `ids` (one VarLen int64 feature per dimension) and `values` (a VarLen
/// feature) into a sparse tensor of dense shape `batch dims + sizes`.
pub(crate) fn sparse_feature_merge(
    ids: &[SparseFeatureOutput],
    values: &SparseFeatureOutput,
    sizes: &[i64],
    already_sorted: bool,
) -> Result<SparseFeatureOutput> {
    let first = ids
        .first()
        .ok_or_else(|| Error::invalid_argument("A SparseFeature needs at least one index key"))?;
    let g = first.indices.graph().clone();
    let op = crate::new_op(&g, "SparseFeatureMerge")
        .input(&first.indices)
        .input(&first.dense_shape)
        .inputs(ids.iter().map(|s| &s.values))
        .input(&values.values)
        .attr("num_ids", ids.len())
        .attr("sizes", sizes.to_vec())
        .attr("already_sorted", already_sorted)
        .build()?;
    Ok(SparseFeatureOutput {
        indices: op.output(0)?,
        values: op.output(1)?,
        dense_shape: op.output(2)?,
    })
}

/// The static dense shape that `dense_shape` holds when it is a `SparseFeatureMerge`'s: the
/// batch dims unknown, then the feature's sizes (what TensorFlow's `constant_value_as_shape`
/// reads from the concat `sparse_merge` builds).
pub(crate) fn merged_dense_shape(dense_shape: &weir_graph::Output) -> Option<Shape> {
    let g = dense_shape.graph();
    let node = g.node(dense_shape.node_id());
    if node.op_type() != "SparseFeatureMerge" || dense_shape.index() != 2 {
        return None;
    }
    let sizes: Vec<i64> = node.attr("sizes").ok()?;
    let (src, at) = *node.inputs().get(1)?;
    let rank = g.node(src).output_shapes().get(at)?.dim(0)?;
    let mut dims = vec![None; rank.checked_sub(1)?];
    dims.extend(sizes.iter().map(|&s| usize::try_from(s).ok()));
    Some(Shape::new(dims))
}

/// The merge itself: indices `[row prefix of indices, ids...]`, sorted unless `already_sorted`.
pub fn merge_sparse(
    indices: &Tensor,
    dense_shape: &Tensor,
    ids: &[&Tensor],
    values: &Tensor,
    sizes: &[i64],
    already_sorted: bool,
) -> Result<SparseTensor> {
    let ix = indices.as_slice::<i64>()?;
    let shape = indices.shape();
    if shape.len() != 2 || shape[1] == 0 {
        return Err(Error::invalid_argument(format!(
            "indices must be a matrix with at least one column, got shape {}",
            format_dims(shape)
        )));
    }
    let (n, r) = (shape[0], shape[1]);
    let prefix = r - 1;
    for (j, t) in ids.iter().enumerate() {
        if t.num_elements() != n {
            return Err(Error::invalid_argument(format!(
                "ConcatOp : Dimension 0 in both shapes must be equal: shape[0] = [{n},{prefix}] vs. shape[{}] = [{},1]",
                j + 1,
                t.num_elements()
            )));
        }
    }
    if values.num_elements() != n {
        return Err(Error::invalid_argument(format!(
            "Number of elements in indices ({n}) and values ({}) do not match",
            values.num_elements()
        )));
    }
    let width = prefix + ids.len();
    let id_slices = ids
        .iter()
        .map(|t| t.as_slice::<i64>())
        .collect::<Result<Vec<_>>>()?;
    let mut out = Vec::with_capacity(n * width);
    for i in 0..n {
        out.extend_from_slice(&ix[i * r..i * r + prefix]);
        out.extend(id_slices.iter().map(|s| s[i]));
    }
    let ds = dense_shape.as_slice::<i64>()?;
    let mut new_shape: Vec<i64> = ds[..ds.len().min(prefix)].to_vec();
    new_shape.extend_from_slice(sizes);
    let (out, values) = if already_sorted {
        (out, values.clone())
    } else {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| {
            out[a * width..(a + 1) * width].cmp(&out[b * width..(b + 1) * width])
        });
        let sorted_ix: Vec<i64> = order
            .iter()
            .flat_map(|&i| out[i * width..(i + 1) * width].iter().copied())
            .collect();
        let vals = match_data_dtype!(values.dtype(), T => {
            let v = values.as_slice::<T>()?;
            Tensor::from_vec(&[n], order.iter().map(|&i| &v[i]).cloned().collect::<Vec<T>>())?
        }, _ => return Err(Error::invalid_argument("SparseFeature values cannot be resources")));
        (sorted_ix, vals)
    };
    Ok(SparseTensor {
        indices: Tensor::from_vec(&[n, width], out)?,
        values: values.reshape(&[n])?,
        dense_shape: Tensor::from(new_shape),
    })
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let k: i64 = ctx.attr("num_ids")?;
    let rank = ctx
        .input_shape(0)
        .dim(1)
        .map(|r| r.saturating_sub(1) + k as usize);
    ctx.set_output(0, Shape::new(vec![None, rank]));
    ctx.set_output(1, Shape::new(vec![None]));
    ctx.set_output(2, Shape::new(vec![rank]));
    Ok(())
}

struct MergeKernel {
    sizes: Vec<i64>,
    sorted: bool,
}

impl Kernel for MergeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let n = ctx.num_inputs();
        let ids: Vec<&Tensor> = ctx.inputs()[2..n - 1].iter().collect();
        let sp = merge_sparse(
            ctx.input(0),
            ctx.input(1),
            &ids,
            ctx.input(n - 1),
            &self.sizes,
            self.sorted,
        )?;
        ctx.set_output(0, sp.indices);
        ctx.set_output(1, sp.values);
        ctx.set_output(2, sp.dense_shape);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(MergeKernel {
        sizes: node.attr("sizes")?,
        sorted: node.attr("already_sorted")?,
    }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("SparseFeatureMerge")
            .input("indices", ArgType::Fixed(DType::I64))
            .input("dense_shape", ArgType::Fixed(DType::I64))
            .input(
                "ids",
                ArgType::RepeatedFixed {
                    count: "num_ids",
                    dtype: DType::I64,
                },
            )
            .input("values", ArgType::Attr("T"))
            .output("sparse_indices", ArgType::Fixed(DType::I64))
            .output("sparse_values", ArgType::Attr("T"))
            .output("sparse_shape", ArgType::Fixed(DType::I64))
            .type_attr("T", super::features::FEATURE_TYPES)
            .attr("num_ids", AttrKind::Int, None)
            .attr("sizes", AttrKind::Ints, None)
            .attr(
                "already_sorted",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .shape_fn(shape_fn),
    );
    register_kernel("SparseFeatureMerge", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_and_sorts() {
        let ix = Tensor::from_vec(&[3, 2], vec![0i64, 0, 0, 1, 1, 0]).unwrap();
        let shape = Tensor::from(vec![2i64, 2]);
        let ids = Tensor::from(vec![7i64, 2, 4]);
        let vals = Tensor::from(vec![1.0f32, 2.0, 3.0]);
        let sp = merge_sparse(&ix, &shape, &[&ids], &vals, &[5], false).unwrap();
        assert_eq!(sp.indices.to_vec::<i64>().unwrap(), vec![0, 2, 0, 7, 1, 4]);
        assert_eq!(sp.values.to_vec::<f32>().unwrap(), vec![2.0, 1.0, 3.0]);
        assert_eq!(sp.dense_shape.to_vec::<i64>().unwrap(), vec![2, 5]);
        let e = merge_sparse(
            &ix,
            &shape,
            &[&ids],
            &Tensor::from(vec![1.0f32]),
            &[5],
            false,
        )
        .unwrap_err();
        assert_eq!(
            e.message(),
            "Number of elements in indices (3) and values (1) do not match"
        );
    }
}
