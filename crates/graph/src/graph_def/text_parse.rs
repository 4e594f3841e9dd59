//! Reads a `GraphDef` in protobuf's text format (`graph.pbtxt`, TensorFlow's default for
//! `write_graph`): `text_format.Parse` for the messages a GraphDef holds.

use bytes::Bytes;

use super::proto::attr_value_proto::Value;
use super::proto::{
    tensor_shape_proto, AttrValueProto, GraphDef, ListValue, NodeDef, TensorProto,
    TensorShapeProto, VersionDef,
};
use crate::{Error, Result};

/// One token, with where it starts (line, column) for errors.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Str(Vec<u8>),
    Num(String),
    Punct(char),
}

/// A parsed field value: a scalar token or a nested message.
enum Field {
    Scalar(Tok, (usize, usize)),
    Message(Vec<(String, Field)>),
}

fn err(at: (usize, usize), msg: impl std::fmt::Display) -> Error {
    Error::invalid_argument(format!(
        "Text GraphDef, line {} column {}: {msg}",
        at.0, at.1
    ))
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
    line: usize,
    col: usize,
}

impl Lexer<'_> {
    fn bump(&mut self) -> u8 {
        let c = self.s[self.i];
        self.i += 1;
        if c == b'\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        c
    }

    fn tokens(mut self) -> Result<Vec<(Tok, (usize, usize))>> {
        let mut out = Vec::new();
        while self.i < self.s.len() {
            let at = (self.line, self.col);
            let c = self.s[self.i];
            match c {
                b' ' | b'\t' | b'\r' | b'\n' | b',' | b';' => {
                    self.bump();
                }
                b'#' => {
                    while self.i < self.s.len() && self.s[self.i] != b'\n' {
                        self.bump();
                    }
                }
                b'{' | b'}' | b'<' | b'>' | b':' | b'[' | b']' => {
                    self.bump();
                    out.push((Tok::Punct(c as char), at));
                }
                b'"' | b'\'' => {
                    let s = self.string(at)?;
                    // Adjacent strings are one value, as in C.
                    match out.last_mut() {
                        Some((Tok::Str(prev), _)) => prev.extend(s),
                        _ => out.push((Tok::Str(s), at)),
                    }
                }
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    let start = self.i;
                    while self.i < self.s.len()
                        && (self.s[self.i].is_ascii_alphanumeric()
                            || matches!(self.s[self.i], b'_' | b'.'))
                    {
                        self.bump();
                    }
                    let word = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                    out.push((Tok::Ident(word), at));
                }
                c if c.is_ascii_digit() || c == b'-' || c == b'.' || c == b'+' => {
                    let start = self.i;
                    self.bump();
                    while self.i < self.s.len()
                        && (self.s[self.i].is_ascii_alphanumeric()
                            || matches!(self.s[self.i], b'.' | b'-' | b'+'))
                    {
                        self.bump();
                    }
                    let word = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                    out.push((Tok::Num(word), at));
                }
                other => return Err(err(at, format!("unexpected character {:?}", other as char))),
            }
        }
        Ok(out)
    }

    fn string(&mut self, at: (usize, usize)) -> Result<Vec<u8>> {
        let quote = self.bump();
        let mut v = Vec::new();
        loop {
            if self.i >= self.s.len() {
                return Err(err(at, "unterminated string"));
            }
            match self.bump() {
                c if c == quote => return Ok(v),
                b'\n' => return Err(err(at, "newline in a string")),
                b'\\' => {
                    if self.i >= self.s.len() {
                        return Err(err(at, "unterminated string"));
                    }
                    match self.bump() {
                        b'n' => v.push(b'\n'),
                        b'r' => v.push(b'\r'),
                        b't' => v.push(b'\t'),
                        b'a' => v.push(7),
                        b'b' => v.push(8),
                        b'f' => v.push(12),
                        b'v' => v.push(11),
                        b'x' | b'X' => {
                            let mut n = 0u32;
                            let mut digits = 0;
                            while digits < 2
                                && self.i < self.s.len()
                                && self.s[self.i].is_ascii_hexdigit()
                            {
                                n = n * 16 + (self.bump() as char).to_digit(16).unwrap_or(0);
                                digits += 1;
                            }
                            if digits == 0 {
                                return Err(err(at, "\\x without hex digits"));
                            }
                            v.push(n as u8);
                        }
                        d @ b'0'..=b'7' => {
                            let mut n = u32::from(d - b'0');
                            let mut digits = 1;
                            while digits < 3
                                && self.i < self.s.len()
                                && (b'0'..=b'7').contains(&self.s[self.i])
                            {
                                n = n * 8 + u32::from(self.bump() - b'0');
                                digits += 1;
                            }
                            if n > 255 {
                                return Err(err(at, "octal escape above \\377"));
                            }
                            v.push(n as u8);
                        }
                        c @ (b'"' | b'\'' | b'\\' | b'?') => v.push(c),
                        c => {
                            return Err(err(at, format!("unknown escape \\{}", c as char)));
                        }
                    }
                }
                c => v.push(c),
            }
        }
    }
}

