//! The builders of the JPEG ops: `DecodeJpeg` and `DecodeAndCropJpeg`, `ExtractJpegShape`,
//! `is_jpeg`, `EncodeJpeg` and `EncodeJpegVariableQuality`.

use bytes::Bytes;
use weir_graph::{DType, Error, Output, Result, Tensor};

use super::decode::{DecodeOp, DecodeSpec, JpegOptions};
use super::jpeg_decode;
use super::jpeg_encode::JpegEncodeSpec;

/// `tf.io.decode_jpeg(contents)`: a `[height, width, channels]` uint8 image. See
/// [`DecodeJpeg`].
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::decode_jpeg};
/// let g = Graph::new();
/// let image = decode_jpeg(&placeholder(&g, DType::String, Shape::scalar())?)?;
/// assert_eq!(image.dtype(), DType::U8);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn decode_jpeg(contents: impl Into<Output>) -> Result<Output> {
    DecodeJpeg::new().build(contents)
}

/// `tf.io.decode_and_crop_jpeg(contents, crop_window)`: the `[y, x, height, width]` window of
/// the decoded image (op `DecodeAndCropJpeg`). See [`DecodeJpeg::build_cropped`].
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::{constant, placeholder}, image::decode_and_crop_jpeg};
/// let g = Graph::new();
/// let contents = placeholder(&g, DType::String, Shape::scalar())?;
/// let crop = decode_and_crop_jpeg(&contents, constant(&g, vec![0i32, 0, 8, 16])?)?;
/// assert_eq!(crop.shape().to_string(), "[8,16,?]");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn decode_and_crop_jpeg(
    contents: impl Into<Output>,
    crop_window: impl Into<Output>,
) -> Result<Output> {
    DecodeJpeg::new().build_cropped(contents, crop_window)
}

/// The options of `tf.io.decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
/// try_recover_truncated=False, acceptable_fraction=1, dct_method='')` (op `DecodeJpeg`).
///
/// Pixels come from the `jpeg-decoder` crate and differ from TensorFlow's libjpeg-turbo by a
/// few levels (mean absolute difference 0.5 to 2.4 against the default fast IDCT, about 0.1
/// against `"INTEGER_ACCURATE"`; see [`image::codecs`](crate::image::codecs)).
/// `fancy_upscaling`, `dct_method` and `acceptable_fraction` are checked and kept on the node
/// but do not change the decoding. Shapes, `ratio` sizes, channels and errors are TensorFlow's.
///
/// ```
/// # use weir_ops::image::{DecodeJpeg, EncodeJpeg};
/// let pixels = weir_graph::Tensor::from_vec(&[8, 8, 3], vec![90u8; 192])?;
/// let jpeg = EncodeJpeg::new().encode(&pixels)?.to_scalar::<weir_graph::Bytes>()?;
/// let half = DecodeJpeg::new().ratio(2).channels(1).decode(&jpeg)?;
/// assert_eq!(half.shape(), &[4, 4, 1]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct DecodeJpeg {
    channels: i64,
    opts: JpegOptions,
    name: Option<String>,
}

impl Default for DecodeJpeg {
    fn default() -> DecodeJpeg {
        DecodeJpeg::new()
    }
}

impl DecodeJpeg {
    /// TensorFlow's defaults.
    pub fn new() -> DecodeJpeg {
        DecodeJpeg {
            channels: 0,
            opts: JpegOptions::default(),
            name: None,
        }
    }

    /// The number of output channels: 0 (the file's, at most 3), 1 or 3.
    pub fn channels(mut self, channels: i64) -> Self {
        self.channels = channels;
        self
    }

    /// Downscaling while decoding: 1, 2, 4 or 8.
    pub fn ratio(mut self, ratio: i64) -> Self {
        self.opts.ratio = ratio;
        self
    }

    /// libjpeg's smooth chroma upsampling (default true; weir always upsamples smoothly).
    pub fn fancy_upscaling(mut self, on: bool) -> Self {
        self.opts.fancy_upscaling = on;
        self
    }

    /// Decode a file that breaks off as if it ended there (default false).
    pub fn try_recover_truncated(mut self, on: bool) -> Self {
        self.opts.try_recover_truncated = on;
        self
    }

