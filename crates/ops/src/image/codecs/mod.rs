//! Image codecs: TensorFlow's `tf.io.decode_*` and `tf.io.encode_*` ops, the first step of a
//! file-based image pipeline (`read_file` or `WholeFileReader`, then `decode_image`).
//!
//! Every op has TensorFlow's name, inputs, attrs and defaults, so TensorFlow GraphDefs import:
//! `DecodePng`, `DecodeJpeg`, `DecodeAndCropJpeg`, `DecodeGif`, `DecodeBmp`, `DecodeImage`,
//! `ExtractJpegShape`, `EncodePng`, `EncodeJpeg` and `EncodeJpegVariableQuality`. Like
//! TensorFlow's `DecodeImageV2Op`, every decoder sniffs the format from the leading bytes, so
//! `decode_png` also decodes a JPEG or a GIF (but not a BMP), with TensorFlow's errors when the
//! op cannot.
//!
//! Exactness against TensorFlow 2.21 (tests/data/images holds TensorFlow's outputs):
//! - PNG, GIF and BMP decoding give TensorFlow's samples bit for bit, for every colour type, bit
//!   depth, palette, transparency, interlacing, gamma and channel conversion (libpng's
//!   transformations and giflib's frame handling are reproduced with their arithmetic), and the
//!   same error messages.
//! - JPEG pixels come from the `jpeg-decoder` crate, not libjpeg-turbo, so they differ by a few
//!   levels. TensorFlow's default `dct_method=""` is libjpeg's *fast* integer IDCT; measured
//!   mean (max) absolute differences on the test images: 0.5 to 1.6 (8), 2.4 (13) at quality
//!   100, against the default; 0.04 to 0.13 (3) against `"INTEGER_ACCURATE"`; 0.4 to 1.5 (8)
//!   for `channels=1` of a colour file (gray is computed from RGB, libjpeg takes the Y plane);
//!   0.2 to 2.7 (16) for `ratio` 2, 4 and 8 (weir averages `ratio x ratio` boxes of the full
//!   decode, or uses the crate's 1/8 IDCT, where libjpeg uses scaled IDCTs); 0.7 to 0.9 (4) for
//!   CMYK and YCCK files. `fancy_upscaling=False` is not honoured: chroma is always upsampled
//!   smoothly (3 to 6 mean, up to 60 at sharp colour edges, against libjpeg's replication).
//!   Shapes, channel handling, `ratio` output sizes, crop windows and errors are TensorFlow's;
//!   `acceptable_fraction` is ignored (a truncated file fails unless `try_recover_truncated`).
//! - Encoders write files TensorFlow decodes (PNG to the very same samples); their bytes are
//!   not libpng's or libjpeg's.
//!
//! ```
//! use weir_graph::{DType, Graph, Tensor};
//! use weir_ops::array::constant;
//! use weir_ops::image::{decode_image, encode_png};
//!
//! let g = Graph::new();
//! let pixels = constant(&g, Tensor::from_vec(&[2, 2, 3], (0..12u8).collect())?)?;
//! let png = encode_png(&pixels)?;
//! let back = decode_image(&png)?;
//! assert_eq!((png.dtype(), back.dtype()), (DType::String, DType::U8));
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod bmp;
mod builders;
mod decode;
mod gif_decode;
mod jpeg_builders;
mod jpeg_decode;
mod jpeg_encode;
mod png_decode;
pub(crate) mod png_encode;
mod register;

pub use builders::{
    decode_bmp, decode_gif, decode_image, decode_png, encode_png, DecodeBmp, DecodeGif,
    DecodeImage, DecodePng, EncodePng,
};
pub use jpeg_builders::{
    decode_and_crop_jpeg, decode_jpeg, encode_jpeg, encode_jpeg_variable_quality,
    extract_jpeg_shape, is_jpeg, DecodeJpeg, DensityUnit, EncodeJpeg, ExtractJpegShape, JpegFormat,
};

/// Registers the codec ops and kernels.
pub(crate) fn register() {
    register::register();
}

/// Decoded samples, 8 or 16 bits each.
#[derive(Clone, Debug)]
pub(crate) enum Pixels {
    U8(Vec<u8>),
    U16(Vec<u16>),
}

/// The formats `DecodeImage` tells apart by their first bytes (TensorFlow's
/// `ClassifyFileFormat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Jpeg,
    Png,
    Gif,
    Bmp,
    Webp,
    Jxl,
    Unknown,
}

impl Format {
    /// The format of `data`, from its magic bytes.
    pub(crate) fn sniff(data: &[u8]) -> Format {
        if data.starts_with(b"\xff\xd8\xff") {
            Format::Jpeg
        } else if data.starts_with(b"\x89PNG\r\n\x1a\n") {
            Format::Png
        } else if data.starts_with(b"GIF8") {
            Format::Gif
        } else if data.starts_with(b"BM") {
            Format::Bmp
        } else if data.len() > 12 && data.starts_with(b"RIFF") && &data[8..12] == b"WEBP" {
            Format::Webp
        } else if data.starts_with(b"\xff\x0a")
            || data.starts_with(b"\x00\x00\x00\x0cJXL \x0d\x0a\x87\x0a")
        {
            Format::Jxl
        } else {
            Format::Unknown
        }
    }
}
