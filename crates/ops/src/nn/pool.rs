//! `MaxPool` (NHWC, SAME/VALID, strides) and `MaxPoolGrad`, on the real number types.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::padding::{
    check_nhwc, padding_attrs, read_padding, spatial_pair, static_output_size, ExplicitPaddings,
    Padding, Window, WindowPadding,
};
use super::{match_real_or_half, NnNumber};

/// `tf.nn.max_pool(value, ksize, strides, padding)` with `data_format="NHWC"`.
pub fn max_pool(
    value: impl Into<Output>,
    ksize: [i64; 4],
    strides: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    MaxPool::new(ksize, strides, padding).build(value)
}

/// The options of `tf.nn.max_pool(value, ksize, strides, padding, data_format="NHWC")`: the
/// maximum of each `ksize` window; positions in the padding (SAME, or explicit paddings set
/// with [`MaxPool::explicit_paddings`]) are ignored.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, nn::{MaxPool, Padding}};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(24), Some(24), Some(64)]))?;
/// let y = MaxPool::new([1, 3, 3, 1], [1, 2, 2, 1], Padding::Same).build(&x)?;
/// assert_eq!(y.shape(), Shape::new(vec![None, Some(12), Some(12), Some(64)]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct MaxPool(PoolOptions);

/// The attributes every pooling op shares: window, strides, padding, NHWC.
pub(super) struct PoolOptions {
    ksize: [i64; 4],
    strides: [i64; 4],
    padding: Padding,
    /// `padding="EXPLICIT"` with these paddings (MaxPool and MaxPoolGrad only).
    explicit: Option<ExplicitPaddings>,
}

impl PoolOptions {
    /// A node of `op` with these attributes.
    pub(super) fn node(&self, g: &weir_graph::Graph, op: &str) -> weir_graph::OpBuilder {
        let (padding, explicit) = padding_attrs(self.padding, self.explicit.as_ref());
        let b = crate::new_op(g, op)
            .attr("ksize", self.ksize.to_vec())
            .attr("strides", self.strides.to_vec())
            .attr("padding", padding)
            .attr("data_format", "NHWC");
        if explicit.is_empty() {
            b
        } else {
            b.attr("explicit_paddings", explicit)
        }
    }
}

impl From<([i64; 4], [i64; 4], Padding)> for PoolOptions {
    fn from((ksize, strides, padding): ([i64; 4], [i64; 4], Padding)) -> PoolOptions {
        PoolOptions {
            ksize,
            strides,
            padding,
            explicit: None,
        }
    }
}

impl MaxPool {
    /// Window `[1, kh, kw, 1]`, strides `[1, sh, sw, 1]` and padding.
    pub fn new(ksize: [i64; 4], strides: [i64; 4], padding: Padding) -> MaxPool {
        MaxPool((ksize, strides, padding).into())
    }

    /// Pads explicitly instead (`padding="EXPLICIT"`, what `tf.nn.max_pool2d` does when its
    /// `padding` is a list of pairs): `[[0, 0], [top, bottom], [left, right], [0, 0]]`. Each
    /// must be smaller than the window along its dimension.
    pub fn explicit_paddings(mut self, paddings: ExplicitPaddings) -> MaxPool {
        self.0.explicit = Some(paddings);
        self
    }

    /// Adds the `MaxPool` node.
    pub fn build(&self, value: impl Into<Output>) -> Result<Output> {
        let x = value.into();
        self.0
            .node(&x.graph().clone(), "MaxPool")
            .input(x)
            .build()?
            .output(0)
    }
}

/// TensorFlow's `MaxPoolGrad(orig_input, orig_output, grad)`: routes each output gradient to
/// the first position (in window order) holding its window's maximum.
pub fn max_pool_grad(
    orig_input: impl Into<Output>,
    orig_output: impl Into<Output>,
    grad: impl Into<Output>,
    ksize: [i64; 4],
    strides: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    let (x, y, dy) = (orig_input.into(), orig_output.into(), grad.into());
    let g = crate::util::same_graph(&[&x, &y, &dy])?.clone();
    MaxPool::new(ksize, strides, padding)
        .0
        .node(&g, "MaxPoolGrad")
        .input(x)
        .input(y)
        .input(dy)
        .build()?
        .output(0)
}

/// A 2-D max pool's window, strides and padding, checked.
#[derive(Clone, Copy)]
pub(super) struct PoolAttrs {
    pub(super) ksize: (usize, usize),
    pub(super) strides: (usize, usize),
    pub(super) padding: WindowPadding,
}

