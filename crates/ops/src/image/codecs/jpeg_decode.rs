//! JPEG decoding for `DecodeJpeg` and friends, and `ExtractJpegShape`.
//!
//! The frame header is read here, as libjpeg's `jpeg_read_header` reads it, to apply
//! TensorFlow's checks (output size, colour spaces, CMYK) before anything is allocated; the
//! pixels come from the `jpeg-decoder` crate. TensorFlow decodes with libjpeg-turbo, so pixels
//! differ slightly (measured in the module documentation of `image::codecs`); everything else
//! follows TensorFlow's `jpeg::Uncompress`:
//! - `channels` 0 means the file's, at most 3; a 4-channel (CMYK or YCCK) file decodes to RGB
//!   by TensorFlow's formula (`k * c / 255` after an Adobe marker, else
//!   `(255 - k) * (255 - c) / 255`) and cannot decode to gray;
//! - `ratio` 2, 4 or 8 gives `ceil(size / ratio)` pixels each way;
//! - a file that breaks off fails, unless `try_recover_truncated` lets it end there (with a
//!   fake EOI, as TensorFlow's source manager does);
//! - `DecodeAndCropJpeg` checks its window against the output size and crops the decoded image.

use std::panic::{catch_unwind, AssertUnwindSafe};

use weir_graph::{Error, Result};

use super::decode::JpegOptions;

/// TensorFlow's error for anything `jpeg::Uncompress` rejects.
fn uncompress_failed() -> Error {
    Error::invalid_argument("jpeg::Uncompress failed. Invalid JPEG data or crop window.")
}

/// What a JPEG's headers say, up to its first scan.
#[derive(Clone, Debug, Default)]
pub(super) struct Header {
    pub(super) width: usize,
    pub(super) height: usize,
    pub(super) components: usize,
    /// The transform flag of an Adobe APP14 segment, when there is one.
    pub(super) adobe_transform: Option<u8>,
    /// Whether every component has the same sampling factors (no chroma subsampling).
    pub(super) uniform_sampling: bool,
}

/// Reads the markers of `data` up to the first SOS (libjpeg's `jpeg_read_header`); `None` when
/// they are malformed, end early, or describe a frame libjpeg-turbo cannot decode (lossless,
/// hierarchical or arithmetic-coded, or other than 8 bits per sample).
pub(super) fn read_header(data: &[u8]) -> Option<Header> {
    if !data.starts_with(&[0xff, 0xd8]) {
        return None;
    }
    let mut header = Header::default();
    let mut seen_frame = false;
    let mut pos = 2;
    loop {
        // Skip to the next marker: garbage, then any 0xFF fill bytes.
        while *data.get(pos)? != 0xff {
            pos += 1;
        }
        while *data.get(pos)? == 0xff {
            pos += 1;
        }
        let marker = data[pos];
        pos += 1;
        match marker {
            0x01 | 0xd0..=0xd7 => continue,
            0xd8 | 0xd9 => return None,
            _ => {}
        }
        let len = usize::from(u16::from_be_bytes([*data.get(pos)?, *data.get(pos + 1)?]));
        if len < 2 {
            return None;
        }
        let body = data.get(pos + 2..pos + len)?;
        match marker {
            0xc0..=0xc2 => {
                if seen_frame || body.len() < 6 || body[0] != 8 {
                    return None;
                }
                header.height = usize::from(u16::from_be_bytes([body[1], body[2]]));
                header.width = usize::from(u16::from_be_bytes([body[3], body[4]]));
                header.components = usize::from(body[5]);
                if header.components == 0 || body.len() < 6 + 3 * header.components {
                    return None;
                }
                let factors = |i: usize| body[6 + 3 * i + 1];
                header.uniform_sampling = (1..header.components).all(|i| factors(i) == factors(0));
                seen_frame = true;
            }
            0xc3 | 0xc5..=0xc7 | 0xc9..=0xcb | 0xcd..=0xcf => return None,
            0xee if body.len() >= 12 && body.starts_with(b"Adobe") => {
                header.adobe_transform = Some(body[11]);
            }
            0xda => return seen_frame.then_some(header),
            _ => {}
        }
        pos += len;
    }
}

