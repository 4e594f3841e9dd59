//! Gradients of the FFT ops, built as TensorFlow's `fft_ops.py` builds them: the complex
//! transforms' gradients are the opposite transform scaled by the transform size
//! (`FFT`: `ifft(d) * n`; `IFFT`: `fft(d) / n`); `IRFFT` and `IRFFT2D` take the `rfft` of the
//! gradient with the Hermitian-duplicated bins doubled; `RFFT` adds back the terms of the bins
//! a real transform drops (`RFFT2D` through a DFT matrix). TensorFlow registers no gradient for
//! `RFFT3D`/`IRFFT3D`.
//!
//! The masks and sizes TensorFlow computes with shape ops are constants here, so the real
//! transforms' gradients need the transformed dims known when the gradient is built.

use weir_graph::{AttrValue, Complex, DType, Error, Output, Result, Tensor};
use weir_ops::array::{strided_slice_items, SliceItem, ELLIPSIS};

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::{cast_like, konst};

type Grads = Result<Vec<Option<Output>>>;

/// `d[..., 0:1]` and `d[..., -1:]`: the first and last bins the real-FFT gradients adjust.
fn first_and_last(d: &Output) -> Result<(Output, Output)> {
    let first = strided_slice_items(d, &weir_ops::s![ELLIPSIS, 0..1])?;
    let last = strided_slice_items(d, &weir_ops::s![ELLIPSIS, -1..])?;
    Ok((first, last))
}

fn real_of(dt: DType) -> Result<DType> {
    match dt {
        DType::C64 => Ok(DType::F32),
        DType::C128 => Ok(DType::F64),
        other => Err(Error::invalid_argument(format!(
            "Expected a complex gradient, got {other}"
        ))),
    }
}

fn complex_of(dt: DType) -> Result<DType> {
    match dt {
        DType::F32 => Ok(DType::C64),
        DType::F64 => Ok(DType::C128),
        other => Err(Error::invalid_argument(format!(
            "Expected a float gradient, got {other}"
        ))),
    }
}

/// `reduce_prod(shape(t)[-rank:])`: the number of elements one transform covers.
fn fft_size(t: &Output, rank: usize) -> Result<Output> {
    let g = t.graph();
    let shape = op(
        g,
        "Shape",
        &[t],
        &[("out_type", AttrValue::Type(DType::I32))],
    )?;
    let inner = strided_slice_items(
        &shape,
        &[SliceItem::Range {
            begin: Some(-(rank as i64)),
            end: None,
            step: 1,
        }],
    )?;
    let axes = konst(g, Tensor::from(vec![0i32]))?;
    op(
        g,
        "Prod",
        &[&inner, &axes],
        &[("keep_dims", AttrValue::Bool(false))],
    )
}

fn transform(kind: &str, d: &Output) -> Result<Output> {
    op(d.graph(), kind, &[d], &[])
}

/// `FFT*`: `ifft*(d) * cast(n, complex)`.
fn fft_grad(ctx: &GradContext<'_>, rank: usize, inverse_op: &str) -> Grads {
    let d = ctx.grad0()?;
    let size = cast_like(&fft_size(&d, rank)?, d.dtype())?;
    let t = transform(inverse_op, &d)?;
    Ok(vec![Some(op(ctx.graph(), "Mul", &[&t, &size], &[])?)])
}

/// `IFFT*`: `fft*(d) * cast(1 / cast(n, real), complex)`.
fn ifft_grad(ctx: &GradContext<'_>, rank: usize, forward_op: &str) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let real = real_of(d.dtype())?;
    let n = cast_like(&fft_size(&d, rank)?, real)?;
    let one = konst(g, weir_graph::scalar_of(real, 1.0)?)?;
    let inv = op(g, "RealDiv", &[&one, &n], &[])?;
    let rsize = cast_like(&inv, d.dtype())?;
    let t = transform(forward_op, &d)?;
    Ok(vec![Some(op(g, "Mul", &[&t, &rsize], &[])?)])
}

