//! OpDefs, shape functions and kernels of the codec ops, with TensorFlow's signatures.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrDef, AttrKind, AttrValue, Bytes, DType, Error, InferenceContext,
    Kernel, Node, OpContext, OpDef, Result, Shape,
};

use super::decode::DecodeSpec;
use super::jpeg_builders::extract_shape_tensor;
use super::jpeg_encode::{check_quality, JpegEncodeSpec};
use super::png_encode;

/// Adds a type attr with a default and allowed values.
fn type_attr(
    mut def: OpDef,
    name: &'static str,
    default: DType,
    allowed: &'static [DType],
) -> OpDef {
    def.attrs.push(AttrDef {
        name,
        kind: AttrKind::Type,
        default: Some(AttrValue::Type(default)),
        allowed: Some(allowed),
        min: None,
    });
    def
}

fn int(v: i64) -> Option<AttrValue> {
    Some(AttrValue::Int(v))
}

fn flag(v: bool) -> Option<AttrValue> {
    Some(AttrValue::Bool(v))
}

fn text(v: &str) -> Option<AttrValue> {
    Some(AttrValue::Str(v.to_string()))
}

/// `DecodeJpeg`'s and `DecodeAndCropJpeg`'s attrs.
fn jpeg_attrs(def: OpDef) -> OpDef {
    def.attr("channels", AttrKind::Int, int(0))
        .attr("ratio", AttrKind::Int, int(1))
        .attr("fancy_upscaling", AttrKind::Bool, flag(true))
        .attr("try_recover_truncated", AttrKind::Bool, flag(false))
        .attr(
            "acceptable_fraction",
            AttrKind::Float,
            Some(AttrValue::Float(1.0)),
        )
        .attr("dct_method", AttrKind::Str, text(""))
}

/// The channels dimension of a decoded image: unknown for 0.
fn channels_dim(ctx: &InferenceContext<'_>) -> Result<Option<usize>> {
    let channels: i64 = ctx.attr("channels")?;
    if channels < 0 {
        return Err(Error::invalid_argument(format!(
            "channels must be non-negative, got {channels}"
        )));
    }
    Ok((channels != 0).then_some(channels as usize))
}

/// `DecodePng`, `DecodeJpeg`, `DecodeBmp`: a scalar in, `[?, ?, channels]` out.
fn decode_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 0)?;
    let c = channels_dim(ctx)?;
    ctx.set_output(0, Shape::new(vec![None, None, c]));
    Ok(())
}

/// `DecodeImage`: unknown rank when animations expand.
fn decode_image_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 0)?;
    let c = channels_dim(ctx)?;
    if ctx.attr::<bool>("expand_animations")? {
        ctx.set_output(0, Shape::unknown());
    } else {
        ctx.set_output(0, Shape::new(vec![None, None, c]));
    }
    Ok(())
}

fn decode_gif_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 0)?;
    ctx.set_output(0, Shape::new(vec![None, None, None, Some(3)]));
    Ok(())
}

/// `DecodeAndCropJpeg`: the window's height and width when it is a constant.
fn decode_crop_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 0)?;
    let c = channels_dim(ctx)?;
    let window = ctx.with_rank(1, 1)?;
    if let Some(n) = window.dim(0) {
        if n != 4 {
            return Err(Error::invalid_argument(format!(
                "Dimension must be 4 but is {n} for 'DecodeAndCropJpeg'"
            )));
        }
    }
    let (mut h, mut w) = (None, None);
    if let Some(t) = ctx.input_const(1) {
        if let Ok(v) = t.as_slice::<i32>() {
            if v.len() == 4 && v[2] >= 0 && v[3] >= 0 {
                h = Some(v[2] as usize);
                w = Some(v[3] as usize);
            }
        }
    }
    ctx.set_output(0, Shape::new(vec![h, w, c]));
    Ok(())
}

