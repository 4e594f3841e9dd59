//! Joining along an axis, `Pack` (stack) and `ConcatV2`, and its inverse `Unpack` (unstack),
//! which splits like [`super::split`] (sharing the input's buffer along axis 0).
//!
//! Joining copies whole contiguous runs of `dim * inner` elements.

use smallvec::SmallVec;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, OpContext,
    OpDef, Output, ResourceHandle, Result, Shape, Tensor, TensorType,
};

use super::shape_util::{canonical_axis, const_i64s, scalar_i64};

/// `tf.stack(values, axis)` (op `Pack`): tensors of one shape joined along a new axis.
///
/// ```
/// # use weir_graph::{Graph, Shape};
/// # use weir_ops::array::{constant, stack};
/// let g = Graph::new();
/// let (a, b) = (constant(&g, [1, 2])?, constant(&g, [3, 4])?);
/// assert_eq!(stack(&[a, b], 1)?.shape(), Shape::known(&[2, 2]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn stack(values: &[Output], axis: i64) -> Result<Output> {
    let g = crate::util::same_graph(&values.iter().collect::<Vec<_>>())?.clone();
    crate::new_op(&g, "Pack")
        .inputs(values)
        .attr("axis", axis)
        .build()?
        .output(0)
}

/// `tf.unstack(value, num, axis)` (op `Unpack`): the slices along `axis`; `num` defaults to
/// the static size of that axis.
pub fn unstack(value: impl Into<Output>, num: Option<usize>, axis: i64) -> Result<Vec<Output>> {
    let x = value.into();
    let num = match num {
        Some(n) => n,
        None => {
            let s = x.shape();
            let r = s.rank().ok_or_else(|| {
                Error::invalid_argument(format!("Cannot infer argument `num` from shape {s}"))
            })?;
            let a = canonical_axis(axis, r)?;
            s.dim(a as isize).ok_or_else(|| {
                Error::invalid_argument(format!("Cannot infer argument `num` from shape {s}"))
            })?
        }
    };
    Ok(crate::new_op(&x.graph().clone(), "Unpack")
        .input(x)
        .attr("num", num)
        .attr("axis", axis)
        .build()?
        .outputs())
}

/// `tf.concat(values, axis)` (op `ConcatV2`): tensors joined along an existing axis; a single
/// tensor is returned through `Identity`, as TensorFlow does.
pub fn concat(values: &[Output], axis: i64) -> Result<Output> {
    let g = crate::util::same_graph(&values.iter().collect::<Vec<_>>())?.clone();
    if values.len() == 1 {
        return crate::array::identity(&values[0]);
    }
    let a = crate::array::constant(&g, axis as i32)?;
    crate::new_op(&g, "ConcatV2")
        .inputs(values)
        .input(a)
        .build()?
        .output(0)
}

/// Joins `parts` along an axis: `outer` runs, each taking `chunk(i)` contiguous elements from
/// part `i`. Nothing is allocated but the output (per-example pipelines stack a few scalars
/// per run; up to 16 parts are looked up on the stack).
fn join<T: TensorType>(
    parts: &[Tensor],
    outer: usize,
    chunk: impl Fn(usize) -> usize,
    out_shape: &[usize],
) -> Result<Tensor> {
    let mut out: Vec<T> = Vec::with_capacity(out_shape.iter().product());
    if outer == 1 {
        // A per-example stack of a few scalars: nothing to hoist.
        for (i, t) in parts.iter().enumerate() {
            out.extend_from_slice(&t.as_slice::<T>()?[..chunk(i)]);
        }
        return Tensor::from_vec(out_shape, out);
    }
    let slices = parts
        .iter()
        .map(|t| t.as_slice::<T>())
        .collect::<Result<SmallVec<[&[T]; 16]>>>()?;
    let chunks: SmallVec<[usize; 16]> = (0..parts.len()).map(chunk).collect();
    if chunks.iter().all(|&c| c == 1) {
        // Columns stacked into rows (stack(axis=-1) of decode_csv's columns): one element of
        // each part per run, so a copy call per element would cost more than the element.
        let columns: SmallVec<[&[T]; 16]> = slices.iter().map(|s| &s[..outer]).collect();
        for o in 0..outer {
            out.extend(columns.iter().map(|s| s[o].clone()));
        }
    } else {
        for o in 0..outer {
            for (s, &c) in slices.iter().zip(&chunks) {
                out.extend_from_slice(&s[o * c..(o + 1) * c]);
            }
        }
    }
    Tensor::from_vec(out_shape, out)
}

