//! Gradients of the image, detection and morphology ops as TensorFlow registers them:
//! from `image_grad.py`, `ResizeBilinear`, `ResizeNearestNeighbor` and `ResizeBicubic` (their
//! `...Grad` ops), `CropAndResize` (`CropAndResizeGradImage` for float images,
//! `CropAndResizeGradBoxes` always) and `RGBToHSV` (composed from elementwise ops, below);
//! `ExtractImagePatches` from `array_grad.py` (an `UnsortedSegmentSum` over patched pixel
//! indices); `MaxPoolWithArgmax` (a `MaxPoolGradWithArgmax` through the forward argmax) and
//! `Dilation2D` (its two backprop ops) from `nn_grad.py`; and the suppressions TensorFlow
//! declares not differentiable. `ResizeArea` and `CombinedNonMaxSuppression` have no gradient
//! there, so none here.

use weir_graph::{AttrValue, DType, Output, Result, Tensor};
use weir_ops::array::StridedSlice;

use super::op;
use super::registry::{register_gradient, register_not_differentiable, GradContext};
use super::util::{cast_like, konst, scalar_like, shape_of};

type Grads = Result<Vec<Option<Output>>>;

fn attrs(ctx: &GradContext<'_>, names: &[&'static str]) -> Vec<(&'static str, AttrValue)> {
    names
        .iter()
        .filter_map(|n| ctx.attr_value(n).map(|v| (*n, v.clone())))
        .collect()
}

/// `_ResizeBicubicGrad`: only float32 and float64 images get a gradient; the size none.
fn resize_bicubic_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x) = (ctx.grad0()?, ctx.input(0));
    if !matches!(x.dtype(), DType::F32 | DType::F64) {
        return Ok(vec![None, None]);
    }
    let a = attrs(ctx, &["align_corners", "half_pixel_centers"]);
    let dx = op(ctx.graph(), "ResizeBicubicGrad", &[&d, &x], &a)?;
    Ok(vec![Some(dx), None])
}

/// `_MaxPoolGradWithArgmax`: the output's gradient scattered through the forward argmax (the
/// argmax output's own gradient is ignored).
fn max_pool_with_argmax_grad(ctx: &GradContext<'_>) -> Grads {
    let Some(d) = ctx.grad(0).cloned() else {
        return Ok(vec![None]);
    };
    let (x, at) = (ctx.input(0), ctx.output(1));
    let a = attrs(
        ctx,
        &["ksize", "strides", "padding", "include_batch_in_index"],
    );
    let dx = op(ctx.graph(), "MaxPoolGradWithArgmax", &[&x, &d, &at], &a)?;
    Ok(vec![Some(dx)])
}

/// `_Dilation2DGrad`: `Dilation2DBackpropInput` and `Dilation2DBackpropFilter`.
fn dilation2d_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, f) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let a = attrs(ctx, &["strides", "rates", "padding"]);
    let g = ctx.graph();
    Ok(vec![
        Some(op(g, "Dilation2DBackpropInput", &[&x, &f, &d], &a)?),
        Some(op(g, "Dilation2DBackpropFilter", &[&x, &f, &d], &a)?),
    ])
}

/// `_ResizeBilinearGrad`: `ResizeBilinearGrad(grad, image)`; the size gets none.
fn resize_bilinear_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x) = (ctx.grad0()?, ctx.input(0));
    let a = attrs(ctx, &["align_corners", "half_pixel_centers"]);
    let dx = op(ctx.graph(), "ResizeBilinearGrad", &[&d, &x], &a)?;
    Ok(vec![Some(dx), None])
}