    /// The fraction of lines a truncated file must supply (default 1).
    pub fn acceptable_fraction(mut self, fraction: f32) -> Self {
        self.opts.acceptable_fraction = fraction;
        self
    }

    /// libjpeg's IDCT: `""` or `"INTEGER_FAST"`, or `"INTEGER_ACCURATE"`.
    pub fn dct_method(mut self, method: &str) -> Self {
        self.opts.dct_method = method.to_string();
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    fn op(&self, op_type: &str, contents: &Output) -> weir_graph::OpBuilder {
        crate::new_op(&contents.graph().clone(), op_type)
            .maybe_name(self.name.as_deref())
            .input(contents)
            .attr("channels", self.channels)
            .attr("ratio", self.opts.ratio)
            .attr("fancy_upscaling", self.opts.fancy_upscaling)
            .attr("try_recover_truncated", self.opts.try_recover_truncated)
            .attr("acceptable_fraction", self.opts.acceptable_fraction)
            .attr("dct_method", self.opts.dct_method.as_str())
    }

    /// Adds a `DecodeJpeg` node.
    pub fn build(self, contents: impl Into<Output>) -> Result<Output> {
        self.op("DecodeJpeg", &contents.into()).build()?.output(0)
    }

    /// Adds a `DecodeAndCropJpeg` node: `crop_window` is an int32 `[y, x, height, width]`.
    pub fn build_cropped(
        self,
        contents: impl Into<Output>,
        crop_window: impl Into<Output>,
    ) -> Result<Output> {
        let contents = contents.into();
        self.op("DecodeAndCropJpeg", &contents)
            .input(crop_window.into())
            .build()?
            .output(0)
    }

    fn spec(&self, op: DecodeOp) -> Result<DecodeSpec> {
        DecodeSpec::new(op, self.channels, DType::U8, true, self.opts.clone())
    }

    /// Decodes one encoded image as the `DecodeJpeg` kernel does.
    pub fn decode(&self, contents: &[u8]) -> Result<Tensor> {
        self.spec(DecodeOp::Jpeg)?.decode(contents, None)
    }

    /// Decodes the `[y, x, height, width]` window of one image as `DecodeAndCropJpeg` does.
    pub fn decode_cropped(&self, contents: &[u8], crop_window: [i32; 4]) -> Result<Tensor> {
        let window = Tensor::from_vec(&[4], crop_window.to_vec())?;
        self.spec(DecodeOp::AndCropJpeg)?
            .decode(contents, Some(&window))
    }
}

/// `tf.io.extract_jpeg_shape(contents)` (op `ExtractJpegShape`): `[height, width, channels]`
/// from the headers, int32. See [`ExtractJpegShape`].
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::extract_jpeg_shape};
/// let g = Graph::new();
/// let shape = extract_jpeg_shape(&placeholder(&g, DType::String, Shape::scalar())?)?;
/// assert_eq!((shape.dtype(), shape.shape().to_string()), (DType::I32, "[3]".into()));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn extract_jpeg_shape(contents: impl Into<Output>) -> Result<Output> {
    ExtractJpegShape::new().build(contents)
}

/// The options of `tf.io.extract_jpeg_shape(contents, output_type=tf.int32)`.
///
/// ```
/// # use weir_ops::image::{EncodeJpeg, ExtractJpegShape};
/// let jpeg = EncodeJpeg::new().encode(&weir_graph::Tensor::from_vec(&[3, 5, 1], vec![0u8; 15])?)?;
/// let shape = ExtractJpegShape::new().extract(&jpeg.to_scalar::<weir_graph::Bytes>()?)?;
/// assert_eq!(shape.to_vec::<i32>()?, vec![3, 5, 1]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ExtractJpegShape {
    output_type: DType,
    name: Option<String>,
}

impl Default for ExtractJpegShape {
    fn default() -> ExtractJpegShape {
        ExtractJpegShape::new()
    }
}

impl ExtractJpegShape {
    /// int32 output.
    pub fn new() -> ExtractJpegShape {
        ExtractJpegShape {
            output_type: DType::I32,
            name: None,
        }
    }

