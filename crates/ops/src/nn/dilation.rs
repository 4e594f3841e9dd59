//! Grayscale morphology: `tf.nn.dilation2d` (`Dilation2D`) with its backprop kernels
//! `Dilation2DBackpropInput` and `Dilation2DBackpropFilter` (`dilation_ops.cc`), and
//! `tf.nn.erosion2d`, which TensorFlow composes from dilation by duality.
//!
//! `output[b, y, x, c] = max over (dy, dx) of input[b, y*sy + dy*ry - pad_top, x*sx + dx*rx -
//! pad_left, c] + filter[dy, dx, c]`, positions outside the image skipped; the gradients go to
//! the first maximum in window order.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor,
};

use super::padding::{conv_output_size, Padding};
use super::NnNumber;
use crate::math::unsorted_segment::Finite;

/// `tf.compat.v1.nn.dilation2d(input, filter, strides, rates, padding)`: NHWC `input`, filter
/// `[filter_height, filter_width, depth]`, `strides` and `rates` `[1, s, s, 1]`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, nn::{dilation2d, Padding}};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(9), Some(9), Some(2)]))?;
/// let k = placeholder(&g, DType::F32, Shape::known(&[3, 3, 2]))?;
/// let y = dilation2d(&x, &k, [1, 2, 2, 1], [1, 1, 1, 1], Padding::Valid)?;
/// assert_eq!(y.shape(), Shape::new(vec![None, Some(4), Some(4), Some(2)]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn dilation2d(
    input: impl Into<Output>,
    filter: impl Into<Output>,
    strides: [i64; 4],
    rates: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    let (x, f) = (input.into(), filter.into());
    let g = crate::util::same_graph(&[&x, &f])?.clone();
    node(&g, "Dilation2D", strides, rates, padding)
        .input(x)
        .input(f)
        .build()?
        .output(0)
}

/// `tf.compat.v1.nn.erosion2d(value, kernel, strides, rates, padding)`: TensorFlow's
/// `-dilation2d(-value, reverse(kernel, [0, 1]))` in the name scope `erosion2d`, the dilation
/// node named as the scope.
pub fn erosion2d(
    value: impl Into<Output>,
    kernel: impl Into<Output>,
    strides: [i64; 4],
    rates: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    let (x, k) = (value.into(), kernel.into());
    let g = crate::util::same_graph(&[&x, &k])?.clone();
    let scope = g.name_scope("erosion2d");
    let neg_x = crate::math::neg(&x)?;
    let flipped = {
        let rs = g.name_scope("ReverseV2");
        let axes = crate::array::constant_named(&g, Tensor::from(vec![0i32, 1]), "axis")?;
        crate::new_op(&g, "ReverseV2")
            .name(rs.prefix())
            .input(k)
            .input(axes)
            .build()?
            .output(0)?
    };
    // Python passes the scope's own name to the dilation op: it takes the scope name exactly.
    let d = node(&g, "Dilation2D", strides, rates, padding)
        .name(scope.prefix())
        .input(neg_x)
        .input(flipped)
        .build()?
        .output(0)?;
    crate::math::neg(&d)
}

/// `Dilation2DBackpropInput(input, filter, out_backprop)`: the gradient of [`dilation2d`] with
/// respect to its input.
pub fn dilation2d_backprop_input(
    input: impl Into<Output>,
    filter: impl Into<Output>,
    out_backprop: impl Into<Output>,
    strides: [i64; 4],
    rates: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    backprop(
        "Dilation2DBackpropInput",
        [input.into(), filter.into(), out_backprop.into()],
        strides,
        rates,
        padding,
    )
}

/// `Dilation2DBackpropFilter(input, filter, out_backprop)`: the gradient of [`dilation2d`] with
/// respect to its filter.
pub fn dilation2d_backprop_filter(
    input: impl Into<Output>,
    filter: impl Into<Output>,
    out_backprop: impl Into<Output>,
    strides: [i64; 4],
    rates: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    backprop(
        "Dilation2DBackpropFilter",
        [input.into(), filter.into(), out_backprop.into()],
        strides,
        rates,
        padding,
    )
}

fn node(
    g: &weir_graph::Graph,
    op: &str,
    strides: [i64; 4],
    rates: [i64; 4],
    padding: Padding,
) -> weir_graph::OpBuilder {
    crate::new_op(g, op)
        .attr("strides", strides.to_vec())
        .attr("rates", rates.to_vec())
        .attr("padding", padding.as_str())
}

