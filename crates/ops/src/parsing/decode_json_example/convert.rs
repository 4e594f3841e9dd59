//! JSON to binary `tf.train.Example`, as protobuf's `JsonToBinaryStream` does it for
//! TensorFlow: the wire format is written while the JSON is read, so fields come out in the
//! order the JSON gives them (map entries are not sorted), a field given twice is written
//! twice, and repeated numbers are written unpacked, one tag per value.

use std::collections::HashSet;

use super::lexer::{Kind, Lexer, Loc, PResult};

/// The messages of `example.proto` and `feature.proto` that an Example holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Msg {
    Example,
    Features,
    Feature,
    BytesList,
    FloatList,
    Int64List,
}

/// The value types of the lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scalar {
    Bytes,
    Float,
    Int64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Message(Msg),
    Map,
    Repeated(Scalar),
}

/// A field: its number, its type, and whether it is part of `Feature`'s `oneof kind`.
struct Field {
    number: u32,
    ty: Ty,
    oneof: bool,
}

/// The field `name` (JSON name or proto name, as protobuf's resolver accepts both).
fn field(msg: Msg, name: &str) -> Option<Field> {
    let (number, ty, oneof) = match (msg, name) {
        (Msg::Example, "features") => (1, Ty::Message(Msg::Features), false),
        (Msg::Features, "feature") => (1, Ty::Map, false),
        (Msg::Feature, "bytesList" | "bytes_list") => (1, Ty::Message(Msg::BytesList), true),
        (Msg::Feature, "floatList" | "float_list") => (2, Ty::Message(Msg::FloatList), true),
        (Msg::Feature, "int64List" | "int64_list") => (3, Ty::Message(Msg::Int64List), true),
        (Msg::BytesList, "value") => (1, Ty::Repeated(Scalar::Bytes), false),
        (Msg::FloatList, "value") => (1, Ty::Repeated(Scalar::Float), false),
        (Msg::Int64List, "value") => (1, Ty::Repeated(Scalar::Int64), false),
        _ => return None,
    };
    Some(Field { number, ty, oneof })
}

