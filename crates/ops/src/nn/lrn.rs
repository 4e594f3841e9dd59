//! `LRN` (`tf.nn.local_response_normalization`, `tf.nn.lrn`) and its backward kernel
//! `LRNGrad`: each value divided by a power of the sum of squares of its neighbours along the
//! depth (last) dimension, as AlexNet and TensorFlow's CIFAR-10 model normalize.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, Error, Kernel, Node, OpContext, OpDef, Output,
    Result, Tensor,
};

use super::{match_float, same_as_input0, NnFloat, FLOATS};

/// The options of `tf.nn.lrn(input, depth_radius=5, bias=1, alpha=1, beta=0.5)`.
#[derive(Clone, Copy, Debug)]
pub struct Lrn {
    depth_radius: i64,
    bias: f32,
    alpha: f32,
    beta: f32,
}

impl Default for Lrn {
    fn default() -> Self {
        Lrn {
            depth_radius: 5,
            bias: 1.0,
            alpha: 1.0,
            beta: 0.5,
        }
    }
}

impl Lrn {
    /// TensorFlow's defaults.
    pub fn new() -> Lrn {
        Lrn::default()
    }

    /// Half-width of the window along depth (the window has `2 * r + 1` channels).
    pub fn depth_radius(mut self, r: i64) -> Lrn {
        self.depth_radius = r;
        self
    }

    /// Added to the scaled sum of squares (avoids dividing by zero).
    pub fn bias(mut self, b: f32) -> Lrn {
        self.bias = b;
        self
    }

    /// The scale of the sum of squares.
    pub fn alpha(mut self, a: f32) -> Lrn {
        self.alpha = a;
        self
    }

    /// The exponent.
    pub fn beta(mut self, b: f32) -> Lrn {
        self.beta = b;
        self
    }

    /// `output = input / (bias + alpha * sqr_sum) ** beta`, where `sqr_sum` sums the squares
    /// of `input[..., d - r : d + r + 1]`; `input` is a 4-D float tensor.
    ///
    /// ```
    /// # use weir_graph::{Graph, Tensor};
    /// # use weir_ops::{array::constant, nn::Lrn};
    /// let g = Graph::new();
    /// let x = constant(&g, Tensor::from_vec(&[1, 1, 1, 2], vec![3.0f32, 4.0])?)?;
    /// // Radius 1: both channels see 9 + 16; 3 / (1 + 25) ** 0.5 and 4 / 26 ** 0.5.
    /// let y = Lrn::new().depth_radius(1).build(&x)?;
    /// # let _ = y;
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn build(self, input: impl Into<Output>) -> Result<Output> {
        let x = input.into();
        crate::new_op(x.graph(), "LRN")
            .input(&x)
            .attr("depth_radius", self.depth_radius)
            .attr("bias", self.bias)
            .attr("alpha", self.alpha)
            .attr("beta", self.beta)
            .build()?
            .output(0)
    }
}

/// `tf.nn.lrn(input)` with TensorFlow's defaults (radius 5, bias 1, alpha 1, beta 0.5).
pub fn lrn(input: impl Into<Output>) -> Result<Output> {
    Lrn::new().build(input)
}

/// `tf.raw_ops.LRNGrad(input_grads, input_image, output_image, ...)`: the gradient of `LRN`
/// with respect to its input, as `LRN`'s gradient function calls it.
pub fn lrn_grad(
    grads: impl Into<Output>,
    input: impl Into<Output>,
    output: impl Into<Output>,
    options: Lrn,
) -> Result<Output> {
    let (d, x, y) = (grads.into(), input.into(), output.into());
    crate::new_op(x.graph(), "LRNGrad")
        .input(&d)
        .input(&x)
        .input(&y)
        .attr("depth_radius", options.depth_radius)
        .attr("bias", options.bias)
        .attr("alpha", options.alpha)
        .attr("beta", options.beta)
        .build()?
        .output(0)
}

#[derive(Clone, Copy)]
struct Params {
    radius: usize,
    bias: f64,
    alpha: f64,
    beta: f64,
}

fn params(node: &Node) -> Result<Params> {
    let r = node.attr::<i64>("depth_radius")?;
    let radius = usize::try_from(r)
        .map_err(|_| Error::invalid_argument(format!("depth_radius = {r} must be non-negative")))?;
    Ok(Params {
        radius,
        bias: node.attr::<f32>("bias")? as f64,
        alpha: node.attr::<f32>("alpha")? as f64,
        beta: node.attr::<f32>("beta")? as f64,
    })
}

fn check_rank4(t: &Tensor, what: &str) -> Result<usize> {
    if t.rank() != 4 {
        return Err(Error::invalid_argument(format!(
            "{what} must be 4-dimensional, got {}",
            format_dims(t.shape())
        )));
    }
    Ok(t.shape()[3])
}

/// `bias + alpha * (sum of squares of the window)` for each channel of `row`. Each window is
/// summed afresh (not slid), so no rounding drifts along the row.
fn norms<T: NnFloat>(row: &[T], p: Params, out: &mut Vec<f64>) {
    out.clear();
    let depth = row.len();
    for d in 0..depth {
        let lo = d.saturating_sub(p.radius);
        let hi = (d + p.radius + 1).min(depth);
        let sum: f64 = row[lo..hi]
            .iter()
            .map(|&v| {
                let v = to64(v);
                v * v
            })
            .sum();
        out.push(p.bias + p.alpha * sum);
    }
}

fn to64<T: NnFloat>(v: T) -> f64 {
    v.to_f64().unwrap_or(f64::NAN)
}