fn backprop(
    op: &str,
    [x, f, dy]: [Output; 3],
    strides: [i64; 4],
    rates: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    let g = crate::util::same_graph(&[&x, &f, &dy])?.clone();
    node(&g, op, strides, rates, padding)
        .input(x)
        .input(f)
        .input(dy)
        .build()?
        .output(0)
}

/// `ParseAttributes`: the (row, col) strides and rates, and the padding.
#[derive(Clone, Copy, Debug)]
struct Attrs {
    strides: (usize, usize),
    rates: (usize, usize),
    padding: Padding,
}

fn read_attrs(strides: &[i64], rates: &[i64], padding: &str) -> Result<Attrs> {
    if strides.len() != 4 {
        return Err(Error::invalid_argument(
            "Sliding window stride field must specify 4 dimensions",
        ));
    }
    if strides[0] != 1 || strides[3] != 1 {
        return Err(Error::unimplemented(
            "Stride is only supported across spatial dimensions.",
        ));
    }
    if rates.len() != 4 {
        return Err(Error::invalid_argument(
            "Input stride (atrous rate) field must specify 4 dimensions",
        ));
    }
    if rates[0] != 1 || rates[3] != 1 {
        return Err(Error::unimplemented(
            "Rate is only supported across spatial dimensions.",
        ));
    }
    let pos = |v: i64, what: &str| {
        usize::try_from(v)
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| Error::invalid_argument(format!("{what} must be positive, got {v}")))
    };
    Ok(Attrs {
        strides: (pos(strides[1], "Stride")?, pos(strides[2], "Stride")?),
        rates: (pos(rates[1], "Rate")?, pos(rates[2], "Rate")?),
        padding: Padding::parse(padding)?,
    })
}

fn node_attrs(node: &Node) -> Result<Attrs> {
    read_attrs(
        &node.attr::<Vec<i64>>("strides")?,
        &node.attr::<Vec<i64>>("rates")?,
        &node.attr::<String>("padding")?,
    )
}

/// The geometry of one dilation (`ParseSizes`).
#[derive(Clone, Copy, Debug)]
struct Geom {
    n: usize,
    h: usize,
    w: usize,
    c: usize,
    fh: usize,
    fw: usize,
    oh: usize,
    ow: usize,
    a: Attrs,
    pad_top: usize,
    pad_left: usize,
}

fn geometry(a: Attrs, x: &Tensor, f: &Tensor) -> Result<Geom> {
    if x.rank() != 4 {
        return Err(Error::invalid_argument(format!(
            "input must be 4-dimensional{}",
            format_dims(x.shape())
        )));
    }
    if f.rank() != 3 {
        return Err(Error::invalid_argument(format!(
            "filter must be 3-dimensional: {}",
            format_dims(f.shape())
        )));
    }
    let (s, fs) = (x.shape(), f.shape());
    if s[3] != fs[2] {
        return Err(Error::invalid_argument(format!(
            "input and filter must have the same depth: {} vs {}",
            s[3], fs[2]
        )));
    }
    let eff = |k: usize, r: usize| k + k.saturating_sub(1) * (r - 1);
    let (oh, pad_top) = conv_output_size(s[1], eff(fs[0], a.rates.0), a.strides.0, a.padding)?;
    let (ow, pad_left) = conv_output_size(s[2], eff(fs[1], a.rates.1), a.strides.1, a.padding)?;
    Ok(Geom {
        n: s[0],
        h: s[1],
        w: s[2],
        c: s[3],
        fh: fs[0],
        fw: fs[1],
        oh,
        ow,
        a,
        pad_top,
        pad_left,
    })
}

/// Numbers a dilation adds (integers wrapping, as TensorFlow's do) and compares; each output's
/// maximum starts at [`Finite::LOWEST`] (`NumTraits::lowest`, the most negative finite value).
trait Morph: NnNumber + Finite {}
impl<T: NnNumber + Finite> Morph for T {}