/// How an error's message path names a field's type (`FieldDescriptor::TypeName` and the
/// message's full name).
fn path_names(ty: Ty) -> (&'static str, &'static str) {
    match ty {
        Ty::Message(Msg::Features) => ("message", "tensorflow.Features"),
        Ty::Message(Msg::BytesList) => ("message", "tensorflow.BytesList"),
        Ty::Message(Msg::FloatList) => ("message", "tensorflow.FloatList"),
        Ty::Message(Msg::Int64List) => ("message", "tensorflow.Int64List"),
        Ty::Message(_) => ("message", ""),
        Ty::Map => ("message", "tensorflow.Features.FeatureEntry"),
        Ty::Repeated(Scalar::Bytes) => ("bytes", ""),
        Ty::Repeated(Scalar::Float) => ("float", ""),
        Ty::Repeated(Scalar::Int64) => ("int64", ""),
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_len(out: &mut Vec<u8>, number: u32, data: &[u8]) {
    put_varint(out, u64::from(number << 3 | 2));
    put_varint(out, data.len() as u64);
    out.extend_from_slice(data);
}

/// One value of a list, as its field's record.
enum Value {
    Bytes(Vec<u8>),
    Float(f32),
    Int64(i64),
}

fn put_value(out: &mut Vec<u8>, v: Value) {
    match v {
        Value::Bytes(b) => put_len(out, 1, &b),
        Value::Float(f) => {
            out.push(0x0d);
            out.extend_from_slice(&f.to_le_bytes());
        }
        Value::Int64(i) => {
            out.push(0x08);
            put_varint(out, i as u64);
        }
    }
}

/// absl's `SimpleAtod`: ASCII whitespace around, one leading `+`, decimal or hexadecimal
/// (`0x`) numbers, `inf`, `infinity`, `nan` and `nan(...)` in any case; out-of-range values
/// become infinities.
pub(super) fn simple_atod(s: &str) -> Option<f64> {
    let mut s = s.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\x0b');
    if let Some(rest) = s.strip_prefix('+') {
        if rest.starts_with(['+', '-']) {
            return None;
        }
        s = rest;
    }
    let (neg, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let sign = if neg { -1.0 } else { 1.0 };
    let lower = body.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        return hex_float(hex).map(|v| sign * v);
    }
    if lower == "nan"
        || (lower.starts_with("nan(")
            && lower.ends_with(')')
            && lower[4..lower.len() - 1]
                .bytes()
                .all(|c| c == b'_' || c.is_ascii_alphanumeric()))
    {
        return Some(if neg { -f64::NAN } else { f64::NAN });
    }
    if body.starts_with(['+', '-']) {
        return None;
    }
    body.parse::<f64>().ok().map(|v| sign * v)
}

/// The digits of a hexadecimal float after `0x`: hex digits with an optional point, then an
/// optional binary exponent `p[+-]digits`.
fn hex_float(s: &str) -> Option<f64> {
    let (mant, exp) = match s.split_once('p') {
        Some((m, e)) => (m, Some(e)),
        None => (s, None),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut v = 0f64;
    let mut scale = 0i32;
    for (i, c) in int.chars().chain(frac.chars()).enumerate() {
        v = v * 16.0 + f64::from(c.to_digit(16)?);
        if i >= int.len() {
            scale -= 4;
        }
    }
    let e: i32 = match exp {
        Some(e) => {
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            e.parse::<i32>().unwrap_or(if e.starts_with('-') {
                -100_000
            } else {
                100_000
            })
        }
        None => 0,
    };
    Some(v * 2f64.powi(scale.saturating_add(e)))
}

/// absl's `SimpleAtoi` for int64: optional sign and decimal digits, whitespace around.
fn simple_atoi(s: &str) -> Option<i64> {
    s.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\x0b')
        .parse()
        .ok()
}

/// `ParseFloatStringAsInt`: an integral double within +-2^53.
fn float_string_as_int(lex: &Lexer<'_>, text: &str, loc: Loc) -> PResult<i64> {
    let d = match simple_atod(text) {
        Some(d) if d.is_finite() => d,
        _ => return Err(lex.invalid_at(loc, &format!("invalid number: '{text}'"))),
    };
    const LIMIT: f64 = 9_007_199_254_740_992.0;
    if !(-LIMIT..=LIMIT).contains(&d) {
        return Err(lex.invalid_at(loc, "JSON number out of range for int"));
    }
    let v = d as i64;
    if d - v as f64 != 0.0 {
        return Err(lex.invalid_at(loc, "expected integer, but JSON number had fractional part"));
    }
    Ok(v)
}

fn parse_int(lex: &mut Lexer<'_>) -> PResult<i64> {
    match lex.peek_kind()? {
        Kind::Num => {
            let (text, loc) = lex.parse_raw_number()?;
            match simple_atoi(&text) {
                Some(v) => Ok(v),
                None => float_string_as_int(lex, &text, loc),
            }
        }
        Kind::Str => {
            let (s, loc) = lex.parse_utf8()?;
            if s.bytes().any(|c| c.is_ascii_whitespace() || c == 0x0b) {
                return Err(lex.invalid("non-number characters in quoted number"));
            }
            match simple_atoi(&s) {
                Some(v) => Ok(v),
                None => float_string_as_int(lex, &s, loc),
            }
        }
        _ => Err(lex.invalid("expected number or string")),
    }
}

fn parse_float(lex: &mut Lexer<'_>) -> PResult<f32> {
    let d = match lex.peek_kind()? {
        // The number's text was checked to be a finite double.
        Kind::Num => simple_atod(&lex.parse_raw_number()?.0).unwrap_or(0.0),
        Kind::Str => {
            let (s, loc) = lex.parse_utf8()?;
            match s.as_str() {
                "NaN" => f64::NAN,
                "Infinity" => f64::INFINITY,
                "-Infinity" => f64::NEG_INFINITY,
                _ => simple_atod(&s)
                    .ok_or_else(|| lex.invalid_at(loc, "non-number characters in quoted number"))?,
            }
        }
        _ => return Err(lex.invalid("expected number or string")),
    };
    if d.is_finite() && !(d as f32).is_finite() {
        return Err(lex.invalid("float out of range"));
    }
    Ok(d as f32)
}

/// protobuf's `DecodeBase64InPlace`: standard or URL-safe alphabet, padding optional.
fn decode_base64(s: &[u8]) -> Option<Vec<u8>> {
    fn lookup(c: u8) -> i32 {
        match c {
            b'A'..=b'Z' => i32::from(c - b'A'),
            b'a'..=b'z' => i32::from(c - b'a') + 26,
            b'0'..=b'9' => i32::from(c - b'0') + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => -1,
        }
    }
    let mut out = Vec::with_capacity(s.len() / 4 * 3 + 2);
    let mut end = s.len();
    let end4 = s.len() & !3;
    let mut p = 0;
    while p < end4 {
        let v =
            lookup(s[p]) << 18 | lookup(s[p + 1]) << 12 | lookup(s[p + 2]) << 6 | lookup(s[p + 3]);
        if v < 0 {
            if end - p == 4 && s[p + 3] == b'=' {
                end -= if s[p + 2] == b'=' { 2 } else { 1 };
            }
            break;
        }
        out.extend_from_slice(&[(v >> 16) as u8, (v >> 8) as u8, v as u8]);
        p += 4;
    }
    if p < end {
        let v = match end - p {
            2 => {
                let v = lookup(s[p]) << 18 | lookup(s[p + 1]) << 12;
                out.push((v >> 16) as u8);
                v
            }
            3 => {
                let v = lookup(s[p]) << 18 | lookup(s[p + 1]) << 12 | lookup(s[p + 2]) << 6;
                out.extend_from_slice(&[(v >> 16) as u8, (v >> 8) as u8]);
                v
            }
            _ => -1,
        };
        if v < 0 {
            return None;
        }
    }
    Some(out)
}

fn parse_scalar(lex: &mut Lexer<'_>, ty: Scalar) -> PResult<Value> {
    Ok(match ty {
        Scalar::Float => Value::Float(parse_float(lex)?),
        Scalar::Int64 => Value::Int64(parse_int(lex)?),
        Scalar::Bytes => {
            let (s, loc) = lex.parse_utf8()?;
            Value::Bytes(
                decode_base64(s.as_bytes()).ok_or_else(|| lex.invalid_at(loc, "corrupt base64"))?,
            )
        }
    })
}

/// `ParseSingular`: `null` writes nothing; a message is written as a length-delimited record.
fn parse_singular(lex: &mut Lexer<'_>, number: u32, ty: Ty, out: &mut Vec<u8>) -> PResult<()> {
    if lex.peek_is(Kind::Null) {
        return lex.expect("null");
    }
    match ty {
        Ty::Message(msg) => {
            let body = parse_message(lex, msg)?;
            put_len(out, number, &body);
        }
        Ty::Repeated(s) => put_value(out, parse_scalar(lex, s)?),
        Ty::Map => unreachable!("maps go through parse_map"),
    }
    Ok(())
}

/// `ParseArray` in legacy mode: `null` elements are zero values and nested arrays are
/// flattened into the list.
fn parse_array(lex: &mut Lexer<'_>, ty: Scalar, out: &mut Vec<u8>) -> PResult<()> {
    if lex.peek_is(Kind::Null) {
        return lex.expect("null");
    }
    lex.visit_array(|lex| {
        lex.next_repeated();
        if lex.peek_is(Kind::Null) {
            lex.expect("null")?;
            put_value(
                out,
                match ty {
                    Scalar::Bytes => Value::Bytes(Vec::new()),
                    Scalar::Float => Value::Float(0.0),
                    Scalar::Int64 => Value::Int64(0),
                },
            );
            return Ok(());
        }
        if lex.peek_is(Kind::Arr) {
            return parse_array(lex, ty, out);
        }
        put_value(out, parse_scalar(lex, ty)?);
        Ok(())
    })
}

/// `ParseMap` for `Features.feature`: each key once, each entry a record of key and value.
fn parse_map(lex: &mut Lexer<'_>, out: &mut Vec<u8>) -> PResult<()> {
    if lex.peek_is(Kind::Null) {
        return lex.expect("null");
    }
    let mut seen = HashSet::new();
    lex.visit_object(|lex, key, loc| {
        lex.next_repeated();
        if !seen.insert(key.clone()) {
            return Err(lex.invalid_at(
                loc,
                &format!("got unexpectedly-repeated repeated map key: '{key}'"),
            ));
        }
        let mut entry = Vec::new();
        put_len(&mut entry, 1, key.as_bytes());
        parse_singular(lex, 2, Ty::Message(Msg::Feature), &mut entry)?;
        put_len(out, 1, &entry);
        Ok(())
    })
}

/// `ParseMessage`: an object of `msg`'s fields.
fn parse_message(lex: &mut Lexer<'_>, msg: Msg) -> PResult<Vec<u8>> {
    let mut out = Vec::new();
    let mut kind_set = false;
    lex.visit_object(|lex, name, _| {
        let Some(f) = field(msg, &name) else {
            return Err(lex.invalid(&format!("no such field: '{name}'")));
        };
        let (kind, type_name) = path_names(f.ty);
        lex.push_path(&name, kind, type_name);
        if f.oneof && kind_set && !lex.peek_is(Kind::Null) {
            return Err(lex.invalid(&format!(
                "'{name}' has already been set (either directly or as part of a oneof)"
            )));
        }
        match f.ty {
            Ty::Map => parse_map(lex, &mut out)?,
            Ty::Repeated(s) if lex.peek_is(Kind::Arr) => parse_array(lex, s, &mut out)?,
            ty => {
                let before = out.len();
                parse_singular(lex, f.number, ty, &mut out)?;
                kind_set |= f.oneof && out.len() > before;
            }
        }
        lex.pop_path();
        Ok(())
    })?;
    Ok(out)
}

/// One JSON `tf.train.Example` as its binary proto; an error's text follows
/// `Error while parsing JSON: `.
pub(super) fn json_to_example(json: &[u8]) -> PResult<Vec<u8>> {
    let mut lex = Lexer::new(json);
    let out = parse_message(&mut lex, Msg::Example)?;
    if !lex.at_eof() {
        return Err("extraneous characters after end of JSON object".to_string());
    }
    Ok(out)
}
