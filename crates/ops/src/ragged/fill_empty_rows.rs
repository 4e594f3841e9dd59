//! `RaggedFillEmptyRows` and its gradient `RaggedFillEmptyRowsGrad`: the ragged form of
//! `tf.sparse.fill_empty_rows`, over value row ids instead of sparse indices.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
    Shape, Tensor, TensorType,
};

use super::checks::bounded;

/// The raw op `RaggedFillEmptyRows(value_rowids, values, nrows, default_value)`: every row of
/// `0..nrows` without a value gets one `default_value`; returns the new value row ids, values,
/// the bool `[nrows]` empty-row indicator and, for each input value, its output position (the
/// `reverse_index_map` [`ragged_fill_empty_rows_grad`] reads).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, ragged::ragged_fill_empty_rows};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let (rowids, values, empty, _) = ragged_fill_empty_rows(
///     constant(&g, [1i64, 1])?,
///     constant(&g, [5.0f32, 6.0])?,
///     constant(&g, 3i64)?,
///     constant(&g, 0.0f32)?,
/// )?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&rowids)?.to_vec::<i64>()?, [0, 1, 1, 2]);
/// assert_eq!(sess.eval(&values)?.to_vec::<f32>()?, [0.0, 5.0, 6.0, 0.0]);
/// assert_eq!(sess.eval(&empty)?.to_vec::<bool>()?, [true, false, true]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn ragged_fill_empty_rows(
    value_rowids: impl Into<Output>,
    values: impl Into<Output>,
    nrows: impl Into<Output>,
    default_value: impl Into<Output>,
) -> Result<(Output, Output, Output, Output)> {
    let (r, v, n, d) = (
        value_rowids.into(),
        values.into(),
        nrows.into(),
        default_value.into(),
    );
    let g = crate::util::same_graph(&[&r, &v, &n, &d])?.clone();
    let op = crate::new_op(&g, "RaggedFillEmptyRows")
        .input(r)
        .input(v)
        .input(n)
        .input(d)
        .build()?;
    Ok((op.output(0)?, op.output(1)?, op.output(2)?, op.output(3)?))
}

/// The raw op `RaggedFillEmptyRowsGrad(reverse_index_map, grad_values)`: the gradient of
/// [`ragged_fill_empty_rows`] for its values (`grad_values` at each value's output position)
/// and its default value (the sum of the gradients of the filled-in entries).
pub fn ragged_fill_empty_rows_grad(
    reverse_index_map: impl Into<Output>,
    grad_values: impl Into<Output>,
) -> Result<(Output, Output)> {
    let (m, gv) = (reverse_index_map.into(), grad_values.into());
    let g = crate::util::same_graph(&[&m, &gv])?.clone();
    let op = crate::new_op(&g, "RaggedFillEmptyRowsGrad")
        .input(m)
        .input(gv)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

fn pick<T: TensorType>(values: &Tensor, default: &Tensor, src: &[Option<usize>]) -> Result<Tensor> {
    let v = values.as_slice::<T>()?;
    let d = default.to_scalar::<T>()?;
    let out = src
        .iter()
        .map(|s| s.map_or_else(|| d.clone(), |i| v[i].clone()))
        .collect();
    Tensor::from_vec(&[src.len()], out)
}

struct FillKernel;

impl Kernel for FillKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (rowids_t, values, nrows_t, default) = (
            ctx.input(0).clone(),
            ctx.input(1).clone(),
            ctx.input(2).clone(),
            ctx.input(3).clone(),
        );
        let bad = |m: String| Err(Error::invalid_argument(m));
        if nrows_t.rank() != 0 {
            return bad(format!(
                "nrows must be a scalar, saw: {}",
                format_dims(nrows_t.shape())
            ));
        }
        if rowids_t.rank() != 1 {
            return bad(format!(
                "value_rowids must be a vector, saw: {}",
                format_dims(rowids_t.shape())
            ));
        }
        if values.rank() != 1 {
            return bad(format!(
                "values must be a vector, saw: {}",
                format_dims(values.shape())
            ));
        }
        let n = rowids_t.shape()[0];
        if values.shape()[0] != n {
            return bad(format!(
                "The length of `values` ({}) must match the first dimension of `value_rowids` \
                 ({n}).",
                values.shape()[0]
            ));
        }
        if default.rank() != 0 {
            return bad(format!(
                "default_value must be a scalar, saw: {}",
                format_dims(default.shape())
            ));
        }
        let nrows = nrows_t.to_scalar::<i64>()?;
        let dt = values.dtype();
        if nrows <= 0 {
            if n != 0 {
                return bad(format!(
                    "Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = {n}"
                ));
            }
            // TensorFlow's kernel gives the row ids a second dimension here.
            ctx.set_output(0, Tensor::from_vec(&[0, 1], Vec::<i64>::new())?);
            ctx.set_output(1, Tensor::zeros(dt, &[0])?);
            ctx.set_output(2, Tensor::from_vec(&[0], Vec::<bool>::new())?);
            ctx.set_output(3, Tensor::from_vec(&[0], Vec::<i64>::new())?);
            return Ok(());
        }
        let rows = bounded(nrows, DType::Bool, &[])?;
        let rowids = rowids_t.as_slice::<i64>()?;
        let mut counts = vec![0usize; rows];
        for (i, &r) in rowids.iter().enumerate() {
            if r < 0 || r >= nrows {
                return bad(format!("indices({i}, 0) is invalid: {r} >= {nrows}"));
            }
            counts[r as usize] += 1;
        }
        let mut start = Vec::with_capacity(rows);
        let mut total = 0usize;
        for &c in &counts {
            start.push(total);
            total += c.max(1);
        }
        let mut src: Vec<Option<usize>> = vec![None; total];
        let mut out_rowids = vec![0i64; total];
        let mut seen = vec![0usize; rows];
        let mut reverse = Vec::with_capacity(n);
        for (i, &r) in rowids.iter().enumerate() {
            let at = start[r as usize] + seen[r as usize];
            seen[r as usize] += 1;
            src[at] = Some(i);
            reverse.push(at as i64);
        }
        for (row, &c) in counts.iter().enumerate() {
            for k in 0..c.max(1) {
                out_rowids[start[row] + k] = row as i64;
            }
        }
        let out_values = weir_graph::match_data_dtype!(dt, T => pick::<T>(&values, &default, &src)?,
            _ => return bad(format!("RaggedFillEmptyRows does not support {dt}")));
        ctx.set_output(0, Tensor::from_vec(&[total], out_rowids)?);
        ctx.set_output(1, out_values);
        ctx.set_output(
            2,
            Tensor::from_vec(&[rows], counts.iter().map(|&c| c == 0).collect())?,
        );
        ctx.set_output(3, Tensor::from_vec(&[n], reverse)?);
        Ok(())
    }
}

