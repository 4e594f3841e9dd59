//! Protobuf's text format of a `GraphDef`, as `tf.io.write_graph(..., as_text=True)` and
//! `text_format.MessageToString` print it: fields in number order, defaults left out, two
//! spaces per level, bytes C-escaped, dtypes by their enum names.

use std::fmt::Write;

use super::proto::attr_value_proto::Value;
use super::proto::{AttrValueProto, GraphDef, ListValue, NodeDef, TensorProto, TensorShapeProto};
use crate::DType;

/// `def` in protobuf's text format.
pub fn to_text(def: &GraphDef) -> String {
    let mut p = Printer::default();
    for n in &def.node {
        p.open("node");
        node(&mut p, n);
        p.close();
    }
    if let Some(v) = &def.versions {
        p.open("versions");
        if v.producer != 0 {
            p.field("producer", v.producer);
        }
        if v.min_consumer != 0 {
            p.field("min_consumer", v.min_consumer);
        }
        p.close();
    }
    p.out
}

/// One `NodeDef` in protobuf's text format, as Python prints an `Operation` (`str(op)`), which
/// TensorFlow's error messages quote.
pub fn node_def_to_text(n: &NodeDef) -> String {
    let mut p = Printer::default();
    node(&mut p, n);
    p.out
}

#[derive(Default)]
struct Printer {
    out: String,
    depth: usize,
}

impl Printer {
    fn indent(&mut self) {
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
    }

    fn open(&mut self, name: &str) {
        self.indent();
        let _ = writeln!(self.out, "{name} {{");
        self.depth += 1;
    }

    fn close(&mut self) {
        self.depth -= 1;
        self.indent();
        self.out.push_str("}\n");
    }

    fn field(&mut self, name: &str, value: impl std::fmt::Display) {
        self.indent();
        let _ = writeln!(self.out, "{name}: {value}");
    }

    fn bytes(&mut self, name: &str, value: &[u8]) {
        self.field(name, format_args!("\"{}\"", escape(value)));
    }
}

/// C-style escaping as protobuf's `CEscape`: printable ASCII as is, quotes and backslashes
/// escaped, `\n`, `\r` and `\t` by name, any other byte as three octal digits.
fn escape(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            b'"' => s.push_str("\\\""),
            b'\'' => s.push_str("\\'"),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(b as char),
            _ => {
                let _ = write!(s, "\\{b:03o}");
            }
        }
    }
    s
}

/// The shortest text that reads back as the same number, with an exponent for very small and
/// very large magnitudes, as protobuf prints floats.
fn float<T: std::fmt::Display + std::fmt::LowerExp + Into<f64> + Copy>(v: T) -> String {
    let x: f64 = v.into();
    if x.is_nan() {
        "nan".to_string()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_string()
    } else if x != 0.0 && (x.abs() < 1e-4 || x.abs() >= 1e16) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// TensorFlow's name of a `DataType` number (the number itself for one weir does not know).
fn dtype_name(n: i32) -> String {
    DType::from_proto_number(n).map_or_else(|| n.to_string(), |d| d.proto_name().to_string())
}

fn node(p: &mut Printer, n: &NodeDef) {
    p.bytes("name", n.name.as_bytes());
    p.bytes("op", n.op.as_bytes());
    for i in &n.input {
        p.bytes("input", i.as_bytes());
    }
    if !n.device.is_empty() {
        p.bytes("device", n.device.as_bytes());
    }
    for (k, v) in &n.attr {
        p.open("attr");
        p.bytes("key", k.as_bytes());
        p.open("value");
        attr(p, v);
        p.close();
        p.close();
    }
}

fn attr(p: &mut Printer, v: &AttrValueProto) {
    match &v.value {
        None => {}
        Some(Value::List(l)) => {
            p.open("list");
            list(p, l);
            p.close();
        }
        Some(Value::S(s)) => p.bytes("s", s),
        Some(Value::I(i)) => p.field("i", i),
        Some(Value::F(f)) => p.field("f", float(*f)),
        Some(Value::B(b)) => p.field("b", b),
        Some(Value::Type(t)) => p.field("type", dtype_name(*t)),
        Some(Value::Shape(s)) => shape(p, "shape", s),
        Some(Value::Tensor(t)) => tensor(p, t),
        Some(Value::Placeholder(name)) => p.bytes("placeholder", name.as_bytes()),
        Some(Value::Func(f)) => {
            p.open("func");
            p.bytes("name", f.name.as_bytes());
            p.close();
        }
    }
}

fn list(p: &mut Printer, l: &ListValue) {
    for s in &l.s {
        p.bytes("s", s);
    }
    for i in &l.i {
        p.field("i", i);
    }
    for f in &l.f {
        p.field("f", float(*f));
    }
    for b in &l.b {
        p.field("b", b);
    }
    for t in &l.r#type {
        p.field("type", dtype_name(*t));
    }
    for s in &l.shape {
        shape(p, "shape", s);
    }
}

fn shape(p: &mut Printer, name: &str, s: &TensorShapeProto) {
    p.open(name);
    for d in &s.dim {
        p.open("dim");
        if d.size != 0 {
            p.field("size", d.size);
        }
        p.close();
    }
    if s.unknown_rank {
        p.field("unknown_rank", true);
    }
    p.close();
}

fn tensor(p: &mut Printer, t: &TensorProto) {
    p.open("tensor");
    if t.dtype != 0 {
        p.field("dtype", dtype_name(t.dtype));
    }
    if let Some(s) = &t.tensor_shape {
        shape(p, "tensor_shape", s);
    }
    if !t.tensor_content.is_empty() {
        p.bytes("tensor_content", &t.tensor_content);
    }
    for v in &t.float_val {
        p.field("float_val", float(*v));
    }
    for v in &t.double_val {
        p.field("double_val", float(*v));
    }
    for v in &t.int_val {
        p.field("int_val", v);
    }
    for v in &t.string_val {
        p.bytes("string_val", v);
    }
    for v in &t.int64_val {
        p.field("int64_val", v);
    }
    for v in &t.bool_val {
        p.field("bool_val", v);
    }
    for v in &t.scomplex_val {
        p.field("scomplex_val", float(*v));
    }
    for v in &t.dcomplex_val {
        p.field("dcomplex_val", float(*v));
    }
    for v in &t.half_val {
        p.field("half_val", v);
    }
    for v in &t.uint32_val {
        p.field("uint32_val", v);
    }
    for v in &t.uint64_val {
        p.field("uint64_val", v);
    }
    p.close();
}

#[cfg(test)]
mod tests {
    use super::{escape, float};

    #[test]
    fn bytes_and_floats_print_as_protobuf_prints_them() {
        assert_eq!(
            escape(b"\x00\x00\x80?a\"'\\\n\t\xff"),
            "\\000\\000\\200?a\\\"\\'\\\\\\n\\t\\377"
        );
        assert_eq!(float(2.0f32), "2");
        assert_eq!(float(0.1f32), "0.1");
        assert_eq!(float(1e-10f32), "1e-10");
        assert_eq!(float(-2.5f64), "-2.5");
        assert_eq!(float(f32::INFINITY), "inf");
        assert_eq!(float(f32::NAN), "nan");
    }
}