/// How deep messages may nest, as protobuf's parsers allow.
const MAX_DEPTH: usize = 100;

struct Parser {
    toks: Vec<(Tok, (usize, usize))>,
    i: usize,
}

impl Parser {
    fn at(&self) -> (usize, usize) {
        self.toks
            .get(self.i)
            .or(self.toks.last())
            .map_or((1, 1), |t| t.1)
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.0)
    }

    fn next(&mut self) -> Result<(Tok, (usize, usize))> {
        let t = self
            .toks
            .get(self.i)
            .cloned()
            .ok_or_else(|| err(self.at(), "unexpected end of input"))?;
        self.i += 1;
        Ok(t)
    }

    /// Fields until `close` (or the end of input for the top level), `depth` messages deep.
    fn message(&mut self, close: Option<char>, depth: usize) -> Result<Vec<(String, Field)>> {
        // protobuf's own recursion limit: deeper input would only exhaust the stack.
        if depth > MAX_DEPTH {
            return Err(err(
                self.at(),
                format!("messages nested deeper than {MAX_DEPTH}"),
            ));
        }
        let mut fields = Vec::new();
        loop {
            match (self.peek(), close) {
                (None, None) => return Ok(fields),
                (None, Some(c)) => return Err(err(self.at(), format!("missing '{c}'"))),
                (Some(Tok::Punct(p)), Some(c)) if *p == c => {
                    self.i += 1;
                    return Ok(fields);
                }
                _ => {}
            }
            let (tok, at) = self.next()?;
            let Tok::Ident(name) = tok else {
                return Err(err(at, format!("expected a field name, found {tok:?}")));
            };
            let colon = self.peek() == Some(&Tok::Punct(':'));
            if colon {
                self.i += 1;
            }
            match self.peek() {
                Some(Tok::Punct(open @ ('{' | '<'))) => {
                    let close = if *open == '{' { '}' } else { '>' };
                    self.i += 1;
                    let m = self.message(Some(close), depth + 1)?;
                    fields.push((name, Field::Message(m)));
                }
                Some(Tok::Punct('[')) if colon => {
                    self.i += 1;
                    loop {
                        if self.peek() == Some(&Tok::Punct(']')) {
                            self.i += 1;
                            break;
                        }
                        let (v, at) = self.next()?;
                        if matches!(v, Tok::Punct(_)) {
                            return Err(err(at, format!("expected a value, found {v:?}")));
                        }
                        fields.push((name.clone(), Field::Scalar(v, at)));
                    }
                }
                _ if colon => {
                    let (v, at) = self.next()?;
                    if matches!(v, Tok::Punct(_)) {
                        return Err(err(at, format!("expected a value, found {v:?}")));
                    }
                    fields.push((name, Field::Scalar(v, at)));
                }
                _ => return Err(err(self.at(), format!("expected ':' or '{{' after {name}"))),
            }
        }
    }
}

