//! `tf.nn.max_pool_with_argmax` (`MaxPoolWithArgmax`) and its gradient kernel
//! `MaxPoolGradWithArgmax`, as TensorFlow's CPU kernels (`maxpooling_op.cc`): NHWC windows, the
//! first maximum in window order, and the argmax flattened as `((b * height + y) * width + x) *
//! channels + c`, without the `b` term unless `include_batch_in_index`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor, TensorType,
};

use super::padding::{conv_output_size, Padding, Window};
use super::NnNumber;

/// `tf.nn.max_pool_with_argmax(input, ksize, strides, padding)`: the max pool and, for each
/// output, the flattened input index of its maximum (int64). See [`MaxPoolWithArgmax`].
pub fn max_pool_with_argmax(
    input: impl Into<Output>,
    ksize: [i64; 4],
    strides: [i64; 4],
    padding: Padding,
) -> Result<(Output, Output)> {
    MaxPoolWithArgmax::new(ksize, strides, padding).build(input)
}

/// The options of `tf.nn.max_pool_with_argmax(input, ksize, strides, padding,
/// output_dtype=tf.int64, include_batch_in_index=False)` (NHWC only).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, nn::{MaxPoolWithArgmax, Padding}};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(8), Some(8), Some(3)]))?;
/// let (y, at) = MaxPoolWithArgmax::new([1, 2, 2, 1], [1, 2, 2, 1], Padding::Valid).build(&x)?;
/// assert_eq!(at.shape(), Shape::new(vec![None, Some(4), Some(4), Some(3)]));
/// assert_eq!(at.dtype(), DType::I64);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct MaxPoolWithArgmax {
    ksize: [i64; 4],
    strides: [i64; 4],
    padding: Padding,
    output_dtype: DType,
    include_batch_in_index: bool,
}

impl MaxPoolWithArgmax {
    /// Window `[1, kh, kw, 1]`, strides `[1, sh, sw, 1]`, padding; int64 indices without the
    /// batch.
    pub fn new(ksize: [i64; 4], strides: [i64; 4], padding: Padding) -> MaxPoolWithArgmax {
        MaxPoolWithArgmax {
            ksize,
            strides,
            padding,
            output_dtype: DType::I64,
            include_batch_in_index: false,
        }
    }

    /// The indices' dtype (`Targmax`): int32 or int64.
    pub fn output_dtype(mut self, dt: DType) -> Self {
        self.output_dtype = dt;
        self
    }

    /// Whether the flattened index counts the batch too.
    pub fn include_batch_in_index(mut self, b: bool) -> Self {
        self.include_batch_in_index = b;
        self
    }

    fn node(&self, g: &weir_graph::Graph, op: &str) -> weir_graph::OpBuilder {
        crate::new_op(g, op)
            .attr("ksize", self.ksize.to_vec())
            .attr("strides", self.strides.to_vec())
            .attr("padding", self.padding.as_str())
            .attr("include_batch_in_index", self.include_batch_in_index)
    }

    /// Adds the `MaxPoolWithArgmax` node: `(output, argmax)`.
    pub fn build(&self, input: impl Into<Output>) -> Result<(Output, Output)> {
        let x = input.into();
        let op = self
            .node(&x.graph().clone(), "MaxPoolWithArgmax")
            .attr("Targmax", self.output_dtype)
            .input(x)
            .build()?;
        Ok((op.output(0)?, op.output(1)?))
    }

    /// `MaxPoolGradWithArgmax(input, grad, argmax)`: each of `grad` added at the input position
    /// `argmax` names.
    pub fn grad(
        &self,
        input: impl Into<Output>,
        grad: impl Into<Output>,
        argmax: impl Into<Output>,
    ) -> Result<Output> {
        let (x, dy, at) = (input.into(), grad.into(), argmax.into());
        let g = crate::util::same_graph(&[&x, &dy, &at])?.clone();
        self.node(&g, "MaxPoolGradWithArgmax")
            .input(x)
            .input(dy)
            .input(at)
            .build()?
            .output(0)
    }
}

/// Attribute checks of both kernels, in TensorFlow's order and words; the window geometry.
struct Attrs {
    ksize: (usize, usize),
    strides: (usize, usize),
    padding: Padding,
    with_batch: bool,
}

