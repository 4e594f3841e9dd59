//! Small ops the `tf.train` input helpers need: keeping or dropping rows before an enqueue
//! (`keep_input`), a queue's fill fraction, `range(limit)`, the size of dimension 0, gathering
//! one row and a non-empty assertion.
//!
//! They stand in for graph pieces TensorFlow builds from general ops (`cond`,
//! `dynamic_partition`, `cast`, `range`, `shape`, `gather`, `Assert`), so the
//! input pipelines do not depend on the general op library. Op types start with `_` (weir
//! internal).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, match_data_dtype, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext,
    Kernel, OpContext, OpDef, Output, Result, Shape, Tensor, TensorType,
};

fn graph_of(x: &Output) -> weir_graph::Graph {
    x.graph().clone()
}

/// Keeps the rows of `tensors` that `keep` selects, ready for an `enqueue_many`: with
/// `expand`, each tensor is one element and becomes a batch of 1 row (or 0 when `keep` is a
/// false scalar); otherwise a scalar `keep` keeps all rows or none and a vector `keep` filters
/// rows (TensorFlow's `cond(keep, enqueue, no_op)` and `dynamic_partition`).
pub fn keep_input_rows(
    keep: &Output,
    tensors: &[Output],
    expand: bool,
    name: Option<&str>,
) -> Result<Vec<Output>> {
    let g = graph_of(keep);
    // TensorFlow refuses node names that start with '_', the op type's default.
    let op = crate::new_op(&g, "_KeepInputRows")
        .name(name.unwrap_or("keep_input"))
        .input(keep)
        .inputs(tensors)
        .attr("expand", expand)
        .build()?;
    Ok(op.outputs())
}

/// The queue-fill summary TensorFlow's producers and batchers add: `full = float(max(0, size -
/// min_after_dequeue)) * (1 / (capacity - min_after_dequeue))`, summarized as the scalar `tag`
/// (e.g. `batch/fraction_of_32_full`) in `SUMMARIES`. Returns the `full` tensor.
pub fn fill_fraction(
    size: &Output,
    capacity: i64,
    min_after_dequeue: i64,
    tag: &str,
) -> Result<Output> {
    let g = graph_of(size);
    let zero = crate::array::constant(&g, 0i32)?;
    let mad = crate::array::constant(&g, min_after_dequeue as i32)?;
    let over = crate::math::maximum(&zero, &crate::math::sub(size, &mad)?)?;
    let scale = crate::array::constant(&g, 1.0f32 / (capacity - min_after_dequeue) as f32)?;
    let full = crate::math::mul(&crate::math::cast(&over, DType::F32)?, &scale)?;
    crate::summary::scalar(tag, &full)?;
    Ok(full)
}

/// `tf.range(limit)` for an int32 scalar `limit`: `[0, 1, ..., limit-1]`.
pub fn range_to(limit: &Output, name: Option<&str>) -> Result<Output> {
    crate::new_op(&graph_of(limit), "_RangeTo")
        .maybe_name(name)
        .input(limit)
        .build()?
        .output(0)
}

/// `tf.shape(x)[0]` as an int32 scalar.
pub fn dim0(x: &Output, name: Option<&str>) -> Result<Output> {
    crate::new_op(&graph_of(x), "_Dim0")
        .maybe_name(name)
        .input(x)
        .build()?
        .output(0)
}

/// `tf.gather(params, index)` for an int32 scalar `index`: row `index` of `params` (no copy).
pub fn gather_row(params: &Output, index: &Output, name: Option<&str>) -> Result<Output> {
    crate::new_op(&graph_of(params), "_GatherRow")
        .maybe_name(name)
        .input(params)
        .input(index)
        .build()?
        .output(0)
}

/// `x`, after asserting that it has at least one element; otherwise InvalidArgument
/// `"assertion failed: [message]"` (TensorFlow's `Assert(size(x) > 0, [message])`).
pub fn assert_non_empty(x: &Output, message: &str, name: Option<&str>) -> Result<Output> {
    crate::new_op(&graph_of(x), "_AssertNonEmpty")
        .maybe_name(name)
        .input(x)
        .attr("message", message)
        .build()?
        .output(0)
}

struct KeepRows {
    expand: bool,
}

impl Kernel for KeepRows {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let keep = ctx.input(0).clone();
        let keep = keep.as_slice::<bool>()?;
        for i in 1..ctx.num_inputs() {
            let t = ctx.input(i).clone();
            let out = if keep.len() == 1 && ctx.input(0).rank() == 0 {
                let base = if self.expand {
                    let mut s = vec![1];
                    s.extend_from_slice(t.shape());
                    t.reshape(&s)?
                } else {
                    t
                };
                if keep[0] {
                    base
                } else {
                    base.slice_axis0(0, 0)?
                }
            } else {
                let n = t.shape().first().copied().unwrap_or(0);
                if n != keep.len() {
                    return Err(Error::invalid_argument(format!(
                        "keep_input has {} entries but the tensor has {n} rows (shape {})",
                        keep.len(),
                        format_dims(t.shape())
                    )));
                }
                let rows: Vec<usize> = (0..n).filter(|&r| keep[r]).collect();
                select_rows(&t, &rows)?
            };
            ctx.set_output(i - 1, out);
        }
        Ok(())
    }
}

