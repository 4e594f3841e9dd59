//! String ops. String tensors hold bytes ([`Bytes`](weir_graph::Bytes)); ops that count
//! characters say so with [`Unit::Utf8Char`].
//!
//! `tf.strings.join`, `tf.strings.reduce_join`, `tf.string_split` (to a
//! [`SparseOutput`](crate::sparse::SparseOutput)), `tf.strings.substr`, `tf.strings.to_number`,
//! `tf.strings.as_string`, `tf.strings.length`, `tf.strings.regex_full_match`,
//! `tf.strings.regex_replace`, `tf.strings.strip`, `tf.strings.lower`, `tf.strings.upper`,
//! `tf.strings.to_hash_bucket_fast`, `tf.strings.to_hash_bucket_strong`, `tf.io.decode_base64`,
//! `tf.io.encode_base64`, and the Unicode ops (`tf.strings.unicode_transcode`,
//! `unicode_decode`, `unicode_decode_with_offsets`, `unicode_encode`, `unicode_script`), with
//! TensorFlow's op names, attrs and error messages. String `tf.add` (concatenation) is
//! [`math::add`](crate::math::add).
//!
//! ```
//! use weir_graph::{DType, Graph};
//! use weir_ops::{array::constant, string};
//!
//! let g = Graph::new();
//! let lines = constant(&g, ["3,cat", "5,dog"])?;
//! let fields = string::string_split(&lines, ",")?;
//! let ids = string::string_to_number(&fields.values, DType::I32);
//! assert!(ids.is_ok()); // fails at run time on "cat", naming it
//! # Ok::<(), weir_graph::Error>(())
//! ```

pub(crate) mod base64;
mod convert;
mod fingerprint;
pub(crate) mod format;
mod hash;
mod hash_legacy;
mod hash_strong;
mod join_split;
mod ngrams;
mod re2;
mod reduce_join;
mod regex_match;
mod regex_replace;
mod segment_join;
mod string_format;
mod strip_case;
mod substr;
mod unicode;

pub use base64::{decode_base64, encode_base64};
pub use convert::{as_string, string_to_number, AsString};
pub use fingerprint::{fingerprint, fingerprint_tensor};
pub use hash::{fingerprint64, string_to_hash_bucket_fast};
pub use hash_legacy::{hash64, hash64_with_seed, string_to_hash_bucket};
pub use hash_strong::{siphash24, string_to_hash_bucket_strong};
pub use join_split::{string_join, string_split, strings_split, StringSplit};
pub use ngrams::{ngrams, NGrams};
pub use reduce_join::{reduce_join, reduce_join_tensor};
pub use regex_match::{regex_full_match, regex_full_match_tensor};
pub use regex_replace::{regex_replace, regex_replace_tensor};
pub use segment_join::unsorted_segment_join;
pub use string_format::{string_format, StringFormat};
pub use strip_case::{lower, strip, upper};
pub use substr::{string_length, substr, Substr};
pub use unicode::{
    unicode_decode, unicode_decode_with_offsets, unicode_encode, unicode_script, unicode_transcode,
    OutputEncoding, UnicodeDecode, UnicodeDecoded, UnicodeEncode, UnicodeErrors, UnicodeTranscode,
};

use weir_graph::{DType, Error, Graph, Output, Result, Tensor};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    base64::register();
    convert::register();
    fingerprint::register();
    hash::register();
    hash_legacy::register();
    hash_strong::register();
    join_split::register();
    ngrams::register();
    reduce_join::register();
    regex_match::register();
    regex_replace::register();
    segment_join::register();
    string_format::register();
    strip_case::register();
    substr::register();
    unicode::register();
}

/// What string lengths and positions count: bytes (TensorFlow's default) or UTF-8 characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Unit {
    /// `"BYTE"`.
    #[default]
    Byte,
    /// `"UTF8_CHAR"`: characters of valid UTF-8 (each byte that does not continue one).
    Utf8Char,
}

