//! The three feature element types (int64, float, bytes) as one generic [`Value`], so each
//! parse path is written once, and [`Ragged`], the per-example lists of a sparse or sequence
//! feature.

use bytes::Bytes;
use weir_graph::{DType, Result, SparseTensor, Tensor, TensorType};

use crate::parsing::wire::{bytes_list, float_list, int64_list, Kind, Reader, Sink};

/// The element types of features, with their list decoders and names in messages.
pub(crate) trait Value: TensorType + Clone {
    const KIND: Kind;
    /// The word in "Number of int64 values != expected".
    const SHORT: &'static str;
    /// The list name in "Some int64_list slice was not parsed.".
    const LIST: &'static str;
    fn parse_list(base: &Bytes, s: usize, e: usize, sink: &mut impl Sink<Self>) -> bool;
    /// One number in its list encoding (fixed32 for float, varint for int64); `None` for bytes.
    fn read_number(r: &mut Reader<'_>) -> Option<Self>;
    /// A bytes value from `base[s..e]`; `None` for numbers.
    fn from_slice(base: &Bytes, s: usize, e: usize) -> Option<Self>;
}

impl Value for i64 {
    const KIND: Kind = Kind::Int64;
    const SHORT: &'static str = "int64";
    const LIST: &'static str = "int64_list";
    #[inline]
    fn parse_list(base: &Bytes, s: usize, e: usize, sink: &mut impl Sink<i64>) -> bool {
        int64_list(base, s, e, sink)
    }
    #[inline]
    fn read_number(r: &mut Reader<'_>) -> Option<i64> {
        r.read_varint64().map(|v| v as i64)
    }
    fn from_slice(_: &Bytes, _: usize, _: usize) -> Option<i64> {
        None
    }
}

impl Value for f32 {
    const KIND: Kind = Kind::Float;
    const SHORT: &'static str = "float";
    const LIST: &'static str = "float_list";
    #[inline]
    fn parse_list(base: &Bytes, s: usize, e: usize, sink: &mut impl Sink<f32>) -> bool {
        float_list(base, s, e, sink)
    }
    #[inline]
    fn read_number(r: &mut Reader<'_>) -> Option<f32> {
        r.read_le32().map(f32::from_bits)
    }
    fn from_slice(_: &Bytes, _: usize, _: usize) -> Option<f32> {
        None
    }
}

impl Value for Bytes {
    const KIND: Kind = Kind::Bytes;
    const SHORT: &'static str = "bytes";
    const LIST: &'static str = "bytes_list";
    #[inline]
    fn parse_list(base: &Bytes, s: usize, e: usize, sink: &mut impl Sink<Bytes>) -> bool {
        bytes_list(base, s, e, sink)
    }
    fn read_number(_: &mut Reader<'_>) -> Option<Bytes> {
        None
    }
    #[inline]
    fn from_slice(base: &Bytes, s: usize, e: usize) -> Option<Bytes> {
        Some(base.slice(s..e))
    }
}

pub(crate) fn kind_of(dtype: DType) -> Kind {
    match dtype {
        DType::I64 => Kind::Int64,
        DType::F32 => Kind::Float,
        _ => Kind::Bytes,
    }
}

/// TensorFlow's `DataTypeString` of a feature kind.
pub(crate) fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Int64 => "int64",
        Kind::Float => "float",
        Kind::Bytes => "string",
        Kind::None => "invalid",
    }
}

/// Runs `$body` with `$T` bound to the element type of feature dtype `$dtype`.
macro_rules! with_value_type {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            weir_graph::DType::I64 => {
                type $T = i64;
                $body
            }
            weir_graph::DType::F32 => {
                type $T = f32;
                $body
            }
            _ => {
                type $T = bytes::Bytes;
                $body
            }
        }
    };
}
pub(crate) use with_value_type;

/// Values of one sparse or sequence feature across a batch, with each example's end offset.
pub(crate) struct Ragged<T> {
    pub(crate) values: Vec<T>,
    pub(crate) ends: Vec<usize>,
}

impl<T: Value> Ragged<T> {
    pub(crate) fn new(batch: usize) -> Ragged<T> {
        Ragged {
            values: Vec::new(),
            ends: Vec::with_capacity(batch),
        }
    }

    fn max_len(&self) -> usize {
        let mut prev = 0;
        let mut max = 0;
        for &e in &self.ends {
            max = max.max(e - prev);
            prev = e;
        }
        max
    }

    /// The sparse tensor `[[b, i]...]` of a batch (or `[[i]...]` of a single example).
    pub(crate) fn into_sparse(self, batch: Option<usize>) -> Result<SparseTensor> {
        let n = self.values.len();
        let max = self.max_len();
        let (indices, shape) = match batch {
            Some(b) => {
                let mut ix = Vec::with_capacity(n * 2);
                let mut prev = 0;
                for (row, &e) in self.ends.iter().enumerate() {
                    for i in 0..e - prev {
                        ix.push(row as i64);
                        ix.push(i as i64);
                    }
                    prev = e;
                }
                (Tensor::from_vec(&[n, 2], ix)?, vec![b as i64, max as i64])
            }
            None => (
                Tensor::from_vec(&[n, 1], (0..n as i64).collect())?,
                vec![n as i64],
            ),
        };
        Ok(SparseTensor {
            indices,
            values: Tensor::from_vec(&[n], self.values)?,
            dense_shape: Tensor::from(shape),
        })
    }

    /// The dense `[B, max_rows] + row` tensor of a sequence feature, padded with `pad`.
    pub(crate) fn into_padded(self, row: &[usize], pad: T) -> Result<Tensor> {
        let stride: usize = row.iter().product();
        let b = self.ends.len();
        let max_rows = self.max_len().checked_div(stride).unwrap_or(0);
        let per = max_rows * stride;
        let mut out = vec![pad; b * per];
        let mut prev = 0;
        for (i, &e) in self.ends.iter().enumerate() {
            out[i * per..i * per + (e - prev)].clone_from_slice(&self.values[prev..e]);
            prev = e;
        }
        let mut shape = vec![b, max_rows];
        shape.extend_from_slice(row);
        Tensor::from_vec(&shape, out)
    }
}