fn read_attrs(ksize: &[i64], strides: &[i64], padding: &str, with_batch: bool) -> Result<Attrs> {
    if ksize.len() != 4 {
        return Err(Error::invalid_argument(
            "Sliding window ksize field must specify 4 dimensions",
        ));
    }
    if strides.len() != 4 {
        return Err(Error::invalid_argument(
            "Sliding window stride field must specify 4 dimensions",
        ));
    }
    if ksize[0] != 1 || strides[0] != 1 {
        return Err(Error::unimplemented(
            "Pooling is not yet supported on the batch dimension.",
        ));
    }
    if ksize[3] != 1 || strides[3] != 1 {
        return Err(Error::unimplemented(
            "MaxPoolWithArgmax is not yet supported on the depth dimension.",
        ));
    }
    if ksize[1] < 1 || ksize[2] < 1 || strides[1] < 1 || strides[2] < 1 {
        return Err(Error::invalid_argument(format!(
            "Sliding window ksize and strides must be positive, got {ksize:?} and {strides:?}"
        )));
    }
    Ok(Attrs {
        ksize: (ksize[1] as usize, ksize[2] as usize),
        strides: (strides[1] as usize, strides[2] as usize),
        padding: Padding::parse(padding)?,
        with_batch,
    })
}

fn node_attrs(node: &Node) -> Result<Attrs> {
    read_attrs(
        &node.attr::<Vec<i64>>("ksize")?,
        &node.attr::<Vec<i64>>("strides")?,
        &node.attr::<String>("padding")?,
        node.attr("include_batch_in_index")?,
    )
}

fn window(a: &Attrs, x: &Tensor) -> Result<Window> {
    if x.rank() != 4 {
        return Err(Error::invalid_argument("tensor_in must be 4-dimensional"));
    }
    Window::new(x.shape(), a.ksize, a.strides, a.padding)
}

/// The pool and the flattened argmax of each output (first maximum in window order, NaN only
/// when it comes first, as the kernel's `output < input` update gives).
fn pool<T: TensorType + PartialOrd + Copy>(
    w: &Window,
    x: &[T],
    with_batch: bool,
) -> (Vec<T>, Vec<i64>) {
    let n = w.n * w.oh * w.ow * w.c;
    let (mut out, mut at) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut best: Vec<Option<(T, usize)>> = vec![None; w.c];
    for b in 0..w.n {
        for oy in 0..w.oh {
            for ox in 0..w.ow {
                best.fill(None);
                for ky in 0..w.kh {
                    let Some(iy) = w.in_row(oy, ky) else { continue };
                    for kx in 0..w.kw {
                        let Some(ix) = w.in_col(ox, kx) else { continue };
                        let base = ((b * w.h + iy) * w.w + ix) * w.c;
                        for (c, slot) in best.iter_mut().enumerate() {
                            let v = x[base + c];
                            if slot.is_none_or(|(m, _)| m < v) {
                                *slot = Some((v, base + c));
                            }
                        }
                    }
                }
                for slot in &best {
                    // SAME and VALID windows always hold an input position.
                    let (v, i) = slot.unwrap_or((x[0], 0));
                    out.push(v);
                    let per_image = w.h * w.w * w.c;
                    at.push(if with_batch { i } else { i % per_image } as i64);
                }
            }
        }
    }
    (out, at)
}

fn index_tensor(shape: &[usize], at: Vec<i64>, dt: DType) -> Result<Tensor> {
    match dt {
        DType::I32 => Tensor::from_vec(shape, at.into_iter().map(|v| v as i32).collect()),
        _ => Tensor::from_vec(shape, at),
    }
}

struct ArgmaxKernel {
    attrs: Attrs,
    targmax: DType,
}

impl Kernel for ArgmaxKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let w = window(&self.attrs, x)?;
        let shape = [w.n, w.oh, w.ow, w.c];
        let dt = x.dtype();
        let (out, at) = super::match_real_or_half!(dt, T => {
            let (o, a) = pool(&w, x.as_slice::<T>()?, self.attrs.with_batch);
            (Tensor::from_vec(&shape, o)?, a)
        });
        ctx.set_output(0, out);
        ctx.set_output(1, index_tensor(&shape, at, self.targmax)?);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn indices(t: &Tensor) -> Result<Vec<i64>> {
    match t.dtype() {
        DType::I32 => Ok(t.as_slice::<i32>()?.iter().map(|&v| v as i64).collect()),
        _ => Ok(t.as_slice::<i64>()?.to_vec()),
    }
}

/// `LaunchMaxPoolingGradWithArgmax`: per image, each gradient added at its argmax (offset by the
/// image when the indices omit the batch); an index outside the image is an error where
/// TensorFlow's CHECK would abort.
fn scatter<T: NnNumber>(
    n: usize,
    in_per_image: usize,
    dy: &[T],
    at: &[i64],
    with_batch: bool,
) -> Result<Vec<T>> {
    let mut dx = vec![T::ZERO; n * in_per_image];
    let out_per_image = dy.len().checked_div(n).unwrap_or(0);
    for (i, (&g, &a)) in dy.iter().zip(at).enumerate() {
        let b = i / out_per_image.max(1);
        let target = if with_batch {
            a
        } else {
            a + (b * in_per_image) as i64
        };
        let (lo, hi) = (b * in_per_image, (b + 1) * in_per_image);
        match usize::try_from(target)
            .ok()
            .filter(|t| (lo..hi).contains(t))
        {
            Some(t) => dx[t] = dx[t].plus(g),
            None => {
                return Err(Error::invalid_argument(format!(
                    "Invalid output gradient index: {target}, {lo}, {hi}"
                )))
            }
        }
    }
    Ok(dx)
}

