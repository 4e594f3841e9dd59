//! `UnicodeDecode` and `UnicodeDecodeWithOffsets` (`tf.strings.unicode_decode`,
//! `tf.strings.unicode_decode_with_offsets`): each string's code points, as TensorFlow's raw
//! outputs.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Bytes, DType, Error, InferenceContext, Kernel, Node, OpContext,
    OpDef, Output, Result, Shape, Tensor,
};

use super::codec::{Decoder, Encoding};
use super::{
    check_allowed, error_attrs, input_encoding, invalid_formatting, with_tsplits, ErrorOptions,
    UnicodeErrors, ERRORS,
};

/// The raw outputs of `UnicodeDecode` / `UnicodeDecodeWithOffsets`: the code points of every
/// string of the input, flattened in row-major order, with the row splits that cut them per
/// string.
///
/// For a vector input, `tf.strings.unicode_decode` returns the RaggedTensor
/// `RaggedTensor.from_row_splits(char_values, row_splits)` (and `unicode_decode_with_offsets`
/// the same rows of `char_to_byte_starts`). For a scalar input it returns `char_values` itself
/// (`row_splits` is `[0, n]`). An input of rank k > 1 is decoded flattened, in row-major order
/// (`row_splits` has one entry per string plus one); TensorFlow's RaggedTensor then adds the
/// input's dimensions as uniform outer row partitions: for a `[2, 2]` input it has shape
/// `[2, 2, None]`, `nested_row_splits` `([0, 2, 4], row_splits)` and `flat_values`
/// `char_values`.
#[derive(Clone, Debug)]
pub struct UnicodeDecoded {
    /// `row_splits` (`Tsplits`, int64 by default): string `i`'s code points are
    /// `char_values[row_splits[i]..row_splits[i + 1]]`.
    pub row_splits: Output,
    /// `char_values` (int32): the code points.
    pub char_values: Output,
    /// `char_to_byte_starts` (int64, only from `UnicodeDecodeWithOffsets`): each code point's
    /// byte offset in its string.
    pub char_to_byte_starts: Option<Output>,
}

/// `tf.strings.unicode_decode(input, input_encoding)` with TensorFlow's defaults, as raw outputs.
/// See [`UnicodeDecode`].
pub fn unicode_decode(input: impl Into<Output>, input_encoding: &str) -> Result<UnicodeDecoded> {
    UnicodeDecode::new(input_encoding).build(input)
}

/// `tf.strings.unicode_decode_with_offsets(input, input_encoding)` with TensorFlow's defaults,
/// as raw outputs. See [`UnicodeDecode`].
pub fn unicode_decode_with_offsets(
    input: impl Into<Output>,
    input_encoding: &str,
) -> Result<UnicodeDecoded> {
    UnicodeDecode::new(input_encoding).build_with_offsets(input)
}

/// The options of `UnicodeDecode` / `UnicodeDecodeWithOffsets` (`tf.strings.unicode_decode`,
/// `tf.strings.unicode_decode_with_offsets`): each string's code points, decoded from
/// `input_encoding` (an ICU converter name, as for
/// [`UnicodeTranscode`](super::UnicodeTranscode)). Ill-formed input is replaced by
/// `replacement_char`, dropped (`Ignore`) or fails the run with "Invalid formatting on input
/// string" (`Strict`); `replace_control_characters` replaces (or drops) U+0000..U+001F, and never
/// fails.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, string::UnicodeDecode};
/// let g = Graph::new();
/// let s = constant(&g, ["h\u{e9}", "\u{1F600}"])?;
/// let d = UnicodeDecode::new("UTF-8").build_with_offsets(&s)?;
/// // row_splits [0, 2, 3], char_values [104, 233, 128512], char_to_byte_starts [0, 1, 0]
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct UnicodeDecode {
    input_encoding: String,
    errors: UnicodeErrors,
    replacement_char: i32,
    replace_control_characters: bool,
    splits_dtype: DType,
}

impl UnicodeDecode {
    /// Decoding `input_encoding`, with TensorFlow's defaults.
    pub fn new(input_encoding: &str) -> UnicodeDecode {
        UnicodeDecode {
            input_encoding: input_encoding.to_string(),
            errors: UnicodeErrors::Replace,
            replacement_char: 0xFFFD,
            replace_control_characters: false,
            splits_dtype: DType::I64,
        }
    }

    /// What to do with ill-formed input.
    pub fn errors(mut self, errors: UnicodeErrors) -> Self {
        self.errors = errors;
        self
    }

    /// The code point put in place of ill-formed input (0..=0x10FFFF, checked at run time).
    pub fn replacement_char(mut self, c: i32) -> Self {
        self.replacement_char = c;
        self
    }

    /// Whether U+0000..U+001F are replaced (or dropped) too.
    pub fn replace_control_characters(mut self, on: bool) -> Self {
        self.replace_control_characters = on;
        self
    }

    /// The dtype of `row_splits` (`Tsplits`): int64 (the default) or int32.
    pub fn splits_dtype(mut self, dtype: DType) -> Self {
        self.splits_dtype = dtype;
        self
    }

