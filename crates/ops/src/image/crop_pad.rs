//! `tf.image.crop_to_bounding_box`, `pad_to_bounding_box` and `resize_image_with_crop_or_pad`
//! (CIFAR-10's evaluation crop): a `Slice` and a `Pad` of the height and width, for images
//! whose height and width are known when the graph is built.

use weir_graph::{Error, Output, Result};

use super::check_image_rank;

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
