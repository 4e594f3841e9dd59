//! `EncodeJpeg` and `EncodeJpegVariableQuality`: TensorFlow's `jpeg::Compress` options on the
//! `jpeg-encoder` crate (baseline or progressive, 4:2:0 or 4:4:4, JFIF density, XMP in APP1).

use weir_graph::{format_dims, Error, Result, Tensor};

/// TensorFlow's `CompressFlags`, checked as `EncodeJpegOp`'s constructor checks them.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct JpegEncodeSpec {
    /// `""`, `"grayscale"` or `"rgb"`.
    pub(crate) format: String,
    pub(crate) quality: i64,
    pub(crate) progressive: bool,
    pub(crate) optimize_size: bool,
    pub(crate) chroma_downsampling: bool,
    /// `"in"` or `"cm"`.
    pub(crate) density_unit: String,
    pub(crate) x_density: i64,
    pub(crate) y_density: i64,
    pub(crate) xmp_metadata: Vec<u8>,
}

impl Default for JpegEncodeSpec {
    fn default() -> JpegEncodeSpec {
        JpegEncodeSpec {
            format: String::new(),
            quality: 95,
            progressive: false,
            optimize_size: false,
            chroma_downsampling: true,
            density_unit: "in".into(),
            x_density: 300,
            y_density: 300,
            xmp_metadata: Vec::new(),
        }
    }
}

impl JpegEncodeSpec {
    /// TensorFlow's attr checks.
    pub(crate) fn check(&self) -> Result<()> {
        if !["", "grayscale", "rgb"].contains(&self.format.as_str()) {
            return Err(Error::invalid_argument(format!(
                "format must be '', grayscale or rgb, got {}",
                self.format
            )));
        }
        check_quality(self.quality)?;
        if self.density_unit != "in" && self.density_unit != "cm" {
            return Err(Error::invalid_argument(format!(
                "density_unit must be 'in' or 'cm'{}",
                self.density_unit
            )));
        }
        Ok(())
    }

    /// Encodes a `[height, width, channels]` uint8 image to a string scalar.
    pub(crate) fn encode(&self, image: &Tensor) -> Result<Tensor> {
        self.check()?;
        let shape = image.shape();
        if shape.len() != 3 {
            return Err(Error::invalid_argument(format!(
                "image must be 3-dimensional{}",
                format_dims(shape)
            )));
        }
        if image.num_elements() >= i32::MAX as usize {
            return Err(Error::invalid_argument(
                "Cannot encode images with >= max int32 elements",
            ));
        }
        let channels = shape[2];
        match self.format.as_str() {
            "" if channels != 1 && channels != 3 => {
                return Err(Error::invalid_argument(format!(
                    "image must have 1 or 3 channels, got {}",
                    format_dims(shape)
                )))
            }
            "grayscale" | "rgb" => {
                let want = if self.format == "grayscale" { 1 } else { 3 };
                if channels != want {
                    return Err(Error::invalid_argument(format!(
                        "format {} expects {want} channels, got {}",
                        self.format,
                        format_dims(shape)
                    )));
                }
            }
            _ => {}
        }
        let bytes = self
            .compress(image.as_slice::<u8>()?, shape[1], shape[0], channels)
            .ok_or_else(|| Error::internal("JPEG encoding failed"))?;
        Ok(Tensor::scalar(bytes::Bytes::from(bytes)))
    }

    fn compress(
        &self,
        data: &[u8],
        width: usize,
        height: usize,
        channels: usize,
    ) -> Option<Vec<u8>> {
        // libjpeg's limits (JPEG_MAX_DIMENSION) and TensorFlow's size check.
        if width == 0 || height == 0 || width > 65500 || height > 65500 {
            return None;
        }
        if width * height >= 1 << 29 {
            return None;
        }
        let mut out = Vec::new();
        let quality = self.quality.clamp(1, 100) as u8;
        let mut encoder = jpeg_encoder::Encoder::new(&mut out, quality);
        let (x, y) = (self.x_density as u16, self.y_density as u16);
        encoder.set_density(if self.density_unit == "cm" {
            jpeg_encoder::Density::Centimeter { x, y }
        } else {
            jpeg_encoder::Density::Inch { x, y }
        });
        encoder.set_sampling_factor(if self.chroma_downsampling {
            jpeg_encoder::SamplingFactor::F_2_2
        } else {
            jpeg_encoder::SamplingFactor::F_1_1
        });
        encoder.set_progressive(self.progressive);
        encoder.set_optimized_huffman_tables(self.optimize_size);
        if !self.xmp_metadata.is_empty() {
            let mut packet = b"http://ns.adobe.com/xap/1.0/\0".to_vec();
            packet.extend_from_slice(&self.xmp_metadata);
            encoder.add_app_segment(1, &packet).ok()?;
        }
        let color = if channels == 1 {
            jpeg_encoder::ColorType::Luma
        } else {
            jpeg_encoder::ColorType::Rgb
        };
        encoder
            .encode(data, width as u16, height as u16, color)
            .ok()?;
        Some(out)
    }
}

/// `quality` must lie in [0, 100].
pub(crate) fn check_quality(quality: i64) -> Result<()> {
    if !(0..=100).contains(&quality) {
        return Err(Error::invalid_argument(format!(
            "quality must be in [0,100], got {quality}"
        )));
    }
    Ok(())
}