/// A decoded JPEG: `height * width * channels` samples.
pub(super) struct JpegImage {
    pub(super) height: usize,
    pub(super) width: usize,
    pub(super) channels: usize,
    pub(super) data: Vec<u8>,
}

/// Decodes `data` to `channels` (0, 1 or 3) as `DecodeJpeg` does; `crop` is
/// `DecodeAndCropJpeg`'s window `[y, x, height, width]`.
pub(super) fn decode(
    data: &[u8],
    channels: usize,
    opts: &JpegOptions,
    crop: Option<[i32; 4]>,
) -> Result<JpegImage> {
    let header = read_header(data).ok_or_else(uncompress_failed)?;
    let channels = if channels == 0 {
        header.components.min(3)
    } else {
        channels
    };
    let cmyk = header.components == 4;
    // libjpeg converts to gray only from gray, YCbCr and RGB, and to RGB from those (CMYK
    // files go through TensorFlow's own conversion); two-component files have no colour space.
    if (cmyk && channels == 1) || header.components == 2 || header.components > 4 {
        return Err(uncompress_failed());
    }
    let ratio = opts.ratio as usize;
    let (out_w, out_h) = (header.width.div_ceil(ratio), header.height.div_ceil(ratio));
    if out_w == 0 || out_h == 0 || out_w * out_h * header.components >= 1 << 29 {
        return Err(uncompress_failed());
    }
    if let Some([y, x, h, w]) = crop {
        let valid = w > 0
            && h > 0
            && x >= 0
            && y >= 0
            && (y as i64 + h as i64) <= out_h as i64
            && (x as i64 + w as i64) <= out_w as i64;
        if !valid {
            return Err(uncompress_failed());
        }
    }
    // Measured against TensorFlow: the crate's 1/8 scale (the DC alone) matches libjpeg's
    // without chroma subsampling; otherwise averaging the full-size image comes closer than
    // the crate's 1/2 and 1/4 IDCTs (and than its scaling of subsampled chroma, which libjpeg
    // decodes at a larger scale instead).
    let (scale, size) = if header.uniform_sampling && ratio == 8 {
        (ratio, (out_w, out_h))
    } else {
        (1, (header.width, header.height))
    };
    let (pixels, format) = match run_decoder(data, scale, size) {
        Some(v) => v,
        None if opts.try_recover_truncated => {
            // TensorFlow's source manager ends a truncated file with a fake EOI.
            let mut padded = Vec::with_capacity(data.len() + 2);
            padded.extend_from_slice(data);
            padded.extend_from_slice(&[0xff, 0xd9]);
            run_decoder(&padded, scale, size).ok_or_else(uncompress_failed)?
        }
        None => return Err(uncompress_failed()),
    };
    let pixels = if size != (out_w, out_h) {
        box_average(&pixels, size, format.pixel_bytes(), ratio)
    } else {
        pixels
    };
    let n = out_w * out_h;
    let out = match (format, channels) {
        (jpeg_decoder::PixelFormat::L8, 1) => pixels,
        (jpeg_decoder::PixelFormat::L8, _) => pixels.iter().flat_map(|&v| [v, v, v]).collect(),
        (jpeg_decoder::PixelFormat::RGB24, 3) => pixels,
        (jpeg_decoder::PixelFormat::RGB24, _) => pixels
            .chunks_exact(3)
            .map(|p| {
                let y = 19595 * u32::from(p[0]) + 38470 * u32::from(p[1]) + 7471 * u32::from(p[2]);
                ((y + 32768) >> 16) as u8
            })
            .collect(),
        (jpeg_decoder::PixelFormat::CMYK32, _) => {
            // The crate inverts CMYK (and makes YCCK's CMY from its RGB), so 255 - v is
            // libjpeg's CMYK output.
            let adobe = header.adobe_transform.is_some();
            let mut out = Vec::with_capacity(n * 3);
            for p in pixels.chunks_exact(4) {
                let k = 255 - u32::from(p[3]);
                for &v in &p[..3] {
                    let c = 255 - u32::from(v);
                    out.push(if adobe {
                        k * c / 255
                    } else {
                        (255 - k) * (255 - c) / 255
                    } as u8);
                }
            }
            out
        }
        _ => return Err(uncompress_failed()),
    };
    if out.len() != n * channels {
        return Err(uncompress_failed());
    }
    let image = JpegImage {
        height: out_h,
        width: out_w,
        channels,
        data: out,
    };
    Ok(match crop {
        Some([y, x, h, w]) => crop_image(&image, y as usize, x as usize, h as usize, w as usize),
        None => image,
    })
}