/// `EncodePng`: the batch dimensions of an image of rank 3 or more.
fn encode_png_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    match s.dims() {
        Some(d) if d.len() < 3 => Err(Error::invalid_argument(format!(
            "Shape must be at least rank 3 but is rank {} for 'EncodePng'",
            d.len()
        ))),
        Some(d) => {
            ctx.set_output(0, Shape::new(d[..d.len() - 3].to_vec()));
            Ok(())
        }
        None => Ok(()),
    }
}

fn encode_jpeg_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 3)?;
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

fn extract_shape_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 0)?;
    ctx.set_output(0, Shape::known(&[3]));
    Ok(())
}

struct DecodeKernel(DecodeSpec);

impl Kernel for DecodeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let crop = (ctx.num_inputs() > 1).then(|| ctx.input(1).clone());
        let out = self.0.decode_tensor(ctx.input(0), crop.as_ref())?;
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

struct EncodePngKernel(i64);

impl Kernel for EncodePngKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = png_encode::encode(ctx.input(0), self.0)?;
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

struct EncodeJpegKernel(JpegEncodeSpec);

impl Kernel for EncodeJpegKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = self.0.encode(ctx.input(0))?;
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

struct EncodeJpegVariableQualityKernel;

impl Kernel for EncodeJpegVariableQualityKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let image = ctx.input(0);
        if image.rank() != 3 {
            return Err(Error::invalid_argument(format!(
                "image must be 3-dimensional{}",
                format_dims(image.shape())
            )));
        }
        let q = ctx.input(1);
        if q.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "quality must be scalar: {}",
                format_dims(q.shape())
            )));
        }
        let quality = i64::from(q.to_scalar::<i32>()?);
        check_quality(quality)?;
        let spec = JpegEncodeSpec {
            quality,
            ..JpegEncodeSpec::default()
        };
        let out = spec.encode(ctx.input(0))?;
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

struct ExtractJpegShapeKernel(DType);

impl Kernel for ExtractJpegShapeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let contents = ctx.input(0);
        if contents.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "contents must be scalar, got shape {}",
                format_dims(contents.shape())
            )));
        }
        let data: &Bytes = &contents.as_slice::<Bytes>()?[0];
        let out = extract_shape_tensor(data, self.0)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make_decode(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(DecodeKernel(DecodeSpec::from_node(node)?)))
}

fn make_encode_jpeg(node: &Node) -> Result<Box<dyn Kernel>> {
    let spec = JpegEncodeSpec {
        format: node.attr("format")?,
        quality: node.attr("quality")?,
        progressive: node.attr("progressive")?,
        optimize_size: node.attr("optimize_size")?,
        chroma_downsampling: node.attr("chroma_downsampling")?,
        density_unit: node.attr("density_unit")?,
        x_density: node.attr("x_density")?,
        y_density: node.attr("y_density")?,
        xmp_metadata: node.attr::<String>("xmp_metadata")?.into_bytes(),
    };
    spec.check()?;
    Ok(Box::new(EncodeJpegKernel(spec)))
}

const PNG_TYPES: &[DType] = &[DType::U8, DType::U16];

