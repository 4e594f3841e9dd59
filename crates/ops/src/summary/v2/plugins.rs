//! `tf.summary.histogram`, `tf.summary.image` and `tf.summary.audio` as TensorBoard 2.21
//! builds them in graph mode: the data is turned into the tensor TensorBoard's plugin reads
//! (histogram buckets, PNG strings, WAV strings) by ordinary ops inside the write's scope,
//! then written with `WriteSummary` and the plugin's metadata.

use weir_graph::{DType, Error, Graph, Output, Result, Tensor};

use super::write::{plugin_metadata, summary_tag, write_op, written};
use super::writer::Step;
use crate::array::{
    concat, constant, fill, reshape, shape, size, stack, stop_gradient, strided_slice_items, tile,
    transpose, zeros, OneHot, SliceItem,
};
use crate::math::{
    cast, div, equal, floor, less_equal, logical_or, minimum, mul, reduce_max, reduce_min,
    reduce_sum, select, sub, Axes,
};

/// `[begin:end]` on the first axis.
fn range(begin: Option<i64>, end: Option<i64>) -> SliceItem {
    SliceItem::Range {
        begin,
        end,
        step: 1,
    }
}

/// TensorBoard's `_buckets`: a `[k, 3]` float64 tensor of (left edge, right edge, count)
/// rows for `k = max(0, bucket_count)` equal-width buckets spanning the data; all zeros for
/// empty data, and every edge at the value (its count in the last bucket) when the data holds
/// one value. TensorBoard picks the case with `tf.cond`; weir computes the three and selects.
fn buckets(data: Output, bucket_count: i64) -> Result<Output> {
    let g = data.graph().clone();
    let _scope = g.name_scope("buckets");
    let k = bucket_count.max(0);
    if k == 0 {
        return zeros(&g, DType::F64, &[0, 3]);
    }
    let flat = cast(reshape(data, vec![-1i64])?, DType::F64)?;
    let n = size(&flat)?;
    let empty = equal(&n, constant(&g, 0i32)?)?;
    let min = reduce_min(&flat, Axes::All)?;
    let max = reduce_max(&flat, Axes::All)?;
    let span = sub(&max, &min)?;

    // Several values: equal widths, the maximum counted in the last bucket.
    let width = div(&span, constant(&g, k as f64)?)?;
    let index = cast(floor(div(sub(&flat, &min)?, &width)?)?, DType::I32)?;
    let clamped = minimum(index, constant(&g, (k - 1) as i32)?)?;
    let one_hots = OneHot::new(k).dtype(DType::F64).build(clamped)?;
    let counts = reduce_sum(one_hots, 0i64)?;
    let edges = crate::array::lin_space(&min, &max, constant(&g, (k + 1) as i32)?)?;
    let left = strided_slice_items(&edges, &[range(None, Some(-1))])?;
    let inner = strided_slice_items(&edges, &[range(Some(1), Some(-1))])?;
    let right = concat(&[inner, reshape(&max, vec![1i64])?], 0)?;
    let several = transpose(stack(&[left, right, counts], 0)?, vec![1i64, 0])?;

    // One value: every edge at it, its count in the last bucket.
    let edges = fill(vec![k], &max)?;
    let last = reshape(cast(&n, DType::F64)?, vec![1i64])?;
    let counts = concat(&[zeros(&g, DType::F64, &[(k - 1) as usize])?, last], 0)?;
    let single = transpose(stack(&[edges.clone(), edges, counts], 0)?, vec![1i64, 0])?;

    let one_value = equal(&span, constant(&g, 0.0f64)?)?;
    let nonempty = select(one_value, single, several)?;
    let is_empty = logical_or(
        empty,
        less_equal(constant(&g, k as i32)?, constant(&g, 0i32)?)?,
    )?;
    select(is_empty, zeros(&g, DType::F64, &[k as usize, 3])?, nonempty)
}

/// `tf.summary.histogram(name, data, step=None, buckets=None, description=None)`: writes the
/// `[buckets, 3]` float64 tensor of TensorBoard's histogram plugin (30 buckets by default)
/// for the real `data` (any shape), through `WriteSummary`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::summary::v2;
/// let g = Graph::new();
/// let writer = v2::create_file_writer(&g, "/tmp/logs")?;
/// let _default = writer.as_default(Some(1.into()));
/// let w = weir_ops::array::constant(&g, Tensor::from(vec![0.5f32, 1.5, 1.5]))?;
/// let ok = v2::histogram("weights", &w, None, Some(10), None)?;
/// assert_eq!(ok.name(), "weights/write_summary/Const:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn histogram(
    name: &str,
    data: impl Into<Output>,
    step: Option<Step>,
    buckets_count: Option<i64>,
    description: Option<&str>,
) -> Result<Output> {
    let data = stop_gradient(data.into())?;
    let g = data.graph().clone();
    let tag = summary_tag(&g, name);
    let _scope = g.name_scope(name);
    let metadata = plugin_metadata("histograms", description);
    written(&g, None, "write_summary", step, |writer, step, scope| {
        let tensor = buckets(data, buckets_count.unwrap_or(30))?;
        write_op(&g, writer, step, tensor, &tag, Some(&metadata), scope)
    })
}

