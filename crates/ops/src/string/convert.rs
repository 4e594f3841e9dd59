//! `StringToNumber` and `AsString`: parsing numbers out of strings and formatting them back,
//! with TensorFlow's accepted syntax and `printf` formats.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Bytes, DType, Error, Kernel, Node, OpContext, OpDef, Output,
    Result, Tensor,
};

use super::format::Spec;
use super::{map_strings, same_shape, StringsBuilder};

/// `tf.strings.to_number(string_tensor, out_type)`: parses each string as a float32, float64,
/// int32 or int64. Surrounding whitespace is allowed; floats accept exponents, `inf`, `nan`
/// and hex (`0x1p3`), and overflow to infinity; integers must be plain decimal and in range.
/// Anything else fails with InvalidArgument `"StringToNumberOp could not correctly convert
/// string: <the string>"`.
pub fn string_to_number(string_tensor: impl Into<Output>, out_type: DType) -> Result<Output> {
    let input = string_tensor.into();
    crate::new_op(input.graph(), "StringToNumber")
        .input(input)
        .attr("out_type", out_type)
        .build()?
        .output(0)
}

/// The text without surrounding ASCII whitespace, if it is UTF-8.
fn strip(raw: &[u8]) -> Option<&str> {
    let ws = |c: &u8| matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r');
    let start = raw.iter().position(|c| !ws(c)).unwrap_or(raw.len());
    let end = raw.iter().rposition(|c| !ws(c)).map_or(start, |e| e + 1);
    std::str::from_utf8(&raw[start..end]).ok()
}