    fn node(self, input: Output, op: &str) -> Result<weir_graph::Operation> {
        crate::new_op(input.graph(), op)
            .input(input)
            .attr("input_encoding", self.input_encoding)
            .attr("errors", self.errors.attr())
            .attr("replacement_char", self.replacement_char as i64)
            .attr(
                "replace_control_characters",
                self.replace_control_characters,
            )
            .attr("Tsplits", self.splits_dtype)
            .build()
    }

    /// Adds a `UnicodeDecode` node.
    pub fn build(self, input: impl Into<Output>) -> Result<UnicodeDecoded> {
        let op = self.node(input.into(), "UnicodeDecode")?;
        Ok(UnicodeDecoded {
            row_splits: op.output(0)?,
            char_values: op.output(1)?,
            char_to_byte_starts: None,
        })
    }

    /// Adds a `UnicodeDecodeWithOffsets` node.
    pub fn build_with_offsets(self, input: impl Into<Output>) -> Result<UnicodeDecoded> {
        let op = self.node(input.into(), "UnicodeDecodeWithOffsets")?;
        Ok(UnicodeDecoded {
            row_splits: op.output(0)?,
            char_values: op.output(1)?,
            char_to_byte_starts: Some(op.output(2)?),
        })
    }
}

struct DecodeKernel {
    input: Encoding,
    opts: ErrorOptions,
    offsets: bool,
    splits: DType,
}

impl Kernel for DecodeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        let strings = t.as_slice::<Bytes>()?;
        let mut dec = Decoder::new(self.input);
        let mut splits: Vec<i64> = Vec::with_capacity(strings.len() + 1);
        let mut chars: Vec<i32> = Vec::new();
        let mut starts: Vec<i64> = Vec::new();
        let mut failed = false;
        for s in strings {
            splits.push(chars.len() as i64);
            let mut offset = 0usize;
            dec.decode(s, |step| {
                if step.error && self.opts.errors == UnicodeErrors::Strict {
                    failed = true;
                }
                let mut ch = step.ch;
                if self.opts.handles(ch, step.error) {
                    if self.opts.errors == UnicodeErrors::Ignore {
                        offset += step.len;
                        return;
                    }
                    ch = self.opts.subst;
                }
                chars.push(ch as i32);
                starts.push(offset as i64);
                offset += step.len;
            });
        }
        splits.push(chars.len() as i64);
        if failed {
            return Err(invalid_formatting());
        }
        let n = chars.len();
        let row_splits = match self.splits {
            DType::I32 => {
                let v = splits
                    .iter()
                    .map(|&x| {
                        i32::try_from(x).map_err(|_| {
                            Error::invalid_argument(format!(
                                "{x} code points do not fit int32 row splits"
                            ))
                        })
                    })
                    .collect::<Result<Vec<i32>>>()?;
                Tensor::from_vec(&[v.len()], v)?
            }
            _ => Tensor::from_vec(&[splits.len()], splits)?,
        };
        ctx.set_output(0, row_splits);
        ctx.set_output(1, Tensor::from_vec(&[n], chars)?);
        if self.offsets {
            ctx.set_output(2, Tensor::from_vec(&[n], starts)?);
        }
        Ok(())
    }
}

fn decode_shape(ctx: &mut InferenceContext<'_>, op: &str, offsets: bool) -> Result<()> {
    check_allowed(ctx, op, "errors", ERRORS)?;
    let n = ctx.input_shape(0).num_elements().map(|n| n + 1);
    ctx.set_output(0, Shape::new(vec![n]));
    ctx.set_output(1, Shape::new(vec![None]));
    if offsets {
        ctx.set_output(2, Shape::new(vec![None]));
    }
    Ok(())
}

fn decode_def(name: &str, offsets: bool) -> OpDef {
    let mut def = OpDef::new(name)
        .input("input", ArgType::Fixed(DType::String))
        .output("row_splits", ArgType::Attr("Tsplits"))
        .output("char_values", ArgType::Fixed(DType::I32));
    if offsets {
        def = def.output("char_to_byte_starts", ArgType::Fixed(DType::I64));
    }
    def = def.attr("input_encoding", AttrKind::Str, None);
    let def = error_attrs(def).attr(
        "replace_control_characters",
        AttrKind::Bool,
        Some(AttrValue::Bool(false)),
    );
    with_tsplits(def)
}

fn decode_kernel(node: &Node, offsets: bool) -> Result<Box<dyn Kernel>> {
    let opts = ErrorOptions::of(node)?;
    Ok(Box::new(DecodeKernel {
        input: input_encoding(node)?,
        opts,
        offsets,
        splits: node.attr::<DType>("Tsplits")?,
    }))
}

pub(super) fn register() {
    register_op(
        decode_def("UnicodeDecode", false)
            .shape_fn(|ctx| decode_shape(ctx, "UnicodeDecode", false)),
    );
    register_kernel("UnicodeDecode", |node| decode_kernel(node, false));
    register_op(
        decode_def("UnicodeDecodeWithOffsets", true)
            .shape_fn(|ctx| decode_shape(ctx, "UnicodeDecodeWithOffsets", true)),
    );
    register_kernel("UnicodeDecodeWithOffsets", |node| decode_kernel(node, true));
}