/// `tf.image.convert_image_dtype(data, tf.uint8, saturate=True)`: uint8 as is, floats scaled
/// by 255.5, clipped to [0, 255] and truncated.
fn to_uint8(g: &Graph, data: Output) -> Result<Output> {
    let scale = match data.dtype() {
        DType::U8 => return Ok(data),
        DType::F32 => constant(g, 255.5f32)?,
        DType::F64 => constant(g, 255.5f64)?,
        DType::F16 => constant(g, Tensor::scalar(weir_graph::f16::from_f32(255.5)))?,
        dt => {
            return Err(Error::unimplemented(format!(
                "weir's tf.summary.image takes uint8 or float images, not {dt}"
            )))
        }
    };
    let _scope = g.name_scope("convert_image");
    let scaled = mul(data, &scale)?;
    let (lo, hi) = match scaled.dtype() {
        DType::F32 => (constant(g, 0.0f32)?, constant(g, 255.0f32)?),
        DType::F64 => (constant(g, 0.0f64)?, constant(g, 255.0f64)?),
        _ => (
            constant(g, Tensor::scalar(weir_graph::f16::from_f32(0.0)))?,
            constant(g, Tensor::scalar(weir_graph::f16::from_f32(255.0)))?,
        ),
    };
    cast(crate::math::clip_by_value_op(scaled, lo, hi)?, DType::U8)
}

/// `tf.summary.image(name, data, step=None, max_outputs=3, description=None)`: writes the
/// string vector TensorBoard's image plugin reads, `[width, height, png...]`, for the first
/// `max_outputs` images of the `[k, h, w, c]` uint8 or float `data` (floats in [0, 1]).
pub fn image(
    name: &str,
    data: impl Into<Output>,
    step: Option<Step>,
    max_outputs: i64,
    description: Option<&str>,
) -> Result<Output> {
    let data = data.into();
    let g = data.graph().clone();
    let tag = summary_tag(&g, name);
    let _scope = g.name_scope(name);
    let metadata = plugin_metadata("images", description);
    written(&g, None, "write_summary", step, |writer, step, scope| {
        if let Some(r) = data.shape().rank().filter(|&r| r != 4) {
            return Err(Error::invalid_argument(format!(
                "Tensor {} must have rank 4.  Received rank {r}, shape {}",
                data.name(),
                data.shape().python_str()
            )));
        }
        if max_outputs < 0 {
            return Err(Error::invalid_argument(format!(
                "max_outputs must be non-negative, got {max_outputs}"
            )));
        }
        let images = to_uint8(&g, data)?;
        let limited = strided_slice_items(&images, &[range(None, Some(max_outputs))])?;
        let pngs = crate::image::encode_png(limited)?;
        let dims = shape(&images)?;
        let width = crate::string::as_string(strided_slice_items(&dims, &[SliceItem::Index(2)])?)?;
        let height = crate::string::as_string(strided_slice_items(&dims, &[SliceItem::Index(1)])?)?;
        let tensor = concat(&[stack(&[width, height], 0)?, pngs], 0)?;
        write_op(&g, writer, step, tensor, &tag, Some(&metadata), scope)
    })
}

/// `tf.summary.audio(name, data, sample_rate, step=None, max_outputs=3, encoding=None,
/// description=None)`: writes the `[k, 2]` string tensor TensorBoard's audio plugin reads
/// (a WAV file and an empty label per clip) for the first `max_outputs` clips of the float32
/// `[k, frames, channels]` `data`. TensorBoard maps `encode_wav` over the clips; weir needs
/// the clip count known when building, and encodes each.
pub fn audio(
    name: &str,
    data: impl Into<Output>,
    sample_rate: i32,
    step: Option<Step>,
    max_outputs: i64,
    description: Option<&str>,
) -> Result<Output> {
    let data = data.into();
    let g = data.graph().clone();
    let tag = summary_tag(&g, name);
    let _scope = g.name_scope(name);
    // AudioPluginData { version: 0, encoding: WAV (11) }.
    let mut metadata = plugin_metadata("audio", description);
    if let Some(p) = metadata.plugin_data.as_mut() {
        p.content = bytes::Bytes::from_static(&[0x10, 0x0b]);
    }
    written(&g, None, "write_summary", step, |writer, step, scope| {
        let dims = data
            .shape()
            .to_known()
            .filter(|d| d.len() == 3)
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                "tf.summary.audio needs a float32 [k, frames, channels] tensor of known shape, \
                 got {}",
                data.shape().python_str()
            ))
            })?;
        if max_outputs < 0 {
            return Err(Error::invalid_argument(format!(
                "max_outputs must be non-negative, got {max_outputs}"
            )));
        }
        let limited = strided_slice_items(&data, &[range(None, Some(max_outputs))])?;
        let n = dims[0].min(max_outputs as usize);
        let encoded = if n == 0 {
            constant(&g, Tensor::from_vec(&[0], Vec::<bytes::Bytes>::new())?)?
        } else {
            let _each = g.name_scope("encode_each_audio");
            let clips = crate::array::unstack(&limited, Some(n), 0)?;
            let wavs = clips
                .into_iter()
                .map(|c| crate::audio::encode_wav(c, sample_rate))
                .collect::<Result<Vec<_>>>()?;
            stack(&wavs, 0)?
        };
        let blank = constant(&g, Tensor::from_vec(&[1], vec![bytes::Bytes::new()])?)?;
        let count = strided_slice_items(shape(&limited)?, &[range(None, Some(1))])?;
        let labels = tile(blank, count)?;
        let tensor = transpose(stack(&[encoded, labels], 0)?, vec![1i64, 0])?;
        write_op(&g, writer, step, tensor, &tag, Some(&metadata), scope)
    })
}
