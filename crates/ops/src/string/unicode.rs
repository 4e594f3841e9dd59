//! `UnicodeTranscode`, `UnicodeDecode`, `UnicodeDecodeWithOffsets` and `UnicodeEncode`, with
//! TensorFlow's handling of ill-formed input (see [`unicode_codec`](super::unicode_codec)).
//!
//! weir has no RaggedTensor: the decode ops return TensorFlow's raw outputs (row splits, flat
//! code points and byte offsets) and `UnicodeEncode` takes the (values, row splits) form.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Bytes, DType, Error, InferenceContext, Kernel, Node, OpContext,
    OpDef, Output, Result, Shape, Tensor,
};

use super::unicode_codec::{Decoder, Encoding, Utf16Buf};
use super::{same_shape, StringsBuilder};

pub use super::unicode_codec::OutputEncoding;

/// What the Unicode ops do with ill-formed input (their `errors` attr).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum UnicodeErrors {
    /// `"strict"`: fail with InvalidArgument.
    Strict,
    /// `"replace"` (the default): put the replacement character in its place.
    #[default]
    Replace,
    /// `"ignore"`: drop it.
    Ignore,
}

impl UnicodeErrors {
    /// The attr value.
    pub fn attr(self) -> &'static str {
        match self {
            UnicodeErrors::Strict => "strict",
            UnicodeErrors::Replace => "replace",
            UnicodeErrors::Ignore => "ignore",
        }
    }
}

/// The `errors`, `replacement_char` and `replace_control_characters` attrs, as a kernel reads
/// them (TensorFlow's `GetErrorOptions`).
#[derive(Clone, Copy, Debug)]
struct ErrorOptions {
    errors: UnicodeErrors,
    subst: u32,
    replace_control: bool,
}

impl ErrorOptions {
    fn of(node: &Node) -> Result<ErrorOptions> {
        let errors = match node.attr::<String>("errors")?.as_str() {
            "replace" => UnicodeErrors::Replace,
            "ignore" => UnicodeErrors::Ignore,
            "strict" => UnicodeErrors::Strict,
            _ => {
                return Err(Error::invalid_argument(
                    "errors policy must be one of 'strict', 'replace', or 'ignore'",
                ))
            }
        };
        let rc = node.attr::<i64>("replacement_char")?;
        if !(0..=0x10FFFF).contains(&rc) {
            return Err(Error::invalid_argument(
                "replacement_char out of unicode codepoint range",
            ));
        }
        // UnicodeEncode has no such attr.
        let replace_control = node
            .attr::<bool>("replace_control_characters")
            .unwrap_or_default();
        Ok(ErrorOptions {
            errors,
            subst: rc as u32,
            replace_control,
        })
    }

    /// Whether TensorFlow treats this step as one to replace or drop.
    fn handles(&self, ch: u32, error: bool) -> bool {
        error || (self.replace_control && ch <= 0x1F)
    }
}

fn input_encoding(node: &Node) -> Result<Encoding> {
    let name = node.attr::<String>("input_encoding")?;
    Encoding::by_icu_name(&name).ok_or_else(|| {
        Error::invalid_argument(format!(
            "Could not create converter for input encoding: {name}"
        ))
    })
}

fn output_encoding(node: &Node) -> Result<OutputEncoding> {
    let name = node.attr::<String>("output_encoding")?;
    OutputEncoding::parse(&name).ok_or_else(|| {
        Error::invalid_argument(format!(
            "Invalid encoding \"{name}\": Should be one of: UTF-8, UTF-16-BE, UTF-32-BE"
        ))
    })
}

fn invalid_formatting() -> Error {
    Error::invalid_argument("Invalid formatting on input string")
}

/// Checks a string attr against its allowed values, with the message TensorFlow's Python layer
/// gives when the node is added.
fn check_allowed(ctx: &InferenceContext<'_>, op: &str, attr: &str, allowed: &[&str]) -> Result<()> {
    let v = ctx.attr::<String>(attr)?;
    if allowed.contains(&v.as_str()) {
        return Ok(());
    }
    let list: Vec<String> = allowed.iter().map(|a| format!("\"{a}\"")).collect();
    Err(Error::invalid_argument(format!(
        "Attr '{attr}' of '{op}' Op passed string '{v}' not in: {}.",
        list.join(", ")
    )))
}

const OUTPUT_ENCODINGS: &[&str] = &["UTF-8", "UTF-16-BE", "UTF-32-BE"];
const ERRORS: &[&str] = &["strict", "replace", "ignore"];

// ---------------------------------------------------------------------------------------------
// UnicodeTranscode

