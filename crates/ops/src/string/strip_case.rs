//! `StringStrip` (`tf.strings.strip`), `StringLower` (`tf.strings.lower`) and `StringUpper`
//! (`tf.strings.upper`).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Bytes, DType, Error, Kernel, OpContext, OpDef, Output, Result,
    Tensor,
};

use super::same_shape;

/// `tf.strings.strip(input)` (op `StringStrip`): removes leading and trailing ASCII whitespace
/// (space, `\t`, `\n`, `\v`, `\f`, `\r`) from each string.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, string::strip};
/// let g = Graph::new();
/// let s = strip(constant(&g, ["  a b \n", "c"])?)?; // ["a b", "c"]
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn strip(input: impl Into<Output>) -> Result<Output> {
    let input = input.into();
    crate::new_op(input.graph(), "StringStrip")
        .input(input)
        .build()?
        .output(0)
}

/// `tf.strings.lower(input, encoding='')` (op `StringLower`): with `encoding` `""` only ASCII
/// letters change; with `"utf-8"` Unicode's full case mapping applies (invalid UTF-8 becomes
/// U+FFFD, other encodings fail when the op runs).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, string::lower};
/// let g = Graph::new();
/// let s = lower(constant(&g, "ÀB")?, "utf-8")?; // "àb"; with "" it is "Àb"
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn lower(input: impl Into<Output>, encoding: &str) -> Result<Output> {
    case_op("StringLower", input.into(), encoding)
}

/// `tf.strings.upper(input, encoding='')` (op `StringUpper`): as [`lower`], to upper case
/// (`"utf-8"` maps `ß` to `SS`).
pub fn upper(input: impl Into<Output>, encoding: &str) -> Result<Output> {
    case_op("StringUpper", input.into(), encoding)
}

fn case_op(op: &str, input: Output, encoding: &str) -> Result<Output> {
    crate::new_op(input.graph(), op)
        .input(input)
        .attr("encoding", encoding)
        .build()?
        .output(0)
}

fn is_space(c: &u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// `s` without leading and trailing ASCII whitespace, sharing its buffer.
fn strip_one(s: &Bytes) -> Bytes {
    let start = s.iter().position(|c| !is_space(c)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|c| !is_space(c))
        .map_or(start, |i| i + 1);
    s.slice(start..end)
}

struct StripKernel;

impl Kernel for StripKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = super::map_strings(ctx.input(0), |s| Ok(strip_one(s)))?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn to_case(s: &[u8], upper: bool, utf8: bool) -> Vec<u8> {
    if !utf8 {
        let mut v = s.to_vec();
        if upper {
            v.make_ascii_uppercase();
        } else {
            v.make_ascii_lowercase();
        }
        return v;
    }
    let text = String::from_utf8_lossy(s);
    let out = if upper {
        text.to_uppercase()
    } else {
        text.to_lowercase()
    };
    out.into_bytes()
}

struct CaseKernel {
    upper: bool,
    encoding: String,
}

impl Kernel for CaseKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let utf8 = match self.encoding.as_str() {
            "" => false,
            "utf-8" => true,
            other => {
                return Err(Error::invalid_argument(format!(
                    "only utf-8 or '' (no encoding) is supported, received {other}"
                )))
            }
        };
        let t = ctx.input(0);
        let strings = t.as_slice::<Bytes>()?;
        let mut out = super::StringsBuilder::with_capacity(strings.len(), 16);
        for s in strings {
            out.buf().extend_from_slice(&to_case(s, self.upper, utf8));
            out.finish_one();
        }
        let out: Tensor = out.build(t.shape())?;
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("StringStrip")
            .input("input", ArgType::Fixed(DType::String))
            .output("output", ArgType::Fixed(DType::String))
            .shape_fn(same_shape),
    );
    register_kernel("StringStrip", |_| Ok(Box::new(StripKernel)));
    for name in ["StringLower", "StringUpper"] {
        register_op(
            OpDef::new(name)
                .input("input", ArgType::Fixed(DType::String))
                .output("output", ArgType::Fixed(DType::String))
                .attr(
                    "encoding",
                    AttrKind::Str,
                    Some(AttrValue::Str(String::new())),
                )
                .shape_fn(same_shape),
        );
        register_kernel(name, |node| {
            Ok(Box::new(CaseKernel {
                upper: node.op_type() == "StringUpper",
                encoding: node.attr("encoding")?,
            }))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_removes_ascii_whitespace_only() {
        let s = |x: &[u8]| strip_one(&Bytes::copy_from_slice(x)).to_vec();
        assert_eq!(s(b"  Hello World \t\n"), b"Hello World");
        assert_eq!(s(b"\x0b\x0cx\x0b\x0c"), b"x");
        assert_eq!(s(b" \t "), b"");
        assert_eq!(s(b""), b"");
        assert_eq!(s("\u{a0}x\u{a0}".as_bytes()), "\u{a0}x\u{a0}".as_bytes());
    }

    // Outputs printed by TensorFlow 2.21.
    #[test]
    fn case_mappings_match_tensorflow() {
        let c = |s: &str, upper, utf8| String::from_utf8(to_case(s.as_bytes(), upper, utf8));
        assert_eq!(c("ÀÉÎ àéî", false, false).unwrap(), "ÀÉÎ àéî");
        assert_eq!(c("ÀÉÎ àéî", false, true).unwrap(), "àéî àéî");
        assert_eq!(c("straße", true, true).unwrap(), "STRASSE");
        assert_eq!(c("straße", true, false).unwrap(), "STRAßE");
        assert_eq!(c("ΣΑΣ ΟΔΟΣ", false, true).unwrap(), "σας οδος");
        assert_eq!(c("İI", false, true).unwrap(), "i\u{307}i");
        assert_eq!(c("ﬁ", true, true).unwrap(), "FI");
        assert_eq!(to_case(b"A\xffb", true, false), b"A\xffB");
        assert_eq!(to_case(b"A\xffb", true, true), "A\u{fffd}B".as_bytes());
    }
}
