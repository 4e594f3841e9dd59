//! Writing through a strided slice: `StridedSliceGrad` (the gradient of `StridedSlice`: `dy`
//! scattered into zeros of the input's shape) and `TensorStridedSliceUpdate`
//! (`tf.tensor_strided_slice_update`: a copy of the input with the slice replaced). The
//! variable forms (`StridedSliceAssign`, `ResourceStridedSliceAssign`) share the checks and the
//! write through [`SliceWrite`].

use ndarray::IxDyn;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    Result, Shape, Tensor, TensorType,
};

use super::shape_util::{const_i64s, index_const, to_i64s};
use super::slice::Window;
use super::strided_slice::{masks_of, validate, with_mask_attrs, StridedSlice};

impl StridedSlice {
    /// `tf.raw_ops.StridedSliceGrad(shape, begin, end, strides, dy)` with these masks: a tensor
    /// of `shape`, zero except where the slice `[begin:end:strides]` takes its elements, which
    /// hold `dy` (the slice's shape).
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::array::{constant, StridedSlice};
    /// # use weir_session::Session;
    /// let g = Graph::new();
    /// let dy = constant(&g, [1.0f32, 2.0])?;
    /// let dx = StridedSlice::new().build_grad(constant(&g, [5])?, &[1], &[5], &[2], dy)?;
    /// assert_eq!(Session::new(&g)?.eval(&dx)?.to_vec::<f32>()?, vec![0.0, 1.0, 0.0, 2.0, 0.0]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn build_grad(
        self,
        shape: impl Into<Output>,
        begin: &[i64],
        end: &[i64],
        strides: &[i64],
        dy: impl Into<Output>,
    ) -> Result<Output> {
        let shape = shape.into();
        let (b, e, s) = index_args(&shape, begin, end, strides)?;
        self.build_grad_from(shape, b, e, s, dy.into())
    }

    /// [`StridedSlice::build_grad`] with `begin`, `end` and `strides` computed by the graph.
    pub fn build_grad_from(
        self,
        shape: Output,
        begin: Output,
        end: Output,
        strides: Output,
        dy: Output,
    ) -> Result<Output> {
        let g = crate::util::same_graph(&[&shape, &begin, &end, &strides, &dy])?.clone();
        let b = crate::new_op(&g, "StridedSliceGrad")
            .input(shape)
            .input(begin)
            .input(end)
            .input(strides)
            .input(dy);
        self.set_masks(b).build()?.output(0)
    }

    /// `tf.tensor_strided_slice_update(input, begin, end, strides, value)` with these masks: a
    /// copy of `input` whose slice `input[begin:end:strides]` is `value`, broadcast to the
    /// slice's shape.
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::array::{constant, StridedSlice};
    /// # use weir_session::Session;
    /// let g = Graph::new();
    /// let x = constant(&g, [1, 2, 3, 4, 5])?;
    /// let y = StridedSlice::new().build_update(&x, &[0], &[5], &[2], constant(&g, 0)?)?;
    /// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<i32>()?, vec![0, 2, 0, 4, 0]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn build_update(
        self,
        input: impl Into<Output>,
        begin: &[i64],
        end: &[i64],
        strides: &[i64],
        value: impl Into<Output>,
    ) -> Result<Output> {
        let input = input.into();
        let (b, e, s) = index_args(&input, begin, end, strides)?;
        self.build_update_from(input, b, e, s, value.into())
    }

    /// [`StridedSlice::build_update`] with `begin`, `end` and `strides` computed by the graph.
    pub fn build_update_from(
        self,
        input: Output,
        begin: Output,
        end: Output,
        strides: Output,
        value: Output,
    ) -> Result<Output> {
        let g = crate::util::same_graph(&[&input, &begin, &end, &strides, &value])?.clone();
        let b = crate::new_op(&g, "TensorStridedSliceUpdate")
            .input(input)
            .input(begin)
            .input(end)
            .input(strides)
            .input(value);
        self.set_masks(b).build()?.output(0)
    }
}

/// `begin`, `end` and `strides` as int32 constants in `like`'s graph.
pub(crate) fn index_args(
    like: &Output,
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
) -> Result<(Output, Output, Output)> {
    let g = like.graph();
    Ok((
        index_const(g, begin)?,
        index_const(g, end)?,
        index_const(g, strides)?,
    ))
}

