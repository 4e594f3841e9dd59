//! `DecodeRaw` and `DecodePaddedRaw`: `tf.io.decode_raw`, bytes reinterpreted as numbers of
//! any of TensorFlow's out_types (the half and complex types included).

use std::sync::Arc;

use bytes::Bytes;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Dim, Error, InferenceContext, Kernel,
    LeBytes, Node, OpContext, OpDef, Output, OutputScale, Result, Shape, Tensor, TensorType,
};

use crate::util::vectorized;

use crate::stream_store;

/// `DecodeRaw`'s out_types, in the order of TensorFlow's op registration (its error message
/// lists them so).
const RAW_TYPES: &[DType] = &[
    DType::F16,
    DType::F32,
    DType::F64,
    DType::I32,
    DType::U16,
    DType::U8,
    DType::I16,
    DType::I8,
    DType::I64,
    DType::C64,
    DType::C128,
    DType::Bool,
    DType::BF16,
];

/// `DecodePaddedRaw`'s out_types: TensorFlow's registration takes neither complex nor bool.
const PADDED_TYPES: &[DType] = &[
    DType::F16,
    DType::F32,
    DType::F64,
    DType::I32,
    DType::U16,
    DType::U8,
    DType::I16,
    DType::I8,
    DType::I64,
    DType::BF16,
];

/// `tf.io.decode_raw(input_bytes, out_type)`: each string's bytes as little-endian values of
/// `out_type`; the output has shape `input.shape + [len / size]`.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::array::constant;
/// let g = Graph::new();
/// let raw = constant(&g, vec![weir_graph::Bytes::from_static(&[1, 2, 3, 4])])?;
/// let v = weir_ops::parsing::decode_raw(&raw, DType::I16)?;
/// assert_eq!(v.shape().to_string(), "[1,?]");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn decode_raw(bytes: impl Into<Output>, out_type: DType) -> Result<Output> {
    DecodeRaw::new(out_type).build(bytes)
}

/// The options of `tf.io.decode_raw(input_bytes, out_type, little_endian=True,
/// fixed_length=None)`.
#[derive(Clone, Debug)]
pub struct DecodeRaw {
    out_type: DType,
    little_endian: bool,
    fixed_length: Option<i32>,
    name: Option<String>,
}

impl DecodeRaw {
    /// Decoding to `out_type`, little-endian, strings of one common length.
    pub fn new(out_type: DType) -> DecodeRaw {
        DecodeRaw {
            out_type,
            little_endian: true,
            fixed_length: None,
            name: None,
        }
    }

    /// Whether the bytes are little-endian (the default); big-endian values are byte-swapped.
    pub fn little_endian(mut self, le: bool) -> DecodeRaw {
        self.little_endian = le;
        self
    }

    /// Zero-pads or truncates every string to `len` bytes first (`DecodePaddedRaw`).
    pub fn fixed_length(mut self, len: i32) -> DecodeRaw {
        self.fixed_length = Some(len);
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> DecodeRaw {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node.
    pub fn build(self, bytes: impl Into<Output>) -> Result<Output> {
        let bytes = bytes.into();
        let allowed = match self.fixed_length {
            None => RAW_TYPES,
            Some(_) => PADDED_TYPES,
        };
        if !allowed.contains(&self.out_type) {
            // The op def would reject it too, but only after the fixed_length constant is added.
            let names: Vec<&str> = allowed.iter().map(|d| d.name()).collect();
            return Err(Error::invalid_argument(format!(
                "Value for attr 'out_type' of {} is not in the list of allowed values: {}",
                self.out_type,
                names.join(", ")
            )));
        }
        let g = bytes.graph().clone();
        let op = match self.fixed_length {
            None => crate::new_op(&g, "DecodeRaw").input(&bytes),
            Some(len) => {
                let len = crate::array::constant(&g, len)?;
                crate::new_op(&g, "DecodePaddedRaw")
                    .input(&bytes)
                    .input(len)
            }
        };
        op.maybe_name(self.name.as_deref())
            .attr("out_type", self.out_type)
            .attr("little_endian", self.little_endian)
            .build()?
            .output(0)
    }
}

fn raw_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s.with_leading_dims_then(None));
    Ok(())
}

fn padded_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let out_type: DType = ctx.attr("out_type")?;
    let size = out_type.size_of().unwrap_or(1);
    let width: Dim = match ctx.input_const(1) {
        Some(t) => {
            let len = t.to_scalar::<i32>()?;
            if len < 0 || len as usize % size != 0 {
                return Err(Error::invalid_argument(format!(
                    "Dimension size must be evenly divisible by {size} but is {len}"
                )));
            }
            Some(len as usize / size)
        }
        None => None,
    };
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s.with_leading_dims_then(width));
    Ok(())
}

trait ShapeExt {
    fn with_leading_dims_then(&self, last: Dim) -> Shape;
}

