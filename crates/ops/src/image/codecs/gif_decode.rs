//! GIF decoding as TensorFlow's `gif_io.cc` does it on giflib: the canvas is the largest frame
//! (not the logical screen), every frame starts as a copy of the one before (the first as
//! black), a frame's transparent pixels keep what is under them, and disposal methods are
//! ignored. The `gif` crate supplies each frame's colour indices.
//!
//! Like giflib's `DGifSlurp` under TensorFlow, a file that breaks off after a complete frame
//! still decodes: the complete frames are kept, a frame whose data breaks off is dropped.
//!
//! Frame buffers grow with the data actually decoded, never with a header's claim; the frames
//! held at once are limited to [`MAX_OUTPUT_SAMPLES`] pixels.

use std::io::Cursor;

use gif::{ColorOutput, DecodeOptions, DecodingError, MemoryLimit};
use weir_graph::Error;

use super::decode::MAX_OUTPUT_SAMPLES;

/// One frame: its place on the canvas, colour table, transparent index and indices.
struct Frame {
    left: usize,
    top: usize,
    width: usize,
    height: usize,
    palette: Option<Vec<u8>>,
    transparent: Option<u8>,
    interlaced: bool,
    /// The colour indices, in stream order (interlaced rows by pass).
    indices: Vec<u8>,
}

/// Why a GIF could not be read.
enum ReadError {
    /// TensorFlow's message after "Invalid GIF data (size N), ".
    Invalid(String),
    /// The frames would hold more than [`MAX_OUTPUT_SAMPLES`] pixels.
    TooLarge,
}

impl From<String> for ReadError {
    fn from(msg: String) -> ReadError {
        ReadError::Invalid(msg)
    }
}

impl From<&str> for ReadError {
    fn from(msg: &str) -> ReadError {
        ReadError::Invalid(msg.to_string())
    }
}

/// TensorFlow's InvalidArgument for GIF data.
pub(super) fn invalid(size: usize, msg: &str) -> Error {
    Error::invalid_argument(format!("Invalid GIF data (size {size}), {msg}"))
}

/// A GIF read to the end (or to the first error after a frame).
pub(super) struct Gif {
    global_palette: Option<Vec<u8>>,
    frames: Vec<Frame>,
    width: usize,
    height: usize,
}

/// giflib's message for a decoding error.
fn slurp_message(e: &DecodingError) -> &'static str {
    match e {
        DecodingError::UnexpectedEof | DecodingError::Io(_) => "Failed to read from given file",
        DecodingError::LzwError(_) | DecodingError::EndCodeNotFound => {
            "Image is defective, decoding aborted"
        }
        DecodingError::OutOfMemory | DecodingError::MemoryLimit => {
            "Failed to allocate required memory"
        }
        _ => "Wrong record type detected",
    }
}

impl Gif {
    /// Reads every frame of `data` (which starts with "GIF8"). Errors are TensorFlow's
    /// InvalidArgument "Invalid GIF data (size N), ...", or ResourceExhausted past the limit.
    pub(super) fn read(data: &[u8]) -> Result<Gif, Error> {
        Gif::read_frames(data).map_err(|e| match e {
            ReadError::Invalid(msg) => invalid(data.len(), &msg),
            ReadError::TooLarge => Error::resource_exhausted(format!(
                "GIF frames of more than {MAX_OUTPUT_SAMPLES} pixels in all"
            )),
        })
    }

    fn read_frames(data: &[u8]) -> Result<Gif, ReadError> {
        // giflib's DGifOpen: a 6-byte signature, then the screen descriptor and global table.
        if data.len() < 6 {
            return Err("failed to open gif file: Failed to read from given file".into());
        }
        let global_size = if data.len() >= 13 && data[10] & 0x80 != 0 {
            3 << ((data[10] & 7) + 1)
        } else {
            0
        };
        if data.len() < 13 + global_size {
            return Err("failed to open gif file: No screen descriptor detected".into());
        }
        // giflib accepts any "GIF8?a" version; the gif crate only 87a and 89a.
        let patched;
        let data = if &data[3..6] == b"87a" || &data[3..6] == b"89a" {
            data
        } else {
            let mut v = data.to_vec();
            v[3..6].copy_from_slice(b"89a");
            patched = v;
            &patched[..]
        };
        let mut options = DecodeOptions::new();
        options.set_color_output(ColorOutput::Indexed);
        options.set_memory_limit(MemoryLimit::Unlimited);
        let mut decoder = options.read_info(Cursor::new(data)).map_err(|e| {
            // The screen descriptor was fine (checked above): giflib fails in DGifSlurp, with
            // no image when the trailer comes first.
            let first_block = data.get(13 + global_size).copied();
            let msg = if first_block == Some(0x3b) {
                "No Image Descriptor detected"
            } else {
                slurp_message(&e)
            };
            format!("failed to slurp gif file: {msg}")
        })?;
        let global_palette = decoder.global_palette().map(<[u8]>::to_vec);
        let mut frames: Vec<Frame> = Vec::new();
        let mut pixels = 0usize;
        loop {
            let info = match decoder.next_frame_info() {
                Ok(Some(f)) => f,
                Ok(None) => break,
                Err(DecodingError::Format(e)) if e.to_string().contains("color table") => {
                    return Err(format!("missing color map for frame {}", frames.len()).into());
                }
                Err(e) if frames.is_empty() => {
                    return Err(format!("failed to slurp gif file: {}", slurp_message(&e)).into());
                }
                Err(_) => break,
            };
            let mut frame = Frame {
                left: usize::from(info.left),
                top: usize::from(info.top),
                width: usize::from(info.width),
                height: usize::from(info.height),
                palette: info.palette.clone(),
                transparent: info.transparent,
                interlaced: info.interlaced,
                indices: Vec::new(),
            };
            if frame.width == 0 || frame.height == 0 {
                // giflib refuses to allocate the raster; with no raster TensorFlow fails.
                if frames.is_empty() {
                    return Err("failed to slurp gif file: Unknown error".into());
                }
                break;
            }
            // giflib drops a frame whose data breaks off, and fails when none is left.
            match read_indices(&mut decoder, &mut frame, MAX_OUTPUT_SAMPLES - pixels) {
                Ok(()) => {}
                Err(ReadError::Invalid(msg)) if frames.is_empty() => {
                    return Err(format!("failed to slurp gif file: {msg}").into());
                }
                Err(ReadError::Invalid(_)) => break,
                Err(e) => return Err(e),
            }
            pixels += frame.indices.len();
            frames.push(frame);
        }
        if frames.is_empty() {
            // giflib's DGifSlurp fails a file without images.
            return Err("failed to slurp gif file: No Image Descriptor detected".into());
        }
        let width = frames.iter().map(|f| f.width).max().unwrap_or(0);
        let height = frames.iter().map(|f| f.height).max().unwrap_or(0);
        Ok(Gif {
            global_palette,
            frames,
            width,
            height,
        })
    }