fn select_rows(t: &Tensor, rows: &[usize]) -> Result<Tensor> {
    fn go<T: TensorType>(t: &Tensor, rows: &[usize]) -> Result<Tensor> {
        let src = t.as_slice::<T>()?;
        let n = t.shape()[0];
        let row = src.len().checked_div(n).unwrap_or(0);
        let mut out = Vec::with_capacity(rows.len() * row);
        for &r in rows {
            out.extend_from_slice(&src[r * row..(r + 1) * row]);
        }
        let mut shape = t.shape().to_vec();
        shape[0] = rows.len();
        Tensor::from_vec(&shape, out)
    }
    match_data_dtype!(t.dtype(), T => go::<T>(t, rows), _ => Err(Error::unimplemented("keep_input of resources")))
}

fn keep_rows_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let expand: bool = ctx.attr("expand")?;
    for i in 1..ctx.num_inputs() {
        let s = ctx.input_shape(i).clone();
        let out = match s.dims() {
            Some(d) if expand => Shape::new(d.to_vec()).with_leading(None),
            Some(d) if !d.is_empty() => Shape::new(d[1..].to_vec()).with_leading(None),
            _ => Shape::unknown(),
        };
        ctx.set_output(i - 1, out);
    }
    Ok(())
}

struct RangeTo;

impl Kernel for RangeTo {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let limit = ctx.input(0).to_scalar::<i32>()?;
        if limit < 0 {
            return Err(Error::invalid_argument(format!(
                "Requires start <= limit when delta > 0: 0/{limit}"
            )));
        }
        ctx.set_output(0, Tensor::from((0..limit).collect::<Vec<i32>>()));
        Ok(())
    }
}

struct Dim0;

impl Kernel for Dim0 {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        let d = *t.shape().first().ok_or_else(|| {
            Error::invalid_argument(
                "slice index 0 of dimension 0 out of bounds: the tensor is a scalar",
            )
        })?;
        let d = i32::try_from(d).map_err(|_| {
            Error::invalid_argument(format!("Dimension 0 ({d}) does not fit in int32"))
        })?;
        ctx.set_output(0, Tensor::scalar(d));
        Ok(())
    }
}

struct GatherRow;

impl Kernel for GatherRow {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let params = ctx.input(0).clone();
        let i = ctx.input(1).to_scalar::<i32>()?;
        let n = params.shape().first().copied().unwrap_or(0);
        if i < 0 || i as usize >= n {
            return Err(Error::invalid_argument(format!(
                "indices = {i} is not in [0, {n})"
            )));
        }
        ctx.set_output(0, params.index_axis0(i as usize)?);
        Ok(())
    }
}

struct AssertNonEmpty(String);

impl Kernel for AssertNonEmpty {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.take_input(0);
        if t.num_elements() == 0 {
            return Err(Error::invalid_argument(format!(
                "assertion failed: [{}]",
                self.0
            )));
        }
        ctx.set_output(0, t);
        Ok(())
    }
}

fn set(ctx: &mut InferenceContext<'_>, s: Shape) -> Result<()> {
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("_KeepInputRows")
            .input("keep", ArgType::Fixed(DType::Bool))
            .input("tensors", ArgType::List("T"))
            .output("kept", ArgType::List("T"))
            .attr("T", AttrKind::Types, None)
            .attr("expand", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .shape_fn(keep_rows_shape),
    );
    register_kernel("_KeepInputRows", |n| {
        Ok(Box::new(KeepRows {
            expand: n.attr("expand")?,
        }))
    });
    register_op(
        OpDef::new("_RangeTo")
            .input("limit", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Fixed(DType::I32))
            .shape_fn(|c| {
                let n = c
                    .input_const(0)
                    .and_then(|t| t.to_scalar::<i32>().ok())
                    .map(|n| n.max(0) as usize);
                set(c, Shape::new(vec![n]))
            }),
    );
    register_kernel("_RangeTo", |_| Ok(Box::new(RangeTo)));
    register_op(
        OpDef::new("_Dim0")
            .input("input", ArgType::Attr("T"))
            .output("dim", ArgType::Fixed(DType::I32))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(|c| set(c, Shape::scalar())),
    );
    register_kernel("_Dim0", |_| Ok(Box::new(Dim0)));
    register_op(
        OpDef::new("_GatherRow")
            .input("params", ArgType::Attr("T"))
            .input("index", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(|c| {
                let s = match c.input_shape(0).dims() {
                    Some(d) if !d.is_empty() => Shape::new(d[1..].to_vec()),
                    _ => Shape::unknown(),
                };
                set(c, s)
            }),
    );
    register_kernel("_GatherRow", |_| Ok(Box::new(GatherRow)));
    register_op(
        OpDef::new("_AssertNonEmpty")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .attr("message", AttrKind::Str, None)
            .stateful()
            .shape_fn(|c| {
                let s = c.input_shape(0).clone();
                set(c, s)
            }),
    );
    register_kernel("_AssertNonEmpty", |n| {
        Ok(Box::new(AssertNonEmpty(n.attr("message")?)))
    });
}