/// `_ResizeNearestNeighborGrad`: `ResizeNearestNeighborGrad(grad, [height, width])`, the image
/// size a constant when static, sliced from `tf.shape(image)` otherwise. (Height and width are
/// dims 0 and 1 of a rank-3 image, weir's extension.)
fn resize_nearest_neighbor_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x) = (ctx.grad0()?, ctx.input(0));
    let g = ctx.graph();
    let shape = x.shape();
    let lo = if shape.rank() == Some(3) { 0 } else { 1 };
    let hw = [shape.dim(lo), shape.dim(lo + 1)];
    let size = match hw {
        [Some(h), Some(w)] => konst(g, Tensor::from(vec![h as i32, w as i32]))?,
        _ => StridedSlice::new().build(shape_of(&x)?, &[lo as i64], &[lo as i64 + 2], &[1])?,
    };
    let a = attrs(ctx, &["align_corners", "half_pixel_centers"]);
    let dx = op(g, "ResizeNearestNeighborGrad", &[&d, &size], &a)?;
    Ok(vec![Some(dx), None])
}

/// `_CropAndResizeGrad`: `CropAndResizeGradImage` for a float16/32/64 image (none for the
/// others), `CropAndResizeGradBoxes` for the boxes (bilinear whatever the forward method), none
/// for the box indices and the crop size.
fn crop_and_resize_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let (image, boxes, box_ind) = (ctx.input(0), ctx.input(1), ctx.input(2));
    let g = ctx.graph();
    let dt = image.dtype();
    let d_image = if matches!(dt, DType::F16 | DType::F32 | DType::F64) {
        let size = match image.shape().to_known() {
            Some(dims) => konst(
                g,
                Tensor::from(dims.iter().map(|&v| v as i32).collect::<Vec<_>>()),
            )?,
            None => shape_of(&image)?,
        };
        let mut a = attrs(ctx, &["method"]);
        a.push(("T", AttrValue::Type(dt)));
        Some(op(
            g,
            "CropAndResizeGradImage",
            &[&d, &boxes, &box_ind, &size],
            &a,
        )?)
    } else {
        None
    };
    let d_boxes = op(
        g,
        "CropAndResizeGradBoxes",
        &[&d, &image, &boxes, &box_ind],
        &[],
    )?;
    Ok(vec![d_image, Some(d_boxes), None, None])
}