    /// The number of frames.
    pub(super) fn num_frames(&self) -> usize {
        self.frames.len()
    }

    /// The canvas width: the widest frame's.
    pub(super) fn width(&self) -> usize {
        self.width
    }

    /// The canvas height: the tallest frame's.
    pub(super) fn height(&self) -> usize {
        self.height
    }

    /// The RGB samples of the first `count` frames, `[count, height, width, 3]`.
    pub(super) fn render(&self, count: usize) -> Result<Vec<u8>, String> {
        let (w, h) = (self.width, self.height);
        let frame_len = w * h * 3;
        let mut out = vec![0u8; frame_len * count];
        for (k, f) in self.frames.iter().take(count).enumerate() {
            if k > 0 {
                let (done, rest) = out.split_at_mut(k * frame_len);
                rest[..frame_len].copy_from_slice(&done[(k - 1) * frame_len..]);
            }
            let palette = f
                .palette
                .as_deref()
                .or(self.global_palette.as_deref())
                .ok_or_else(|| format!("missing color map for frame {k}"))?;
            let colors = palette.len() / 3;
            let dst = &mut out[k * frame_len..(k + 1) * frame_len];
            let (x1, y1) = ((f.left + f.width).min(w), (f.top + f.height).min(h));
            for y in f.top.min(y1)..y1 {
                let row = if f.interlaced {
                    stream_row(y - f.top, f.height)
                } else {
                    y - f.top
                };
                for x in f.left.min(x1)..x1 {
                    let at = row * f.width + (x - f.left);
                    let idx = f.indices.get(at).copied().unwrap_or(0);
                    if Some(idx) == f.transparent {
                        continue;
                    }
                    if usize::from(idx) >= colors {
                        return Err(format!(
                            "found color index {idx} outside of color map range {colors}"
                        ));
                    }
                    let c = usize::from(idx) * 3;
                    dst[(y * w + x) * 3..(y * w + x) * 3 + 3].copy_from_slice(&palette[c..c + 3]);
                }
            }
        }
        Ok(out)
    }
}

/// Reads the current frame's indices, growing the buffer only as data arrives (a header's
/// size is never trusted up front) and to at most `budget` pixels; giflib's message when the
/// data breaks off.
fn read_indices(
    decoder: &mut gif::Decoder<Cursor<&[u8]>>,
    frame: &mut Frame,
    budget: usize,
) -> Result<(), ReadError> {
    let total = frame.width * frame.height;
    let chunk = (frame.width * 64).clamp(1, 1 << 20);
    while frame.indices.len() < total {
        let start = frame.indices.len();
        let n = chunk.min(total - start);
        if start + n > budget {
            return Err(ReadError::TooLarge);
        }
        frame.indices.resize(start + n, 0);
        match decoder.fill_buffer(&mut frame.indices[start..]) {
            Ok(true) => {}
            Ok(false) => return Err("Image EOF detected before image complete".into()),
            Err(e) => return Err(slurp_message(&e).into()),
        }
    }
    // giflib then reads the rest of the frame's data blocks (extra pixels are ignored).
    let mut rest = [0u8; 4096];
    loop {
        match decoder.fill_buffer(&mut rest) {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(e) => return Err(slurp_message(&e).into()),
        }
    }
}

/// The rows of a frame `height` tall in the order its interlaced data stores them: row `y` is
/// the `stream_row(y)`-th row of the data.
fn stream_row(y: usize, height: usize) -> usize {
    let count = |start: usize, step: usize| height.saturating_sub(start).div_ceil(step);
    match y % 8 {
        0 => y / 8,
        4 => count(0, 8) + y / 8,
        2 | 6 => count(0, 8) + count(4, 8) + y / 4,
        _ => count(0, 8) + count(4, 8) + count(2, 4) + y / 2,
    }
}