fn scalar(f: &Field, name: &str) -> Result<(Tok, (usize, usize))> {
    match f {
        Field::Scalar(t, at) => Ok((t.clone(), *at)),
        Field::Message(_) => Err(Error::invalid_argument(format!(
            "Text GraphDef: field '{name}' should be a value, not a message"
        ))),
    }
}

fn message<'f>(f: &'f Field, name: &str) -> Result<&'f [(String, Field)]> {
    match f {
        Field::Message(m) => Ok(m),
        Field::Scalar(_, at) => Err(err(*at, format!("field '{name}' should be a message"))),
    }
}

fn unknown(name: &str, f: &Field, within: &str) -> Error {
    let at = match f {
        Field::Scalar(_, at) => *at,
        Field::Message(_) => (0, 0),
    };
    let msg = format!("{within} has no field named \"{name}\"");
    if at.0 == 0 {
        Error::invalid_argument(format!("Text GraphDef: {msg}"))
    } else {
        err(at, msg)
    }
}

fn string(f: &Field, name: &str) -> Result<Bytes> {
    match scalar(f, name)? {
        (Tok::Str(s), _) => Ok(Bytes::from(s)),
        (t, at) => Err(err(
            at,
            format!("field '{name}' expects a string, found {t:?}"),
        )),
    }
}

fn utf8(f: &Field, name: &str) -> Result<String> {
    String::from_utf8(string(f, name)?.to_vec())
        .map_err(|_| Error::invalid_argument(format!("Text GraphDef: '{name}' is not UTF-8")))
}

fn int(f: &Field, name: &str) -> Result<i64> {
    let (t, at) = scalar(f, name)?;
    let Tok::Num(s) = &t else {
        return Err(err(
            at,
            format!("field '{name}' expects an integer, found {t:?}"),
        ));
    };
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => i64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    };
    parsed.ok_or_else(|| err(at, format!("field '{name}': '{s}' is not an integer")))
}

/// A `uint64` field: its values above `i64::MAX` do not fit [`int`].
fn uint64(f: &Field, name: &str) -> Result<u64> {
    let (t, at) = scalar(f, name)?;
    let Tok::Num(s) = &t else {
        return Err(err(
            at,
            format!("field '{name}' expects an integer, found {t:?}"),
        ));
    };
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    };
    parsed.ok_or_else(|| err(at, format!("field '{name}': '{s}' is not a uint64")))
}

fn float(f: &Field, name: &str) -> Result<f64> {
    let (t, at) = scalar(f, name)?;
    let s = match &t {
        Tok::Num(s) | Tok::Ident(s) => s.to_ascii_lowercase(),
        _ => {
            return Err(err(
                at,
                format!("field '{name}' expects a number, found {t:?}"),
            ))
        }
    };
    match s.as_str() {
        "inf" | "infinity" | "inff" => Ok(f64::INFINITY),
        "-inf" | "-infinity" | "-inff" => Ok(f64::NEG_INFINITY),
        "nan" | "-nan" | "nanf" => Ok(f64::NAN),
        // C's float suffix, which the text format allows.
        _ => s
            .strip_suffix('f')
            .unwrap_or(&s)
            .parse()
            .map_err(|_| err(at, format!("field '{name}': '{s}' is not a number"))),
    }
}

fn boolean(f: &Field, name: &str) -> Result<bool> {
    match scalar(f, name)? {
        (Tok::Ident(s), _) if s == "true" || s == "True" || s == "t" => Ok(true),
        (Tok::Ident(s), _) if s == "false" || s == "False" || s == "f" => Ok(false),
        (Tok::Num(s), _) if s == "1" => Ok(true),
        (Tok::Num(s), _) if s == "0" => Ok(false),
        (t, at) => Err(err(
            at,
            format!("field '{name}' expects true or false, found {t:?}"),
        )),
    }
}