fn pack_axis(axis: i64, rank: usize) -> Result<usize> {
    let r = rank as i64 + 1;
    if axis < -r || axis >= r {
        return Err(Error::invalid_argument(format!(
            "axis = {axis} not in [{}, {r})",
            -r
        )));
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}

fn pack_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let mut s = ctx.input_shape(0).clone();
    for i in 1..ctx.num_inputs() {
        s = s.merge_with(ctx.input_shape(i)).map_err(|_| {
            Error::invalid_argument(format!(
                "Shapes of all inputs must match: values[0].shape = {} != values[{i}].shape = {}",
                ctx.input_shape(0),
                ctx.input_shape(i)
            ))
        })?;
    }
    let axis: i64 = ctx.attr("axis")?;
    let out = match s.dims() {
        Some(d) => {
            let a = pack_axis(axis, d.len())?;
            let mut d = d.to_vec();
            d.insert(a, Some(ctx.num_inputs()));
            Shape::new(d)
        }
        None => Shape::unknown(),
    };
    ctx.set_output(0, out);
    Ok(())
}

struct PackKernel(i64);

impl Kernel for PackKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = pack_tensors(ctx.inputs(), self.0)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `tf.stack(inputs, axis)`: the work of the `Pack` kernel.
pub(crate) fn pack_tensors(inputs: &[Tensor], axis: i64) -> Result<Tensor> {
    let s0 = inputs
        .first()
        .ok_or_else(|| Error::invalid_argument("Pack needs at least one input"))?
        .shape();
    for (i, t) in inputs.iter().enumerate().skip(1) {
        if t.shape() != s0 {
            return Err(Error::invalid_argument(format!(
                "Shapes of all inputs must match: values[0].shape = {} != values[{i}].shape = {}",
                format_dims(s0),
                format_dims(t.shape())
            )));
        }
    }
    let axis = pack_axis(axis, s0.len())?;
    let outer: usize = s0[..axis].iter().product();
    let chunk: usize = s0[axis..].iter().product();
    let mut out_shape: SmallVec<[usize; 6]> = SmallVec::from_slice(s0);
    out_shape.insert(axis, inputs.len());
    let dt = inputs[0].dtype();
    weir_graph::match_data_dtype!(dt, T => join::<T>(inputs, outer, |_| chunk, &out_shape),
    _ => match dt {
        DType::Resource => join::<ResourceHandle>(inputs, outer, |_| chunk, &out_shape),
        _ => Err(Error::invalid_argument(format!("Cannot stack {dt} tensors"))),
    })
}

fn unpack_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let axis: i64 = ctx.attr("axis")?;
    let num: i64 = ctx.attr("num")?;
    let s = ctx.input_shape(0).clone();
    let out = match s.dims() {
        Some(d) => {
            let a = canonical_axis(axis, d.len()).map_err(|_| {
                Error::invalid_argument(format!(
                    "axis = {axis} not in [{}, {})",
                    -(d.len() as i64),
                    d.len()
                ))
            })?;
            if let Some(n) = d[a] {
                if n as i64 != num {
                    return Err(Error::invalid_argument(format!(
                        "Dimension must be {num} but is {n} for 'Unpack' with input shapes: {s}."
                    )));
                }
            }
            let mut d = d.to_vec();
            d.remove(a);
            Shape::new(d)
        }
        None => Shape::unknown(),
    };
    for i in 0..ctx.num_outputs() {
        ctx.set_output(i, out.clone());
    }
    Ok(())
}

struct UnpackKernel {
    axis: i64,
    num: usize,
}