/// A checked write through a strided slice of one target shape: where the slice's elements
/// are and the shape a value is broadcast to.
pub(crate) struct SliceWrite {
    shape: Vec<usize>,
    begin: Vec<i64>,
    strides: Vec<i64>,
    count: Vec<usize>,
    final_shape: Vec<usize>,
}

impl SliceWrite {
    /// Reads `begin`, `end` and `strides` from inputs `first..first + 3` of `ctx` and checks
    /// them against `shape` as `ValidateStridedSliceOp` does.
    pub(crate) fn plan(
        ctx: &OpContext<'_>,
        first: usize,
        shape: &[usize],
        masks: &StridedSlice,
    ) -> Result<SliceWrite> {
        let (bt, et, st) = (ctx.input(first), ctx.input(first + 1), ctx.input(first + 2));
        if bt.rank() != 1 || et.rank() != 1 || st.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "Expected begin, end, and strides to be 1D equal size tensors, but got shapes {}, {}, and {} instead.",
                format_dims(bt.shape()),
                format_dims(et.shape()),
                format_dims(st.shape())
            )));
        }
        let dims: Vec<Option<usize>> = shape.iter().map(|&d| Some(d)).collect();
        let dense = validate(&dims, &to_i64s(bt)?, &to_i64s(et)?, &to_i64s(st)?, masks)?;
        Ok(SliceWrite {
            shape: shape.to_vec(),
            begin: dense.begin,
            strides: dense.strides,
            count: dense.processing.iter().map(|d| d.unwrap_or(0)).collect(),
            final_shape: dense.final_shape.iter().map(|d| d.unwrap_or(0)).collect(),
        })
    }

    /// The shape of the slice (`StridedSlice`'s output shape).
    pub(crate) fn final_shape(&self) -> &[usize] {
        &self.final_shape
    }

    fn window(&self) -> Window<'_> {
        Window {
            shape: &self.shape,
            begin: &self.begin,
            stride: &self.strides,
            count: &self.count,
        }
    }

    /// Writes `value` into the slice of `target` (whose shape was planned), broadcasting it to
    /// the slice's shape first; an empty slice takes any value, as in TensorFlow.
    pub(crate) fn write(&self, target: &mut Tensor, value: &Tensor) -> Result<()> {
        if self.count.iter().product::<usize>() == 0 {
            return Ok(());
        }
        let dt = target.dtype();
        weir_graph::match_data_dtype!(dt, T => self.write_typed::<T>(target, value),
            _ => Err(Error::invalid_argument(format!("Cannot assign to a slice of a {dt} tensor"))))
    }

    fn write_typed<T: TensorType>(&self, target: &mut Tensor, value: &Tensor) -> Result<()> {
        let shape = broadcast_into(value.shape(), &self.final_shape).ok_or_else(|| {
            Error::invalid_argument(format!(
                "Cannot broadcast input shape {} into final shape {}",
                format_dims(value.shape()),
                format_dims(&self.final_shape)
            ))
        })?;
        let w = self.window();
        let dst = target.as_slice_mut::<T>()?;
        if value.shape() == self.final_shape.as_slice() {
            w.write(dst, value.as_slice::<T>()?);
            return Ok(());
        }
        let v = value.view::<T>()?;
        let v = v
            .to_shape(IxDyn(&shape))
            .map_err(|e| Error::internal(e.to_string()))?;
        let full = v
            .broadcast(IxDyn(&self.final_shape))
            .ok_or_else(|| Error::internal("a checked broadcast failed"))?;
        let flat: Vec<T> = full.iter().cloned().collect();
        w.write(dst, &flat);
        Ok(())
    }
}

/// `value` as a shape that broadcasts to `slice` the way TensorFlow's strided-slice assignment
/// allows: numpy's rule, where extra leading dims of size 1 may also be dropped.
fn broadcast_into(value: &[usize], slice: &[usize]) -> Option<Vec<usize>> {
    let mut v = value;
    while v.len() > slice.len() {
        if v[0] != 1 {
            return None;
        }
        v = &v[1..];
    }
    let lead = slice.len() - v.len();
    let ok = v
        .iter()
        .zip(&slice[lead..])
        .all(|(&a, &b)| a == b || a == 1);
    ok.then(|| v.to_vec())
}

struct StridedSliceGradKernel(StridedSlice);