/// `_RGBToHSVGrad`: the piecewise derivative of each of hue, saturation and value with respect
/// to red, green and blue, built from the same elementwise ops in the same order (so the float
/// results are TensorFlow's): masks of which channel is the largest and the smallest (ties
/// broken as red > green > blue), safe reciprocals (`DivNoNan`), and the three products with the
/// incoming gradient stacked and summed. (TensorFlow's Grappler reassociates some of these
/// products when a session runs them, which moves float32 results by up to an ulp; weir runs
/// the graph as built, as TensorFlow does with Grappler off.)
fn rgb_to_hsv_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (x, y, d) = (ctx.input(0), ctx.output(0), ctx.grad0()?);
    let dt = x.dtype();
    let chan = |t: &Output, i: i64| {
        StridedSlice::new()
            .ellipsis_mask(1)
            .shrink_axis_mask(2)
            .build(t, &[0, i], &[0, i + 1], &[1, 1])
    };
    let bin = |ty: &str, a: &Output, b: &Output| op(g, ty, &[a, b], &[]);
    let c = |v: f64| scalar_like(&x, v);
    let mask = |ta: &str, a: [&Output; 2], tb: &str, b: [&Output; 2]| -> Result<Output> {
        let and = bin("LogicalAnd", &bin(ta, a[0], a[1])?, &bin(tb, b[0], b[1])?)?;
        cast_like(&and, dt)
    };
    // `a * b * c ...`, left to right.
    let prod = |fs: &[&Output]| -> Result<Output> {
        let mut acc = fs[0].clone();
        for f in &fs[1..] {
            acc = bin("Mul", &acc, f)?;
        }
        Ok(acc)
    };
    let recip = |v: &Output| bin("DivNoNan", &c(1.0)?, v);
    let square = |v: &Output| op(g, "Square", &[v], &[]);
    let pos = |v: &Output| cast_like(&bin("Greater", v, &c(0.0)?)?, dt);

    let (r, gr, b) = (chan(&x, 0)?, chan(&x, 1)?, chan(&x, 2)?);
    let (sat, val) = (chan(&y, 1)?, chan(&y, 2)?);
    let r_big = mask("GreaterEqual", [&r, &b], "GreaterEqual", [&r, &gr])?;
    let g_big = mask("Greater", [&gr, &r], "GreaterEqual", [&gr, &b])?;
    let b_big = mask("Greater", [&b, &r], "Greater", [&b, &gr])?;
    let r_small = mask("Less", [&r, &b], "Less", [&r, &gr])?;
    let g_small = mask("LessEqual", [&gr, &r], "Less", [&gr, &b])?;
    let b_small = mask("LessEqual", [&b, &r], "LessEqual", [&b, &gr])?;
    let (pr, pg, pb) = (pos(&r)?, pos(&gr)?, pos(&b)?);
    let minus = c(-1.0)?;

    // d saturation / d channel: MIN / MAX^2 where the channel is the largest, -1 / MAX where
    // it is the smallest (`p` and `q` the other two channels).
    let ds = |own: [&Output; 4], p: [&Output; 3], q: [&Output; 3]| -> Result<Output> {
        let [v, big, small, positive] = own;
        let mins = bin("AddV2", &bin("Mul", p[1], p[0])?, &bin("Mul", q[1], q[0])?)?;
        let first = prod(&[big, &mins, &recip(&square(v)?)?])?;
        let maxs = bin("AddV2", &bin("Mul", p[2], p[0])?, &bin("Mul", q[2], q[0])?)?;
        let second = prod(&[small, &minus, &recip(&maxs)?])?;
        bin("Mul", positive, &bin("AddV2", &first, &second)?)
    };
    let ds_dr = ds(
        [&r, &r_big, &r_small, &pr],
        [&gr, &g_small, &g_big],
        [&b, &b_small, &b_big],
    )?;
    let ds_dg = ds(
        [&gr, &g_big, &g_small, &pg],
        [&r, &r_small, &r_big],
        [&b, &b_small, &b_big],
    )?;
    let ds_db = ds(
        [&b, &b_big, &b_small, &pb],
        [&gr, &g_small, &g_big],
        [&r, &r_small, &r_big],
    )?;

    // d hue / d channel, in degrees: five cases each, by which channel is the largest and
    // whether this one is the smallest; then scaled to hue's [0, 1).
    let inv_sv = [recip(&square(&sat)?)?, recip(&square(&val)?)?];
    let sixty = c(60.0)?;
    let term = |fs: &[&Output]| bin("Mul", &sixty, &prod(fs)?);
    let sub = |a: &Output, b: &Output| bin("Sub", a, b);
    let sq_diff = |a: &Output, b: &Output| recip(&square(&sub(a, b)?)?);
    let diff = |a: &Output, b: &Output| recip(&sub(a, b)?);
    let hue = |terms: [Output; 5]| -> Result<Output> {
        let [t1, t2, t3, t4, t5] = terms;
        let mut sum = bin("AddV2", &t1, &t2)?;
        for t in [t3, t4, t5] {
            sum = bin("AddV2", &sum, &t)?;
        }
        bin("RealDiv", &sum, &c(360.0)?)
    };
    let dh_dr = hue([
        term(&[&pr, &r_big, &minus, &sub(&gr, &b)?, &inv_sv[0], &inv_sv[1]])?,
        term(&[&pg, &g_big, &r_small, &sub(&b, &gr)?, &sq_diff(&r, &gr)?])?,
        term(&[&pg, &g_big, &b_small, &minus, &diff(&gr, &b)?])?,
        term(&[&pb, &b_big, &r_small, &sub(&b, &gr)?, &sq_diff(&b, &r)?])?,
        term(&[&pb, &b_big, &g_small, &diff(&b, &gr)?])?,
    ])?;
    let dh_dg = hue([
        term(&[&pg, &g_big, &minus, &sub(&b, &r)?, &inv_sv[0], &inv_sv[1]])?,
        term(&[&pr, &r_big, &g_small, &sub(&r, &b)?, &sq_diff(&r, &gr)?])?,
        term(&[&pr, &r_big, &b_small, &diff(&r, &b)?])?,
        term(&[&pb, &b_big, &g_small, &sub(&r, &b)?, &sq_diff(&b, &gr)?])?,
        term(&[&pb, &b_big, &r_small, &minus, &diff(&b, &r)?])?,
    ])?;
    let dh_db = hue([
        term(&[&pb, &b_big, &minus, &sub(&r, &gr)?, &inv_sv[0], &inv_sv[1]])?,
        term(&[&pr, &r_big, &b_small, &sub(&gr, &r)?, &sq_diff(&r, &b)?])?,
        term(&[&pr, &r_big, &g_small, &minus, &diff(&r, &gr)?])?,
        term(&[&pg, &g_big, &b_small, &sub(&gr, &r)?, &sq_diff(&gr, &b)?])?,
        term(&[&pg, &g_big, &r_small, &diff(&gr, &r)?])?,
    ])?;

    let stacked = |ch: i64, parts: [&Output; 3]| -> Result<Output> {
        let dc = chan(&d, ch)?;
        let prods = parts
            .iter()
            .map(|p| bin("Mul", &dc, p))
            .collect::<Result<Vec<_>>>()?;
        let refs: Vec<&Output> = prods.iter().collect();
        op(g, "Pack", &refs, &[("axis", AttrValue::Int(-1))])
    };
    let dv = stacked(2, [&r_big, &g_big, &b_big])?;
    let ds = stacked(1, [&ds_dr, &ds_dg, &ds_db])?;
    let dh = stacked(0, [&dh_dr, &dh_dg, &dh_db])?;
    let dx = bin("AddV2", &bin("AddV2", &dv, &ds)?, &dh)?;
    Ok(vec![Some(dx)])
}