impl Kernel for UnpackKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        let r = x.rank() as i64;
        let axis = canonical_axis(self.axis, x.rank()).map_err(|_| {
            Error::invalid_argument(format!("axis = {} not in [{}, {r})", self.axis, -r))
        })?;
        if x.shape()[axis] != self.num {
            return Err(Error::invalid_argument(format!(
                "Input shape axis {axis} must equal {}, got shape {}",
                self.num,
                format_dims(x.shape())
            )));
        }
        let pieces = super::split::split_sizes(&x, axis, &vec![1; self.num])?;
        let mut out_shape = x.shape().to_vec();
        out_shape.remove(axis);
        for (i, p) in pieces.into_iter().enumerate() {
            ctx.set_output(i, p.reshape(&out_shape)?);
        }
        Ok(())
    }
}

fn concat_error(msg: String) -> Error {
    Error::invalid_argument(format!("ConcatOp : {msg}"))
}

fn concat_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let n = ctx.num_inputs() - 1;
    let axis = const_i64s(ctx, n)?;
    let shapes: Vec<Shape> = (0..n).map(|i| ctx.input_shape(i).clone()).collect();
    let rank = shapes.iter().find_map(Shape::rank);
    let (Some(rank), Some(axis)) = (rank, axis) else {
        ctx.set_output(0, super::shape_util::unknown_dims(rank));
        return Ok(());
    };
    let axis = canonical_axis(axis[0], rank).map_err(|_| {
        concat_error(format!(
            "Expected concatenating dimensions in the range [{}, {rank}), but got {}",
            -(rank as i64),
            axis[0]
        ))
    })?;
    let mut out: Vec<Option<usize>> = vec![None; rank];
    let mut total = Some(0usize);
    for (i, s) in shapes.iter().enumerate() {
        let Some(d) = s.dims() else {
            total = None;
            continue;
        };
        if d.len() != rank {
            return Err(concat_error(format!(
                "Ranks of all input tensors should match: shape[0] = {} vs. shape[{i}] = {s}",
                shapes[0]
            )));
        }
        for (j, (&dj, o)) in d.iter().zip(out.iter_mut()).enumerate() {
            if j == axis {
                continue;
            }
            match (*o, dj) {
                (Some(a), Some(b)) if a != b => {
                    return Err(concat_error(format!(
                        "Dimension {j} in both shapes must be equal: shape[0] = {} vs. shape[{i}] = {s}",
                        shapes[0]
                    )))
                }
                (None, b) => *o = b,
                _ => {}
            }
        }
        total = total.zip(d[axis]).map(|(a, b)| a + b);
    }
    out[axis] = total;
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

struct ConcatKernel;

