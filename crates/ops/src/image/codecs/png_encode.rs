//! `EncodePng`: images of 1 to 4 channels, uint8 or uint16, each batch element to one PNG (the
//! `png` crate writes it; TensorFlow decodes it to the same samples).

use bytes::Bytes;
use weir_graph::{format_dims, DType, Error, Result, Tensor};

/// Checks `EncodePng`'s `compression` attr as TensorFlow's kernel constructor does.
pub(super) fn check_compression(compression: i64) -> Result<()> {
    if !(-1..=9).contains(&compression) {
        return Err(Error::invalid_argument(format!(
            "compression should be in [-1,9], got {compression}"
        )));
    }
    Ok(())
}

/// Encodes `image` (`[..., height, width, channels]`), returning a string tensor of the batch
/// dimensions.
pub(super) fn encode(image: &Tensor, compression: i64) -> Result<Tensor> {
    check_compression(compression)?;
    let dtype = image.dtype();
    if dtype != DType::U8 && dtype != DType::U16 {
        return Err(Error::invalid_argument(format!(
            "image must have type uint8 or uint16, got {dtype}"
        )));
    }
    let shape = image.shape();
    if shape.len() < 3 {
        return Err(Error::invalid_argument(format!(
            "images must be at least rank 3{}",
            format_dims(shape)
        )));
    }
    if image.num_elements() >= i32::MAX as usize {
        return Err(Error::invalid_argument(
            "image cannot have >= int32 max elements",
        ));
    }
    let b = shape.len() - 3;
    let (height, width, channels) = (shape[b], shape[b + 1], shape[b + 2]);
    if width * channels >= (i32::MAX / 2) as usize {
        return Err(Error::invalid_argument("image too wide to encode"));
    }
    if !(1..=4).contains(&channels) {
        return Err(Error::invalid_argument(format!(
            "image must have 1, 2, 3, or 4 channels, got {channels}"
        )));
    }
    let batch_shape = &shape[..b];
    let batches: usize = batch_shape.iter().product();
    let per_image = height * width * channels;
    let mut out = Vec::with_capacity(batches);
    let mut bad = Vec::new();
    for i in 0..batches {
        let bytes = if dtype == DType::U8 {
            let s = &image.as_slice::<u8>()?[i * per_image..(i + 1) * per_image];
            write_png(
                s,
                width,
                height,
                channels,
                png::BitDepth::Eight,
                compression,
            )
        } else {
            let s = &image.as_slice::<u16>()?[i * per_image..(i + 1) * per_image];
            let be: Vec<u8> = s.iter().flat_map(|v| v.to_be_bytes()).collect();
            write_png(
                &be,
                width,
                height,
                channels,
                png::BitDepth::Sixteen,
                compression,
            )
        };
        match bytes {
            Some(b) => out.push(Bytes::from(b)),
            None => {
                bad.push(i.to_string());
                out.push(Bytes::new());
            }
        }
    }
    if !bad.is_empty() {
        return Err(Error::internal(format!(
            "PNG encoding failed at the following flattened batch indices: {}",
            bad.join(", ")
        )));
    }
    Tensor::from_vec(batch_shape, out)
}

/// One PNG of `data` (samples big-endian when 16-bit); `None` for an empty image, which libpng
/// refuses.
pub(crate) fn write_png(
    data: &[u8],
    width: usize,
    height: usize,
    channels: usize,
    depth: png::BitDepth,
    compression: i64,
) -> Option<Vec<u8>> {
    if width == 0 || height == 0 || width > u32::MAX as usize || height > u32::MAX as usize {
        return None;
    }
    let mut buf = Vec::new();
    let mut encoder = png::Encoder::new(&mut buf, width as u32, height as u32);
    encoder.set_color(match channels {
        1 => png::ColorType::Grayscale,
        2 => png::ColorType::GrayscaleAlpha,
        3 => png::ColorType::Rgb,
        _ => png::ColorType::Rgba,
    });
    encoder.set_depth(depth);
    encoder.set_deflate_compression(match compression {
        0 => png::DeflateCompression::NoCompression,
        -1 => png::DeflateCompression::Level(6),
        n => png::DeflateCompression::Level(n as u8),
    });
    let mut writer = encoder.write_header().ok()?;
    writer.write_image_data(data).ok()?;
    writer.finish().ok()?;
    Some(buf)
}