/// Runs `jpeg-decoder` at `1/ratio` scale; `None` on any failure (a panic included: the input
/// is untrusted).
fn run_decoder(
    data: &[u8],
    ratio: usize,
    (out_w, out_h): (usize, usize),
) -> Option<(Vec<u8>, jpeg_decoder::PixelFormat)> {
    catch_unwind(AssertUnwindSafe(|| {
        let mut decoder = jpeg_decoder::Decoder::new(data);
        decoder.set_max_decoding_buffer_size(1 << 31);
        if ratio > 1 {
            let (w, h) = decoder.scale(out_w as u16, out_h as u16).ok()?;
            if (usize::from(w), usize::from(h)) != (out_w, out_h) {
                return None;
            }
        }
        let pixels = decoder.decode().ok()?;
        let info = decoder.info()?;
        if (usize::from(info.width), usize::from(info.height)) != (out_w, out_h) {
            return None;
        }
        Some((pixels, info.pixel_format))
    }))
    .ok()
    .flatten()
}

/// Averages `ratio x ratio` boxes (the image's last row and column of boxes may be smaller),
/// rounding: what libjpeg's scaled IDCTs approximate.
fn box_average(pixels: &[u8], (w, h): (usize, usize), c: usize, ratio: usize) -> Vec<u8> {
    let (ow, oh) = (w.div_ceil(ratio), h.div_ceil(ratio));
    let mut out = Vec::with_capacity(ow * oh * c);
    for oy in 0..oh {
        let ys = oy * ratio..((oy + 1) * ratio).min(h);
        for ox in 0..ow {
            let xs = ox * ratio..((ox + 1) * ratio).min(w);
            let n = (ys.len() * xs.len()) as u32;
            for ch in 0..c {
                let mut sum = 0u32;
                for y in ys.clone() {
                    for x in xs.clone() {
                        sum += u32::from(pixels[(y * w + x) * c + ch]);
                    }
                }
                out.push(((sum + n / 2) / n) as u8);
            }
        }
    }
    out
}

fn crop_image(img: &JpegImage, y: usize, x: usize, h: usize, w: usize) -> JpegImage {
    let c = img.channels;
    let mut data = Vec::with_capacity(h * w * c);
    for row in y..y + h {
        let start = (row * img.width + x) * c;
        data.extend_from_slice(&img.data[start..start + w * c]);
    }
    JpegImage {
        height: h,
        width: w,
        channels: c,
        data,
    }
}

/// `ExtractJpegShape`: `[height, width, components]` of the image libjpeg would output by
/// default (4 for CMYK and YCCK files).
pub(super) fn extract_shape(data: &[u8]) -> Result<[usize; 3]> {
    let invalid = || Error::invalid_argument(format!("Invalid JPEG data, size {}", data.len()));
    let h = read_header(data).ok_or_else(invalid)?;
    if h.width == 0 || h.height == 0 || h.components == 2 || h.components > 4 {
        return Err(invalid());
    }
    Ok([h.height, h.width, h.components])
}
