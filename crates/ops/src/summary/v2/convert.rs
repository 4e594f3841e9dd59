//! Tensors to summary values as TensorFlow's `summary_converter.cc` makes them for the
//! `Write*Summary` ops: a scalar's first element, a histogram, PNG images, WAV clips.

use bytes::Bytes;
use weir_graph::{f16, format_dims, DType, Error, Result, Tensor};

use crate::summary::histogram::histogram as histogram_of;
use crate::summary::image::normalize_all;
use crate::summary::proto::{summary_value::Value, SummaryAudio, SummaryImage, SummaryValue};

/// Every element as float64, for the dtypes `TensorValueAt` reads; Unimplemented
/// `"SummaryFileWriter <dtype> not supported."` for the others.
fn as_f64(t: &Tensor) -> Result<Vec<f64>> {
    match t.dtype() {
        DType::String | DType::Resource | DType::C64 | DType::C128 => Err(Error::unimplemented(
            format!("SummaryFileWriter {} not supported.", t.dtype()),
        )),
        _ => {
            let d = crate::math::cast::cast_tensor(t, DType::F64)?;
            Ok(d.as_slice::<f64>()?.to_vec())
        }
    }
}

/// `AddTensorAsScalarToSummary`: the first element as a float `simple_value`.
pub(super) fn scalar(t: &Tensor, tag: &str) -> Result<SummaryValue> {
    if t.num_elements() == 0 {
        return Err(Error::invalid_argument(format!(
            "Scalar summary {tag} has no value: its tensor is empty"
        )));
    }
    let value = match t.dtype() {
        DType::String | DType::Resource | DType::C64 | DType::C128 => {
            return Err(Error::unimplemented(format!(
                "SummaryFileWriter {} not supported.",
                t.dtype()
            )))
        }
        _ => crate::math::cast::cast_tensor(t, DType::F32)?.as_slice::<f32>()?[0],
    };
    Ok(SummaryValue {
        tag: tag.to_string(),
        value: Some(Value::SimpleValue(value)),
        ..SummaryValue::default()
    })
}

/// `AddTensorAsHistogramToSummary`: InvalidArgument on the first NaN or infinity.
pub(super) fn histogram(t: &Tensor, tag: &str) -> Result<SummaryValue> {
    let values = as_f64(t)?;
    for v in &values {
        if v.is_nan() {
            return Err(Error::invalid_argument(format!(
                "Nan in summary histogram for: {tag}"
            )));
        }
        if v.is_infinite() {
            return Err(Error::invalid_argument(format!(
                "Infinity in summary histogram for: {tag}"
            )));
        }
    }
    Ok(SummaryValue {
        tag: tag.to_string(),
        value: Some(Value::Histo(histogram_of(values.into_iter()))),
        ..SummaryValue::default()
    })
}

/// `AddTensorAsImageToSummary`: the first `max_images` images of the `[batch, h, w, c]`
/// tensor as PNGs, tagged `tag/image` or `tag/image/<i>` by `max_images`.
pub(super) fn images(
    t: &Tensor,
    tag: &str,
    max_images: i64,
    bad_color: &Tensor,
) -> Result<Vec<SummaryValue>> {
    let shape = t.shape();
    if shape.len() != 4 || !matches!(shape[3], 1 | 3 | 4) {
        return Err(Error::invalid_argument(format!(
            "Tensor must be 4-D with last dim 1, 3, or 4, not {}",
            format_dims(shape)
        )));
    }
    let (batch, h, w, depth) = (shape[0], shape[1], shape[2], shape[3]);
    const LIMIT: usize = 1 << 31;
    if batch >= LIMIT || h >= LIMIT || w >= LIMIT || h.saturating_mul(w) >= 1 << 29 {
        return Err(Error::invalid_argument(format!(
            "Tensor too large for summary {}",
            format_dims(shape)
        )));
    }
    let n = batch.min(usize::try_from(max_images).unwrap_or(0));
    let per_image = h * w * depth;
    let pixels = match t.dtype() {
        DType::U8 => {
            let v = t.as_slice::<u8>()?;
            (0..n)
                .map(|i| v[i * per_image..(i + 1) * per_image].to_vec())
                .collect()
        }
        DType::F16 | DType::F32 | DType::F64 => {
            if bad_color.num_elements() < depth {
                return Err(Error::invalid_argument(format!(
                    "expected depth <= bad_color.size, got depth = {depth}, bad_color.size = {}",
                    bad_color.num_elements()
                )));
            }
            let bad = &bad_color.as_slice::<u8>()?[..depth];
            match t.dtype() {
                DType::F16 => normalize_all::<f16>(t, n, per_image, depth, bad)?,
                DType::F32 => normalize_all::<f32>(t, n, per_image, depth, bad)?,
                _ => normalize_all::<f64>(t, n, per_image, depth, bad)?,
            }
        }
        dt => {
            return Err(Error::invalid_argument(format!(
                "Only DT_INT8, DT_HALF, DT_DOUBLE, and DT_FLOAT images are supported. Got {dt}"
            )))
        }
    };
    pixels
        .iter()
        .enumerate()
        .map(|(i, px)| {
            // The tag depends on the number of images asked for, not the number written.
            let tag = if max_images > 1 {
                format!("{tag}/image/{i}")
            } else {
                format!("{tag}/image")
            };
            let png = crate::image::codecs::png_encode::write_png(
                px,
                w,
                h,
                depth,
                png::BitDepth::Eight,
                -1,
            )
            .ok_or_else(|| Error::internal("PNG encoding failed"))?;
            Ok(SummaryValue {
                tag,
                value: Some(Value::Image(SummaryImage {
                    height: h as i32,
                    width: w as i32,
                    colorspace: depth as i32,
                    encoded_image_string: Bytes::from(png),
                })),
                ..SummaryValue::default()
            })
        })
        .collect()
}

