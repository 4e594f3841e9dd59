//! `RaggedGather`: `tf.gather(params, indices)` when `params` is ragged, gathering whole
//! (nested) rows.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output, Result, Shape,
    Tensor,
};

use super::checks::{bounded, gather_rows, ints, set_type_default};
use super::RaggedOutput;

/// `tf.gather(params, indices)` for a ragged `params` (op `RaggedGather`): the rows of `params`
/// at `indices` (int32 or int64, any rank, its rank known when the graph is built). The result
/// has ragged rank `rank(indices) + params.ragged_rank() - 1`: dense dimensions of `indices`
/// become uniform ragged ones. A scalar index into a ragged-rank-1 `params` gives a dense row,
/// returned as `flat_values` with no row splits (Python returns a `tf.Tensor` then).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, ragged::{ragged_gather, RaggedOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let rt = RaggedOutput::from_nested_row_splits(
///     constant(&g, [1, 2, 3])?,
///     vec![constant(&g, [0i64, 2, 3])?],
/// )?; // [[1, 2], [3]]
/// let out = ragged_gather(&rt, constant(&g, [1, 0, 1])?)?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&out.flat_values)?.to_vec::<i32>()?, [3, 1, 2, 3]);
/// assert_eq!(sess.eval(&out.nested_row_splits[0])?.to_vec::<i64>()?, [0, 1, 3, 4]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn ragged_gather(params: &RaggedOutput, indices: impl Into<Output>) -> Result<RaggedOutput> {
    let indices = indices.into();
    let Some(rank) = indices.shape().rank() else {
        return Err(Error::invalid_argument(format!(
            "tf.gather on a RaggedTensor requires indices of known rank, got {}",
            indices.name()
        )));
    };
    let out_rank = (rank + params.ragged_rank()).saturating_sub(1);
    let g = params.graph().clone();
    let _scope = g.name_scope("RaggedGather");
    ragged_gather_op(
        &params.nested_row_splits,
        &params.flat_values,
        indices,
        out_rank,
    )
}

/// The raw op `RaggedGather(params_nested_splits, params_dense_values, indices,
/// OUTPUT_RAGGED_RANK)`: its `output_ragged_rank` output splits and the output values.
pub fn ragged_gather_op(
    params_nested_splits: &[Output],
    params_dense_values: &Output,
    indices: impl Into<Output>,
    output_ragged_rank: usize,
) -> Result<RaggedOutput> {
    let indices = indices.into();
    let g = params_dense_values.graph().clone();
    let op = crate::new_op(&g, "RaggedGather")
        .inputs(params_nested_splits.iter().cloned())
        .input(params_dense_values)
        .input(indices)
        .attr("PARAMS_RAGGED_RANK", params_nested_splits.len() as i64)
        .attr("OUTPUT_RAGGED_RANK", output_ragged_rank as i64)
        .build()?;
    let nested_row_splits = (0..output_ragged_rank)
        .map(|i| op.output(i))
        .collect::<Result<Vec<_>>>()?;
    Ok(RaggedOutput {
        flat_values: op.output(output_ragged_rank)?,
        nested_row_splits,
    })
}

/// The index of element `i` of a tensor of shape `dims`, as TensorFlow prints it (`[1,0]`).
fn slice_string(dims: &[usize], mut i: usize) -> String {
    let mut idx = vec![0usize; dims.len()];
    for (k, &d) in dims.iter().enumerate().rev() {
        if d > 0 {
            idx[k] = i % d;
            i /= d;
        }
    }
    let parts: Vec<String> = idx.iter().map(|x| x.to_string()).collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("[{}]", parts.join(","))
    }
}

fn validate_splits(splits: &[Vec<i64>], nvals: i64) -> Result<()> {
    let bad = |m: &str| Err(Error::invalid_argument(m.to_string()));
    for (dim, s) in splits.iter().enumerate() {
        let last = match splits.get(dim + 1) {
            Some(next) => next.len() as i64,
            None => nvals,
        };
        let (Some(&first), Some(&end)) = (s.first(), s.last()) else {
            return bad("Ragged splits may not be empty");
        };
        if first < 0 {
            return bad("Ragged splits must be non-negative");
        }
        if end > last {
            return bad("Ragged splits must not point past values");
        }
        if s.windows(2).any(|w| w[0] > w[1]) {
            return bad("Ragged splits must be sorted");
        }
    }
    Ok(())
}

/// The element at `i` of a split vector, or the error for a split pointing past the next one.
fn split_at(s: &[i64], i: i64) -> Result<i64> {
    usize::try_from(i)
        .ok()
        .and_then(|i| s.get(i).copied())
        .ok_or_else(|| Error::invalid_argument("Ragged splits must not point past values"))
}

struct RaggedGatherKernel {
    params_ragged_rank: usize,
    output_ragged_rank: usize,
}

