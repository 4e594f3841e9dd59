//! The decode kernels: TensorFlow's `DecodeImageV2Op`, which serves `DecodePng`, `DecodeJpeg`,
//! `DecodeAndCropJpeg`, `DecodeGif`, `DecodeBmp` and `DecodeImage` alike, sniffing the format
//! and then checking what the op type allows, in TensorFlow's order and with its messages.

use weir_graph::{format_dims, Bytes, DType, Error, Node, Result, Tensor};

use super::{bmp, gif_decode, jpeg_decode, png_decode::PngDecoder, Format, Pixels};

/// The op a decode kernel runs as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DecodeOp {
    Png,
    Jpeg,
    AndCropJpeg,
    Gif,
    Bmp,
    Image,
}

impl DecodeOp {
    /// The op for a TensorFlow op type.
    pub(crate) fn from_type(op_type: &str) -> Result<DecodeOp> {
        Ok(match op_type {
            "DecodePng" => DecodeOp::Png,
            "DecodeJpeg" => DecodeOp::Jpeg,
            "DecodeAndCropJpeg" => DecodeOp::AndCropJpeg,
            "DecodeGif" => DecodeOp::Gif,
            "DecodeBmp" => DecodeOp::Bmp,
            "DecodeImage" => DecodeOp::Image,
            other => return Err(Error::invalid_argument(format!("Bad op type {other}"))),
        })
    }

    /// TensorFlow's op type name.
    pub(crate) fn op_type(self) -> &'static str {
        match self {
            DecodeOp::Png => "DecodePng",
            DecodeOp::Jpeg => "DecodeJpeg",
            DecodeOp::AndCropJpeg => "DecodeAndCropJpeg",
            DecodeOp::Gif => "DecodeGif",
            DecodeOp::Bmp => "DecodeBmp",
            DecodeOp::Image => "DecodeImage",
        }
    }

    fn is_jpeg_op(self) -> bool {
        matches!(self, DecodeOp::Jpeg | DecodeOp::AndCropJpeg)
    }
}

/// The JPEG attrs of `DecodeJpeg` and `DecodeAndCropJpeg` (TensorFlow's `UncompressFlags`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct JpegOptions {
    pub(crate) ratio: i64,
    pub(crate) fancy_upscaling: bool,
    pub(crate) try_recover_truncated: bool,
    pub(crate) acceptable_fraction: f32,
    pub(crate) dct_method: String,
}

impl Default for JpegOptions {
    fn default() -> JpegOptions {
        JpegOptions {
            ratio: 1,
            fancy_upscaling: true,
            try_recover_truncated: false,
            acceptable_fraction: 1.0,
            dct_method: String::new(),
        }
    }
}

/// A decode kernel's configuration, checked as TensorFlow's kernel constructor checks it.
#[derive(Clone, Debug)]
pub(crate) struct DecodeSpec {
    pub(crate) op: DecodeOp,
    pub(crate) channels: usize,
    pub(crate) dtype: DType,
    pub(crate) expand_animations: bool,
    pub(crate) jpeg: JpegOptions,
}

impl DecodeSpec {
    /// Validates the attrs of `op` (TensorFlow's `DecodeImageV2Op` constructor).
    pub(crate) fn new(
        op: DecodeOp,
        channels: i64,
        dtype: DType,
        expand_animations: bool,
        jpeg: JpegOptions,
    ) -> Result<DecodeSpec> {
        let jpeg = if op.is_jpeg_op() {
            if ![1, 2, 4, 8].contains(&jpeg.ratio) {
                return Err(Error::invalid_argument(format!(
                    "ratio must be 1, 2, 4, or 8, got {}",
                    jpeg.ratio
                )));
            }
            if !["", "INTEGER_FAST", "INTEGER_ACCURATE"].contains(&jpeg.dct_method.as_str()) {
                return Err(Error::invalid_argument(
                    "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}",
                ));
            }
            jpeg
        } else {
            JpegOptions::default()
        };
        match op {
            DecodeOp::Png if dtype != DType::U8 && dtype != DType::U16 => {
                return Err(Error::invalid_argument(format!(
                    "`dtype` for `DecodePng` must be unit8, unit16 but got: {}",
                    dtype_enum(dtype)
                )))
            }
            DecodeOp::Image if ![DType::U8, DType::U16, DType::F32].contains(&dtype) => {
                return Err(Error::invalid_argument(format!(
                    "`dtype` for `DecodeImage` must be unit8, unit16, float but got: {}",
                    dtype_enum(dtype)
                )))
            }
            _ => {}
        }
        let channels = if op == DecodeOp::Gif {
            3
        } else if [0, 1, 3, 4].contains(&channels) {
            channels as usize
        } else {
            return Err(Error::invalid_argument(format!(
                "`channels` must be 0, 1, 3 or 4 but got {channels}"
            )));
        };
        Ok(DecodeSpec {
            op,
            channels,
            dtype,
            expand_animations: op != DecodeOp::Image || expand_animations,
            jpeg,
        })
    }