impl Kernel for ConcatKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let n = ctx.num_inputs() - 1;
        let axis = scalar_i64(ctx.input(n), "ConcatOp : axis")?;
        let inputs = &ctx.inputs()[..n];
        let s0 = inputs[0].shape();
        let rank = s0.len();
        let axis = canonical_axis(axis, rank).map_err(|_| {
            concat_error(format!(
                "Expected concatenating dimensions in the range [{}, {rank}), but got {axis}",
                -(rank as i64)
            ))
        })?;
        let mut out_shape = s0.to_vec();
        out_shape[axis] = 0;
        for (i, t) in inputs.iter().enumerate() {
            let s = t.shape();
            if s.len() != rank {
                return Err(concat_error(format!(
                    "Ranks of all input tensors should match: shape[0] = {} vs. shape[{i}] = {}",
                    format_dims(s0),
                    format_dims(s)
                )));
            }
            for j in 0..rank {
                if j != axis && s[j] != s0[j] {
                    return Err(concat_error(format!(
                        "Dimension {j} in both shapes must be equal: shape[0] = {} vs. shape[{i}] = {}",
                        format_dims(s0),
                        format_dims(s)
                    )));
                }
            }
            out_shape[axis] += s[axis];
        }
        let outer: usize = s0[..axis].iter().product();
        let inner: usize = s0[axis + 1..].iter().product();
        let chunk = |i: usize| inputs[i].shape()[axis] * inner;
        let dt = inputs[0].dtype();
        let out = weir_graph::match_data_dtype!(dt, T => join::<T>(inputs, outer, chunk, &out_shape)?,
            _ => return Err(Error::invalid_argument(format!("Cannot concatenate {dt} tensors"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

const INDEX: &[DType] = &[DType::I32, DType::I64];

pub(super) fn register() {
    register_op(
        OpDef::new("Pack")
            .input(
                "values",
                ArgType::Repeated {
                    count: "N",
                    ty: "T",
                },
            )
            .output("output", ArgType::Attr("T"))
            .int_attr_min("N", 1)
            .type_attr("T", DType::ALL)
            .attr("axis", AttrKind::Int, Some(AttrValue::Int(0)))
            .shape_fn(pack_shape_fn),
    );
    register_kernel("Pack", |node| Ok(Box::new(PackKernel(node.attr("axis")?))));
    register_op(
        OpDef::new("Unpack")
            .input("value", ArgType::Attr("T"))
            .output(
                "output",
                ArgType::Repeated {
                    count: "num",
                    ty: "T",
                },
            )
            .int_attr_min("num", 0)
            .type_attr("T", DType::ALL_DATA)
            .attr("axis", AttrKind::Int, Some(AttrValue::Int(0)))
            .shape_fn(unpack_shape_fn),
    );
    register_kernel("Unpack", |node| {
        Ok(Box::new(UnpackKernel {
            axis: node.attr("axis")?,
            num: node.attr::<i64>("num")? as usize,
        }))
    });
    register_op(
        OpDef::new("ConcatV2")
            .input(
                "values",
                ArgType::Repeated {
                    count: "N",
                    ty: "T",
                },
            )
            .input("axis", ArgType::Attr("Tidx"))
            .output("output", ArgType::Attr("T"))
            .int_attr_min("N", 2)
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Tidx", INDEX)
            .shape_fn(concat_shape_fn),
    );
    register_kernel("ConcatV2", |_| Ok(Box::new(ConcatKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_axis_range() {
        assert_eq!(pack_axis(-1, 1).unwrap(), 1);
        assert_eq!(
            pack_axis(2, 1).unwrap_err().message(),
            "axis = 2 not in [-2, 2)"
        );
    }

    /// Columns joined into rows (one element per part per run, more parts than fit inline)
    /// and runs of different lengths per part give the row-major layout element by element.
    #[test]
    fn join_interleaves_columns_and_runs() {
        for nparts in [1usize, 2, 5, 17] {
            let parts: Vec<Tensor> = (0..nparts)
                .map(|p| {
                    Tensor::from_vec(
                        &[4],
                        (0..4).map(|r| (10 * r + p) as i32).collect::<Vec<_>>(),
                    )
                    .unwrap()
                })
                .collect();
            let t = join::<i32>(&parts, 4, |_| 1, &[4, nparts]).unwrap();
            let want: Vec<i32> = (0..4)
                .flat_map(|r| (0..nparts).map(move |p| (10 * r + p) as i32))
                .collect();
            assert_eq!(t.to_vec::<i32>().unwrap(), want, "{nparts} parts");
        }
        // A per-example stack of scalars: one run.
        let scalars: Vec<Tensor> = (0..3).map(|v| Tensor::from(v as f32)).collect();
        let t = join::<f32>(&scalars, 1, |_| 1, &[3]).unwrap();
        assert_eq!(t.to_vec::<f32>().unwrap(), vec![0.0, 1.0, 2.0]);
        // concat along the last axis of [2,1] and [2,3]: runs of 1 and 3.
        let a = Tensor::from_vec(&[2, 1], vec![1i64, 2]).unwrap();
        let b = Tensor::from_vec(&[2, 3], vec![3i64, 4, 5, 6, 7, 8]).unwrap();
        let t = join::<i64>(&[a, b], 2, |i| [1, 3][i], &[2, 4]).unwrap();
        assert_eq!(t.to_vec::<i64>().unwrap(), vec![1, 3, 4, 5, 2, 6, 7, 8]);
    }
}