/// Visits every output `(flat output index, max value, input (y, x), filter (y, x))`, the
/// positions of the first maximum (`None` when no tap lies in the image).
fn each_max<T: Morph>(
    g: &Geom,
    x: &[T],
    f: &[T],
    mut visit: impl FnMut(usize, T, Option<((usize, usize), (usize, usize))>),
) {
    let mut o = 0;
    for b in 0..g.n {
        for oy in 0..g.oh {
            let y0 = (oy * g.a.strides.0) as i64 - g.pad_top as i64;
            for ox in 0..g.ow {
                let x0 = (ox * g.a.strides.1) as i64 - g.pad_left as i64;
                for c in 0..g.c {
                    let mut cur = T::LOWEST;
                    let mut at = None;
                    for ky in 0..g.fh {
                        let iy = y0 + (ky * g.a.rates.0) as i64;
                        if iy < 0 || iy >= g.h as i64 {
                            continue;
                        }
                        for kx in 0..g.fw {
                            let ix = x0 + (kx * g.a.rates.1) as i64;
                            if ix < 0 || ix >= g.w as i64 {
                                continue;
                            }
                            let (iy, ix) = (iy as usize, ix as usize);
                            let v = x[((b * g.h + iy) * g.w + ix) * g.c + c]
                                .plus(f[(ky * g.fw + kx) * g.c + c]);
                            if v > cur {
                                cur = v;
                                at = Some(((iy, ix), (ky, kx)));
                            }
                        }
                    }
                    visit(o, cur, at);
                    o += 1;
                }
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    Forward,
    Input,
    Filter,
}

fn compute<T: Morph>(
    which: Which,
    g: &Geom,
    x: &Tensor,
    f: &Tensor,
    dy: Option<&Tensor>,
) -> Result<Tensor> {
    let (xs, fs) = (x.as_slice::<T>()?, f.as_slice::<T>()?);
    match which {
        Which::Forward => {
            let mut out = vec![T::ZERO; g.n * g.oh * g.ow * g.c];
            each_max(g, xs, fs, |o, v, _| out[o] = v);
            Tensor::from_vec(&[g.n, g.oh, g.ow, g.c], out)
        }
        Which::Input | Which::Filter => {
            let dy = dy.map(|t| t.as_slice::<T>()).transpose()?.unwrap_or(&[]);
            let size = if which == Which::Input {
                xs.len()
            } else {
                fs.len()
            };
            let mut out = vec![T::ZERO; size];
            each_max(g, xs, fs, |o, _, at| {
                let b = o / (g.oh * g.ow * g.c);
                let c = o % g.c;
                // Without a tap in the image the kernels fall back to the window's clamped
                // start (input) or the filter's origin.
                let i = match (which, at) {
                    (Which::Input, Some(((iy, ix), _))) => ((b * g.h + iy) * g.w + ix) * g.c + c,
                    (Which::Input, None) => {
                        let oy = o / (g.ow * g.c) % g.oh;
                        let ox = o / g.c % g.ow;
                        let iy = (oy * g.a.strides.0).saturating_sub(g.pad_top);
                        let ix = (ox * g.a.strides.1).saturating_sub(g.pad_left);
                        if iy >= g.h || ix >= g.w {
                            return;
                        }
                        ((b * g.h + iy) * g.w + ix) * g.c + c
                    }
                    (_, Some((_, (ky, kx)))) => (ky * g.fw + kx) * g.c + c,
                    (_, None) => c,
                };
                out[i] = out[i].plus(dy[o]);
            });
            Tensor::from_vec(
                if which == Which::Input {
                    x.shape()
                } else {
                    f.shape()
                },
                out,
            )
        }
    }
}

struct DilationKernel {
    which: Which,
    attrs: Attrs,
}

impl Kernel for DilationKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (x, f) = (ctx.input(0), ctx.input(1));
        let g = geometry(self.attrs, x, f)?;
        let dy = if self.which == Which::Forward {
            None
        } else {
            let dy = ctx.input(2);
            if dy.rank() != 4 {
                return Err(Error::invalid_argument(format!(
                    "out_backprop must be 4-dimensional{}",
                    format_dims(dy.shape())
                )));
            }
            if dy.shape() != [g.n, g.oh, g.ow, g.c] {
                return Err(Error::invalid_argument(
                    "out_backprop has incompatible size.",
                ));
            }
            Some(dy)
        };
        let dt = x.dtype();
        let out = super::match_real_or_half!(dt, T => compute::<T>(self.which, &g, x, f, dy)?);
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let which = match node.op_type() {
        "Dilation2D" => Which::Forward,
        "Dilation2DBackpropInput" => Which::Input,
        _ => Which::Filter,
    };
    Ok(Box::new(DilationKernel {
        which,
        attrs: node_attrs(node)?,
    }))
}

/// `Dilation2D`'s shape function: rank-4 input, rank-3 filter of the same depth, and the
/// windowed output size of the effective (dilated) filter; the backprops keep their input's or
/// filter's shape.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let a = read_attrs(
        &ctx.attr::<Vec<i64>>("strides")?,
        &ctx.attr::<Vec<i64>>("rates")?,
        &ctx.attr::<String>("padding")?,
    )?;
    let x = ctx.with_rank(0, 4)?;
    let f = ctx.with_rank(1, 3)?;
    if let (Some(d), Some(fd)) = (x.dim(3), f.dim(2)) {
        if d != fd {
            return Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {d} and {fd} for '{}'",
                ctx.op_type
            )));
        }
    }
    match ctx.op_type {
        "Dilation2DBackpropInput" => ctx.set_output(0, x),
        "Dilation2DBackpropFilter" => ctx.set_output(0, f),
        _ => {
            let dim =
                |d: Option<usize>, k: Option<usize>, r: usize, s: usize| -> Result<Option<usize>> {
                    match (d, k) {
                        (Some(d), Some(k)) => {
                            let eff = k + k.saturating_sub(1) * (r - 1);
                            Ok(Some(conv_output_size(d, eff, s, a.padding)?.0))
                        }
                        _ => Ok(None),
                    }
                };
            let oh = dim(x.dim(1), f.dim(0), a.rates.0, a.strides.0)?;
            let ow = dim(x.dim(2), f.dim(1), a.rates.1, a.strides.1)?;
            let c = x.dim(3).or(f.dim(2));
            ctx.set_output(0, Shape::new(vec![x.dim(0), oh, ow, c]));
        }
    }
    Ok(())
}