/// A `DataType` given by name (`DT_FLOAT`) or number.
fn data_type(f: &Field, name: &str) -> Result<i32> {
    match scalar(f, name)? {
        (Tok::Num(_), _) => Ok(int(f, name)? as i32),
        (Tok::Ident(s), at) => {
            let n = match s.as_str() {
                "DT_INVALID" => 0,
                "DT_FLOAT" => 1,
                "DT_DOUBLE" => 2,
                "DT_INT32" => 3,
                "DT_UINT8" => 4,
                "DT_INT16" => 5,
                "DT_INT8" => 6,
                "DT_STRING" => 7,
                "DT_COMPLEX64" => 8,
                "DT_INT64" => 9,
                "DT_BOOL" => 10,
                "DT_QINT8" => 11,
                "DT_QUINT8" => 12,
                "DT_QINT32" => 13,
                "DT_BFLOAT16" => 14,
                "DT_QINT16" => 15,
                "DT_QUINT16" => 16,
                "DT_UINT16" => 17,
                "DT_COMPLEX128" => 18,
                "DT_HALF" => 19,
                "DT_RESOURCE" => 20,
                "DT_VARIANT" => 21,
                "DT_UINT32" => 22,
                "DT_UINT64" => 23,
                other => return Err(err(at, format!("unknown DataType {other}"))),
            };
            Ok(n)
        }
        (t, at) => Err(err(
            at,
            format!("field '{name}' expects a DataType, found {t:?}"),
        )),
    }
}

fn shape(fields: &[(String, Field)]) -> Result<TensorShapeProto> {
    let mut s = TensorShapeProto::default();
    for (k, v) in fields {
        match k.as_str() {
            "dim" => {
                let mut d = tensor_shape_proto::Dim::default();
                for (dk, dv) in message(v, k)? {
                    match dk.as_str() {
                        "size" => d.size = int(dv, dk)?,
                        // A dimension's name has no place in weir's shapes.
                        "name" => {
                            utf8(dv, dk)?;
                        }
                        _ => return Err(unknown(dk, dv, "TensorShapeProto.Dim")),
                    }
                }
                s.dim.push(d);
            }
            "unknown_rank" => s.unknown_rank = boolean(v, k)?,
            _ => return Err(unknown(k, v, "TensorShapeProto")),
        }
    }
    Ok(s)
}

fn tensor(fields: &[(String, Field)]) -> Result<TensorProto> {
    let mut t = TensorProto::default();
    for (k, v) in fields {
        match k.as_str() {
            "dtype" => t.dtype = data_type(v, k)?,
            "tensor_shape" => t.tensor_shape = Some(shape(message(v, k)?)?),
            "version_number" => {
                int(v, k)?;
            }
            "tensor_content" => t.tensor_content = string(v, k)?,
            "float_val" => t.float_val.push(float(v, k)? as f32),
            "double_val" => t.double_val.push(float(v, k)?),
            "int_val" => t.int_val.push(int(v, k)? as i32),
            "string_val" => t.string_val.push(string(v, k)?),
            "int64_val" => t.int64_val.push(int(v, k)?),
            "bool_val" => t.bool_val.push(boolean(v, k)?),
            "scomplex_val" => t.scomplex_val.push(float(v, k)? as f32),
            "dcomplex_val" => t.dcomplex_val.push(float(v, k)?),
            "half_val" => t.half_val.push(int(v, k)? as i32),
            "uint32_val" => t.uint32_val.push(int(v, k)? as u32),
            "uint64_val" => t.uint64_val.push(uint64(v, k)?),
            _ => return Err(unknown(k, v, "TensorProto")),
        }
    }
    Ok(t)
}

fn list(fields: &[(String, Field)]) -> Result<ListValue> {
    let mut l = ListValue::default();
    for (k, v) in fields {
        match k.as_str() {
            "s" => l.s.push(string(v, k)?),
            "i" => l.i.push(int(v, k)?),
            "f" => l.f.push(float(v, k)? as f32),
            "b" => l.b.push(boolean(v, k)?),
            "type" => l.r#type.push(data_type(v, k)?),
            "shape" => l.shape.push(shape(message(v, k)?)?),
            _ => return Err(unknown(k, v, "AttrValue.ListValue")),
        }
    }
    Ok(l)
}