/// The constant FFT lengths of a real FFT node.
fn const_lengths(ctx: &GradContext<'_>) -> Result<Vec<i64>> {
    let len = ctx.input(1);
    if len.op().op_type() != "Const" {
        return Err(Error::unimplemented(
            "weir's real-FFT gradients need a constant fft_length".to_string(),
        ));
    }
    let t: Tensor = len.op().attr("value")?;
    Ok(t.to_vec::<i32>()?.into_iter().map(i64::from).collect())
}

/// A constant complex tensor of `dt` (complex64/complex128) from (re, im) pairs.
fn complex_const(ctx: &GradContext<'_>, dt: DType, dims: &[usize], v: &[f64]) -> Result<Output> {
    let t = match dt {
        DType::C64 => Tensor::from_vec(
            dims,
            v.iter().map(|&x| Complex::new(x as f32, 0.0)).collect(),
        ),
        _ => Tensor::from_vec(dims, v.iter().map(|&x| Complex::new(x, 0.0)).collect()),
    }?;
    konst(ctx.graph(), t)
}

/// `IRFFT`/`IRFFT2D`: `rfft(d, fft_length) * cast(mask / n, complex)`, the mask doubling the
/// bins that stand for two (all but the zero and, for even lengths, Nyquist bins).
fn irfft_grad(ctx: &GradContext<'_>, rank: usize, rfft_op: &str) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let lens = const_lengths(ctx)?;
    let x = ctx.input(0);
    let last = x.shape().dim(-1).ok_or_else(|| {
        Error::unimplemented("weir's IRFFT gradient needs the input's last dim known".to_string())
    })?;
    let n: f64 = lens.iter().map(|&l| l as f64).product();
    let is_odd = (lens[rank - 1] % 2) as usize;
    let mut mask = vec![1.0 / n];
    mask.extend(std::iter::repeat_n(
        2.0 / n,
        (last + is_odd).saturating_sub(2),
    ));
    mask.extend(std::iter::repeat_n(1.0 / n, 1 - is_odd));
    let cdt = complex_of(d.dtype())?;
    let mask = complex_const(ctx, cdt, &[mask.len()], &mask)?;
    let lens32: Vec<i32> = lens.iter().map(|&l| l as i32).collect();
    let len = konst(g, Tensor::from(lens32))?;
    let spec = op(
        g,
        rfft_op,
        &[&d, &len],
        &[("Tcomplex", AttrValue::Type(cdt))],
    )?;
    Ok(vec![Some(op(g, "Mul", &[&spec, &mask], &[])?), None])
}

/// `RFFT`: `0.5 * (irfft(d) * n + real(d[..., :1] + is_even * d[..., -1:] * [1, -1, ...]))`.
fn rfft_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let lens = const_lengths(ctx)?;
    let x = ctx.input(0);
    let n_in = x.shape().dim(-1).ok_or_else(|| {
        Error::unimplemented("weir's RFFT gradient needs the input's last dim known".to_string())
    })?;
    let real = real_of(d.dtype())?;
    let (y0, ym) = first_and_last(&d)?;
    let is_even = if lens[0] % 2 == 0 { 1.0 } else { 0.0 };
    let ymask: Vec<f64> = (0..n_in)
        .map(|i| is_even * if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    let ymask = complex_const(ctx, d.dtype(), &[n_in], &ymask)?;
    let odd_terms = op(g, "Mul", &[&ym, &ymask], &[])?;
    let extra = op(g, "AddV2", &[&y0, &odd_terms], &[])?;
    let extra = op(g, "Real", &[&extra], &[("Tout", AttrValue::Type(real))])?;
    let len = ctx.input(1);
    let back = op(g, "IRFFT", &[&d, &len], &[("Treal", AttrValue::Type(real))])?;
    let size = konst(g, weir_graph::scalar_of(real, n_in as f64)?)?;
    let scaled = op(g, "Mul", &[&back, &size], &[])?;
    let sum = op(g, "AddV2", &[&scaled, &extra], &[])?;
    let half = konst(g, weir_graph::scalar_of(real, 0.5)?)?;
    Ok(vec![Some(op(g, "Mul", &[&half, &sum], &[])?), None])
}