impl ShapeExt for Shape {
    /// This shape with one more trailing dimension.
    fn with_leading_dims_then(&self, last: Dim) -> Shape {
        match self.dims() {
            Some(d) => {
                let mut v = d.to_vec();
                v.push(last);
                Shape::new(v)
            }
            None => Shape::unknown(),
        }
    }
}

/// One value of `T` from its `T::SIZE` bytes: little-endian, or big-endian with the bytes of
/// each component reversed (a complex's real and imaginary parts are swapped separately, and
/// stay in that order, as TensorFlow's kernel does).
#[inline]
fn read<T: LeBytes>(b: &[u8], little: bool, component: usize) -> T {
    if little {
        return T::get(b);
    }
    let mut buf = [0u8; 16];
    let buf = &mut buf[..T::SIZE];
    buf.copy_from_slice(b);
    for c in buf.chunks_exact_mut(component) {
        c.reverse();
    }
    T::get(buf)
}

/// The bytes of one component of a `dtype` value: half a complex, all of anything else.
fn component_size(dtype: DType) -> usize {
    let size = dtype.size_of().unwrap_or(1);
    if dtype.is_complex() {
        size / 2
    } else {
        size
    }
}

/// Decodes equal-length strings: TensorFlow's `DecodeRaw` kernel.
fn decode_equal<T: LeBytes>(input: &Tensor, little: bool, out_type: DType) -> Result<Tensor> {
    let component = component_size(out_type);
    decode_equal_with(input, out_type, T::SIZE, |out: &mut Vec<T>, s| {
        out.extend(
            s.chunks_exact(T::SIZE)
                .map(|c| read::<T>(c, little, component)),
        )
    })
}

/// [`decode_equal`] of uint8 bytes straight to float32, as a Cast of them would convert them,
/// then `scale`d as the fused op would.
fn decode_u8_as_f32(input: &Tensor, scale: Option<OutputScale>) -> Result<Tensor> {
    let total: usize = input.as_slice::<Bytes>()?.iter().map(|s| s.len()).sum();
    if total * 4 >= stream_store::STREAM_MIN_BYTES {
        let t = decode_equal_with(input, DType::U8, 1, |out: &mut Vec<f32>, s| {
            stream_store::extend_u8_as_f32(out, s, scale)
        });
        stream_store::fence();
        return t;
    }
    decode_equal_with(input, DType::U8, 1, |out: &mut Vec<f32>, s| match scale {
        None => vectorized(|| out.extend(s.iter().map(|&b| f32::from(b)))),
        Some(OutputScale::Mul(c)) => vectorized(|| out.extend(s.iter().map(|&b| f32::from(b) * c))),
        Some(OutputScale::Div(c)) => vectorized(|| out.extend(s.iter().map(|&b| f32::from(b) / c))),
    })
}

/// Checks that every string of `input` has one length, a multiple of `size` (the bytes of an
/// `out_type` value), and decodes each with `fill`.
fn decode_equal_with<U: TensorType>(
    input: &Tensor,
    out_type: DType,
    elem: usize,
    fill: impl Fn(&mut Vec<U>, &[u8]),
) -> Result<Tensor> {
    let strs = input.as_slice::<Bytes>()?;
    let mut size: Option<usize> = None;
    for (i, s) in strs.iter().enumerate() {
        match size {
            None => size = Some(s.len()),
            Some(n) if n != s.len() => {
                return Err(Error::invalid_argument(format!(
                    "DecodeRaw requires input strings to all be the same size, but element {i} has size {n} != {}",
                    s.len()
                )))
            }
            Some(_) => {}
        }
    }
    let mut shape = input.shape().to_vec();
    let size = size.unwrap_or(0);
    if size == 0 {
        shape.push(0);
        return Tensor::from_vec::<U>(&shape, Vec::new());
    }
    if size % elem != 0 {
        return Err(Error::invalid_argument(format!(
            "Input to DecodeRaw has length {size} that is not a multiple of {elem}, the size of {out_type}"
        )));
    }
    let width = size / elem;
    shape.push(width);
    let mut out = Vec::with_capacity(strs.len() * width);
    for s in strs {
        fill(&mut out, s);
    }
    Tensor::from_vec(&shape, out)
}