    /// int32 or int64.
    pub fn output_type(mut self, dtype: DType) -> Self {
        self.output_type = dtype;
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node.
    pub fn build(self, contents: impl Into<Output>) -> Result<Output> {
        let contents = contents.into();
        crate::new_op(&contents.graph().clone(), "ExtractJpegShape")
            .maybe_name(self.name.as_deref())
            .input(&contents)
            .attr("output_type", self.output_type)
            .build()?
            .output(0)
    }

    /// The shape of one encoded JPEG, as the op's kernel computes it.
    pub fn extract(&self, contents: &[u8]) -> Result<Tensor> {
        extract_shape_tensor(contents, self.output_type)
    }
}

/// `[height, width, channels]` of `contents` as `dtype` (int32 or int64).
pub(super) fn extract_shape_tensor(contents: &[u8], dtype: DType) -> Result<Tensor> {
    let s = jpeg_decode::extract_shape(contents)?;
    match dtype {
        DType::I64 => Tensor::from_vec(&[3], s.iter().map(|&d| d as i64).collect()),
        DType::I32 => Tensor::from_vec(&[3], s.iter().map(|&d| d as i32).collect()),
        other => Err(Error::invalid_argument(format!(
            "output_type must be int32 or int64, got {other}"
        ))),
    }
}

/// `tf.io.is_jpeg(contents)`: whether each string starts with `\xff\xd8\xff`, built as
/// TensorFlow builds it (`Substr` then `Equal`, in name scope `is_jpeg`).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::is_jpeg};
/// let g = Graph::new();
/// let yes = is_jpeg(&placeholder(&g, DType::String, Shape::scalar())?)?;
/// assert_eq!(yes.dtype(), DType::Bool);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn is_jpeg(contents: impl Into<Output>) -> Result<Output> {
    let contents = contents.into();
    let g = contents.graph().clone();
    let _scope = g.name_scope("is_jpeg");
    let head = crate::string::substr(&contents, 0, 3)?;
    let magic = crate::array::constant(&g, Tensor::scalar(Bytes::from_static(b"\xff\xd8\xff")))?;
    crate::math::equal(head, magic)
}

/// The `format` of `tf.io.encode_jpeg`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JpegFormat {
    /// `""`: by the image's channels (1 gray, 3 RGB).
    #[default]
    Auto,
    /// `"grayscale"`: 1 channel.
    Grayscale,
    /// `"rgb"`: 3 channels.
    Rgb,
}

impl JpegFormat {
    fn attr(self) -> &'static str {
        match self {
            JpegFormat::Auto => "",
            JpegFormat::Grayscale => "grayscale",
            JpegFormat::Rgb => "rgb",
        }
    }
}

/// The `density_unit` of `tf.io.encode_jpeg`: what the JFIF density counts pixels per.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DensityUnit {
    /// `"in"`: pixels per inch (the default).
    #[default]
    Inch,
    /// `"cm"`: pixels per centimetre.
    Centimeter,
}

/// `tf.io.encode_jpeg(image)`: a `[height, width, 1 or 3]` uint8 image as a JPEG string, with
/// TensorFlow's defaults (quality 95, 4:2:0). See [`EncodeJpeg`].
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::encode_jpeg};
/// let g = Graph::new();
/// let image = placeholder(&g, DType::U8, Shape::known(&[4, 4, 3]))?;
/// assert_eq!(encode_jpeg(&image)?.shape(), Shape::scalar());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn encode_jpeg(image: impl Into<Output>) -> Result<Output> {
    EncodeJpeg::new().build(image)
}

/// `tf.image.adjust_jpeg_quality`'s op `EncodeJpegVariableQuality`: `images` encoded at the
/// int32 scalar `quality`, other options at TensorFlow's defaults.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::{constant, placeholder}, image::encode_jpeg_variable_quality};
/// let g = Graph::new();
/// let image = placeholder(&g, DType::U8, Shape::known(&[4, 4, 3]))?;
/// let jpeg = encode_jpeg_variable_quality(&image, constant(&g, 50i32)?)?;
/// assert_eq!(jpeg.dtype(), DType::String);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn encode_jpeg_variable_quality(
    images: impl Into<Output>,
    quality: impl Into<Output>,
) -> Result<Output> {
    let images = images.into();
    crate::new_op(&images.graph().clone(), "EncodeJpegVariableQuality")
        .input(&images)
        .input(quality.into())
        .build()?
        .output(0)
}