/// `tf.strings.unicode_transcode(input, input_encoding, output_encoding)` with the default
/// `errors="replace"`, U+FFFD and control characters kept. See [`UnicodeTranscode`].
pub fn unicode_transcode(
    input: impl Into<Output>,
    input_encoding: &str,
    output_encoding: OutputEncoding,
) -> Result<Output> {
    UnicodeTranscode::new(input_encoding, output_encoding).build(input)
}

/// The options of `tf.strings.unicode_transcode`: re-encodes each string from `input_encoding`
/// (an ICU converter name, matched as ICU matches them: weir has UTF-8, UTF-16, UTF-16BE,
/// UTF-16LE, UTF-32, UTF-32BE, UTF-32LE, US-ASCII, ISO-8859-1, ISO-8859-15 and windows-1252
/// under ICU's aliases; other converters ICU has fail like unknown names, with InvalidArgument
/// "Could not create converter for input encoding: NAME" when the node runs) to
/// `output_encoding`. "UTF-16" and "UTF-32" read a byte order mark, and like TensorFlow's ICU
/// converter keep the byte order found for the next string of the tensor unless the string
/// ended in an error or in its first character.
/// Each ill-formed subsequence (and with `replace_control_characters`, each of U+0000..U+001F)
/// is replaced by `replacement_char`, dropped (`Ignore`), or fails the run with
/// "Invalid formatting on input string" (`Strict`).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, string::{OutputEncoding, UnicodeTranscode}};
/// let g = Graph::new();
/// let s = constant(&g, ["caf\u{e9}"])?;
/// let utf16 = UnicodeTranscode::new("UTF-8", OutputEncoding::Utf16Be).build(&s)?;
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct UnicodeTranscode {
    input_encoding: String,
    output_encoding: OutputEncoding,
    errors: UnicodeErrors,
    replacement_char: i32,
    replace_control_characters: bool,
}

impl UnicodeTranscode {
    /// From `input_encoding` to `output_encoding`, with TensorFlow's defaults.
    pub fn new(input_encoding: &str, output_encoding: OutputEncoding) -> UnicodeTranscode {
        UnicodeTranscode {
            input_encoding: input_encoding.to_string(),
            output_encoding,
            errors: UnicodeErrors::Replace,
            replacement_char: 0xFFFD,
            replace_control_characters: false,
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

    /// Whether U+0000..U+001F count as ill-formed.
    pub fn replace_control_characters(mut self, on: bool) -> Self {
        self.replace_control_characters = on;
        self
    }

    /// Adds the node.
    pub fn build(self, input: impl Into<Output>) -> Result<Output> {
        let input = input.into();
        crate::new_op(input.graph(), "UnicodeTranscode")
            .input(input)
            .attr("input_encoding", self.input_encoding)
            .attr("output_encoding", self.output_encoding.attr())
            .attr("errors", self.errors.attr())
            .attr("replacement_char", self.replacement_char as i64)
            .attr(
                "replace_control_characters",
                self.replace_control_characters,
            )
            .build()?
            .output(0)
    }
}

struct TranscodeKernel {
    input: Encoding,
    output: OutputEncoding,
    opts: ErrorOptions,
}

impl Kernel for TranscodeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        let strings = t.as_slice::<Bytes>()?;
        let total: usize = strings.iter().map(|s| s.len()).sum();
        let mut out = StringsBuilder::with_capacity(strings.len(), total / strings.len().max(1));
        let mut dec = Decoder::new(self.input);
        let mut found_error = false;
        let mut buf = Utf16Buf::default();
        for s in strings {
            buf.0.clear();
            dec.decode(s, |step| {
                let mut ch = step.ch;
                if self.opts.handles(ch, step.error) {
                    found_error = true;
                    if self.opts.errors == UnicodeErrors::Ignore {
                        return;
                    }
                    ch = self.opts.subst;
                }
                buf.push(ch);
            });
            buf.write(self.output, out.buf());
            out.finish_one();
        }
        if self.opts.errors == UnicodeErrors::Strict && found_error {
            return Err(invalid_formatting());
        }
        ctx.set_output(0, out.build(t.shape())?);
        Ok(())
    }
}

fn transcode_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_allowed(ctx, "UnicodeTranscode", "output_encoding", OUTPUT_ENCODINGS)?;
    check_allowed(ctx, "UnicodeTranscode", "errors", ERRORS)?;
    same_shape(ctx)
}

// ---------------------------------------------------------------------------------------------
// UnicodeDecode, UnicodeDecodeWithOffsets

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
/// `input_encoding` (an ICU converter name, as for [`UnicodeTranscode`]). Ill-formed input is
/// replaced by `replacement_char`, dropped (`Ignore`) or fails the run with "Invalid formatting
/// on input string" (`Strict`); `replace_control_characters` replaces (or drops) U+0000..U+001F,
/// and never fails.
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

