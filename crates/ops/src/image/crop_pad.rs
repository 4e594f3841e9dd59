//! `tf.image.crop_to_bounding_box`, `pad_to_bounding_box` and `resize_image_with_crop_or_pad`
//! (CIFAR-10's evaluation crop): a `Slice` and a `Pad` of the height and width, for images
//! whose height and width are known when the graph is built; and `central_crop` and
//! `resize_with_pad`.

use weir_graph::{Error, Output, Result, Shape};

use super::check_image_rank;
use super::resize::{Resize, ResizeMethod};
use crate::array::{constant, ArrayExt};

/// The known (height, width) of an image or a batch of them, and whether it is batched.
fn height_width(image: &Output) -> Result<(i64, i64, bool)> {
    check_image_rank(image, 3, Some(4))?;
    let shape = image.shape();
    let dims = shape.dims().ok_or_else(|| {
        Error::invalid_argument("'image' must have a known rank to crop or pad it")
    })?;
    let batched = dims.len() == 4;
    let (h, w) = if batched {
        (dims[1], dims[2])
    } else {
        (dims[0], dims[1])
    };
    match (h, w) {
        (Some(h), Some(w)) => Ok((h as i64, w as i64, batched)),
        _ => Err(Error::invalid_argument(format!(
            "'image' (shape {shape}) needs a known height and width to crop or pad it"
        ))),
    }
}

fn check(ok: bool, msg: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_argument(msg))
    }
}

/// `tf.image.crop_to_bounding_box(image, offset_height, offset_width, target_height,
/// target_width)`: the `target_height x target_width` window whose top-left corner is at the
/// offsets, with TensorFlow's checks and words.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::crop_to_bounding_box};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::U8, Shape::known(&[32, 32, 3]))?;
/// let y = crop_to_bounding_box(&x, 4, 4, 24, 24)?;
/// assert_eq!(y.shape(), Shape::known(&[24, 24, 3]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn crop_to_bounding_box(
    image: impl Into<Output>,
    offset_height: i64,
    offset_width: i64,
    target_height: i64,
    target_width: i64,
) -> Result<Output> {
    let image = image.into();
    let (h, w, batched) = height_width(&image)?;
    check(offset_width >= 0, "offset_width must be >= 0.")?;
    check(offset_height >= 0, "offset_height must be >= 0.")?;
    check(target_width > 0, "target_width must be > 0.")?;
    check(target_height > 0, "target_height must be > 0.")?;
    check(
        w >= target_width + offset_width,
        "width must be >= target + offset.",
    )?;
    check(
        h >= target_height + offset_height,
        "height must be >= target + offset.",
    )?;
    let (begin, size) = if batched {
        (
            vec![0, offset_height, offset_width, 0],
            vec![-1, target_height, target_width, -1],
        )
    } else {
        (
            vec![offset_height, offset_width, 0],
            vec![target_height, target_width, -1],
        )
    };
    crate::array::slice(&image, begin, size)
}

/// `tf.image.pad_to_bounding_box(image, offset_height, offset_width, target_height,
/// target_width)`: the image placed at the offsets in a zero `target_height x target_width`
/// canvas, with TensorFlow's checks and words.
pub fn pad_to_bounding_box(
    image: impl Into<Output>,
    offset_height: i64,
    offset_width: i64,
    target_height: i64,
    target_width: i64,
) -> Result<Output> {
    let image = image.into();
    let (h, w, batched) = height_width(&image)?;
    let after_w = target_width - offset_width - w;
    let after_h = target_height - offset_height - h;
    check(offset_height >= 0, "offset_height must be >= 0")?;
    check(offset_width >= 0, "offset_width must be >= 0")?;
    check(after_w >= 0, "width must be <= target - offset")?;
    check(after_h >= 0, "height must be <= target - offset")?;
    let mut paddings = vec![[offset_height, after_h], [offset_width, after_w], [0, 0]];
    if batched {
        paddings.insert(0, [0, 0]);
    }
    crate::array::pad(&image, &paddings)
}