/// One dimension of a shape vector being built: known when building, or an int64 scalar.
enum Dim {
    Known(i64),
    Tensor(Output),
}

impl Dim {
    fn scalar(&self, g: &weir_graph::Graph) -> Result<Output> {
        match self {
            Dim::Known(v) => konst(g, Tensor::scalar(*v)),
            Dim::Tensor(t) => Ok(t.clone()),
        }
    }

    fn mul(&self, other: &Dim, g: &weir_graph::Graph) -> Result<Dim> {
        Ok(match (self, other) {
            (Dim::Known(a), Dim::Known(b)) => Dim::Known(a * b),
            _ => Dim::Tensor(op(g, "Mul", &[&self.scalar(g)?, &other.scalar(g)?], &[])?),
        })
    }
}

/// The four dims of `t` (an NHWC batch): constants where its static shape knows them, the
/// `Unpack`ed int64 `tf.shape(t)` otherwise.
fn dims4(t: &Output) -> Result<[Dim; 4]> {
    let g = t.graph();
    let known = t.shape();
    let unpacked = if (0..4).all(|i| known.dim(i).is_some()) {
        None
    } else {
        let s = op(
            g,
            "Shape",
            &[t],
            &[("out_type", AttrValue::Type(DType::I64))],
        )?;
        let attrs = [("num", AttrValue::Int(4)), ("axis", AttrValue::Int(0))];
        Some(super::op_node(g, "Unpack", &[&s], &attrs)?)
    };
    let dim = |i: usize| -> Result<Dim> {
        match (known.dim(i as isize), &unpacked) {
            (Some(v), _) => Ok(Dim::Known(v as i64)),
            (None, Some(u)) => Ok(Dim::Tensor(u.output(i)?)),
            (None, None) => unreachable!("unpacked when a dim is unknown"),
        }
    };
    Ok([dim(0)?, dim(1)?, dim(2)?, dim(3)?])
}

/// An int64 shape vector: a constant when every dim is known, a `Pack` of scalars otherwise.
fn shape_vec(g: &weir_graph::Graph, dims: &[&Dim]) -> Result<Output> {
    if let Some(v) = dims
        .iter()
        .map(|d| match d {
            Dim::Known(v) => Some(*v),
            Dim::Tensor(_) => None,
        })
        .collect::<Option<Vec<i64>>>()
    {
        return konst(g, Tensor::from(v));
    }
    let parts = dims
        .iter()
        .map(|d| d.scalar(g))
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&Output> = parts.iter().collect();
    op(g, "Pack", &refs, &[("axis", AttrValue::Int(0))])
}