/// `AddTensorAsAudioToSummary`: the first `max_outputs` clips of the `[batch, frames]` or
/// `[batch, frames, channels]` float tensor as 16-bit WAV files, tagged `tag/audio` or
/// `tag/audio/<i>` by `max_outputs`.
pub(super) fn audio(
    t: &Tensor,
    tag: &str,
    max_outputs: i64,
    sample_rate: f32,
) -> Result<Vec<SummaryValue>> {
    // NaN passes, as TensorFlow's `sample_rate <= 0` lets it.
    if sample_rate <= 0.0 {
        return Err(Error::invalid_argument("sample_rate must be > 0"));
    }
    let shape = t.shape();
    if !(2..=3).contains(&shape.len()) {
        return Err(Error::invalid_argument(format!(
            "Tensor must be 3-D or 2-D, got: {}",
            format_dims(shape)
        )));
    }
    let (batch, frames) = (shape[0], shape[1]);
    let channels = if shape.len() == 2 { 1 } else { shape[2] };
    // `lrintf`: ties to even, and at least 1.
    let rounded = (sample_rate.round_ties_even() as i64).max(1);
    let header_rate = i32::try_from(rounded).map_err(|_| {
        Error::invalid_argument(format!("sample_rate must be in (0, 2^32), got: {rounded}"))
    })?;
    let samples = t.as_slice::<f32>()?;
    let per_clip = frames * channels;
    let n = batch.min(usize::try_from(max_outputs).unwrap_or(0));
    (0..n)
        .map(|i| {
            let tag = if max_outputs > 1 {
                format!("{tag}/audio/{i}")
            } else {
                format!("{tag}/audio")
            };
            let clip = &samples[i * per_clip..(i + 1) * per_clip];
            let wav = crate::audio::wav_io::encode(clip, header_rate, channels, frames)?;
            Ok(SummaryValue {
                tag,
                value: Some(Value::Audio(SummaryAudio {
                    sample_rate,
                    num_channels: channels as i64,
                    length_frames: frames as i64,
                    encoded_audio_string: Bytes::from(wav),
                    content_type: "audio/wav".to_string(),
                })),
                ..SummaryValue::default()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_take_the_first_element_of_any_real_dtype() {
        let t = Tensor::from_vec(&[2], vec![7i64, 9]).unwrap();
        let v = scalar(&t, "x").unwrap();
        assert_eq!(v.value, Some(Value::SimpleValue(7.0)));
        let s = Tensor::from("a");
        assert!(scalar(&s, "x").unwrap_err().is_unimplemented());
    }

    #[test]
    fn histograms_refuse_nan_and_infinity() {
        let t = Tensor::from_vec(&[2], vec![1.0f32, f32::INFINITY]).unwrap();
        let e = histogram(&t, "h").unwrap_err();
        assert_eq!(e.message(), "Infinity in summary histogram for: h");
        let b = Tensor::from_vec(&[3], vec![true, false, true]).unwrap();
        let Some(Value::Histo(h)) = histogram(&b, "h").unwrap().value else {
            panic!("not a histogram")
        };
        assert_eq!((h.num, h.sum), (3.0, 2.0));
    }
}