pub(super) fn register() {
    let common = |def: OpDef| {
        def.type_attr("T", DType::REAL_AND_HALF)
            .attr("strides", AttrKind::Ints, None)
            .attr("rates", AttrKind::Ints, None)
            .attr("padding", AttrKind::Str, None)
            .shape_fn(shape_fn)
    };
    register_op(
        common(OpDef::new("Dilation2D"))
            .input("input", ArgType::Attr("T"))
            .input("filter", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T")),
    );
    register_op(
        common(OpDef::new("Dilation2DBackpropInput"))
            .input("input", ArgType::Attr("T"))
            .input("filter", ArgType::Attr("T"))
            .input("out_backprop", ArgType::Attr("T"))
            .output("in_backprop", ArgType::Attr("T")),
    );
    register_op(
        common(OpDef::new("Dilation2DBackpropFilter"))
            .input("input", ArgType::Attr("T"))
            .input("filter", ArgType::Attr("T"))
            .input("out_backprop", ArgType::Attr("T"))
            .output("filter_backprop", ArgType::Attr("T")),
    );
    for op in [
        "Dilation2D",
        "Dilation2DBackpropInput",
        "Dilation2DBackpropFilter",
    ] {
        register_kernel(op, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dilation_is_a_max_plus_and_routes_gradients_to_the_first_max() {
        let a = read_attrs(&[1, 1, 1, 1], &[1, 1, 1, 1], "VALID").unwrap();
        let x = Tensor::from_vec(&[1, 2, 2, 1], vec![1.0f32, 2.0, 3.0, 0.0]).unwrap();
        let f = Tensor::from_vec(&[2, 2, 1], vec![0.0f32, 1.0, 0.0, 3.0]).unwrap();
        let g = geometry(a, &x, &f).unwrap();
        let y = compute::<f32>(Which::Forward, &g, &x, &f, None).unwrap();
        assert_eq!(y.to_vec::<f32>().unwrap(), vec![3.0]);
        let dy = Tensor::from_vec(&[1, 1, 1, 1], vec![2.0f32]).unwrap();
        let dx = compute::<f32>(Which::Input, &g, &x, &f, Some(&dy)).unwrap();
        // 2 + 1 and 0 + 3 tie at 3: the first (x[0, 1]) wins.
        assert_eq!(dx.to_vec::<f32>().unwrap(), vec![0.0, 2.0, 0.0, 0.0]);
        let df = compute::<f32>(Which::Filter, &g, &x, &f, Some(&dy)).unwrap();
        assert_eq!(df.to_vec::<f32>().unwrap(), vec![0.0, 2.0, 0.0, 0.0]);
    }
}
