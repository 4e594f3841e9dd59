//! Gradients of the projective transforms and of `ExtractVolumePatches`, built as TensorFlow
//! builds them: `_image_projective_transform_grad` / `_v3_grad` (image_ops.py) transform the
//! incoming gradient with the inverted matrices (nothing for the transforms, output shape or
//! fill value); `_ExtractVolumePatchesGrad` (array_grad.py) sums the gradient's elements into
//! the voxels they were patched from. TensorFlow does that sum as a sparse 0/1 matrix product
//! in patch order; weir sums with `UnsortedSegmentSum` in the same order, so the values agree.

use weir_graph::{AttrValue, DType, Error, Output, Result, Tensor};
use weir_ops::array::StridedSlice;

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::{konst, shape_of};

type Grads = Result<Vec<Option<Output>>>;

fn attrs(ctx: &GradContext<'_>, names: &[&'static str]) -> Vec<(&'static str, AttrValue)> {
    names
        .iter()
        .filter_map(|n| ctx.attr_value(n).map(|v| (*n, v.clone())))
        .collect()
}

/// `flat_transforms_to_matrices`, `matrix_inverse` and `matrices_to_flat_transforms`: the
/// `[N, 8]` transforms of the inverse maps.
fn inverted_transforms(transforms: &Output) -> Result<Output> {
    let g = transforms.graph();
    let t = match transforms.shape().rank() {
        Some(1) => StridedSlice::new()
            .new_axis_mask(1)
            .build(transforms, &[0], &[0], &[1])?,
        Some(2) => transforms.clone(),
        _ => {
            return Err(Error::invalid_argument(
                "Transforms should have rank 1 or 2.",
            ))
        }
    };
    let vec = |v: Vec<i32>| konst(g, Tensor::from(v));
    let t = op(g, "Reshape", &[&t, &vec(vec![-1, 8])?], &[])?;
    let num = StridedSlice::new()
        .shrink_axis_mask(1)
        .build(shape_of(&t)?, &[0], &[1], &[1])?;
    let one_i = konst(g, Tensor::scalar(1i32))?;
    let dims = op(g, "Pack", &[&num, &one_i], &[("axis", AttrValue::Int(0))])?;
    let ones = op(g, "Fill", &[&dims, &konst(g, Tensor::scalar(1f32))?], &[])?;
    let axis = konst(g, Tensor::scalar(1i32))?;
    let full = op(
        g,
        "ConcatV2",
        &[&t, &ones, &axis],
        &[("N", AttrValue::Int(2))],
    )?;
    let m = op(g, "Reshape", &[&full, &vec(vec![-1, 3, 3])?], &[])?;
    let inv = op(g, "MatrixInverse", &[&m], &[])?;
    let flat = op(g, "Reshape", &[&inv, &vec(vec![-1, 9])?], &[])?;
    let last =
        StridedSlice::new()
            .begin_mask(1)
            .end_mask(1)
            .build(&flat, &[0, 8], &[0, 9], &[1, 1])?;
    let scaled = op(g, "RealDiv", &[&flat, &last], &[])?;
    StridedSlice::new()
        .begin_mask(3)
        .end_mask(1)
        .build(&scaled, &[0, 0], &[0, 8], &[1, 1])
}

/// `_image_projective_transform_grad` and `_image_projective_transform_v3_grad`.
fn projective_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (images, d) = (ctx.input(0), ctx.grad0()?);
    let dt = images.dtype();
    if !matches!(
        dt,
        DType::U8 | DType::I32 | DType::I64 | DType::F16 | DType::F32 | DType::F64
    ) {
        return Err(Error::invalid_argument(format!(
            "Invalid dtype <dtype: '{}'>.",
            dt.python_name()
        )));
    }
    let inv = inverted_transforms(&ctx.input(1))?;
    let size = StridedSlice::new().build(shape_of(&images)?, &[1], &[3], &[1])?;
    let a = attrs(ctx, &["interpolation", "fill_mode"]);
    let v3 = ctx.num_inputs() == 4;
    let dx = if v3 {
        let zero = konst(g, Tensor::scalar(0f32))?;
        op(
            g,
            "ImageProjectiveTransformV3",
            &[&d, &inv, &size, &zero],
            &a,
        )?
    } else {
        op(g, "ImageProjectiveTransformV2", &[&d, &inv, &size], &a)?
    };
    let mut grads = vec![Some(dx), None, None];
    if v3 {
        grads.push(None);
    }
    Ok(grads)
}