    /// The spec of the kernel for `node`.
    pub(crate) fn from_node(node: &Node) -> Result<DecodeSpec> {
        let op = DecodeOp::from_type(node.op_type())?;
        let channels = if op == DecodeOp::Gif {
            3
        } else {
            node.attr::<i64>("channels")?
        };
        let dtype = match op {
            DecodeOp::Png | DecodeOp::Image => node.attr("dtype")?,
            _ => DType::U8,
        };
        let expand = op != DecodeOp::Image || node.attr::<bool>("expand_animations")?;
        let jpeg = if op.is_jpeg_op() {
            JpegOptions {
                ratio: node.attr("ratio")?,
                fancy_upscaling: node.attr("fancy_upscaling")?,
                try_recover_truncated: node.attr("try_recover_truncated")?,
                acceptable_fraction: node.attr::<f32>("acceptable_fraction")?,
                dct_method: node.attr("dct_method")?,
            }
        } else {
            JpegOptions::default()
        };
        DecodeSpec::new(op, channels, dtype, expand, jpeg)
    }

    /// Decodes a string scalar, as the kernel does (`crop_window` only for
    /// `DecodeAndCropJpeg`).
    pub(crate) fn decode_tensor(&self, contents: &Tensor, crop: Option<&Tensor>) -> Result<Tensor> {
        if contents.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "`contents` must be scalar but got shape{}",
                format_dims(contents.shape())
            )));
        }
        let data: &Bytes = &contents.as_slice::<Bytes>()?[0];
        self.decode(data, crop)
    }

    /// Decodes one encoded image.
    pub(crate) fn decode(&self, input: &[u8], crop: Option<&Tensor>) -> Result<Tensor> {
        if input.is_empty() {
            return Err(Error::invalid_argument("Input is empty."));
        }
        if input.len() > i32::MAX as usize {
            return Err(Error::invalid_argument(format!(
                "Input contents are too large for int: {}",
                input.len()
            )));
        }
        match Format::sniff(input) {
            Format::Jpeg => self.decode_jpeg(input, crop),
            Format::Png => self.decode_png(input),
            Format::Gif => self.decode_gif(input),
            Format::Bmp => self.decode_bmp(input),
            Format::Webp => Err(Error::unimplemented(
                "weir does not decode WebP images (TensorFlow's DecodeImage does)",
            )),
            Format::Jxl => Err(Error::unimplemented(
                "weir does not decode JPEG XL images (TensorFlow's DecodeImage does)",
            )),
            Format::Unknown => Err(Error::invalid_argument(
                "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.",
            )),
        }
    }

    fn decode_jpeg(&self, input: &[u8], crop: Option<&Tensor>) -> Result<Tensor> {
        if self.channels == 4 {
            return Err(Error::invalid_argument("JPEG does not support 4 channels"));
        }
        let window = match (self.op, crop) {
            (DecodeOp::AndCropJpeg, Some(w)) => {
                if w.rank() != 1 {
                    return Err(Error::invalid_argument(format!(
                        "crop_window must be 1-D, got shape {}",
                        format_dims(w.shape())
                    )));
                }
                if w.shape()[0] != 4 {
                    return Err(Error::invalid_argument(format!(
                        "crop_size must have four elements {}",
                        format_dims(w.shape())
                    )));
                }
                let v = w.as_slice::<i32>()?;
                Some([v[0], v[1], v[2], v[3]])
            }
            (DecodeOp::Bmp, _) => {
                return Err(Error::invalid_argument(
                    "Trying to decode JPEG format using DecodeBmp op. Use `decode_jpeg` or `decode_image` instead.",
                ))
            }
            _ => None,
        };
        let img = jpeg_decode::decode(input, self.channels, &self.jpeg, window)?;
        let mut shape = vec![img.height, img.width, img.channels];
        if self.op == DecodeOp::Gif {
            shape.insert(0, 1);
        }
        self.output_u8(&shape, img.data)
    }

    fn decode_png(&self, input: &[u8]) -> Result<Tensor> {
        let out16 = self.dtype != DType::U8;
        let decoder = PngDecoder::new(input, self.channels, out16)?;
        let (w, h, c) = (decoder.width(), decoder.height(), decoder.channels());
        if w == 0 || h == 0 || w >= 1 << 27 || h >= 1 << 27 || w * h >= 1 << 29 {
            return Err(Error::invalid_argument(format!(
                "PNG size too large for int: {w} by {h}"
            )));
        }
        match self.op {
            DecodeOp::Bmp => {
                return Err(Error::invalid_argument(
                    "Trying to decode PNG format using DecodeBmp op. Use `decode_png` or `decode_image` instead.",
                ))
            }
            DecodeOp::AndCropJpeg => {
                return Err(Error::invalid_argument(
                    "DecodeAndCropJpeg operation can run on JPEG only, but detected PNG.",
                ))
            }
            _ => {}
        }
        let mut shape = vec![h, w, c];
        if self.op == DecodeOp::Gif {
            shape.insert(0, 1);
        }
        match (decoder.finish()?, self.dtype) {
            (Pixels::U8(v), _) => Tensor::from_vec(&shape, v),
            (Pixels::U16(v), DType::F32) => {
                let scale = (1.0 / 65535.0f64) as f32;
                Tensor::from_vec(&shape, v.iter().map(|&x| f32::from(x) * scale).collect())
            }
            (Pixels::U16(v), _) => Tensor::from_vec(&shape, v),
        }
    }

    fn decode_gif(&self, input: &[u8]) -> Result<Tensor> {
        if self.channels != 0 && self.channels != 3 {
            return Err(Error::invalid_argument(format!(
                "channels must be 0 or 3 for GIF, got {}",
                self.channels
            )));
        }
        match self.op {
            DecodeOp::Bmp => {
                return Err(Error::invalid_argument(
                    "Trying to decode GIF format using DecodeBmp op. Use `decode_gif` or `decode_image` instead.",
                ))
            }
            DecodeOp::AndCropJpeg => {
                return Err(Error::invalid_argument(
                    "DecodeAndCropJpeg operation can run on JPEG only, but detected GIF.",
                ))
            }
            _ => {}
        }
        let gif = gif_decode::Gif::read(input)?;
        let n = gif.num_frames();
        let (h, w) = (gif.height(), gif.width());
        let (frames, shape) = match self.op {
            DecodeOp::Png | DecodeOp::Jpeg if n != 1 => {
                return Err(Error::invalid_argument(format!(
                    "Got {n} frames, but animated gifs can only be decoded by tf.io.decode_gif or tf.io.decode_image"
                )))
            }
            DecodeOp::Png | DecodeOp::Jpeg => (1, vec![h, w, 3]),
            _ if self.expand_animations => (n, vec![n, h, w, 3]),
            _ => (1, vec![h, w, 3]),
        };
        check_output_size(&shape)?;
        let pixels = gif
            .render(frames)
            .map_err(|msg| gif_decode::invalid(input.len(), &msg))?;
        self.output_u8(&shape, pixels)
    }

    fn decode_bmp(&self, input: &[u8]) -> Result<Tensor> {
        if self.channels == 1 {
            return Err(Error::invalid_argument(format!(
                "`channels` must be 0, 3 or 4 for BMP, but got {}",
                self.channels
            )));
        }
        match self.op {
            DecodeOp::Bmp | DecodeOp::Image => {}
            DecodeOp::AndCropJpeg => {
                return Err(Error::invalid_argument(
                    "DecodeAndCropJpeg operation can run on JPEG only, but detected BMP.",
                ))
            }
            op => {
                return Err(Error::invalid_argument(format!(
                    "Trying to decode BMP format using a wrong op. Use `decode_bmp` or `decode_image` instead. Op used: {}",
                    op.op_type()
                )))
            }
        }
        let (shape, data) = bmp::decode(input, self.channels)?;
        self.output_u8(&shape, data)
    }

    /// 8-bit samples as the output dtype: uint16 scaled by 256 and float32 by 1/255, as
    /// TensorFlow converts JPEG, GIF and BMP samples.
    fn output_u8(&self, shape: &[usize], data: Vec<u8>) -> Result<Tensor> {
        match self.dtype {
            DType::U16 => {
                Tensor::from_vec(shape, data.iter().map(|&v| u16::from(v) * 256).collect())
            }
            DType::F32 => {
                let scale = (1.0 / 255.0f64) as f32;
                Tensor::from_vec(shape, data.iter().map(|&v| f32::from(v) * scale).collect())
            }
            _ => Tensor::from_vec(shape, data),
        }
    }
}

/// The largest output a decoder allocates, in samples: a guard against files whose headers
/// claim enormous canvases (TensorFlow would attempt the allocation and fail).
pub(crate) const MAX_OUTPUT_SAMPLES: usize = 1 << 31;

/// ResourceExhausted for outputs past [`MAX_OUTPUT_SAMPLES`].
pub(crate) fn check_output_size(shape: &[usize]) -> Result<()> {
    let n = shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .unwrap_or(usize::MAX);
    if n > MAX_OUTPUT_SAMPLES {
        return Err(Error::resource_exhausted(format!(
            "OOM when allocating tensor with shape{} and type uint8",
            format_dims(shape)
        )));
    }
    Ok(())
}

/// The `DataType` enum value TensorFlow prints for a dtype in attr errors.
fn dtype_enum(dtype: DType) -> i32 {
    match dtype {
        DType::F32 => 1,
        DType::F64 => 2,
        DType::I32 => 3,
        DType::U8 => 4,
        DType::I16 => 5,
        DType::I8 => 6,
        DType::String => 7,
        DType::I64 => 9,
        DType::Bool => 10,
        DType::U16 => 17,
        _ => 0,
    }
}