/// A hexadecimal float `0x<hex>[.<hex>][p<exp>]` (sign already removed), as `strtod` reads it.
fn parse_hex(s: &str) -> Option<f64> {
    let body = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    let (mant, exp) = match body.find(['p', 'P']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i32>().ok()?),
        None => (body, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut v = 0f64;
    for c in int.chars().chain(frac.chars()) {
        v = v * 16.0 + c.to_digit(16)? as f64;
    }
    Some(v * 2f64.powi(exp - 4 * frac.len() as i32))
}

/// TensorFlow's `SimpleAtof`: trimmed, one optional leading `+` (not followed by `-`).
fn parse_float(raw: &[u8]) -> Option<f64> {
    let s = strip(raw)?;
    let s = match s.strip_prefix('+') {
        Some(rest) if rest.starts_with('-') || rest.starts_with('+') => return None,
        Some(rest) => rest,
        None => s,
    };
    let (neg, unsigned) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    if let Some(h) = parse_hex(unsigned) {
        return Some(if neg { -h } else { h });
    }
    if unsigned.starts_with(['+', '-']) {
        return None;
    }
    s.parse::<f64>().ok()
}

fn parse_f32(raw: &[u8]) -> Option<f32> {
    let s = strip(raw)?;
    // Decimal text parses straight to f32 to round once; hex goes through f64.
    let plain = s.strip_prefix('+').unwrap_or(s);
    let unsigned = plain.strip_prefix('-').unwrap_or(plain);
    if !unsigned.starts_with("0x") && !unsigned.starts_with("0X") {
        if s.starts_with("+-") || s.starts_with("++") || unsigned.starts_with(['+', '-']) {
            return None;
        }
        return plain.parse::<f32>().ok();
    }
    parse_float(raw).map(|v| v as f32)
}

fn parse_int<T: std::str::FromStr>(raw: &[u8]) -> Option<T> {
    let s = strip(raw)?;
    if s.starts_with("+-") || s.starts_with("-+") {
        return None;
    }
    s.parse::<T>().ok()
}

struct ToNumberKernel {
    out_type: DType,
}

fn bad(s: &Bytes) -> Error {
    Error::invalid_argument(format!(
        "StringToNumberOp could not correctly convert string: {}",
        String::from_utf8_lossy(s)
    ))
}

impl Kernel for ToNumberKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        let out = match self.out_type {
            DType::F32 => map_strings(t, |s| parse_f32(s).ok_or_else(|| bad(s)))?,
            DType::F64 => map_strings(t, |s| parse_float(s).ok_or_else(|| bad(s)))?,
            DType::I32 => map_strings(t, |s| parse_int::<i32>(s).ok_or_else(|| bad(s)))?,
            DType::I64 => map_strings(t, |s| parse_int::<i64>(s).ok_or_else(|| bad(s)))?,
            dt => return Err(Error::internal(format!("StringToNumber built for {dt}"))),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `tf.strings.as_string(input)` with TensorFlow's defaults. See [`AsString`].
pub fn as_string(input: impl Into<Output>) -> Result<Output> {
    AsString::new().build(input)
}

/// The options of `tf.strings.as_string(input, precision=-1, scientific=False, shortest=False,
/// width=-1, fill='')`: numbers formatted as C's `printf` does (`%f`, `%e` with `scientific`,
/// `%g` with `shortest`, `%d` for integers), bools as `true`/`false`, strings passed through
/// (padded when `width` is set). `fill` is a `printf` flag: `0` pads with zeros, `-`
/// left-justifies, `+` always signs, ` ` signs positives with a space, `#` keeps the point.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, string::AsString};
/// let g = Graph::new();
/// let x = constant(&g, vec![3.14159f32, -2.5])?;
/// let s = AsString::new().precision(2).width(8).fill('0').build(&x)?; // "00003.14", "-0002.50"
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct AsString {
    precision: i64,
    scientific: bool,
    shortest: bool,
    width: i64,
    fill: String,
}

impl Default for AsString {
    fn default() -> Self {
        AsString {
            precision: -1,
            scientific: false,
            shortest: false,
            width: -1,
            fill: String::new(),
        }
    }
}

impl AsString {
    /// TensorFlow's defaults.
    pub fn new() -> AsString {
        AsString::default()
    }

    /// Digits after the point for floats (-1: `printf`'s default of 6).
    pub fn precision(mut self, p: i64) -> Self {
        self.precision = p;
        self
    }

    /// Exponent notation (`%e`).
    pub fn scientific(mut self, s: bool) -> Self {
        self.scientific = s;
        self
    }

    /// The shorter of fixed and exponent notation (`%g`).
    pub fn shortest(mut self, s: bool) -> Self {
        self.shortest = s;
        self
    }

    /// Minimum width (-1: none).
    pub fn width(mut self, w: i64) -> Self {
        self.width = w;
        self
    }

    /// The `printf` flag used as fill: one of ` `, `+`, `-`, `0`, `#`.
    pub fn fill(mut self, c: char) -> Self {
        self.fill = c.to_string();
        self
    }

    /// Adds the node; invalid combinations fail here with TensorFlow's messages.
    pub fn build(self, input: impl Into<Output>) -> Result<Output> {
        let input = input.into();
        Formatter::new(
            input.dtype(),
            self.precision,
            self.scientific,
            self.shortest,
            self.width,
            &self.fill,
        )?;
        crate::new_op(input.graph(), "AsString")
            .input(input)
            .attr("precision", self.precision)
            .attr("scientific", self.scientific)
            .attr("shortest", self.shortest)
            .attr("width", self.width)
            .attr("fill", self.fill)
            .build()?
            .output(0)
    }
}

/// `AsString`'s validated format for one input dtype.
struct Formatter {
    spec: Spec,
    conv: u8,
    width: i64,
}

impl Formatter {
    fn new(
        dtype: DType,
        precision: i64,
        scientific: bool,
        shortest: bool,
        width: i64,
        fill: &str,
    ) -> Result<Formatter> {
        if !dtype.is_floating() {
            if scientific || shortest {
                return Err(Error::invalid_argument(format!(
                    "scientific and shortest format not supported for datatype {dtype}"
                )));
            }
            if precision >= 0 {
                return Err(Error::invalid_argument(format!(
                    "precision not supported for datatype {dtype}"
                )));
            }
        }
        if fill.len() > 1 {
            return Err(Error::invalid_argument(
                "Fill string must be one or fewer characters",
            ));
        }
        if scientific && shortest {
            return Err(Error::invalid_argument(
                "Cannot select both scientific and shortest notation",
            ));
        }
        let fill = fill.bytes().next();
        if let Some(c) = fill {
            if !b" +-0#".contains(&c) {
                return Err(Error::invalid_argument(format!(
                    "Fill argument not supported: \"{}\"",
                    c as char
                )));
            }
        }
        if dtype == DType::Resource {
            return Err(Error::invalid_argument(format!(
                "Type not supported: {dtype}"
            )));
        }
        let conv = if shortest {
            b'g'
        } else if scientific {
            b'e'
        } else {
            b'f'
        };
        let spec = Spec::from_fill(fill, width.max(0) as usize, usize::try_from(precision).ok());
        Ok(Formatter { spec, conv, width })
    }

    fn format(&self, t: &Tensor) -> Result<Tensor> {
        let n = t.num_elements();
        let mut out = StringsBuilder::with_capacity(n, self.spec.width.max(12));
        let mut scratch = String::with_capacity(32);
        macro_rules! each {
            ($ty:ty, |$v:ident, $b:ident| $body:expr) => {
                for &$v in t.as_slice::<$ty>()? {
                    let $b = out.buf();
                    $body;
                    out.finish_one();
                }
            };
        }
        match t.dtype() {
            DType::F32 => each!(f32, |v, b| self.spec.float(
                v as f64,
                self.conv,
                b,
                &mut scratch
            )),
            DType::F64 => each!(f64, |v, b| self.spec.float(v, self.conv, b, &mut scratch)),
            DType::I8 => each!(i8, |v, b| self.spec.int(v as i128, b)),
            DType::I16 => each!(i16, |v, b| self.spec.int(v as i128, b)),
            DType::I32 => each!(i32, |v, b| self.spec.int(v as i128, b)),
            DType::I64 => each!(i64, |v, b| self.spec.int(v as i128, b)),
            DType::U8 => each!(u8, |v, b| self.spec.int(v as i128, b)),
            DType::U16 => each!(u16, |v, b| self.spec.int(v as i128, b)),
            DType::Bool => {
                let (t_, f_) = (Bytes::from_static(b"true"), Bytes::from_static(b"false"));
                let v = t
                    .as_slice::<bool>()?
                    .iter()
                    .map(|&b| if b { t_.clone() } else { f_.clone() });
                return Tensor::from_vec(t.shape(), v.collect());
            }
            DType::String => {
                if self.width <= 0 {
                    return Ok(t.clone());
                }
                for s in t.as_slice::<Bytes>()? {
                    self.spec.bytes(s, out.buf());
                    out.finish_one();
                }
            }
            dt => {
                return Err(Error::invalid_argument(format!(
                    "Cannot encode input of type {dt}"
                )))
            }
        }
        out.build(t.shape())
    }
}

struct AsStringKernel(Formatter);

impl Kernel for AsStringKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = self.0.format(ctx.input(0))?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make_as_string(node: &Node) -> Result<Box<dyn Kernel>> {
    let f = Formatter::new(
        node.attr("T")?,
        node.attr("precision")?,
        node.attr("scientific")?,
        node.attr("shortest")?,
        node.attr("width")?,
        &node.attr::<String>("fill")?,
    )?;
    Ok(Box::new(AsStringKernel(f)))
}

pub(super) fn register() {
    register_op(crate::random::type_attr_default(
        OpDef::new("StringToNumber")
            .input("string_tensor", ArgType::Fixed(DType::String))
            .output("output", ArgType::Attr("out_type"))
            .shape_fn(same_shape),
        "out_type",
        &[DType::F32, DType::F64, DType::I32, DType::I64],
        DType::F32,
    ));
    register_kernel("StringToNumber", |node| {
        Ok(Box::new(ToNumberKernel {
            out_type: node.attr("out_type")?,
        }))
    });
    register_op(
        OpDef::new("AsString")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Fixed(DType::String))
            .type_attr("T", DType::ALL_DATA)
            .attr("precision", AttrKind::Int, Some(AttrValue::Int(-1)))
            .attr("scientific", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .attr("shortest", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .attr("width", AttrKind::Int, Some(AttrValue::Int(-1)))
            .attr("fill", AttrKind::Str, Some(AttrValue::Str(String::new())))
            .shape_fn(same_shape),
    );
    register_kernel("AsString", make_as_string);
}

// Expected values are TensorFlow's printed outputs, digit for digit.
#[cfg(test)]
#[allow(clippy::excessive_precision, clippy::approx_constant)]
mod tests {
    use super::*;

    // Accepted and rejected spellings, as TensorFlow 2.21's StringToNumber treats them.
    #[test]
    fn float_syntax() {
        let ok = [
            ("1.5", 1.5),
            (" 1.5 ", 1.5),
            ("1e3", 1000.0),
            ("+2", 2.0),
            (".5", 0.5),
            ("5.", 5.0),
            ("0x10", 16.0),
            ("-0x1.8p1", -3.0),
        ];
        for (s, v) in ok {
            assert_eq!(parse_float(s.as_bytes()), Some(v), "{s}");
            assert_eq!(parse_f32(s.as_bytes()), Some(v as f32), "{s}");
        }
        assert_eq!(parse_f32(b"-inf"), Some(f32::NEG_INFINITY));
        assert_eq!(parse_f32(b"Infinity"), Some(f32::INFINITY));
        assert!(parse_f32(b"NaN").unwrap().is_nan());
        assert_eq!(parse_f32(b"1e400"), Some(f32::INFINITY));
        assert_eq!(parse_f32(b"3.5e38"), Some(f32::INFINITY));
        assert_eq!(parse_f32(b"1e-40"), Some(9.99994610111476e-41));
        let z = parse_f32(b"-1e-400").unwrap();
        assert!(z == 0.0 && z.is_sign_negative());
        for s in ["1.5f", "", "abc", "1,5", "1_0", "+-1", "--1", "0x", " "] {
            assert_eq!(parse_f32(s.as_bytes()), None, "{s:?}");
            assert_eq!(parse_float(s.as_bytes()), None, "{s:?}");
        }
    }

    #[test]
    fn int_syntax() {
        assert_eq!(parse_int::<i32>(b" 12 "), Some(12));
        assert_eq!(parse_int::<i32>(b"+3"), Some(3));
        assert_eq!(parse_int::<i32>(b"007"), Some(7));
        assert_eq!(parse_int::<i32>(b"-2147483648"), Some(i32::MIN));
        assert_eq!(parse_int::<i64>(b"9223372036854775807"), Some(i64::MAX));
        for s in ["12.0", "0x10", "2147483648", "", "1e2", "+-3"] {
            assert_eq!(parse_int::<i32>(s.as_bytes()), None, "{s:?}");
        }
        assert_eq!(parse_int::<i64>(b"9223372036854775808"), None);
    }
}