fn from64<T: NnFloat>(v: f64) -> T {
    T::from(v).unwrap_or_else(T::nan)
}

/// The forward pass over rows of `depth` channels, in f64 then rounded once.
fn lrn_rows<T: NnFloat>(xs: &[T], depth: usize, p: Params) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(xs.len());
    let mut n = Vec::with_capacity(depth);
    for row in xs.chunks(depth.max(1)) {
        norms(row, p, &mut n);
        out.extend(
            row.iter()
                .zip(&n)
                .map(|(&v, &norm)| from64::<T>(to64(v) * norm.powf(-p.beta))),
        );
    }
    out
}

/// TensorFlow's backward rule: output j spreads `dy_j * d(y_j)/d(x_k)` over its window k, with
/// `d(y_j)/d(x_k) = [k == j] * norm_j^-beta - 2 * alpha * beta * x_k * y_j / norm_j`.
fn lrn_grad_rows<T: NnFloat>(ds: &[T], xs: &[T], ys: &[T], depth: usize, p: Params) -> Vec<T> {
    let mut dx = vec![0.0f64; xs.len()];
    let mut n = Vec::with_capacity(depth);
    let w = depth.max(1);
    for (r, ((xr, yr), dr)) in xs.chunks(w).zip(ys.chunks(w)).zip(ds.chunks(w)).enumerate() {
        norms(xr, p, &mut n);
        let base = r * depth;
        for j in 0..xr.len() {
            let lo = j.saturating_sub(p.radius);
            let hi = (j + p.radius + 1).min(xr.len());
            let scale = -2.0 * p.alpha * p.beta * to64(yr[j]) / n[j];
            let dj = to64(dr[j]);
            for k in lo..hi {
                let mut g = scale * to64(xr[k]);
                if k == j {
                    g += n[j].powf(-p.beta);
                }
                dx[base + k] += g * dj;
            }
        }
    }
    dx.into_iter().map(from64::<T>).collect()
}

struct LrnKernel(Params);

impl Kernel for LrnKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let depth = check_rank4(x, "input")?;
        let p = self.0;
        let out = match_float!(x.dtype(), T => {
            Tensor::from_vec(x.shape(), lrn_rows(x.as_slice::<T>()?, depth, p))?
        });
        ctx.set_output(0, out);
        Ok(())
    }
}

struct LrnGradKernel(Params);

impl Kernel for LrnGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (d, x, y) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let depth = check_rank4(x, "input_image")?;
        if d.shape() != x.shape() || y.shape() != x.shape() {
            return Err(Error::invalid_argument(format!(
                "input_grads, input_image, and out_image should have the same shape, got {}, {} \
                 and {}",
                format_dims(d.shape()),
                format_dims(x.shape()),
                format_dims(y.shape())
            )));
        }
        let p = self.0;
        let out = match_float!(x.dtype(), T => {
            let (ds, xs, ys) = (d.as_slice::<T>()?, x.as_slice::<T>()?, y.as_slice::<T>()?);
            Tensor::from_vec(x.shape(), lrn_grad_rows(ds, xs, ys, depth, p))?
        });
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(super) fn register() {
    let attrs = |def: OpDef| {
        def.type_attr("T", FLOATS)
            .attr("depth_radius", AttrKind::Int, Some(AttrValue::Int(5)))
            .attr("bias", AttrKind::Float, Some(AttrValue::Float(1.0)))
            .attr("alpha", AttrKind::Float, Some(AttrValue::Float(1.0)))
            .attr("beta", AttrKind::Float, Some(AttrValue::Float(0.5)))
    };
    register_op(
        attrs(
            OpDef::new("LRN")
                .input("input", ArgType::Attr("T"))
                .output("output", ArgType::Attr("T")),
        )
        .shape_fn(|ctx| {
            ctx.with_rank(0, 4)?;
            same_as_input0(ctx)
        }),
    );
    register_op(
        attrs(
            OpDef::new("LRNGrad")
                .input("input_grads", ArgType::Attr("T"))
                .input("input_image", ArgType::Attr("T"))
                .input("output_image", ArgType::Attr("T"))
                .output("output", ArgType::Attr("T")),
        )
        .shape_fn(|ctx| {
            ctx.with_rank(1, 4)?;
            let s = ctx.input_shape(1).clone();
            ctx.set_output(0, s);
            Ok(())
        }),
    );
    register_kernel("LRN", |node| Ok(Box::new(LrnKernel(params(node)?))));
    register_kernel("LRNGrad", |node| Ok(Box::new(LrnGradKernel(params(node)?))));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_sums_clip_at_the_edges() {
        let p = Params {
            radius: 1,
            bias: 2.0,
            alpha: 0.5,
            beta: 0.75,
        };
        let mut n = Vec::new();
        norms(&[1.0f32, 2.0, 3.0, 4.0], p, &mut n);
        // Windows: {1,2}, {1,2,3}, {2,3,4}, {3,4}.
        let sums = [1.0 + 4.0, 1.0 + 4.0 + 9.0, 4.0 + 9.0 + 16.0, 9.0 + 16.0];
        let want: Vec<f64> = sums.iter().map(|s| 2.0 + 0.5 * s).collect();
        assert_eq!(n, want);
        let mut wide = Vec::new();
        let q = Params { radius: 9, ..p };
        norms(&[1.0f64, 2.0], q, &mut wide);
        assert_eq!(wide, vec![2.0 + 0.5 * 5.0; 2]);
    }
}