/// `RFFT2D`: as `RFFT`, with the dropped bins' terms of the outer axis brought back through
/// the DFT matrix `exp(-2 pi i j k / m)` (a constant here, tiled over the batch dims):
/// `0.5 * (irfft2d(d) * m * n + real(W conj(d[..., :1]) + is_even * W conj(d[..., -1:]) *
/// [1, -1, ...]))`.
fn rfft2d_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let lens = const_lengths(ctx)?;
    let x = ctx.input(0);
    let dims = x.shape().to_known().ok_or_else(|| {
        Error::unimplemented("weir's RFFT2D gradient needs the input's shape known".to_string())
    })?;
    let r = dims.len();
    let (m, n_in) = (dims[r - 2], dims[r - 1]);
    let real = real_of(d.dtype())?;
    let batch: usize = dims[..r - 2].iter().product();
    let mut mask = Vec::with_capacity(batch * m * m);
    for _ in 0..batch {
        for j in 0..m {
            for k in 0..m {
                let a = -2.0 * std::f64::consts::PI * ((j * k) % m.max(1)) as f64 / m as f64;
                mask.push((a.cos(), a.sin()));
            }
        }
    }
    let mut mask_dims = dims[..r - 2].to_vec();
    mask_dims.extend([m, m]);
    let mask = match d.dtype() {
        DType::C64 => Tensor::from_vec(
            &mask_dims,
            mask.iter()
                .map(|&(re, im)| Complex::new(re as f32, im as f32))
                .collect(),
        ),
        _ => Tensor::from_vec(
            &mask_dims,
            mask.iter().map(|&(re, im)| Complex::new(re, im)).collect(),
        ),
    }?;
    let mask = konst(g, mask)?;
    let (y0, ym) = first_and_last(&d)?;
    let y0_term = weir_ops::math::matmul(&mask, op(g, "Conj", &[&y0], &[])?)?;
    let ym_term = weir_ops::math::matmul(&mask, op(g, "Conj", &[&ym], &[])?)?;
    let is_even = if lens[1] % 2 == 0 { 1.0 } else { 0.0 };
    let ymask: Vec<f64> = (0..n_in)
        .map(|i| is_even * if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    let ymask = complex_const(ctx, d.dtype(), &[n_in], &ymask)?;
    let ym_term = op(g, "Mul", &[&ym_term, &ymask], &[])?;
    let extra = op(g, "AddV2", &[&y0_term, &ym_term], &[])?;
    let extra = op(g, "Real", &[&extra], &[("Tout", AttrValue::Type(real))])?;
    let len = ctx.input(1);
    let back = op(
        g,
        "IRFFT2D",
        &[&d, &len],
        &[("Treal", AttrValue::Type(real))],
    )?;
    let size = konst(g, weir_graph::scalar_of(real, (m * n_in) as f64)?)?;
    let scaled = op(g, "Mul", &[&back, &size], &[])?;
    let sum = op(g, "AddV2", &[&scaled, &extra], &[])?;
    let half = konst(g, weir_graph::scalar_of(real, 0.5)?)?;
    Ok(vec![Some(op(g, "Mul", &[&half, &sum], &[])?), None])
}

pub(super) fn register() {
    register_gradient("RFFT2D", rfft2d_grad);
    register_gradient("FFT", |c| fft_grad(c, 1, "IFFT"));
    register_gradient("FFT2D", |c| fft_grad(c, 2, "IFFT2D"));
    register_gradient("FFT3D", |c| fft_grad(c, 3, "IFFT3D"));
    register_gradient("IFFT", |c| ifft_grad(c, 1, "FFT"));
    register_gradient("IFFT2D", |c| ifft_grad(c, 2, "FFT2D"));
    register_gradient("IFFT3D", |c| ifft_grad(c, 3, "FFT3D"));
    register_gradient("IRFFT", |c| irfft_grad(c, 1, "RFFT"));
    register_gradient("IRFFT2D", |c| irfft_grad(c, 2, "RFFT2D"));
    register_gradient("RFFT", rfft_grad);
}
