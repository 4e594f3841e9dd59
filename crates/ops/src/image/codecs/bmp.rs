//! BMP decoding as TensorFlow's `DecodeBmpV2` does it: uncompressed 8, 24 or 32 bits per pixel
//! (8-bit data is read as gray, any palette ignored), rows bottom-up unless the height is
//! negative, BGR(A) to RGB(A), and the file size required to match the header exactly.

use weir_graph::{Error, Result};

fn invalid(msg: impl Into<String>) -> Error {
    Error::invalid_argument(msg)
}

fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Decodes `input` to `channels` (0 keeps the file's; 3 or 4) samples per pixel; returns the
/// `[height, width, channels]` shape and the samples.
pub(super) fn decode(input: &[u8], channels: usize) -> Result<(Vec<usize>, Vec<u8>)> {
    let len = input.len();
    if len < 32 {
        return Err(invalid(format!(
            "Incomplete bmp content, requires at least 32 bytes to find the header size, width, height, and bpp, got {len} bytes"
        )));
    }
    let header_size = i32_at(input, 10);
    let width = i32_at(input, 18);
    let height = i32_at(input, 22);
    let bpp = i16::from_le_bytes([input[28], input[29]]);
    let img_channels = i32::from(bpp / 8);
    if ![1, 3, 4].contains(&img_channels) {
        return Err(invalid(format!(
            "Number of channels inherent in the image must be 1, 3 or 4, was {img_channels}"
        )));
    }
    let out_channels = if channels == 0 {
        img_channels as usize
    } else {
        channels
    };
    if width <= 0 {
        return Err(invalid("Width must be positive"));
    }
    if height == 0 {
        return Err(invalid("Height must be nonzero"));
    }
    if header_size < 0 {
        return Err(invalid("header size must be nonnegative"));
    }
    let abs_height = i64::from(height).abs();
    if i64::from(width) * abs_height >= i64::from(i32::MAX / 8) {
        return Err(invalid("Total possible pixel bytes must be less than 2^30"));
    }
    let row_size = (i64::from(img_channels) * i64::from(width) + 3) / 4 * 4;
    // TensorFlow computes the difference in size_t and keeps an int of it.
    let diff = (len as i64)
        .wrapping_sub(i64::from(header_size))
        .wrapping_sub(row_size * abs_height) as i32;
    if diff != 0 {
        return Err(invalid(format!(
            "Input size should match (header_size + row_size * abs_height) but they differ by {diff}"
        )));
    }
    let last_pixel = i64::from(header_size)
        + (abs_height - 1) * row_size
        + i64::from(width - 1) * i64::from(img_channels);
    let expected = last_pixel + i64::from(img_channels);
    if expected > len as i64 {
        return Err(invalid(format!(
            "Incomplete bmp content, requires at least {expected} bytes, got {len} bytes"
        )));
    }
    let (w, h, ic, oc) = (
        width as usize,
        abs_height as usize,
        img_channels as usize,
        out_channels,
    );
    let pixels = &input[header_size as usize..];
    let row_size = row_size as usize;
    let top_down = height < 0;
    let mut out = Vec::with_capacity(w * h * oc);
    for i in 0..h {
        let row = if top_down { i } else { h - 1 - i };
        let src = &pixels[row * row_size..row * row_size + w * ic];
        for px in src.chunks_exact(ic) {
            match ic {
                1 => {
                    out.push(px[0]);
                    if oc >= 3 {
                        out.extend_from_slice(&[px[0], px[0]]);
                    }
                }
                _ => out.extend_from_slice(&[px[2], px[1], px[0]]),
            }
            if oc == 4 {
                out.push(if ic == 4 { px[3] } else { 255 });
            }
        }
    }
    Ok((vec![h, w, oc], out))
}
