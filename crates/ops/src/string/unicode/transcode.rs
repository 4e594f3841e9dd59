//! `UnicodeTranscode` (`tf.strings.unicode_transcode`): re-encodes each string.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Bytes, DType, InferenceContext, Kernel, OpContext, OpDef, Output,
    Result,
};

use super::codec::{Decoder, Encoding, Utf16Buf};
use super::{
    check_allowed, error_attrs, input_encoding, invalid_formatting, output_encoding, ErrorOptions,
    OutputEncoding, UnicodeErrors, ERRORS, OUTPUT_ENCODINGS,
};
use crate::string::{same_shape, StringsBuilder};

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
}
