//! The Python-like functions and option builders of the codec ops. Each builder also runs its
//! op's computation on bytes or a tensor directly (`decode`, `encode`, `extract`), without a
//! graph or session.

use weir_graph::{DType, Output, Result, Tensor};

use super::decode::{DecodeOp, DecodeSpec, JpegOptions};
use super::png_encode;

/// `tf.io.decode_png(contents)`: a `[height, width, channels]` uint8 image. See [`DecodePng`].
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::decode_png};
/// let g = Graph::new();
/// let contents = placeholder(&g, DType::String, Shape::scalar())?;
/// let image = decode_png(&contents)?;
/// assert_eq!((image.dtype(), image.shape().to_string()), (DType::U8, "[?,?,?]".into()));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn decode_png(contents: impl Into<Output>) -> Result<Output> {
    DecodePng::new().build(contents)
}

/// The options of `tf.io.decode_png(contents, channels=0, dtype=tf.uint8)` (op `DecodePng`):
/// `channels` 0 keeps the file's (a palette becomes RGB, or RGBA with transparency), 1, 3 or 4
/// converts as libpng does; `dtype` uint16 keeps 16-bit samples (8-bit ones times 257). Like
/// TensorFlow's, the op also decodes JPEG and single-frame GIF data.
///
/// ```
/// # use weir_graph::DType;
/// # use weir_ops::image::{DecodePng, EncodePng};
/// let png = EncodePng::new().encode(&weir_graph::Tensor::from_vec(&[1, 2, 1], vec![7u8, 9])?)?;
/// let rgb = DecodePng::new().channels(3).dtype(DType::U16).decode(&png.to_scalar::<weir_graph::Bytes>()?)?;
/// assert_eq!(rgb.to_vec::<u16>()?, vec![1799, 1799, 1799, 2313, 2313, 2313]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct DecodePng {
    channels: i64,
    dtype: DType,
    name: Option<String>,
}

impl Default for DecodePng {
    fn default() -> DecodePng {
        DecodePng::new()
    }
}

impl DecodePng {
    /// TensorFlow's defaults: the file's channels, uint8.
    pub fn new() -> DecodePng {
        DecodePng {
            channels: 0,
            dtype: DType::U8,
            name: None,
        }
    }

    /// The number of output channels: 0 (the file's), 1, 3 or 4.
    pub fn channels(mut self, channels: i64) -> Self {
        self.channels = channels;
        self
    }

    /// The output dtype: uint8 or uint16.
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
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
        crate::new_op(&contents.graph().clone(), "DecodePng")
            .maybe_name(self.name.as_deref())
            .input(&contents)
            .attr("channels", self.channels)
            .attr("dtype", self.dtype)
            .build()?
            .output(0)
    }

    /// Decodes one encoded image as the op's kernel does.
    pub fn decode(&self, contents: &[u8]) -> Result<Tensor> {
        let spec = DecodeSpec::new(
            DecodeOp::Png,
            self.channels,
            self.dtype,
            true,
            JpegOptions::default(),
        )?;
        spec.decode(contents, None)
    }
}

/// `tf.io.decode_bmp(contents)`: a `[height, width, channels]` uint8 image. See
/// [`DecodeBmp`].
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::decode_bmp};
/// let g = Graph::new();
/// let image = decode_bmp(&placeholder(&g, DType::String, Shape::scalar())?)?;
/// assert_eq!(image.shape().to_string(), "[?,?,?]");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn decode_bmp(contents: impl Into<Output>) -> Result<Output> {
    DecodeBmp::new().build(contents)
}

/// The options of `tf.io.decode_bmp(contents, channels=0)` (op `DecodeBmp`): uncompressed 8,
/// 24 or 32-bit BMPs (8-bit data read as gray); `channels` 0 keeps the file's, 3 or 4 converts.
///
/// ```
/// # use weir_ops::image::DecodeBmp;
/// let mut bmp = vec![0u8; 58];
/// bmp[..2].copy_from_slice(b"BM");
/// bmp[10] = 54; // pixel data offset
/// bmp[18] = 1; // width
/// bmp[22] = 1; // height
/// bmp[28] = 24; // bits per pixel
/// bmp[54..57].copy_from_slice(&[1, 2, 3]); // one BGR pixel and a padding byte
/// let rgba = DecodeBmp::new().channels(4).decode(&bmp)?;
/// assert_eq!(rgba.to_vec::<u8>()?, vec![3, 2, 1, 255]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct DecodeBmp {
    channels: i64,
    name: Option<String>,
}