fn read_attrs(
    ksize: &[i64],
    strides: &[i64],
    padding: &str,
    explicit: &[i64],
    format: &str,
) -> Result<PoolAttrs> {
    let padding = read_padding(padding, explicit)?;
    check_nhwc(format)?;
    Ok(PoolAttrs {
        ksize: spatial_pair(ksize, "ksize")?,
        strides: spatial_pair(strides, "strides")?,
        padding,
    })
}

/// TensorFlow's pooling check on explicit paddings: each smaller than the window.
fn check_pads(a: PoolAttrs) -> Result<()> {
    if let WindowPadding::Explicit(p) = a.padding {
        let (kh, kw) = a.ksize;
        for (side, pad, k) in [
            ("Top", p[0], kh),
            ("Bottom", p[1], kh),
            ("Left", p[2], kw),
            ("Right", p[3], kw),
        ] {
            if pad >= k {
                return Err(Error::invalid_argument(format!(
                    "{side} padding {pad} needs to be smaller than the window size {k}"
                )));
            }
        }
    }
    Ok(())
}

/// For each output element, the flat input index of its window's maximum (first wins, as
/// TensorFlow's argmax helper keeps the first), and the maximum itself.
fn argmax<T: NnNumber + PartialOrd>(w: &Window, x: &[T], mut visit: impl FnMut(usize, usize, T)) {
    let mut best = vec![T::ZERO; w.c];
    let mut at = vec![usize::MAX; w.c];
    for b in 0..w.n {
        for oy in 0..w.oh {
            for ox in 0..w.ow {
                at.fill(usize::MAX);
                for ky in 0..w.kh {
                    let Some(iy) = w.in_row(oy, ky) else { continue };
                    for kx in 0..w.kw {
                        let Some(ix) = w.in_col(ox, kx) else { continue };
                        let base = ((b * w.h + iy) * w.w + ix) * w.c;
                        for c in 0..w.c {
                            let v = x[base + c];
                            if at[c] == usize::MAX || best[c] < v {
                                best[c] = v;
                                at[c] = base + c;
                            }
                        }
                    }
                }
                let out_base = ((b * w.oh + oy) * w.ow + ox) * w.c;
                for c in 0..w.c {
                    visit(out_base + c, at[c], best[c]);
                }
            }
        }
    }
}

fn window_of(a: PoolAttrs, x: &Tensor) -> Result<Window> {
    check_pads(a)?;
    Window::padded(x.shape(), a.ksize, a.strides, a.padding)
}

pub(super) fn forward<T: NnNumber + PartialOrd>(a: PoolAttrs, x: &Tensor) -> Result<Tensor> {
    let w = window_of(a, x)?;
    let mut out = vec![T::ZERO; w.n * w.oh * w.ow * w.c];
    argmax(&w, x.as_slice::<T>()?, |o, at, v| {
        // A window entirely in the padding (impossible for SAME/VALID) would keep 0.
        if at != usize::MAX {
            out[o] = v;
        }
    });
    Tensor::from_vec(&[w.n, w.oh, w.ow, w.c], out)
}

/// MaxPoolGrad: `dy` routed to the first maximum of each window of `x`. `y`, the forward
/// output, is only checked for its shape (the maxima are found again, as on TensorFlow's CPU).
pub(super) fn backward<T: NnNumber + PartialOrd>(
    a: PoolAttrs,
    x: &Tensor,
    y: &Tensor,
    dy: &Tensor,
) -> Result<Tensor> {
    let w = window_of(a, x)?;
    let want = [w.n, w.oh, w.ow, w.c];
    for (what, t) in [("orig_output", y), ("grad", dy)] {
        if t.shape() != want {
            return Err(Error::invalid_argument(format!(
                "Expected {what} shape to be {}, but got {}",
                format_dims(&want),
                format_dims(t.shape())
            )));
        }
    }
    let g = dy.as_slice::<T>()?;
    let mut dx = vec![T::ZERO; x.num_elements()];
    argmax(&w, x.as_slice::<T>()?, |o, at, _| {
        if at != usize::MAX {
            dx[at] = dx[at].plus(g[o]);
        }
    });
    Tensor::from_vec(x.shape(), dx)
}

struct PoolKernel {
    attrs: PoolAttrs,
    grad: bool,
}