/// `tf.image.resize_image_with_crop_or_pad(image, target_height, target_width)`: crops the
/// centre of a larger image, pads a smaller one with zeros around it, each dimension on its
/// own (offsets rounded down, as TensorFlow's `//`).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::resize_image_with_crop_or_pad};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::known(&[32, 20, 3]))?;
/// let y = resize_image_with_crop_or_pad(&x, 24, 24)?; // crops the height, pads the width
/// assert_eq!(y.shape(), Shape::known(&[24, 24, 3]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn resize_image_with_crop_or_pad(
    image: impl Into<Output>,
    target_height: i64,
    target_width: i64,
) -> Result<Output> {
    let image = image.into();
    let (h, w, _) = height_width(&image)?;
    check(target_width > 0, "target_width must be > 0.")?;
    check(target_height > 0, "target_height must be > 0.")?;
    let (dw, dh) = (target_width - w, target_height - h);
    let cropped = crop_to_bounding_box(
        &image,
        (-dh).div_euclid(2).max(0),
        (-dw).div_euclid(2).max(0),
        target_height.min(h),
        target_width.min(w),
    )?;
    pad_to_bounding_box(
        &cropped,
        dh.div_euclid(2).max(0),
        dw.div_euclid(2).max(0),
        target_height,
        target_width,
    )
}

/// A dimension of a 3-D/4-D image for the crops below: its static size, or its size read in
/// the graph (`tf.shape(image)[index]`).
fn dim_of(image: &Output, index: usize) -> Result<(i64, Option<Output>)> {
    match image.shape().dim(index as isize) {
        Some(d) => Ok((d as i64, None)),
        None => Ok((
            -1,
            Some(crate::array::shape(image)?.at(crate::s![index as i64])?),
        )),
    }
}

/// `tf.image.central_crop(image, central_fraction)`: the centred window holding
/// `central_fraction` (in `(0, 1]`) of the height and of the width of an image or a batch;
/// offsets are `int((size - size * fraction) / 2)` in double precision, as in TensorFlow.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::central_crop};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::U8, Shape::known(&[10, 8, 3]))?;
/// assert_eq!(central_crop(&img, 0.5)?.shape(), Shape::known(&[6, 4, 3]));
/// assert!(central_crop(&img, 0.0).is_err());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn central_crop(image: impl Into<Output>, central_fraction: f64) -> Result<Output> {
    let image = image.into();
    let g = image.graph().clone();
    let _scope = g.name_scope("central_crop");
    if central_fraction.is_nan() || central_fraction <= 0.0 || central_fraction > 1.0 {
        return Err(Error::invalid_argument(
            "central_fraction must be within (0, 1]",
        ));
    }
    if central_fraction == 1.0 {
        return Ok(image);
    }
    // TensorFlow builds `_AssertAtLeast3DImage`'s run-time asserts here but never runs them (it
    // drops the guarded image), so only the static checks matter.
    super::orient::check_at_least_3d(&image)?;
    let shape = image.shape();
    let rank = shape.rank();
    if rank != Some(3) && rank != Some(4) {
        return Err(Error::invalid_argument(format!(
            "`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {}.",
            rank.map_or("None".to_string(), |r| r.to_string())
        )));
    }
    let batched = rank == Some(4);
    let off = usize::from(batched);
    // Per axis: (begin, size) as constants when the dimension is known, else graph tensors.
    let mut parts: Vec<(Output, Output, Option<usize>)> = Vec::new();
    for axis in [off, off + 1] {
        let (n, dynamic) = dim_of(&image, axis)?;
        match dynamic {
            None => {
                let nd = n as f64;
                let start = ((nd - nd * central_fraction) / 2.0) as i64;
                let size = n - start * 2;
                parts.push((
                    constant(&g, start as i32)?,
                    constant(&g, size as i32)?,
                    Some(size as usize),
                ));
            }
            Some(n) => {
                let nd = crate::math::cast(&n, weir_graph::DType::F64)?;
                // TensorFlow converts the Python float to a float32 tensor before casting it to
                // float64, so the fraction is rounded to float32 here.
                let frac = crate::math::cast(
                    &constant(&g, central_fraction as f32)?,
                    weir_graph::DType::F64,
                )?;
                let kept = crate::math::sub(&nd, &crate::math::mul(&nd, &frac)?)?;
                let half = crate::math::realdiv(&kept, &constant(&g, 2.0f64)?)?;
                let start = crate::math::cast(&half, weir_graph::DType::I32)?;
                let twice = crate::math::mul(&start, &constant(&g, 2i32)?)?;
                let size = crate::math::sub(&n, &twice)?;
                parts.push((start, size, None));
            }
        }
    }
    let zero = constant(&g, 0i32)?;
    let minus1 = constant(&g, -1i32)?;
    let mut begin = vec![parts[0].0.clone(), parts[1].0.clone(), zero.clone()];
    let mut size = vec![parts[0].1.clone(), parts[1].1.clone(), minus1.clone()];
    let dims = shape.dims().unwrap_or(&[]);
    let mut out_dims = vec![parts[0].2, parts[1].2, dims[off + 2]];
    if batched {
        begin.insert(0, zero);
        size.insert(0, minus1);
        out_dims.insert(0, dims[0]);
    }
    let begin = crate::array::stack(&begin, 0)?;
    let size = crate::array::stack(&size, 0)?;
    crate::new_op(&g, "Slice")
        .input(image)
        .input(begin)
        .input(size)
        .output_shape(0, Shape::new(out_dims))
        .build()?
        .output(0)
}