impl DecodeBmp {
    /// TensorFlow's defaults: the file's channels.
    pub fn new() -> DecodeBmp {
        DecodeBmp::default()
    }

    /// The number of output channels: 0, 3 or 4.
    pub fn channels(mut self, channels: i64) -> Self {
        self.channels = channels;
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
        crate::new_op(&contents.graph().clone(), "DecodeBmp")
            .maybe_name(self.name.as_deref())
            .input(&contents)
            .attr("channels", self.channels)
            .build()?
            .output(0)
    }

    /// Decodes one encoded image as the op's kernel does.
    pub fn decode(&self, contents: &[u8]) -> Result<Tensor> {
        DecodeSpec::new(
            DecodeOp::Bmp,
            self.channels,
            DType::U8,
            true,
            JpegOptions::default(),
        )?
        .decode(contents, None)
    }
}

/// `tf.io.decode_gif(contents)` (op `DecodeGif`): every frame, `[frames, height, width, 3]`
/// uint8, composed as TensorFlow does (each frame drawn over the previous one). See
/// [`DecodeGif`].
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::decode_gif};
/// let g = Graph::new();
/// let frames = decode_gif(&placeholder(&g, DType::String, Shape::scalar())?)?;
/// assert_eq!(frames.shape().to_string(), "[?,?,?,3]");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn decode_gif(contents: impl Into<Output>) -> Result<Output> {
    DecodeGif::new().build(contents)
}

/// The options of `tf.io.decode_gif(contents, name=None)` (op `DecodeGif`): the canvas is the
/// largest frame, frames start from the previous one (the first from black) and transparent
/// pixels keep what is under them. PNG and JPEG data decode to one frame.
///
/// ```
/// # use weir_ops::image::DecodeGif;
/// let gif = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x0a\x14\x1e\x00\x00\x00\
///             \x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00\x3b";
/// let frames = DecodeGif::new().decode(gif)?;
/// assert_eq!((frames.shape(), frames.to_vec::<u8>()?), (&[1, 1, 1, 3][..], vec![10, 20, 30]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct DecodeGif {
    name: Option<String>,
}

impl DecodeGif {
    /// The op with no options but its name.
    pub fn new() -> DecodeGif {
        DecodeGif::default()
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node.
    pub fn build(self, contents: impl Into<Output>) -> Result<Output> {
        let contents = contents.into();
        crate::new_op(&contents.graph().clone(), "DecodeGif")
            .maybe_name(self.name.as_deref())
            .input(&contents)
            .build()?
            .output(0)
    }

    /// Decodes one encoded image as the op's kernel does.
    pub fn decode(&self, contents: &[u8]) -> Result<Tensor> {
        DecodeSpec::new(DecodeOp::Gif, 3, DType::U8, true, JpegOptions::default())?
            .decode(contents, None)
    }
}

/// `tf.io.decode_image(contents)`: any of JPEG, PNG, GIF and BMP by its first bytes, as uint8;
/// GIFs are 4-D. See [`DecodeImage`].
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::decode_image};
/// let g = Graph::new();
/// let image = decode_image(&placeholder(&g, DType::String, Shape::scalar())?)?;
/// assert_eq!(image.shape().rank(), None);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn decode_image(contents: impl Into<Output>) -> Result<Output> {
    DecodeImage::new().build(contents)
}

/// The options of `tf.io.decode_image(contents, channels=None, dtype=tf.uint8,
/// expand_animations=True)` (op `DecodeImage`): uint8, uint16 and float32 come from the op
/// (float32 in [0, 1]); other dtypes decode as uint16 and convert with
/// [`convert_image_dtype`](crate::image::convert_image_dtype), as TensorFlow's Python does.
/// Without `expand_animations` every result is 3-D (a GIF's first frame).
///
/// ```
/// # use weir_graph::DType;
/// # use weir_ops::image::{DecodeImage, EncodePng};
/// let png = EncodePng::new().encode(&weir_graph::Tensor::from_vec(&[1, 1, 1], vec![255u8])?)?;
/// let f = DecodeImage::new().dtype(DType::F32).decode(&png.to_scalar::<weir_graph::Bytes>()?)?;
/// assert_eq!(f.to_vec::<f32>()?, vec![1.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct DecodeImage {
    channels: i64,
    dtype: DType,
    expand_animations: bool,
    name: Option<String>,
}

