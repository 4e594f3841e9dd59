//! Image preprocessing: the `tf.image` helpers an input pipeline for CIFAR-style data uses.
//! Images are `[height, width, channels]` or batched `[batch, height, width, channels]`.
//!
//! `resize` (`ResizeBilinear`, `ResizeNearestNeighbor`) and `AdjustContrastv2` are TensorFlow's
//! kernels; the helpers TensorFlow writes in Python (`convert_image_dtype`,
//! `per_image_standardization`, `random_flip_left_right`) are single fused kernels here with
//! the same results.
//!
//! The other Python helpers are built from the ops TensorFlow's `image_ops_impl.py` builds, so
//! their graphs and gradients are TensorFlow's: `flip_left_right`, `flip_up_down`, `transpose`,
//! `rot90` (orient.rs), `rgb_to_grayscale`, `grayscale_to_rgb`, `adjust_gamma` (color.rs),
//! `central_crop`, `resize_with_pad` (crop_pad.rs), `total_variation`, `image_gradients`,
//! `sobel_edges` (gradients.rs), `psnr` and `ssim` (quality.rs). The detection and augmentation
//! kernels are TensorFlow's, arithmetic for arithmetic: `RGBToHSV`/`HSVToRGB`, `CropAndResize`,
//! `NonMaxSuppressionV3`-`V5`, `DrawBoundingBoxes(V2)`, `SampleDistortedBoundingBoxV2` (seeded
//! like TensorFlow's) and `ExtractImagePatches`.
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
mod color;
mod combined_nms;
mod convert;
mod crop_and_resize;
mod crop_and_resize_grad;
mod crop_pad;
mod draw_boxes;
mod flip;
mod gradients;
mod nms;
mod nms_more;
mod orient;
mod patches;
mod quality;
mod resize;
mod resize_area;
mod resize_bicubic;
mod resize_grad;
mod sample_box;
mod sample_box_v1;
mod standardize;
mod transforms;

pub use adjust::{adjust_brightness, adjust_contrast, random_brightness, random_contrast, Operand};
pub use adjust_hsv::{adjust_hue, adjust_saturation, random_hue, random_saturation};
pub use codecs::*;
pub use color::{adjust_gamma, grayscale_to_rgb, hsv_to_rgb, rgb_to_grayscale, rgb_to_hsv};
pub use combined_nms::{combined_non_max_suppression, CombinedNonMaxSuppression};
pub use convert::{convert_image_dtype, ConvertImageDtype};
pub use crop_and_resize::{crop_and_resize, CropAndResize, CropMethod};
pub use crop_pad::{
    central_crop, crop_to_bounding_box, pad_to_bounding_box, resize_image_with_crop_or_pad,
    resize_with_pad,
};
pub use draw_boxes::draw_bounding_boxes;
pub use flip::{random_flip_left_right, random_flip_up_down};
pub use gradients::{image_gradients, sobel_edges, total_variation};
pub use nms::{non_max_suppression, NonMaxSuppression};
pub use nms_more::{
    non_max_suppression_overlaps, non_max_suppression_padded, non_max_suppression_with_scores,
};
pub use orient::{flip_left_right, flip_up_down, rot90, transpose};
pub use patches::extract_patches;
pub use quality::{psnr, Ssim};
pub use resize::{resize, Resize, ResizeMethod};
pub use sample_box::SampleDistortedBoundingBox;
pub use standardize::per_image_standardization;
pub use transforms::{
    extract_glimpse, extract_volume_patches, projective_transform, ExtractGlimpse, FillMode,
    GlimpseNoise, Interpolation, ProjectiveTransform,
};

use weir_graph::{DType, Error, Output, Result};

/// An int32 scalar argument (`rot90`'s `k`, `non_max_suppression`'s `max_output_size`): a number
/// fixed when building, or a tensor computed in the graph.
#[derive(Clone, Debug)]
pub enum IntScalar {
    /// A fixed value (must fit int32).
    Value(i64),
    /// An int32 scalar tensor.
    Tensor(Output),
}

impl From<i64> for IntScalar {
    fn from(k: i64) -> IntScalar {
        IntScalar::Value(k)
    }
}
impl From<i32> for IntScalar {
    fn from(k: i32) -> IntScalar {
        IntScalar::Value(k as i64)
    }
}
impl From<Output> for IntScalar {
    fn from(k: Output) -> IntScalar {
        IntScalar::Tensor(k)
    }
}
impl From<&Output> for IntScalar {
    fn from(k: &Output) -> IntScalar {
        IntScalar::Tensor(k.clone())
    }
}

impl IntScalar {
    /// The int32 scalar tensor, converting a value as Python's `convert_to_tensor(k, int32)`
    /// would (a constant named `name`).
    pub(crate) fn to_i32(&self, g: &weir_graph::Graph, name: &str) -> Result<Output> {
        match self {
            IntScalar::Value(v) => {
                let v = i32::try_from(*v).map_err(|_| {
                    Error::invalid_argument(format!("Can't convert Python int {v} to int32"))
                })?;
                crate::array::constant_named(g, v, name)
            }
            IntScalar::Tensor(t) => {
                if t.dtype() != DType::I32 {
                    return Err(Error::invalid_argument(format!(
                        "Tensor conversion requested dtype int32 for Tensor with dtype {}",
                        t.dtype().python_name()
                    )));
                }
                if t.shape().rank().is_some_and(|r| r != 0) {
                    return Err(Error::invalid_argument(format!(
                        "Shape {} must have rank 0",
                        t.shape().python_str()
                    )));
                }
                Ok(t.clone())
            }
        }
    }
}

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    adjust::register();
    codecs::register();
    adjust_hsv::register();
    color::register();
    combined_nms::register();
    convert::register();
    crop_and_resize::register();
    crop_and_resize_grad::register();
    draw_boxes::register();
    nms::register();
    nms_more::register();
    patches::register();
    flip::register();
    resize::register();
    resize_area::register();
    resize_bicubic::register();
    resize_grad::register();
    sample_box::register();
    sample_box_v1::register();
    standardize::register();
    transforms::register();
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