// ---------------------------------------------------------------------------------------------
// UnicodeEncode

/// `tf.strings.unicode_encode` on the (values, row splits) form of a ragged tensor of code
/// points, with TensorFlow's defaults. See [`UnicodeEncode`].
pub fn unicode_encode(
    input_values: impl Into<Output>,
    input_splits: impl Into<Output>,
    output_encoding: OutputEncoding,
) -> Result<Output> {
    UnicodeEncode::new(output_encoding).build(input_values, input_splits)
}

/// The options of `UnicodeEncode` (`tf.strings.unicode_encode`): string `i` encodes the int32
/// code points `input_values[input_splits[i]..input_splits[i + 1]]` in `output_encoding`. A
/// value that is not a Unicode scalar value (negative, past U+10FFFF, or a surrogate) is
/// replaced by `replacement_char`, dropped (`Ignore`) or fails with "Code point is out of range
/// for Unicode, or is a surrogate." (`Strict`). `input_splits` (int32 or int64) must start at 0,
/// not decrease and end at the number of values.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, string::{unicode_encode, OutputEncoding}};
/// let g = Graph::new();
/// let values = constant(&g, [104i32, 105, 0x1F600])?;
/// let splits = constant(&g, [0i64, 2, 3])?;
/// let s = unicode_encode(&values, &splits, OutputEncoding::Utf8)?; // ["hi", "😀"]
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct UnicodeEncode {
    output_encoding: OutputEncoding,
    errors: UnicodeErrors,
    replacement_char: i32,
}

impl UnicodeEncode {
    /// Encoding to `output_encoding`, with TensorFlow's defaults.
    pub fn new(output_encoding: OutputEncoding) -> UnicodeEncode {
        UnicodeEncode {
            output_encoding,
            errors: UnicodeErrors::Replace,
            replacement_char: 0xFFFD,
        }
    }

    /// What to do with values that are not Unicode scalar values.
    pub fn errors(mut self, errors: UnicodeErrors) -> Self {
        self.errors = errors;
        self
    }

    /// The code point put in their place (0..=0x10FFFF, checked at run time).
    pub fn replacement_char(mut self, c: i32) -> Self {
        self.replacement_char = c;
        self
    }

    /// Adds the node.
    pub fn build(
        self,
        input_values: impl Into<Output>,
        input_splits: impl Into<Output>,
    ) -> Result<Output> {
        let values = input_values.into();
        crate::new_op(values.graph(), "UnicodeEncode")
            .input(values)
            .input(input_splits.into())
            .attr("errors", self.errors.attr())
            .attr("output_encoding", self.output_encoding.attr())
            .attr("replacement_char", self.replacement_char as i64)
            .build()?
            .output(0)
    }
}

struct EncodeKernel {
    output: OutputEncoding,
    opts: ErrorOptions,
}

fn splits_of(t: &Tensor) -> Result<Vec<i64>> {
    Ok(match t.dtype() {
        DType::I32 => t.as_slice::<i32>()?.iter().map(|&x| x as i64).collect(),
        _ => t.to_vec::<i64>()?,
    })
}

impl Kernel for EncodeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (values_t, splits_t) = (ctx.input(0), ctx.input(1));
        if values_t.rank() != 1 || splits_t.rank() != 1 {
            return Err(Error::invalid_argument(
                "Both the input_tensor and input_splits should be of rank 1. ",
            ));
        }
        let values = values_t.as_slice::<i32>()?;
        let splits = splits_of(splits_t)?;
        let (Some(&first), Some(&last)) = (splits.first(), splits.last()) else {
            return Err(Error::invalid_argument(format!(
                "Input_splits should contain elements, but given input_values has {} elements",
                splits.len()
            )));
        };
        if first != 0 {
            return Err(Error::invalid_argument(
                "First value in input_splits must be zero.",
            ));
        }
        if last != values.len() as i64 {
            return Err(Error::invalid_argument(
                "Last value in input_splits must be equal to length of input_tensor.",
            ));
        }
        let mut out = StringsBuilder::with_capacity(splits.len() - 1, 8);
        let mut buf = Utf16Buf::default();
        for w in splits.windows(2) {
            let (start, end) = (w[0], w[1]);
            if start > end {
                return Err(Error::invalid_argument(
                    "Values in input_splits must be equal or in ascending order.",
                ));
            }
            if end > values.len() as i64 {
                return Err(Error::invalid_argument(
                    "Values in input_splits must be less than or equal to input_tensor length.",
                ));
            }
            buf.0.clear();
            for &cp in &values[start as usize..end as usize] {
                let valid = (0..=0x10FFFF).contains(&cp) && !(0xD800..=0xDFFF).contains(&cp);
                if valid {
                    buf.push(cp as u32);
                    continue;
                }
                match self.opts.errors {
                    UnicodeErrors::Strict => {
                        return Err(Error::invalid_argument(
                            "Code point is out of range for Unicode, or is a surrogate.",
                        ))
                    }
                    UnicodeErrors::Replace => buf.push(self.opts.subst),
                    UnicodeErrors::Ignore => {}
                }
            }
            buf.write(self.output, out.buf());
            out.finish_one();
        }
        ctx.set_output(0, out.build(&[splits.len() - 1])?);
        Ok(())
    }
}