impl Default for DecodeImage {
    fn default() -> DecodeImage {
        DecodeImage::new()
    }
}

impl DecodeImage {
    /// TensorFlow's defaults: the file's channels, uint8, GIF animations expanded.
    pub fn new() -> DecodeImage {
        DecodeImage {
            channels: 0,
            dtype: DType::U8,
            expand_animations: true,
            name: None,
        }
    }

    /// The number of output channels: 0 (the file's), 1, 3 or 4.
    pub fn channels(mut self, channels: i64) -> Self {
        self.channels = channels;
        self
    }

    /// The output dtype.
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// Whether a GIF gives all its frames, 4-D (the default), or only the first, 3-D.
    pub fn expand_animations(mut self, on: bool) -> Self {
        self.expand_animations = on;
        self
    }

    /// The name scope (TensorFlow's `name`, default `decode_image`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    fn decode_dtype(&self) -> DType {
        match self.dtype {
            DType::U8 | DType::U16 | DType::F32 => self.dtype,
            _ => DType::U16,
        }
    }

    /// Adds the node (in name scope `decode_image`), and a conversion for other dtypes.
    pub fn build(self, contents: impl Into<Output>) -> Result<Output> {
        let contents = contents.into();
        let g = contents.graph().clone();
        let _scope = g.name_scope(self.name.as_deref().unwrap_or("decode_image"));
        let image = crate::new_op(&g, "DecodeImage")
            .input(&contents)
            .attr("channels", self.channels)
            .attr("dtype", self.decode_dtype())
            .attr("expand_animations", self.expand_animations)
            .build()?
            .output(0)?;
        if self.decode_dtype() == self.dtype {
            Ok(image)
        } else {
            crate::image::convert_image_dtype(image, self.dtype)
        }
    }

    /// Decodes one encoded image as the op (and conversion) would.
    pub fn decode(&self, contents: &[u8]) -> Result<Tensor> {
        let spec = DecodeSpec::new(
            DecodeOp::Image,
            self.channels,
            self.decode_dtype(),
            self.expand_animations,
            JpegOptions::default(),
        )?;
        let image = spec.decode(contents, None)?;
        if self.decode_dtype() == self.dtype {
            Ok(image)
        } else {
            crate::image::convert::convert_tensor(&image, self.dtype, false)
        }
    }
}

/// `tf.io.encode_png(image)`: one PNG per `[height, width, channels]` image of a uint8 or
/// uint16 batch. See [`EncodePng`].
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::encode_png};
/// let g = Graph::new();
/// let images = placeholder(&g, DType::U16, Shape::known(&[5, 8, 8, 4]))?;
/// assert_eq!(encode_png(&images)?.shape().to_string(), "[5]");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn encode_png(image: impl Into<Output>) -> Result<Output> {
    EncodePng::new().build(image)
}

/// The options of `tf.io.encode_png(image, compression=-1)` (op `EncodePng`): zlib level 0 to
/// 9, -1 for zlib's default (6). The `png` crate writes the file with adaptive filtering.
///
/// ```
/// # use weir_ops::image::{DecodePng, EncodePng};
/// let image = weir_graph::Tensor::from_vec(&[2, 1, 2], vec![1u16, 2, 65535, 0])?;
/// let png = EncodePng::new().compression(9).encode(&image)?;
/// let back = DecodePng::new().dtype(weir_graph::DType::U16).decode(&png.to_scalar::<weir_graph::Bytes>()?)?;
/// assert_eq!(back.to_vec::<u16>()?, vec![1, 2, 65535, 0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct EncodePng {
    compression: i64,
    name: Option<String>,
}

impl Default for EncodePng {
    fn default() -> EncodePng {
        EncodePng::new()
    }
}

impl EncodePng {
    /// TensorFlow's default: compression -1.
    pub fn new() -> EncodePng {
        EncodePng {
            compression: -1,
            name: None,
        }
    }

    /// The zlib level, -1 to 9.
    pub fn compression(mut self, level: i64) -> Self {
        self.compression = level;
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
        crate::new_op(&image.graph().clone(), "EncodePng")
            .maybe_name(self.name.as_deref())
            .input(&image)
            .attr("compression", self.compression)
            .build()?
            .output(0)
    }

    /// Encodes `image` as the op's kernel does: a string tensor of its batch dimensions.
    pub fn encode(&self, image: &Tensor) -> Result<Tensor> {
        png_encode::encode(image, self.compression)
    }
}