pub(super) fn register() {
    let contents = || ArgType::Fixed(DType::String);
    register_op(
        type_attr(
            OpDef::new("DecodePng")
                .input("contents", contents())
                .output("image", ArgType::Attr("dtype"))
                .attr("channels", AttrKind::Int, int(0)),
            "dtype",
            DType::U8,
            PNG_TYPES,
        )
        .shape_fn(decode_shape),
    );
    register_op(
        jpeg_attrs(
            OpDef::new("DecodeJpeg")
                .input("contents", contents())
                .output("image", ArgType::Fixed(DType::U8)),
        )
        .shape_fn(decode_shape),
    );
    register_op(
        jpeg_attrs(
            OpDef::new("DecodeAndCropJpeg")
                .input("contents", contents())
                .input("crop_window", ArgType::Fixed(DType::I32))
                .output("image", ArgType::Fixed(DType::U8)),
        )
        .shape_fn(decode_crop_shape),
    );
    register_op(
        OpDef::new("DecodeBmp")
            .input("contents", contents())
            .output("image", ArgType::Fixed(DType::U8))
            .attr("channels", AttrKind::Int, int(0))
            .shape_fn(decode_shape),
    );
    register_op(
        OpDef::new("DecodeGif")
            .input("contents", contents())
            .output("image", ArgType::Fixed(DType::U8))
            .shape_fn(decode_gif_shape),
    );
    register_op(
        type_attr(
            OpDef::new("DecodeImage")
                .input("contents", contents())
                .output("image", ArgType::Attr("dtype"))
                .attr("channels", AttrKind::Int, int(0)),
            "dtype",
            DType::U8,
            &[DType::U8, DType::U16, DType::F32],
        )
        .attr("expand_animations", AttrKind::Bool, flag(true))
        .shape_fn(decode_image_shape),
    );
    for op in [
        "DecodePng",
        "DecodeJpeg",
        "DecodeAndCropJpeg",
        "DecodeBmp",
        "DecodeGif",
        "DecodeImage",
    ] {
        register_kernel(op, make_decode);
    }
    register_op(
        type_attr(
            OpDef::new("ExtractJpegShape")
                .input("contents", contents())
                .output("image_shape", ArgType::Attr("output_type")),
            "output_type",
            DType::I32,
            &[DType::I32, DType::I64],
        )
        .shape_fn(extract_shape_shape),
    );
    register_kernel("ExtractJpegShape", |node| {
        Ok(Box::new(ExtractJpegShapeKernel(node.attr("output_type")?)))
    });
    register_op(
        type_attr(
            OpDef::new("EncodePng")
                .input("image", ArgType::Attr("T"))
                .output("contents", ArgType::Fixed(DType::String))
                .attr("compression", AttrKind::Int, int(-1)),
            "T",
            DType::U8,
            PNG_TYPES,
        )
        .shape_fn(encode_png_shape),
    );
    register_kernel("EncodePng", |node| {
        let compression: i64 = node.attr("compression")?;
        png_encode::check_compression(compression)?;
        Ok(Box::new(EncodePngKernel(compression)))
    });
    register_op(
        OpDef::new("EncodeJpeg")
            .input("image", ArgType::Fixed(DType::U8))
            .output("contents", ArgType::Fixed(DType::String))
            .attr("format", AttrKind::Str, text(""))
            .attr("quality", AttrKind::Int, int(95))
            .attr("progressive", AttrKind::Bool, flag(false))
            .attr("optimize_size", AttrKind::Bool, flag(false))
            .attr("chroma_downsampling", AttrKind::Bool, flag(true))
            .attr("density_unit", AttrKind::Str, text("in"))
            .attr("x_density", AttrKind::Int, int(300))
            .attr("y_density", AttrKind::Int, int(300))
            .attr("xmp_metadata", AttrKind::Str, text(""))
            .shape_fn(encode_jpeg_shape),
    );
    register_kernel("EncodeJpeg", make_encode_jpeg);
    register_op(
        OpDef::new("EncodeJpegVariableQuality")
            .input("images", ArgType::Fixed(DType::U8))
            .input("quality", ArgType::Fixed(DType::I32))
            .output("contents", ArgType::Fixed(DType::String))
            .shape_fn(encode_jpeg_shape),
    );
    register_kernel("EncodeJpegVariableQuality", |_| {
        Ok(Box::new(EncodeJpegVariableQualityKernel))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use weir_graph::Tensor;

    #[test]
    fn encode_png_output_is_the_batch_shape() {
        let images = Tensor::from_vec(&[2, 1, 1, 1], vec![0u8, 255]).unwrap();
        let out = png_encode::encode(&images, -1).unwrap();
        assert_eq!(out.shape(), &[2]);
    }
}