impl Kernel for PoolKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        if x.rank() != 4 {
            return Err(Error::invalid_argument(format!(
                "tensor_in must be 4-dimensional, got {}",
                format_dims(x.shape())
            )));
        }
        let out = if self.grad {
            match_real_or_half!(x.dtype(), T => backward::<T>(self.attrs, x, ctx.input(1), ctx.input(2))?)
        } else {
            match_real_or_half!(x.dtype(), T => forward::<T>(self.attrs, x)?)
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(PoolKernel {
        attrs: read_attrs(
            &node.attr::<Vec<i64>>("ksize")?,
            &node.attr::<Vec<i64>>("strides")?,
            &node.attr::<String>("padding")?,
            &node.attr::<Vec<i64>>("explicit_paddings")?,
            &node.attr::<String>("data_format")?,
        )?,
        grad: node.op_type() == "MaxPoolGrad",
    }))
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let a = read_attrs(
        &ctx.attr::<Vec<i64>>("ksize")?,
        &ctx.attr::<Vec<i64>>("strides")?,
        &ctx.attr::<String>("padding")?,
        &ctx.attr::<Vec<i64>>("explicit_paddings")?,
        &ctx.attr::<String>("data_format")?,
    )?;
    let x = ctx.with_rank(0, 4)?;
    if ctx.op_type == "MaxPoolGrad" {
        ctx.set_output(0, x);
        return Ok(());
    }
    let dim = |d: Option<usize>, k: usize, s: usize, axis| -> Result<Option<usize>> {
        d.map(|d| static_output_size(d, k, s, a.padding, axis))
            .transpose()
    };
    let oh = dim(x.dim(1), a.ksize.0, a.strides.0, 0)?;
    let ow = dim(x.dim(2), a.ksize.1, a.strides.1, 1)?;
    ctx.set_output(0, Shape::new(vec![x.dim(0), oh, ow, x.dim(3)]));
    Ok(())
}

pub(super) fn register() {
    let common = |def: OpDef, types| {
        def.type_attr("T", types)
            .attr("ksize", AttrKind::Ints, None)
            .attr("strides", AttrKind::Ints, None)
            .attr("padding", AttrKind::Str, None)
            .attr(
                "explicit_paddings",
                AttrKind::Ints,
                Some(AttrValue::Ints(vec![])),
            )
            .attr(
                "data_format",
                AttrKind::Str,
                Some(AttrValue::Str("NHWC".into())),
            )
            .shape_fn(shape_fn)
    };
    register_op(
        common(OpDef::new("MaxPool"), super::MAX_POOL_TYPES)
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T")),
    );
    register_op(
        common(OpDef::new("MaxPoolGrad"), DType::REAL_AND_HALF)
            .input("orig_input", ArgType::Attr("T"))
            .input("orig_output", ArgType::Attr("T"))
            .input("grad", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T")),
    );
    register_kernel("MaxPool", make);
    register_kernel("MaxPoolGrad", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_and_routes_gradient_to_first_max() {
        // One 4x4 single-channel image, 2x2 windows, stride 2.
        let x = Tensor::from_vec(
            &[1, 4, 4, 1],
            vec![
                1.0f32, 2.0, 5.0, 5.0, //
                3.0, 4.0, 1.0, 0.0, //
                0.0, 0.0, 7.0, 1.0, //
                0.0, 9.0, 1.0, 7.0,
            ],
        )
        .unwrap();
        let a = PoolAttrs {
            ksize: (2, 2),
            strides: (2, 2),
            padding: Padding::Valid.into(),
        };
        assert_eq!(
            forward::<f32>(a, &x).unwrap().to_vec::<f32>().unwrap(),
            vec![4.0, 5.0, 9.0, 7.0]
        );
        let dy = Tensor::from_vec(&[1, 2, 2, 1], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
        let dx = backward::<f32>(a, &x, &dy, &dy)
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        let mut want = vec![0.0f32; 16];
        want[5] = 1.0;
        want[2] = 2.0; // the first of the two 5s
        want[13] = 3.0;
        want[10] = 4.0; // the first of the two 7s
        assert_eq!(dx, want);
        // SAME with 3x3 windows and stride 2: edges ignore the padding.
        let s = PoolAttrs {
            ksize: (3, 3),
            strides: (2, 2),
            padding: Padding::Same.into(),
        };
        let out = forward::<f32>(s, &(x.reshape(&[1, 4, 4, 1]).unwrap())).unwrap();
        assert_eq!(out.shape(), &[1, 2, 2, 1]);
        assert_eq!(out.to_vec::<f32>().unwrap(), vec![7.0, 7.0, 9.0, 7.0]);
    }
}