/// `_ExtractImagePatchesGrad`: every input pixel's 1-based index (as float32), patched with
/// the forward attrs, names the pixel each patch element came from (0 for padding); the
/// gradient's elements are summed per pixel by `UnsortedSegmentSum` (padding's -1 dropped).
fn extract_image_patches_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (x, y, d) = (ctx.input(0), ctx.output(0), ctx.grad0()?);
    let [batch, rows_in, cols_in, channels] = dims4(&x)?;
    let [_, rows_out, cols_out, _] = dims4(&y)?;
    let ksizes: Vec<i64> = ctx.attr("ksizes")?;
    let (kr, kc) = (Dim::Known(ksizes[1]), Dim::Known(ksizes[2]));

    let num = rows_in.mul(&cols_in, g)?;
    let limit = match &num {
        Dim::Known(n) => konst(g, Tensor::scalar((n + 1) as f32))?,
        Dim::Tensor(n) => {
            let n1 = op(g, "AddV2", &[n, &konst(g, Tensor::scalar(1i64))?], &[])?;
            cast_like(&n1, DType::F32)?
        }
    };
    let one = konst(g, Tensor::scalar(1.0f32))?;
    let idx = op(g, "Range", &[&one, &limit, &one], &[])?;
    let idx_shape = shape_vec(g, &[&Dim::Known(1), &rows_in, &cols_in, &Dim::Known(1)])?;
    let idx = op(g, "Reshape", &[&idx, &idx_shape], &[])?;
    let a = attrs(ctx, &["ksizes", "strides", "rates", "padding"]);
    let patched = op(g, "ExtractImagePatches", &[&idx], &a)?;
    let patched = cast_like(&patched, DType::I64)?;

    let perm = |p: Vec<i32>| konst(g, Tensor::from(p));
    let expanded_shape = shape_vec(g, &[&batch, &rows_out, &cols_out, &kr, &kc, &channels])?;
    let expanded = op(g, "Reshape", &[&d, &expanded_shape], &[])?;
    let expanded = op(
        g,
        "Transpose",
        &[&expanded, &perm(vec![1, 2, 3, 4, 0, 5])?],
        &[],
    )?;
    let cols = batch.mul(&channels, g)?;
    let flat = op(
        g,
        "Reshape",
        &[&expanded, &shape_vec(g, &[&Dim::Known(-1), &cols])?],
        &[],
    )?;

    let ids = op(g, "Reshape", &[&patched, &perm(vec![-1])?], &[])?;
    let ids = op(g, "Sub", &[&ids, &konst(g, Tensor::scalar(1i64))?], &[])?;
    let summed = op(
        g,
        "UnsortedSegmentSum",
        &[&flat, &ids, &num.scalar(g)?],
        &[],
    )?;
    let out_shape = shape_vec(g, &[&rows_in, &cols_in, &batch, &channels])?;
    let out = op(g, "Reshape", &[&summed, &out_shape], &[])?;
    let dx = op(g, "Transpose", &[&out, &perm(vec![2, 0, 1, 3])?], &[])?;
    Ok(vec![Some(dx)])
}

pub(super) fn register() {
    register_gradient("ResizeBilinear", resize_bilinear_grad);
    register_not_differentiable("ResizeBilinearGrad");
    register_gradient("ResizeNearestNeighbor", resize_nearest_neighbor_grad);
    register_gradient("CropAndResize", crop_and_resize_grad);
    register_gradient("RGBToHSV", rgb_to_hsv_grad);
    register_gradient("ExtractImagePatches", extract_image_patches_grad);
    register_gradient("ResizeBicubic", resize_bicubic_grad);
    register_gradient("MaxPoolWithArgmax", max_pool_with_argmax_grad);
    register_gradient("Dilation2D", dilation2d_grad);
    for op in [
        "NonMaxSuppression",
        "NonMaxSuppressionV2",
        "NonMaxSuppressionWithOverlaps",
    ] {
        register_not_differentiable(op);
    }
}