/// Decodes strings padded or truncated to `len` bytes: TensorFlow's `DecodePaddedRaw` kernel.
fn decode_padded<T: LeBytes>(
    input: &Tensor,
    len: i32,
    little: bool,
    out_type: DType,
) -> Result<Tensor> {
    let component = component_size(out_type);
    if len < 0 || len as usize % T::SIZE != 0 {
        return Err(Error::invalid_argument(format!(
            "fixed_length ({len}) must be a multiple of the size of out_type ({})",
            T::SIZE
        )));
    }
    if len == 0 {
        return Err(Error::invalid_argument(format!(
            "fixed_length ({len}) must be greater than zero."
        )));
    }
    let len = len as usize;
    let strs = input.as_slice::<Bytes>()?;
    let width = len / T::SIZE;
    let mut shape = input.shape().to_vec();
    shape.push(width);
    let mut out = Vec::with_capacity(strs.len() * width);
    let mut padded = vec![0u8; len];
    for s in strs {
        let src: &[u8] = if s.len() >= len {
            &s[..len]
        } else {
            padded[..s.len()].copy_from_slice(s);
            padded[s.len()..].fill(0);
            &padded
        };
        out.extend(
            src.chunks_exact(T::SIZE)
                .map(|c| read::<T>(c, little, component)),
        );
    }
    Tensor::from_vec(&shape, out)
}

/// Decodes string `input` (any shape) to `out_type` values: the computation of the
/// `DecodeRaw` kernel (and, with `fixed_length`, of `DecodePaddedRaw`), usable without a graph.
///
/// ```
/// use weir_graph::{Bytes, DType, Tensor};
/// let t = Tensor::from(vec![Bytes::from_static(&[1, 2, 3, 4])]);
/// let v = weir_ops::parsing::decode_raw_tensor(&t, DType::I16, false, None)?;
/// assert_eq!(v.to_vec::<i16>()?, vec![258, 772]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn decode_raw_tensor(
    input: &Tensor,
    out_type: DType,
    little_endian: bool,
    fixed_length: Option<i32>,
) -> Result<Tensor> {
    let allowed = match fixed_length {
        None => RAW_TYPES,
        Some(_) => PADDED_TYPES,
    };
    if !allowed.contains(&out_type) {
        return Err(Error::invalid_argument(format!(
            "DecodeRaw does not support out_type {out_type}"
        )));
    }
    weir_graph::match_le_dtype!(out_type, T => match fixed_length {
        None => decode_equal::<T>(input, little_endian, out_type),
        Some(len) => decode_padded::<T>(input, len, little_endian, out_type),
    }, _ => Err(Error::invalid_argument(format!(
        "DecodeRaw does not support out_type {out_type}"
    ))))
}

#[derive(Clone)]
struct DecodeRawKernel {
    out_type: DType,
    little_endian: bool,
    padded: bool,
    /// Set by a run plan whose Cast of uint8 bytes to float32 is all that reads the output
    /// ([`Kernel::with_output_cast`]): the bytes are decoded straight to float32.
    as_f32: bool,
    /// Set with `as_f32` when a float32 Mul or RealDiv by a constant reads that Cast
    /// ([`Kernel::with_output_scaled`]).
    scale: Option<OutputScale>,
}

impl Kernel for DecodeRawKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let fixed = if self.padded {
            let l = ctx.input(1);
            if l.rank() != 0 {
                return Err(Error::invalid_argument(format!(
                    "k must be scalar, got shape {}",
                    format_dims(l.shape())
                )));
            }
            Some(l.to_scalar::<i32>()?)
        } else {
            None
        };
        let out = if self.as_f32 {
            decode_u8_as_f32(ctx.input(0), self.scale)?
        } else {
            decode_raw_tensor(ctx.input(0), self.out_type, self.little_endian, fixed)?
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn with_output_cast(&self, output: usize, dtype: DType) -> Option<Arc<dyn Kernel>> {
        if output != 0 || dtype != DType::F32 || self.out_type != DType::U8 || self.padded {
            return None;
        }
        let mut k = self.clone();
        k.as_f32 = true;
        Some(Arc::new(k))
    }

    fn with_output_scaled(&self, output: usize, scale: OutputScale) -> Option<Arc<dyn Kernel>> {
        if output != 0 || !self.as_f32 || self.scale.is_some() {
            return None;
        }
        let mut k = self.clone();
        k.scale = Some(scale);
        Some(Arc::new(k))
    }
}

