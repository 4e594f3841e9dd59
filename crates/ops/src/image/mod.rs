//! Image preprocessing: the `tf.image` helpers an input pipeline for CIFAR-style data uses.
//! Images are `[height, width, channels]` or batched `[batch, height, width, channels]`.
//!
//! `resize` (`ResizeBilinear`, `ResizeNearestNeighbor`) and `AdjustContrastv2` are TensorFlow's
//! kernels; the helpers TensorFlow writes in Python (`convert_image_dtype`,
//! `per_image_standardization`, `random_flip_left_right`) are single fused kernels here with
//! the same results.
//!
//! ```
//! use weir_graph::{DType, Graph, Shape};
//! use weir_ops::{array::placeholder, image, random::random_crop};
//!
//! let g = Graph::new();
//! let raw = placeholder(&g, DType::U8, Shape::known(&[32, 32, 3]))?;
//! let crop = random_crop(&raw, &[24, 24, 3])?;
//! let flipped = image::random_flip_left_right(&crop, Some(1))?;
//! let bright = image::adjust_brightness(&flipped, 0.1)?;
//! let ready = image::per_image_standardization(&bright)?;
//! assert_eq!((ready.dtype(), ready.shape()), (DType::F32, Shape::known(&[24, 24, 3])));
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod adjust;
mod adjust_hsv;
pub mod codecs;
mod convert;
mod crop_pad;
mod flip;
mod resize;
mod standardize;

pub use adjust::{adjust_brightness, adjust_contrast, random_brightness, random_contrast, Operand};
pub use adjust_hsv::{adjust_hue, adjust_saturation, random_hue, random_saturation};
pub use codecs::*;
pub use convert::{convert_image_dtype, ConvertImageDtype};
pub use crop_pad::{crop_to_bounding_box, pad_to_bounding_box, resize_image_with_crop_or_pad};
pub use flip::{random_flip_left_right, random_flip_up_down};
pub use resize::{resize, Resize, ResizeMethod};
pub use standardize::per_image_standardization;

use weir_graph::{Error, Output, Result};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    adjust::register();
    codecs::register();
    adjust_hsv::register();
    convert::register();
    flip::register();
    resize::register();
    standardize::register();
}

/// TensorFlow's build-time check that an image has 3 or 4 dimensions (when its rank is known),
/// the shape printed as Python prints a `TensorShape`.
pub(crate) fn check_image_rank(image: &Output, min: usize, max: Option<usize>) -> Result<()> {
    let shape = image.shape();
    let Some(r) = shape.rank() else { return Ok(()) };
    let ok = r >= min && max.is_none_or(|m| r <= m);
    if ok {
        return Ok(());
    }
    let want = match max {
        Some(m) if m == min => format!("be {min}-dimensional"),
        Some(m) => format!("have either {min} or {m} dimensions"),
        None if min == 3 => "be at least three-dimensional".to_string(),
        None => format!("be at least {min}-dimensional"),
    };
    Err(Error::invalid_argument(format!(
        "'image' (shape {}) must {want}.",
        shape.python_str()
    )))
}