fn encode_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_allowed(
        ctx,
        "UnicodeEncode",
        "errors",
        &["ignore", "replace", "strict"],
    )?;
    check_allowed(ctx, "UnicodeEncode", "output_encoding", OUTPUT_ENCODINGS)?;
    ctx.with_rank(0, 1)?;
    let splits = ctx.with_rank(1, 1)?;
    let n = match splits.dims().and_then(|d| d[0]) {
        Some(0) => {
            return Err(Error::invalid_argument(
                "Negative dimension size caused by subtracting 1 from 0 for 'UnicodeEncode'",
            ))
        }
        d => d.map(|d| d - 1),
    };
    ctx.set_output(0, Shape::new(vec![n]));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Registration

fn error_attrs(def: OpDef) -> OpDef {
    def.attr(
        "errors",
        AttrKind::Str,
        Some(AttrValue::Str("replace".into())),
    )
    .attr(
        "replacement_char",
        AttrKind::Int,
        Some(AttrValue::Int(0xFFFD)),
    )
}

fn with_tsplits(mut def: OpDef) -> OpDef {
    def = def.type_attr("Tsplits", &[DType::I32, DType::I64]);
    if let Some(a) = def.attrs.iter_mut().find(|a| a.name == "Tsplits") {
        a.default = Some(AttrValue::Type(DType::I64));
    }
    def
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
    let def = OpDef::new("UnicodeTranscode")
        .input("input", ArgType::Fixed(DType::String))
        .output("output", ArgType::Fixed(DType::String))
        .attr("input_encoding", AttrKind::Str, None)
        .attr("output_encoding", AttrKind::Str, None);
    register_op(
        error_attrs(def)
            .attr(
                "replace_control_characters",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .shape_fn(transcode_shape),
    );
    register_kernel("UnicodeTranscode", |node| {
        let opts = ErrorOptions::of(node)?;
        let output = output_encoding(node)?;
        Ok(Box::new(TranscodeKernel {
            input: input_encoding(node)?,
            output,
            opts,
        }))
    });

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

    let def = OpDef::new("UnicodeEncode")
        .input("input_values", ArgType::Fixed(DType::I32))
        .input("input_splits", ArgType::Attr("Tsplits"))
        .output("output", ArgType::Fixed(DType::String));
    let def = def
        .attr(
            "errors",
            AttrKind::Str,
            Some(AttrValue::Str("replace".into())),
        )
        .attr("output_encoding", AttrKind::Str, None)
        .attr(
            "replacement_char",
            AttrKind::Int,
            Some(AttrValue::Int(0xFFFD)),
        );
    register_op(with_tsplits(def).shape_fn(encode_shape));
    register_kernel("UnicodeEncode", |node| {
        let output = output_encoding(node)?;
        Ok(Box::new(EncodeKernel {
            output,
            opts: ErrorOptions::of(node)?,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::constant;
    use weir_graph::Graph;

    #[test]
    fn builders_set_tensorflow_attrs() {
        let g = Graph::new();
        let s = constant(&g, ["a"]).unwrap();
        let d = UnicodeDecode::new("UTF-8")
            .splits_dtype(DType::I32)
            .build_with_offsets(&s)
            .unwrap();
        assert_eq!(d.row_splits.dtype(), DType::I32);
        assert_eq!(d.char_values.dtype(), DType::I32);
        assert_eq!(d.char_to_byte_starts.unwrap().dtype(), DType::I64);
        assert_eq!(d.row_splits.shape(), Shape::new(vec![Some(2)]));
        let t = unicode_transcode(&s, "latin1", OutputEncoding::Utf32Be).unwrap();
        assert_eq!(t.shape(), Shape::new(vec![Some(1)]));
    }

    #[test]
    fn bad_attrs_fail_when_building() {
        let g = Graph::new();
        let s = constant(&g, ["a"]).unwrap();
        let e = crate::new_op(&g, "UnicodeTranscode")
            .input(s)
            .attr("input_encoding", "UTF-8")
            .attr("output_encoding", "UTF-16-LE")
            .build()
            .unwrap_err();
        assert!(e.message().contains("not in: \"UTF-8\""), "{e}");
    }
}