impl Kernel for RaggedGatherKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let n = self.params_ragged_rank;
        let splits: Vec<Vec<i64>> = (0..n).map(|i| ints(ctx.input(i))).collect::<Result<_>>()?;
        let (values, indices_t) = (ctx.input(n).clone(), ctx.input(n + 1).clone());
        let indices = ints(&indices_t)?;
        let num_params = splits[0].len() as i64 - 1;
        for (i, &index) in indices.iter().enumerate() {
            if index < 0 || index >= num_params {
                return Err(Error::invalid_argument(format!(
                    "indices{} = {index} is not in [0, {num_params})",
                    slice_string(indices_t.shape(), i)
                )));
            }
        }
        if values.rank() == 0 {
            return Err(Error::invalid_argument("params.rank must be nonzero"));
        }
        validate_splits(&splits, values.shape()[0] as i64)?;
        let idims = indices_t.shape();
        let num_splits = (idims.len() + n).saturating_sub(1);
        if num_splits != self.output_ragged_rank {
            return Err(Error::invalid_argument(format!(
                "OUTPUT_RAGGED_RANK is {} but indices of rank {} into params of ragged rank {n} \
                 give {num_splits}",
                self.output_ragged_rank,
                idims.len()
            )));
        }
        let mut out: Vec<Vec<i64>> = vec![vec![0]; num_splits];
        // Dense dimensions of `indices` become uniform row splits.
        let mut nrows = 1usize;
        for dim in 0..idims.len().saturating_sub(1) {
            nrows = nrows.saturating_mul(idims[dim]);
            let width = idims[dim + 1] as i64;
            bounded(nrows as i64, DType::I64, &[nrows])?;
            out[dim].extend((1..=nrows as i64).map(|i| i * width));
        }
        let lead = idims.len() as i64 - 1;
        let mut rows: Vec<(i64, i64)> = Vec::new();
        let mut total = 0i64;
        for &index in &indices {
            let (mut start, mut limit) = (index, index + 1);
            for (dim, s) in splits.iter().enumerate() {
                let out_dim = dim as i64 + lead;
                if out_dim >= 0 {
                    let o = &mut out[out_dim as usize];
                    let delta = o.last().copied().unwrap_or(0) - split_at(s, start)?;
                    for j in start..limit {
                        o.push(split_at(s, j + 1)? + delta);
                    }
                }
                start = split_at(s, start)?;
                limit = split_at(s, limit)?;
            }
            if limit != start {
                total = total.saturating_add(limit - start);
                bounded(total, values.dtype(), &[])?;
                rows.push((start, limit));
            }
        }
        let picked: Vec<usize> = rows
            .iter()
            .flat_map(|&(a, b)| a as usize..b as usize)
            .collect();
        let splits_dt = ctx.input(0).dtype();
        for (i, s) in out.into_iter().enumerate() {
            let t = match splits_dt {
                DType::I32 => Tensor::from_vec(&[s.len()], s.iter().map(|&v| v as i32).collect())?,
                _ => Tensor::from_vec(&[s.len()], s)?,
            };
            ctx.set_output(i, t);
        }
        ctx.set_output(num_splits, gather_rows(&values, &picked)?);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(RaggedGatherKernel {
        params_ragged_rank: node.attr::<i64>("PARAMS_RAGGED_RANK")?.max(1) as usize,
        output_ragged_rank: node.attr::<i64>("OUTPUT_RAGGED_RANK")?.max(0) as usize,
    }))
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let n = ctx.attr::<i64>("PARAMS_RAGGED_RANK")? as usize;
    let out = ctx.attr::<i64>("OUTPUT_RAGGED_RANK")? as usize;
    for i in 0..n {
        ctx.with_rank(i, 1)?;
    }
    let values = ctx.input_shape(n).clone();
    if values.rank() == Some(0) {
        return Err(Error::invalid_argument(
            "Shape must be at least rank 1 but is rank 0",
        ));
    }
    if let Some(r) = ctx.input_shape(n + 1).rank() {
        if r + n != out + 1 {
            return Err(Error::invalid_argument(format!(
                "Invalid indices_rank: expected {}, got {r}",
                (out + 1).saturating_sub(n)
            )));
        }
    }
    for i in 0..out {
        ctx.set_output(i, Shape::new(vec![None]));
    }
    let v = match values.dims() {
        Some(d) => {
            let mut d = d.to_vec();
            d[0] = None;
            Shape::new(d)
        }
        None => Shape::unknown(),
    };
    ctx.set_output(out, v);
    Ok(())
}

pub(super) fn register() {
    let mut def = OpDef::new("RaggedGather")
        .input(
            "params_nested_splits",
            ArgType::Repeated {
                count: "PARAMS_RAGGED_RANK",
                ty: "Tsplits",
            },
        )
        .input("params_dense_values", ArgType::Attr("Tvalues"))
        .input("indices", ArgType::Attr("Tindices"))
        .output(
            "output_nested_splits",
            ArgType::Repeated {
                count: "OUTPUT_RAGGED_RANK",
                ty: "Tsplits",
            },
        )
        .output("output_dense_values", ArgType::Attr("Tvalues"))
        .type_attr("Tvalues", DType::ALL_DATA)
        .type_attr("Tindices", &[DType::I32, DType::I64])
        .type_attr("Tsplits", &[DType::I32, DType::I64])
        .int_attr_min("PARAMS_RAGGED_RANK", 1)
        .int_attr_min("OUTPUT_RAGGED_RANK", 0)
        .shape_fn(shape_fn);
    set_type_default(&mut def, "Tsplits", DType::I64);
    register_op(def);
    register_kernel("RaggedGather", make);
}

#[cfg(test)]
mod tests {
    use super::slice_string;

    #[test]
    fn prints_indices_like_tensorflow() {
        assert_eq!(slice_string(&[4], 1), "[1]");
        assert_eq!(slice_string(&[2, 2], 2), "[1,0]");
        assert_eq!(slice_string(&[], 0), "");
    }
}
