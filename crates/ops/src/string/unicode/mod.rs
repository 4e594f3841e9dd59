//! The Unicode ops: `UnicodeTranscode` ([`transcode`]), `UnicodeDecode` and
//! `UnicodeDecodeWithOffsets` ([`decode`]), `UnicodeEncode` ([`encode`]) and `UnicodeScript`
//! ([`script`]), with TensorFlow's handling of ill-formed input (see [`codec`], and
//! [`aliases`] for the ICU converter names). This module holds what they share: the `errors`
//! options and attr helpers, and the registration.
//!
//! weir has no RaggedTensor: the decode ops return TensorFlow's raw outputs (row splits, flat
//! code points and byte offsets) and `UnicodeEncode` takes the (values, row splits) form.

mod aliases;
mod codec;
mod decode;
mod encode;
mod script;
mod script_data;
mod transcode;

use weir_graph::{AttrKind, AttrValue, DType, Error, InferenceContext, Node, OpDef, Result};

use codec::Encoding;

pub use codec::OutputEncoding;
pub use decode::{unicode_decode, unicode_decode_with_offsets, UnicodeDecode, UnicodeDecoded};
pub use encode::{unicode_encode, UnicodeEncode};
pub use script::unicode_script;
pub use transcode::{unicode_transcode, UnicodeTranscode};

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

pub(super) fn register() {
    transcode::register();
    decode::register();
    encode::register();
    script::register();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::constant;
    use weir_graph::{Graph, Shape};

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