/// The options of `tf.io.encode_jpeg(image, format='', quality=95, progressive=False,
/// optimize_size=False, chroma_downsampling=True, density_unit='in', x_density=300,
/// y_density=300, xmp_metadata='')` (op `EncodeJpeg`). The `jpeg-encoder` crate writes the
/// file; TensorFlow decodes it within the usual quality loss.
///
/// ```
/// # use weir_ops::image::{DecodeJpeg, EncodeJpeg};
/// let gray = weir_graph::Tensor::from_vec(&[16, 16, 1], vec![128u8; 256])?;
/// let jpeg = EncodeJpeg::new().quality(80).progressive(true).encode(&gray)?;
/// let back = DecodeJpeg::new().decode(&jpeg.to_scalar::<weir_graph::Bytes>()?)?;
/// assert!(back.to_vec::<u8>()?.iter().all(|&v| v.abs_diff(128) <= 1));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct EncodeJpeg {
    spec: JpegEncodeSpec,
    name: Option<String>,
}

impl EncodeJpeg {
    /// TensorFlow's defaults.
    pub fn new() -> EncodeJpeg {
        EncodeJpeg::default()
    }

    /// Gray or RGB, or by the channels.
    pub fn format(mut self, format: JpegFormat) -> Self {
        self.spec.format = format.attr().to_string();
        self
    }

    /// Quality 0 to 100 (default 95).
    pub fn quality(mut self, quality: i64) -> Self {
        self.spec.quality = quality;
        self
    }

    /// A progressive JPEG (default false).
    pub fn progressive(mut self, on: bool) -> Self {
        self.spec.progressive = on;
        self
    }

    /// Optimized Huffman tables (default false).
    pub fn optimize_size(mut self, on: bool) -> Self {
        self.spec.optimize_size = on;
        self
    }

    /// Chroma at half resolution both ways, 4:2:0 (default true); 4:4:4 otherwise.
    pub fn chroma_downsampling(mut self, on: bool) -> Self {
        self.spec.chroma_downsampling = on;
        self
    }

    /// What the densities count pixels per (default inches).
    pub fn density_unit(mut self, unit: DensityUnit) -> Self {
        self.spec.density_unit = match unit {
            DensityUnit::Inch => "in",
            DensityUnit::Centimeter => "cm",
        }
        .to_string();
        self
    }

    /// Horizontal pixels per unit (default 300).
    pub fn x_density(mut self, density: i64) -> Self {
        self.spec.x_density = density;
        self
    }

    /// Vertical pixels per unit (default 300).
    pub fn y_density(mut self, density: i64) -> Self {
        self.spec.y_density = density;
        self
    }

    /// XMP metadata to embed in an APP1 segment (default none).
    pub fn xmp_metadata(mut self, xmp: &str) -> Self {
        self.spec.xmp_metadata = xmp.as_bytes().to_vec();
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node.
    pub fn build(self, image: impl Into<Output>) -> Result<Output> {
        let image = image.into();
        let s = &self.spec;
        crate::new_op(&image.graph().clone(), "EncodeJpeg")
            .maybe_name(self.name.as_deref())
            .input(&image)
            .attr("format", s.format.as_str())
            .attr("quality", s.quality)
            .attr("progressive", s.progressive)
            .attr("optimize_size", s.optimize_size)
            .attr("chroma_downsampling", s.chroma_downsampling)
            .attr("density_unit", s.density_unit.as_str())
            .attr("x_density", s.x_density)
            .attr("y_density", s.y_density)
            .attr(
                "xmp_metadata",
                String::from_utf8_lossy(&s.xmp_metadata).into_owned(),
            )
            .build()?
            .output(0)
    }

    /// Encodes a `[height, width, channels]` uint8 image as the op's kernel does.
    pub fn encode(&self, image: &Tensor) -> Result<Tensor> {
        self.spec.encode(image)
    }
}
