//! `SparseFillEmptyRows`: gives every empty row of a sparse tensor one default-valued entry.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result, Shape,
    Tensor, TensorType,
};

use super::checks::{bounded, dims_of};
use super::SparseOutput;

/// `tf.sparse.fill_empty_rows(sp_input, default_value)` (op `SparseFillEmptyRows`): `sp` with
/// an entry `[row, 0, ..., 0]` holding `default_value` (a scalar of the values' dtype) added for
/// every row without one, rows in order; and the bool `[dense_shape[0]]` empty-row indicator.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_fill_empty_rows, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let sp = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[1, 2], vec![1i64, 1])?)?,
///     constant(&g, vec![5.0f32])?,
///     constant(&g, vec![3i64, 2])?,
/// )?;
/// let (filled, empty) = sparse_fill_empty_rows(&sp, constant(&g, 0.0f32)?)?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&filled.values)?.to_vec::<f32>()?, [0.0, 5.0, 0.0]);
/// assert_eq!(sess.eval(&empty)?.to_vec::<bool>()?, [true, false, true]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_fill_empty_rows(
    sp: &SparseOutput,
    default_value: impl Into<Output>,
) -> Result<(SparseOutput, Output)> {
    let d = default_value.into();
    let g = crate::util::same_graph(&[&sp.indices, &d])?.clone();
    if d.dtype() != sp.dtype() {
        return Err(Error::invalid_argument(format!(
            "Tensor conversion requested dtype {} for Tensor with dtype {}: {}",
            sp.dtype(),
            d.dtype(),
            d.name()
        )));
    }
    let _scope = g.name_scope("SparseFillEmptyRows");
    let op = crate::new_op(&g, "SparseFillEmptyRows")
        .input(&sp.indices)
        .input(&sp.values)
        .input(&sp.dense_shape)
        .input(d)
        .build()?;
    let out = SparseOutput {
        indices: op.output(0)?,
        values: op.output(1)?,
        dense_shape: sp.dense_shape.clone(),
    };
    Ok((out, op.output(2)?))
}

/// Where each output entry comes from: an input entry, or the default for a row.
#[derive(Clone, Copy)]
enum Source {
    Entry(usize),
    Default,
}

fn fill_values<T: TensorType>(values: &Tensor, default: &Tensor, src: &[Source]) -> Result<Tensor> {
    let v = values.as_slice::<T>()?;
    let d = default.to_scalar::<T>()?;
    Tensor::from_vec(
        &[src.len()],
        src.iter()
            .map(|s| match s {
                Source::Entry(i) => v[*i].clone(),
                Source::Default => d.clone(),
            })
            .collect(),
    )
}

fn check_inputs(indices: &Tensor, values: &Tensor, shape: &Tensor, default: &Tensor) -> Result<()> {
    let bad = |m: String| Err(Error::invalid_argument(m));
    if shape.rank() != 1 {
        return bad(format!(
            "dense_shape must be a vector, saw: {}",
            dims_of(shape)
        ));
    }
    if indices.rank() != 2 {
        return bad(format!(
            "indices must be a matrix, saw: {}",
            dims_of(indices)
        ));
    }
    if values.rank() != 1 {
        return bad(format!("values must be a vector, saw: {}", dims_of(values)));
    }
    if indices.shape()[0] != values.shape()[0] {
        return bad(format!(
            "The length of `values` ({}) must match the first dimension of `indices` ({}).",
            values.shape()[0],
            indices.shape()[0]
        ));
    }
    if indices.shape()[1] != shape.shape()[0] {
        return bad(format!(
            "The length of `dense_shape` ({}) must match the second dimension of `indices` ({}).",
            shape.shape()[0],
            indices.shape()[1]
        ));
    }
    if default.rank() != 0 {
        return bad(format!(
            "default_value must be a scalar, saw: {}",
            dims_of(default)
        ));
    }
    if shape.num_elements() == 0 {
        return bad("Dense shape cannot be empty.".to_string());
    }
    Ok(())
}

struct FillEmptyRowsKernel;