/// The static size of dim `i` of `x`, which TensorFlow's Python gradient needs.
fn static_dim(x: &Output, i: usize) -> Result<i64> {
    x.shape()
        .dims()
        .and_then(|d| d.get(i).copied().flatten())
        .map(|v| v as i64)
        .ok_or_else(|| {
            Error::invalid_argument(format!(
                "ExtractVolumePatches gradient needs a static size for dimension {i} of {}",
                x.name()
            ))
        })
}

/// `_ExtractVolumePatchesGrad`: every voxel's 1-based int64 index, patched with the forward
/// attrs, names the voxel each patch element came from (0 for padding).
fn extract_volume_patches_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (x, y, d) = (ctx.input(0), ctx.output(0), ctx.grad0()?);
    let [p_in, r_in, c_in] = [static_dim(&x, 1)?, static_dim(&x, 2)?, static_dim(&x, 3)?];
    let [p_out, r_out, c_out] = [static_dim(&y, 1)?, static_dim(&y, 2)?, static_dim(&y, 3)?];
    let k: Vec<i64> = ctx.attr("ksizes")?;
    let xs = shape_of(&x)?;
    let dim = |i: i64| {
        StridedSlice::new()
            .shrink_axis_mask(1)
            .build(&xs, &[i], &[i + 1], &[1])
    };
    let (batch, channels) = (dim(0)?, dim(4)?);
    let vec32 = |v: Vec<i32>| konst(g, Tensor::from(v));
    let num = p_in * r_in * c_in;
    let idx = konst(g, Tensor::from((1..=num).collect::<Vec<i64>>()))?;
    let idx_shape = vec32(vec![1, p_in as i32, r_in as i32, c_in as i32, 1])?;
    let idx = op(g, "Reshape", &[&idx, &idx_shape], &[])?;
    let a = attrs(ctx, &["ksizes", "strides", "padding"]);
    let patched = op(g, "ExtractVolumePatches", &[&idx], &a)?;
    let ids = op(g, "Reshape", &[&patched, &vec32(vec![-1])?], &[])?;
    let ids = op(g, "Sub", &[&ids, &konst(g, Tensor::scalar(1i64))?], &[])?;

    let pack = |parts: &[&Output]| op(g, "Pack", parts, &[("axis", AttrValue::Int(0))]);
    let c = |v: i64| konst(g, Tensor::scalar(v as i32));
    let (po, ro, co, kp, kr, kc) = (
        c(p_out)?,
        c(r_out)?,
        c(c_out)?,
        c(k[1])?,
        c(k[2])?,
        c(k[3])?,
    );
    let expanded_shape = pack(&[&batch, &po, &ro, &co, &kp, &kr, &kc, &channels])?;
    let expanded = op(g, "Reshape", &[&d, &expanded_shape], &[])?;
    let perm = vec32(vec![1, 2, 3, 4, 5, 6, 0, 7])?;
    let expanded = op(g, "Transpose", &[&expanded, &perm], &[])?;
    let cols = op(g, "Mul", &[&batch, &channels], &[])?;
    let flat_shape = pack(&[&c(-1)?, &cols])?;
    let flat = op(g, "Reshape", &[&expanded, &flat_shape], &[])?;
    let summed = op(
        g,
        "UnsortedSegmentSum",
        &[&flat, &ids, &konst(g, Tensor::scalar(num))?],
        &[],
    )?;
    let out_shape = pack(&[&c(p_in)?, &c(r_in)?, &c(c_in)?, &batch, &channels])?;
    let out = op(g, "Reshape", &[&summed, &out_shape], &[])?;
    let dx = op(g, "Transpose", &[&out, &vec32(vec![3, 0, 1, 2, 4])?], &[])?;
    Ok(vec![Some(dx)])
}

pub(super) fn register() {
    register_gradient("ImageProjectiveTransformV2", projective_grad);
    register_gradient("ImageProjectiveTransformV3", projective_grad);
    register_gradient("ExtractVolumePatches", extract_volume_patches_grad);
}