fn attr_value(fields: &[(String, Field)]) -> Result<AttrValueProto> {
    let mut value = None;
    for (k, v) in fields {
        value = Some(match k.as_str() {
            "list" => Value::List(list(message(v, k)?)?),
            "s" => Value::S(string(v, k)?),
            "i" => Value::I(int(v, k)?),
            "f" => Value::F(float(v, k)? as f32),
            "b" => Value::B(boolean(v, k)?),
            "type" => Value::Type(data_type(v, k)?),
            "shape" => Value::Shape(shape(message(v, k)?)?),
            "tensor" => Value::Tensor(tensor(message(v, k)?)?),
            _ => return Err(unknown(k, v, "AttrValue")),
        });
    }
    Ok(AttrValueProto { value })
}

fn node(fields: &[(String, Field)]) -> Result<NodeDef> {
    let mut n = NodeDef::default();
    for (k, v) in fields {
        match k.as_str() {
            "name" => n.name = utf8(v, k)?,
            "op" => n.op = utf8(v, k)?,
            "input" => n.input.push(utf8(v, k)?),
            "device" => n.device = utf8(v, k)?,
            "attr" => {
                let (mut key, mut value) = (None, AttrValueProto::default());
                for (ek, ev) in message(v, k)? {
                    match ek.as_str() {
                        "key" => key = Some(utf8(ev, ek)?),
                        "value" => value = attr_value(message(ev, ek)?)?,
                        _ => return Err(unknown(ek, ev, "NodeDef.AttrEntry")),
                    }
                }
                let key = key.ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "Text GraphDef: an attr of node '{}' has no key",
                        n.name
                    ))
                })?;
                n.attr.insert(key, value);
            }
            // Type and debug annotations TensorFlow adds; weir's binary reader skips them too.
            "experimental_type" | "experimental_debug_info" => {
                message(v, k)?;
            }
            _ => return Err(unknown(k, v, "NodeDef")),
        }
    }
    Ok(n)
}

/// A `GraphDef` from protobuf's text format; InvalidArgument naming the line and column of
/// the first thing that is not one. Function libraries are not read (weir has no functions).
///
/// ```
/// # use weir_graph::graph_def::{parse_text, to_text};
/// let def = parse_text("node { name: \"c\" op: \"Const\" } versions { producer: 2474 }")?;
/// assert_eq!(def.node[0].name, "c");
/// assert_eq!(parse_text(&to_text(&def))?, def);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn parse_text(text: &str) -> Result<GraphDef> {
    let toks = Lexer {
        s: text.as_bytes(),
        i: 0,
        line: 1,
        col: 1,
    }
    .tokens()?;
    let fields = Parser { toks, i: 0 }.message(None, 0)?;
    let mut def = GraphDef::default();
    for (k, v) in &fields {
        match k.as_str() {
            "node" => def.node.push(node(message(v, k)?)?),
            "versions" => {
                let mut ver = VersionDef::default();
                for (vk, vv) in message(v, k)? {
                    match vk.as_str() {
                        "producer" => ver.producer = int(vv, vk)? as i32,
                        "min_consumer" => ver.min_consumer = int(vv, vk)? as i32,
                        "bad_consumers" => {
                            int(vv, vk)?;
                        }
                        _ => return Err(unknown(vk, vv, "VersionDef")),
                    }
                }
                def.versions = Some(ver);
            }
            // The deprecated single version number.
            "version" => {
                int(v, k)?;
            }
            "library" => {
                if !message(v, k)?.is_empty() {
                    return Err(Error::unimplemented(
                        "Text GraphDef: function libraries are not supported by weir",
                    ));
                }
            }
            _ => return Err(unknown(k, v, "GraphDef")),
        }
    }
    Ok(def)
}