struct GradKernel {
    attrs: Attrs,
}

impl Kernel for GradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (x, dy, at) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let w = window(&self.attrs, x)?;
        let want = [w.n, w.oh, w.ow, w.c];
        for (t, what) in [(dy, "grad"), (at, "argmax")] {
            if t.shape() != want {
                return Err(Error::invalid_argument(format!(
                    "Expected {what} shape to be {}, but got {}",
                    format_dims(&want),
                    format_dims(t.shape())
                )));
            }
        }
        let at = indices(at)?;
        let per = w.h * w.w * w.c;
        let wb = self.attrs.with_batch;
        let dt = x.dtype();
        let out = super::match_real_or_half!(dt, T => {
            Tensor::from_vec(x.shape(), scatter(w.n, per, dy.as_slice::<T>()?, &at, wb)?)?
        });
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let attrs = node_attrs(node)?;
    Ok(if node.op_type() == "MaxPoolWithArgmax" {
        let targmax: DType = node.attr("Targmax")?;
        if !matches!(targmax, DType::I32 | DType::I64) {
            return Err(Error::invalid_argument(format!(
                "Targmax must be int32 or int64, got {targmax}"
            )));
        }
        Box::new(ArgmaxKernel { attrs, targmax })
    } else {
        Box::new(GradKernel { attrs })
    })
}

/// The pooled shape of input 0 (`MaxPoolShape`), or input 0's own for the gradient.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let a = read_attrs(
        &ctx.attr::<Vec<i64>>("ksize")?,
        &ctx.attr::<Vec<i64>>("strides")?,
        &ctx.attr::<String>("padding")?,
        false,
    )?;
    let x = ctx.with_rank(0, 4)?;
    if ctx.op_type == "MaxPoolGradWithArgmax" {
        ctx.set_output(0, x);
        return Ok(());
    }
    let dim = |d: Option<usize>, k: usize, s: usize| -> Result<Option<usize>> {
        d.map(|d| Ok(conv_output_size(d, k, s, a.padding)?.0))
            .transpose()
    };
    let oh = dim(x.dim(1), a.ksize.0, a.strides.0)?;
    let ow = dim(x.dim(2), a.ksize.1, a.strides.1)?;
    let out = Shape::new(vec![x.dim(0), oh, ow, x.dim(3)]);
    ctx.set_output(0, out.clone());
    ctx.set_output(1, out);
    Ok(())
}

pub(super) fn register() {
    let common = |def: OpDef| {
        def.type_attr("T", DType::REAL_AND_HALF)
            .attr("ksize", AttrKind::Ints, None)
            .attr("strides", AttrKind::Ints, None)
            .attr("padding", AttrKind::Str, None)
            .attr(
                "include_batch_in_index",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .shape_fn(shape_fn)
    };
    register_op(
        common(OpDef::new("MaxPoolWithArgmax"))
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .output("argmax", ArgType::Attr("Targmax"))
            .attr("Targmax", AttrKind::Type, Some(AttrValue::Type(DType::I64))),
    );
    register_op(
        common(OpDef::new("MaxPoolGradWithArgmax"))
            .input("input", ArgType::Attr("T"))
            .input("grad", ArgType::Attr("T"))
            .input("argmax", ArgType::Attr("Targmax"))
            .output("output", ArgType::Attr("T"))
            .type_attr("Targmax", &[DType::I32, DType::I64]),
    );
    register_kernel("MaxPoolWithArgmax", make);
    register_kernel("MaxPoolGradWithArgmax", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argmax_flattening_with_and_without_batch() {
        let x: Vec<f32> = vec![1.0, 3.0, 2.0, 0.0, 5.0, 4.0, 6.0, 7.0];
        let w = Window::new(&[2, 2, 2, 1], (2, 2), (2, 2), Padding::Valid).unwrap();
        let (out, at) = pool(&w, &x, false);
        assert_eq!(out, vec![3.0, 7.0]);
        assert_eq!(at, vec![1, 3]);
        let (_, at) = pool(&w, &x, true);
        assert_eq!(at, vec![1, 7]);
        let dx = scatter(2, 4, &[1.0f32, 2.0], &[1, 3], false).unwrap();
        assert_eq!(dx, vec![0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0]);
        assert!(scatter(2, 4, &[1.0f32, 2.0], &[1, 4], false).is_err());
    }
}