impl Kernel for StridedSliceGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let st = ctx.input(0);
        if st.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "shape must be 1-D, got shape.shape = {}",
                format_dims(st.shape())
            )));
        }
        let mut shape = Vec::with_capacity(st.num_elements());
        for d in to_i64s(st)? {
            shape.push(
                usize::try_from(d)
                    .map_err(|_| Error::invalid_argument(format!("Dimension {d} must be >= 0")))?,
            );
        }
        let plan = SliceWrite::plan(ctx, 1, &shape, &self.0)?;
        let dy = ctx.input(4);
        if dy.shape() != plan.final_shape() {
            return Err(Error::invalid_argument(format!(
                "shape of dy was {} instead of {}",
                format_dims(dy.shape()),
                format_dims(plan.final_shape())
            )));
        }
        let mut dx = Tensor::zeros(dy.dtype(), &shape)?;
        plan.write(&mut dx, dy)?;
        ctx.set_output(0, dx);
        Ok(())
    }
}

struct TensorStridedSliceUpdateKernel(StridedSlice);

impl Kernel for TensorStridedSliceUpdateKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let shape = ctx.input(0).shape().to_vec();
        let plan = SliceWrite::plan(ctx, 1, &shape, &self.0)?;
        let value = ctx.input(4).clone();
        let mut out = ctx.take_input(0);
        plan.write(&mut out, &value)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

/// The mask attrs of a node.
pub(crate) fn node_masks(node: &Node) -> Result<StridedSlice> {
    masks_of(|n| node.attr(n))
}

fn grad_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let out = match const_i64s(ctx, 0)? {
        Some(v) => Shape::new(
            v.into_iter()
                .map(|d| usize::try_from(d).ok())
                .collect::<Vec<_>>(),
        ),
        None => super::shape_util::unknown_dims(ctx.input_shape(0).dim(0)),
    };
    ctx.set_output(0, out);
    Ok(())
}

fn same_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    let index = ArgType::Attr("Index");
    register_op(
        with_mask_attrs(
            OpDef::new("StridedSliceGrad")
                .input("shape", index.clone())
                .input("begin", index.clone())
                .input("end", index.clone())
                .input("strides", index.clone())
                .input("dy", ArgType::Attr("T"))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", DType::ALL_DATA)
                .type_attr("Index", &[DType::I32, DType::I64]),
        )
        .shape_fn(grad_shape_fn),
    );
    register_kernel("StridedSliceGrad", |n| {
        Ok(Box::new(StridedSliceGradKernel(node_masks(n)?)))
    });
    register_op(
        with_mask_attrs(
            OpDef::new("TensorStridedSliceUpdate")
                .input("input", ArgType::Attr("T"))
                .input("begin", index.clone())
                .input("end", index.clone())
                .input("strides", index)
                .input("value", ArgType::Attr("T"))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", DType::ALL_DATA)
                .type_attr("Index", &[DType::I32, DType::I64]),
        )
        .shape_fn(same_shape_fn),
    );
    register_kernel("TensorStridedSliceUpdate", |n| {
        Ok(Box::new(TensorStridedSliceUpdateKernel(node_masks(n)?)))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_into_follows_tensorflow() {
        assert_eq!(broadcast_into(&[1, 1], &[4]), Some(vec![1]));
        assert_eq!(broadcast_into(&[1, 3, 4], &[3, 4]), Some(vec![3, 4]));
        assert_eq!(broadcast_into(&[3, 1], &[3, 4]), Some(vec![3, 1]));
        assert_eq!(broadcast_into(&[], &[3, 4]), Some(vec![]));
        assert_eq!(broadcast_into(&[3], &[3, 4]), None);
        assert_eq!(broadcast_into(&[2, 1, 4], &[4]), None);
    }

    #[test]
    fn window_write_inverts_copy() {
        let shape = [3usize, 4];
        let w = Window {
            shape: &shape,
            begin: &[2, 3],
            stride: &[-1, -2],
            count: &[2, 2],
        };
        let mut dst = vec![0i32; 12];
        w.write(&mut dst, &[1, 2, 3, 4]);
        assert_eq!(dst, vec![0, 0, 0, 0, 0, 4, 0, 3, 0, 2, 0, 1]);
        assert_eq!(w.copy(&dst), vec![1, 2, 3, 4]);
    }
}