/// The out_types TensorFlow registers a `DecodePaddedRaw` CPU kernel for, in the order its
/// error lists them: its op def allows float16, but no kernel takes it.
const PADDED_KERNELS: &[DType] = &[
    DType::BF16,
    DType::I64,
    DType::I8,
    DType::I16,
    DType::U8,
    DType::U16,
    DType::I32,
    DType::F64,
    DType::F32,
];

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let out_type: DType = node.attr("out_type")?;
    let little_endian: bool = node.attr("little_endian")?;
    let padded = node.op_type() == "DecodePaddedRaw";
    if padded && !PADDED_KERNELS.contains(&out_type) {
        let list: Vec<String> = PADDED_KERNELS
            .iter()
            .map(|k| format!("  device='CPU'; out_type in [{}]", k.proto_name()))
            .collect();
        return Err(Error::invalid_argument(format!(
            "No OpKernel was registered to support Op 'DecodePaddedRaw' used by {{{{node {}}}}} with these attrs: [little_endian={little_endian}, out_type={}]\nRegistered devices: [CPU]\nRegistered kernels:\n{}\n",
            node.name(),
            out_type.proto_name(),
            list.join("\n")
        )));
    }
    Ok(Box::new(DecodeRawKernel {
        out_type,
        little_endian,
        padded,
        as_f32: false,
        scale: None,
    }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("DecodeRaw")
            .input("bytes", ArgType::Fixed(DType::String))
            .output("output", ArgType::Attr("out_type"))
            .type_attr("out_type", RAW_TYPES)
            .attr("little_endian", AttrKind::Bool, Some(AttrValue::Bool(true)))
            .shape_fn(raw_shape),
    );
    register_kernel("DecodeRaw", make);
    register_op(
        OpDef::new("DecodePaddedRaw")
            .input("input_bytes", ArgType::Fixed(DType::String))
            .input("fixed_length", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Attr("out_type"))
            .type_attr("out_type", PADDED_TYPES)
            .attr("little_endian", AttrKind::Bool, Some(AttrValue::Bool(true)))
            .shape_fn(padded_shape),
    );
    register_kernel("DecodePaddedRaw", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: &[&[u8]]) -> Tensor {
        Tensor::from_byte_strings(v)
    }

    #[test]
    fn byte_orders_and_shapes() {
        let le = decode_raw_tensor(&t(&[&[1, 2, 3, 4]]), DType::I16, true, None).unwrap();
        assert_eq!(le.shape(), &[1, 2]);
        assert_eq!(le.to_vec::<i16>().unwrap(), vec![513, 1027]);
        let be = decode_raw_tensor(&t(&[&[1, 2, 3, 4]]), DType::I16, false, None).unwrap();
        assert_eq!(be.to_vec::<i16>().unwrap(), vec![258, 772]);
        let s = decode_raw_tensor(
            &Tensor::scalar(Bytes::from_static(b"ab")),
            DType::U8,
            true,
            None,
        )
        .unwrap();
        assert_eq!(s.shape(), &[2]);
        let empty = decode_raw_tensor(&t(&[]), DType::I32, true, None).unwrap();
        assert_eq!(empty.shape(), &[0, 0]);
        let b = decode_raw_tensor(&t(&[&[0, 1, 2]]), DType::Bool, true, None).unwrap();
        assert_eq!(b.to_vec::<bool>().unwrap(), vec![false, true, true]);
    }

    #[test]
    fn length_errors_use_tensorflow_wording() {
        let e = decode_raw_tensor(&t(&[&[1, 2, 3]]), DType::I32, true, None).unwrap_err();
        assert_eq!(
            e.message(),
            "Input to DecodeRaw has length 3 that is not a multiple of 4, the size of int32"
        );
        let e =
            decode_raw_tensor(&t(&[&[1, 2], &[1, 2, 3, 4]]), DType::I16, true, None).unwrap_err();
        assert_eq!(e.message(), "DecodeRaw requires input strings to all be the same size, but element 1 has size 2 != 4");
    }

    /// A batch large enough to be streamed decodes to the values a small one gets, row by row.
    #[test]
    fn a_streamed_batch_matches_rows_decoded_alone() {
        let rows: Vec<Vec<u8>> = (0..128u32)
            .map(|r| {
                (0..784u32)
                    .map(|i| ((r * 131 + i * 7) % 256) as u8)
                    .collect()
            })
            .collect();
        let refs: Vec<&[u8]> = rows.iter().map(Vec::as_slice).collect();
        const { assert!(128 * 784 * 4 >= stream_store::STREAM_MIN_BYTES) };
        for scale in [
            None,
            Some(OutputScale::Mul(1.0 / 255.0)),
            Some(OutputScale::Div(255.0)),
        ] {
            let batch = decode_u8_as_f32(&t(&refs), scale).unwrap();
            assert_eq!(batch.shape(), &[128, 784]);
            let got = batch.to_vec::<f32>().unwrap();
            for (r, row) in refs.iter().enumerate() {
                let alone = decode_u8_as_f32(&t(&[row]), scale).unwrap();
                assert_eq!(
                    &got[r * 784..(r + 1) * 784],
                    &alone.to_vec::<f32>().unwrap()[..]
                );
            }
        }
    }

    #[test]
    fn padded_pads_and_truncates() {
        let v = decode_raw_tensor(&t(&[b"abcdef", b"x"]), DType::U8, true, Some(3)).unwrap();
        assert_eq!(v.to_vec::<u8>().unwrap(), b"abcx\0\0".to_vec());
        assert!(decode_raw_tensor(&t(&[b"ab"]), DType::I32, true, Some(6)).is_err());
        assert!(decode_raw_tensor(&t(&[b"ab"]), DType::I32, true, Some(0)).is_err());
    }
}