impl Unit {
    pub(crate) fn attr(self) -> &'static str {
        match self {
            Unit::Byte => "BYTE",
            Unit::Utf8Char => "UTF8_CHAR",
        }
    }

    pub(crate) fn parse(s: &str) -> Result<Unit> {
        match s {
            "BYTE" => Ok(Unit::Byte),
            "UTF8_CHAR" => Ok(Unit::Utf8Char),
            other => Err(Error::invalid_argument(format!(
                "Value for attr 'unit' of \"{other}\" is not in the list of allowed values: \"BYTE\", \"UTF8_CHAR\""
            ))),
        }
    }
}

/// An integer argument: a value given when building (an int32 `Const`) or an int32/int64
/// tensor.
#[derive(Clone, Debug)]
pub enum IntArg {
    /// A fixed value.
    Value(i64),
    /// An int32 or int64 tensor.
    Tensor(Output),
}

impl From<i64> for IntArg {
    fn from(v: i64) -> IntArg {
        IntArg::Value(v)
    }
}
impl From<i32> for IntArg {
    fn from(v: i32) -> IntArg {
        IntArg::Value(v as i64)
    }
}
impl From<Output> for IntArg {
    fn from(o: Output) -> IntArg {
        IntArg::Tensor(o)
    }
}
impl From<&Output> for IntArg {
    fn from(o: &Output) -> IntArg {
        IntArg::Tensor(o.clone())
    }
}

impl IntArg {
    /// The argument as a tensor of `dtype` (int32 or int64).
    pub(crate) fn to_output(&self, g: &Graph, dtype: DType) -> Result<Output> {
        match self {
            IntArg::Tensor(o) => Ok(o.clone()),
            IntArg::Value(v) => {
                let t = match dtype {
                    DType::I64 => Tensor::from(*v),
                    _ => Tensor::from(i32::try_from(*v).map_err(|_| {
                        Error::invalid_argument(format!("Value {v} does not fit in int32"))
                    })?),
                };
                crate::array::constant(g, t)
            }
        }
    }

    fn dtype(&self) -> Option<DType> {
        match self {
            IntArg::Tensor(o) => Some(o.dtype()),
            IntArg::Value(_) => None,
        }
    }
}

/// Shape function of elementwise string ops: the output has the input's shape.
pub(crate) fn same_shape(ctx: &mut weir_graph::InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

/// Maps every string of `t` to one value, into a tensor of `t`'s shape.
pub(crate) fn map_strings<U: weir_graph::TensorType>(
    t: &Tensor,
    mut f: impl FnMut(&weir_graph::Bytes) -> Result<U>,
) -> Result<Tensor> {
    let strings = t.as_slice::<weir_graph::Bytes>()?;
    let mut v = Vec::with_capacity(strings.len());
    for s in strings {
        v.push(f(s)?);
    }
    Tensor::from_vec(t.shape(), v)
}

/// Builds a string tensor whose elements are slices of one shared buffer: one allocation for
/// all the bytes instead of one per element.
pub(crate) struct StringsBuilder {
    buf: Vec<u8>,
    ends: Vec<usize>,
}

impl StringsBuilder {
    /// Room for `n` strings of about `avg` bytes.
    pub(crate) fn with_capacity(n: usize, avg: usize) -> StringsBuilder {
        StringsBuilder {
            buf: Vec::with_capacity(n * avg),
            ends: Vec::with_capacity(n),
        }
    }

    /// The bytes of the element being written; `finish_one` ends it.
    pub(crate) fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Ends the current element.
    pub(crate) fn finish_one(&mut self) {
        self.ends.push(self.buf.len());
    }

    /// The tensor of `shape` holding the elements written.
    pub(crate) fn build(self, shape: &[usize]) -> Result<Tensor> {
        let all = weir_graph::Bytes::from(self.buf);
        let mut start = 0;
        let v: Vec<weir_graph::Bytes> = self
            .ends
            .iter()
            .map(|&end| {
                let b = all.slice(start..end);
                start = end;
                b
            })
            .collect();
        Tensor::from_vec(shape, v)
    }
}