impl Kernel for FillEmptyRowsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (indices, values) = (ctx.input(0).clone(), ctx.input(1).clone());
        let (shape, default) = (ctx.input(2).clone(), ctx.input(3).clone());
        let (indices, values, shape, default) = (&indices, &values, &shape, &default);
        check_inputs(indices, values, shape, default)?;
        let (n, rank) = (indices.shape()[0], indices.shape()[1]);
        let dense = shape.to_vec::<i64>()?;
        if let Some(&d) = dense.iter().find(|&&d| d < 0) {
            return Err(Error::invalid_argument(format!(
                "Expected shape dimensions to be non-negative, got {d}"
            )));
        }
        let dense_rows = dense[0];
        let dt = values.dtype();
        if dense_rows == 0 {
            if n != 0 {
                return Err(Error::invalid_argument(format!(
                    "Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = {n}"
                )));
            }
            ctx.set_output(0, Tensor::from_vec(&[0, rank], Vec::<i64>::new())?);
            ctx.set_output(1, Tensor::zeros(dt, &[0])?);
            ctx.set_output(2, Tensor::from_vec(&[0], Vec::<bool>::new())?);
            ctx.set_output(3, Tensor::from_vec(&[0], Vec::<i64>::new())?);
            return Ok(());
        }
        let rows = bounded(dense_rows as usize, "SparseFillEmptyRows")?;
        let ix = indices.as_slice::<i64>()?;
        let mut counts = vec![0usize; rows];
        let mut ordered = true;
        let mut last = 0i64;
        for i in 0..n {
            let row = ix[i * rank];
            if row < 0 || row >= dense_rows {
                return Err(Error::invalid_argument(format!(
                    "indices({i}, 0) is invalid: {row} >= {dense_rows}"
                )));
            }
            counts[row as usize] += 1;
            ordered &= row >= last;
            last = row;
        }
        let empty: Vec<bool> = counts.iter().map(|&c| c == 0).collect();
        let all_full = !empty.iter().any(|&e| e);
        if all_full && ordered {
            ctx.set_output(0, indices.clone());
            ctx.set_output(1, values.clone());
            ctx.set_output(2, Tensor::from_vec(&[rows], empty)?);
            ctx.set_output(3, Tensor::from_vec(&[n], (0..n as i64).collect())?);
            return Ok(());
        }
        // Row r's entries start at start[r]; an empty row holds one default entry.
        let mut start = Vec::with_capacity(rows);
        let mut total = 0usize;
        for &c in &counts {
            start.push(total);
            total += c.max(1);
        }
        bounded(total.saturating_mul(rank), "SparseFillEmptyRows")?;
        let mut src = vec![Source::Default; total];
        let mut out_ix = vec![0i64; total * rank];
        let mut filled = vec![0usize; rows];
        let mut reverse = Vec::with_capacity(n);
        for i in 0..n {
            let row = ix[i * rank] as usize;
            let at = start[row] + filled[row];
            filled[row] += 1;
            src[at] = Source::Entry(i);
            out_ix[at * rank..(at + 1) * rank].copy_from_slice(&ix[i * rank..(i + 1) * rank]);
            reverse.push(at as i64);
        }
        for (row, _) in empty.iter().enumerate().filter(|(_, &e)| e) {
            out_ix[start[row] * rank] = row as i64;
        }
        let out_values = weir_graph::match_data_dtype!(dt, T => fill_values::<T>(values, default, &src)?,
            _ => return Err(Error::invalid_argument(format!("SparseFillEmptyRows does not support {dt}"))));
        ctx.set_output(0, Tensor::from_vec(&[total, rank], out_ix)?);
        ctx.set_output(1, out_values);
        ctx.set_output(2, Tensor::from_vec(&[rows], empty)?);
        ctx.set_output(3, Tensor::from_vec(&[n], reverse)?);
        Ok(())
    }
}

/// Two dims that must agree, with TensorFlow's `Merge` message.
pub(super) fn merge_dim(a: Option<usize>, b: Option<usize>) -> Result<Option<usize>> {
    match (a, b) {
        (Some(x), Some(y)) if x != y => Err(Error::invalid_argument(format!(
            "Dimensions must be equal, but are {x} and {y}"
        ))),
        _ => Ok(a.or(b)),
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let idx = ctx.with_rank(0, 2)?;
    let vals = ctx.with_rank(1, 1)?;
    let shape = ctx.with_rank(2, 1)?;
    ctx.with_rank(3, 0)?;
    let n = merge_dim(idx.dim(0), vals.dim(0))?;
    merge_dim(idx.dim(1), shape.dim(0))?;
    if shape.dim(0) == Some(0) {
        return Err(Error::invalid_argument("dense_shape must not be empty"));
    }
    let dense = crate::random::shape_from_input(ctx, 2)?;
    let rows = if dense.rank().is_some_and(|r| r > 0) {
        dense.dim(0)
    } else {
        None
    };
    ctx.set_output(0, Shape::new(vec![None, shape.dim(0)]));
    ctx.set_output(1, Shape::new(vec![None]));
    ctx.set_output(2, Shape::new(vec![rows]));
    ctx.set_output(3, Shape::new(vec![n]));
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("SparseFillEmptyRows")
            .input("indices", ArgType::Fixed(DType::I64))
            .input("values", ArgType::Attr("T"))
            .input("dense_shape", ArgType::Fixed(DType::I64))
            .input("default_value", ArgType::Attr("T"))
            .output("output_indices", ArgType::Fixed(DType::I64))
            .output("output_values", ArgType::Attr("T"))
            .output("empty_row_indicator", ArgType::Fixed(DType::Bool))
            .output("reverse_index_map", ArgType::Fixed(DType::I64))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(shape_fn),
    );
    register_kernel("SparseFillEmptyRows", |_| Ok(Box::new(FillEmptyRowsKernel)));
}

#[cfg(test)]
mod tests {
    use super::merge_dim;

    #[test]
    fn merges_dims_like_tensorflow() {
        assert_eq!(merge_dim(None, Some(3)).unwrap(), Some(3));
        assert_eq!(
            merge_dim(Some(1), Some(2)).unwrap_err().message(),
            "Dimensions must be equal, but are 1 and 2"
        );
    }
}