/// `tf.image.resize_with_pad(image, target_height, target_width, method)` (TensorFlow 2's
/// `resize_image_with_pad`): resizes with half-pixel centers, keeping the aspect ratio, so the
/// image fits `target_height x target_width`, then pads it with zeros, centred. The sizes are
/// TensorFlow's float32 arithmetic, done when building if the height and width are known and in
/// the graph otherwise.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::{resize_with_pad, ResizeMethod}};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::U8, Shape::known(&[10, 20, 3]))?;
/// let out = resize_with_pad(&img, 16, 16, ResizeMethod::Bilinear)?;
/// assert_eq!((out.dtype(), out.shape()), (DType::F32, Shape::known(&[16, 16, 3])));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn resize_with_pad(
    image: impl Into<Output>,
    target_height: i64,
    target_width: i64,
    method: ResizeMethod,
) -> Result<Output> {
    let image = image.into();
    let g = image.graph().clone();
    let _scope = g.name_scope("resize_image_with_pad");
    let shape = image.shape();
    let (image, batched) = match shape.rank() {
        Some(3) | None => (crate::array::expand_dims(&image, 0)?, false),
        Some(4) => (image, true),
        Some(_) => {
            return Err(Error::invalid_argument(format!(
                "'image' (shape {}) must have either 3 or 4 dimensions.",
                shape.python_str()
            )))
        }
    };
    let image = super::orient::assert_at_least_3d(&image)?;
    check(target_width > 0, "target_width must be > 0.")?;
    check(target_height > 0, "target_height must be > 0.")?;
    let dims = image.shape();
    let dim = |i: isize| dims.dim(i);
    let padded = match (dim(1), dim(2)) {
        (Some(h), Some(w)) => {
            let (h, w) = (h as i64, w as i64);
            let (fh, fw) = (h as f32, w as f32);
            let (fth, ftw) = (target_height as f32, target_width as f32);
            // Python's max() of the two ratios: the first unless the second is greater.
            let (rw, rh) = (fw / ftw, fh / fth);
            let ratio = if rh > rw { rh } else { rw };
            let (rhf, rwf) = (fh / ratio, fw / ratio);
            let size = [rhf.floor().max(0.0) as usize, rwf.floor().max(0.0) as usize];
            let pad_h = (((fth - rhf) / 2.0).floor() as i64).max(0);
            let pad_w = (((ftw - rwf) / 2.0).floor() as i64).max(0);
            let resized = Resize::new(size).method(method).build(&image)?;
            pad_to_bounding_box(&resized, pad_h, pad_w, target_height, target_width)?
        }
        _ => {
            let out_shape = Shape::new(vec![
                dim(0),
                Some(target_height as usize),
                Some(target_width as usize),
                dim(3),
            ]);
            pad_dynamic(&image, target_height, target_width, method, out_shape)?
        }
    };
    if batched {
        Ok(padded)
    } else {
        crate::array::squeeze(&padded, &[0])
    }
}