fn grad<T: TensorType + std::ops::Add<Output = T> + Default>(
    map: &[i64],
    grads: &Tensor,
) -> Result<(Tensor, Tensor)> {
    let g = grads.as_slice::<T>()?;
    let n = g.len();
    let mut used = vec![false; n];
    let mut d_values = Vec::with_capacity(map.len());
    for &m in map {
        if m < 0 || m as usize >= n {
            return Err(Error::invalid_argument(format!(
                "Elements in reverse index must be in [0, {n}) but got {m}"
            )));
        }
        used[m as usize] = true;
        d_values.push(g[m as usize].clone());
    }
    let mut d_default = T::default();
    for (k, v) in g.iter().enumerate() {
        if !used[k] {
            d_default = d_default + v.clone();
        }
    }
    Ok((
        Tensor::from_vec(&[map.len()], d_values)?,
        Tensor::scalar(d_default),
    ))
}

struct GradKernel;

impl Kernel for GradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (map_t, grads) = (ctx.input(0), ctx.input(1));
        for (what, t) in [("reverse_index_map", map_t), ("grad_values", grads)] {
            if t.rank() != 1 {
                return Err(Error::invalid_argument(format!(
                    "{what} must be a vector, saw: {}",
                    format_dims(t.shape())
                )));
            }
        }
        let map = map_t.as_slice::<i64>()?;
        let dt = grads.dtype();
        let (dv, dd) = match dt {
            DType::F32 => grad::<f32>(map, grads)?,
            DType::F64 => grad::<f64>(map, grads)?,
            DType::I32 => grad::<i32>(map, grads)?,
            DType::I64 => grad::<i64>(map, grads)?,
            DType::I8 => grad::<i8>(map, grads)?,
            DType::I16 => grad::<i16>(map, grads)?,
            DType::U8 => grad::<u8>(map, grads)?,
            DType::U16 => grad::<u16>(map, grads)?,
            _ => {
                return Err(Error::unimplemented(format!(
                    "RaggedFillEmptyRowsGrad has no CPU kernel for {dt}"
                )))
            }
        };
        ctx.set_output(0, dv);
        ctx.set_output(1, dd);
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let rowids = ctx.with_rank(0, 1)?;
    ctx.with_rank(1, 1)?;
    ctx.with_rank(2, 0)?;
    ctx.with_rank(3, 0)?;
    let rows = ctx
        .input_const(2)
        .and_then(|t| t.to_scalar::<i64>().ok())
        .and_then(|n| usize::try_from(n).ok());
    ctx.set_output(0, Shape::new(vec![None]));
    ctx.set_output(1, Shape::new(vec![None]));
    ctx.set_output(2, Shape::new(vec![rows]));
    ctx.set_output(3, Shape::new(vec![rowids.dim(0)]));
    Ok(())
}

fn grad_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let map = ctx.with_rank(0, 1)?;
    ctx.with_rank(1, 1)?;
    ctx.set_output(0, Shape::new(vec![map.dim(0)]));
    ctx.set_output(1, Shape::new(vec![]));
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("RaggedFillEmptyRows")
            .input("value_rowids", ArgType::Fixed(DType::I64))
            .input("values", ArgType::Attr("T"))
            .input("nrows", ArgType::Fixed(DType::I64))
            .input("default_value", ArgType::Attr("T"))
            .output("output_value_rowids", ArgType::Fixed(DType::I64))
            .output("output_values", ArgType::Attr("T"))
            .output("empty_row_indicator", ArgType::Fixed(DType::Bool))
            .output("reverse_index_map", ArgType::Fixed(DType::I64))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(shape_fn),
    );
    register_kernel("RaggedFillEmptyRows", |_| Ok(Box::new(FillKernel)));
    register_op(
        OpDef::new("RaggedFillEmptyRowsGrad")
            .input("reverse_index_map", ArgType::Fixed(DType::I64))
            .input("grad_values", ArgType::Attr("T"))
            .output("d_values", ArgType::Attr("T"))
            .output("d_default_value", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(grad_shape_fn),
    );
    register_kernel("RaggedFillEmptyRowsGrad", |_| Ok(Box::new(GradKernel)));
}
