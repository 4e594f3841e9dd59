//! `UnicodeEncode` (`tf.strings.unicode_encode`): strings from code points in the (values, row
//! splits) form of a ragged tensor.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output,
    Result, Shape, Tensor,
};

use super::codec::Utf16Buf;
use super::{
    check_allowed, output_encoding, with_tsplits, ErrorOptions, OutputEncoding, UnicodeErrors,
    OUTPUT_ENCODINGS,
};
use crate::string::StringsBuilder;

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

pub(super) fn register() {
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