/// `resize_with_pad`'s sizes computed in the graph, as TensorFlow does for an image whose height
/// or width is unknown when building: float32 ratios, `Floor`, `Cast`, then a `Pad` whose
/// paddings come from the resized image's shape.
fn pad_dynamic(
    image: &Output,
    target_height: i64,
    target_width: i64,
    method: ResizeMethod,
    out_shape: Shape,
) -> Result<Output> {
    use crate::math::{cast, floor, maximum, mul, realdiv, sub};
    use weir_graph::DType;
    let g = image.graph().clone();
    let shape = crate::array::shape(image)?;
    let dims = image.shape();
    let float_dim = |i: i64| -> Result<Output> {
        match dims.dim(i as isize) {
            Some(d) => constant(&g, d as f32),
            None => cast(&shape.at(crate::s![i])?, DType::F32),
        }
    };
    let (fh, fw) = (float_dim(1)?, float_dim(2)?);
    let fth = constant(&g, target_height as f32)?;
    let ftw = constant(&g, target_width as f32)?;
    // TensorFlow's graph optimizer turns a division by a constant into a multiplication by its
    // reciprocal (so 6 / 7 becomes 6 * (1 / 7), an ulp larger), and TensorFlow's sizes depend on
    // it: the ratios are computed that way here.
    let inv_th = constant(&g, 1.0 / target_height as f32)?;
    let inv_tw = constant(&g, 1.0 / target_width as f32)?;
    let ratio = maximum(&mul(&fw, &inv_tw)?, &mul(&fh, &inv_th)?)?;
    let rhf = realdiv(&fh, &ratio)?;
    let rwf = realdiv(&fw, &ratio)?;
    let rh = cast(&floor(&rhf)?, DType::I32)?;
    let rw = cast(&floor(&rwf)?, DType::I32)?;
    let zero = constant(&g, 0i32)?;
    let half = constant(&g, 0.5f32)?;
    let pad_of = |ft: &Output, rf: &Output| -> Result<Output> {
        let p = mul(&sub(ft, rf)?, &half)?;
        maximum(&zero, &cast(&floor(&p)?, DType::I32)?)
    };
    let (ph, pw) = (pad_of(&fth, &rhf)?, pad_of(&ftw, &rwf)?);
    let size = crate::array::stack(&[rh, rw], 0)?;
    let resized = Resize::new(size).method(method).build(image)?;
    let rshape = crate::array::shape(&resized)?;
    let after = |target: i64, offset: &Output, i: i64| -> Result<Output> {
        let t = constant(&g, target as i32)?;
        sub(&sub(&t, offset)?, &rshape.at(crate::s![i])?)
    };
    let (ah, aw) = (after(target_height, &ph, 1)?, after(target_width, &pw, 2)?);
    let paddings = crate::array::stack(
        &[
            zero.clone(),
            zero.clone(),
            ph,
            ah,
            pw,
            aw,
            zero.clone(),
            zero,
        ],
        0,
    )?;
    let paddings = crate::array::reshape(&paddings, [4i64, 2])?;
    crate::new_op(&g, "Pad")
        .input(resized)
        .input(paddings)
        .output_shape(0, out_shape)
        .build()?
        .output(0)
}

#[cfg(test)]
mod tests {
    use weir_graph::{DType, Graph};

    use super::*;
    use crate::array::placeholder;

    #[test]
    fn central_crop_and_resize_with_pad_shapes() {
        let g = Graph::new();
        let img = placeholder(&g, DType::U8, Shape::new(vec![None, None, Some(3)])).unwrap();
        assert_eq!(
            central_crop(&img, 0.5).unwrap().shape(),
            Shape::new(vec![None, None, Some(3)])
        );
        assert_eq!(
            central_crop(&img, 1.5).unwrap_err().message(),
            "central_fraction must be within (0, 1]"
        );
        let out = resize_with_pad(&img, 10, 12, ResizeMethod::NearestNeighbor).unwrap();
        assert_eq!(
            (out.dtype(), out.shape()),
            (DType::U8, Shape::known(&[10, 12, 3]))
        );
        assert_eq!(
            resize_with_pad(&img, 10, 0, ResizeMethod::Bilinear)
                .unwrap_err()
                .message(),
            "target_width must be > 0."
        );
    }
}
