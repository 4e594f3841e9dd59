//! `Substr` and `StringLength`, counting bytes or UTF-8 characters.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, Bytes, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::{map_strings, same_shape, IntArg, Unit};
use crate::math::broadcast_shapes;

/// `tf.strings.length(input, unit)`: the length of each string in bytes or UTF-8 characters,
/// as int32.
pub fn string_length(input: impl Into<Output>, unit: Unit) -> Result<Output> {
    let input = input.into();
    crate::new_op(input.graph(), "StringLength")
        .input(input)
        .attr("unit", unit.attr())
        .build()?
        .output(0)
}

/// The number of UTF-8 characters: bytes that do not continue a character.
fn utf8_len(s: &[u8]) -> usize {
    s.iter().filter(|&&b| b & 0xc0 != 0x80).count()
}

/// `tf.strings.substr(input, pos, len)` counting bytes. See [`Substr`].
pub fn substr(
    input: impl Into<Output>,
    pos: impl Into<IntArg>,
    len: impl Into<IntArg>,
) -> Result<Output> {
    Substr::new().build(input, pos, len)
}

/// The options of `tf.strings.substr(input, pos, len, unit='BYTE')`: for each string the
/// piece of `len` units starting at `pos`. A negative `pos` counts from the end; `pos` past
/// the end fails with InvalidArgument "pos 6 out of range for string b'hello' at index 0"; the
/// piece stops at the end of the string (counting bytes a negative `len` takes the rest;
/// counting characters, as TensorFlow, it takes nothing after a non-negative `pos`, and
/// continuation bytes count with the byte before them, leading ones as one character). `pos`
/// and `len` have one shape: a scalar, the input's shape, or one that broadcasts with it.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, string::{substr, Substr, Unit}};
/// let g = Graph::new();
/// let words = constant(&g, ["hello", "world"])?;
/// let mid = substr(&words, 1, 3)?; // ["ell", "orl"]
/// let chars = Substr::new().unit(Unit::Utf8Char).build(&words, -2, 2)?; // ["lo", "ld"]
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Substr {
    unit: Unit,
}

impl Substr {
    /// Counting bytes.
    pub fn new() -> Substr {
        Substr::default()
    }

    /// What `pos` and `len` count.
    pub fn unit(mut self, unit: Unit) -> Self {
        self.unit = unit;
        self
    }

    /// Adds the node; fixed `pos`/`len` become int32 constants (int64 when the other one is
    /// an int64 tensor).
    pub fn build(
        self,
        input: impl Into<Output>,
        pos: impl Into<IntArg>,
        len: impl Into<IntArg>,
    ) -> Result<Output> {
        let input = input.into();
        let (pos, len) = (pos.into(), len.into());
        let g = input.graph().clone();
        let dtype = pos.dtype().or(len.dtype()).unwrap_or(DType::I32);
        crate::new_op(&g, "Substr")
            .input(input)
            .input(pos.to_output(&g, dtype)?)
            .input(len.to_output(&g, dtype)?)
            .attr("unit", self.unit.attr())
            .build()?
            .output(0)
    }
}

/// The piece of `s` for `pos`/`len`, or None when `pos` is out of range.
fn piece(s: &Bytes, pos: i64, len: i64, unit: Unit) -> Option<Bytes> {
    match unit {
        Unit::Byte => {
            let n = s.len() as i64;
            let p = if pos < 0 { pos + n } else { pos };
            if p < 0 || p > n {
                return None;
            }
            let end = if len < 0 {
                n
            } else {
                p.saturating_add(len).min(n)
            };
            Some(s.slice(p as usize..end as usize))
        }
        Unit::Utf8Char => {
            // TensorFlow's UpdatePositiveUtf8 / UpdateNegativeUtf8: a character is a byte and
            // the continuation bytes after it (so leading continuation bytes form one), and a
            // negative `len` after a non-negative `pos` takes nothing.
            let (start, end) = if pos >= 0 {
                let mut start = 0;
                if !forward_chars(s, pos, &mut start) {
                    return None;
                }
                let mut end = start;
                forward_chars(s, len, &mut end);
                (start, end)
            } else {
                let back = pos.saturating_neg();
                let skip = back.saturating_sub(len).max(0);
                let mut end = s.len();
                if !back_chars(s, skip, &mut end) {
                    return None;
                }
                let mut start = end;
                if !back_chars(s, back - skip, &mut start) {
                    return None;
                }
                (start, end)
            };
            Some(s.slice(start..end))
        }
    }
}

/// Whether `b` continues a UTF-8 character.
fn is_trail(b: u8) -> bool {
    (0x80..=0xBF).contains(&b)
}

/// Moves `pos` forward `n` characters (stopping at the end); whether all `n` were there.
/// TensorFlow's `ForwardNUTF8CharPositions`.
fn forward_chars(s: &[u8], n: i64, pos: &mut usize) -> bool {
    let mut counted = 0;
    while counted < n && *pos < s.len() {
        *pos += 1;
        while *pos < s.len() && is_trail(s[*pos]) {
            *pos += 1;
        }
        counted += 1;
    }
    counted == n
}

/// Moves `pos` back `n` characters (stopping at the start); whether all `n` were there.
/// TensorFlow's `BackNUTF8CharPositions`.
fn back_chars(s: &[u8], n: i64, pos: &mut usize) -> bool {
    let mut counted = 0;
    while counted < n && *pos > 0 {
        *pos -= 1;
        while *pos > 0 && is_trail(s[*pos]) {
            *pos -= 1;
        }
        counted += 1;
    }
    counted == n
}

/// For each element of a row-major array of `out`, the index into an array of `shape` that
/// broadcasts to it.
fn broadcast_indices(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let n: usize = out.iter().product();
    let r = out.len();
    let off = r - shape.len();
    let mut strides = vec![0usize; r];
    let mut acc = 1;
    for i in (0..shape.len()).rev() {
        strides[i + off] = if shape[i] == 1 { 0 } else { acc };
        acc *= shape[i];
    }
    let mut idx = vec![0usize; r];
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(idx.iter().zip(&strides).map(|(a, b)| a * b).sum());
        for d in (0..r).rev() {
            idx[d] += 1;
            if idx[d] < out[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    v
}

struct SubstrKernel {
    unit: Unit,
}

fn ints(t: &Tensor) -> Result<Vec<i64>> {
    Ok(match t.dtype() {
        DType::I32 => t.as_slice::<i32>()?.iter().map(|&x| x as i64).collect(),
        _ => t.to_vec::<i64>()?,
    })
}

impl Kernel for SubstrKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (input, pos_t, len_t) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if pos_t.shape() != len_t.shape() {
            return Err(Error::invalid_argument(format!(
                "pos and len should have the same shape, got: {} vs. {}",
                format_dims(pos_t.shape()),
                format_dims(len_t.shape())
            )));
        }
        let strings = input.as_slice::<Bytes>()?;
        let (pos, len) = (ints(pos_t)?, ints(len_t)?);
        let fail = |i: usize, p: i64, s: &Bytes| match self.unit {
            Unit::Byte => Error::invalid_argument(format!(
                "pos {p} out of range for string b'{}' at index {i}",
                String::from_utf8_lossy(s)
            )),
            Unit::Utf8Char => {
                Error::invalid_argument(format!("pos {p} out of range for string at index {i}"))
            }
        };
        let (shape, sidx, pidx): (Vec<usize>, Option<Vec<usize>>, Option<Vec<usize>>) =
            if pos_t.rank() == 0 || input.shape() == pos_t.shape() {
                (input.shape().to_vec(), None, None)
            } else {
                let out = broadcast_shapes(input.shape(), pos_t.shape()).map_err(|_| {
                    Error::invalid_argument(format!(
                        "Incompatible shapes: {} vs. {}",
                        format_dims(input.shape()),
                        format_dims(pos_t.shape())
                    ))
                })?;
                let si = broadcast_indices(input.shape(), &out);
                let pi = broadcast_indices(pos_t.shape(), &out);
                (out, Some(si), Some(pi))
            };
        let n: usize = shape.iter().product();
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let s = &strings[sidx.as_ref().map_or(i, |v| v[i])];
            let k = pidx
                .as_ref()
                .map_or(if pos.len() == 1 { 0 } else { i }, |v| v[i]);
            out.push(piece(s, pos[k], len[k], self.unit).ok_or_else(|| fail(i, pos[k], s))?);
        }
        ctx.set_output(0, Tensor::from_vec(&shape, out)?);
        Ok(())
    }
}

fn substr_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let (p, l) = (ctx.input_shape(1).clone(), ctx.input_shape(2).clone());
    p.merge_with(&l).map_err(|_| {
        Error::invalid_argument(format!(
            "pos and len should have the same shape, got: {p} vs. {l} for 'Substr'"
        ))
    })?;
    let input = ctx.input_shape(0).clone();
    let out = match (input.dims(), p.dims()) {
        (_, Some([])) => input,
        (Some(a), Some(b)) => {
            let (a, b) = (Shape::new(a.to_vec()), Shape::new(b.to_vec()));
            if a == b {
                a
            } else {
                broadcast_static(&a, &b)?
            }
        }
        _ => Shape::unknown(),
    };
    ctx.set_output(0, out);
    Ok(())
}

/// Broadcast of two known-rank static shapes: unknown stays unknown, known sizes that differ
/// (neither 1) are an error.
fn broadcast_static(a: &Shape, b: &Shape) -> Result<Shape> {
    let (da, db) = (a.dims().unwrap_or(&[]), b.dims().unwrap_or(&[]));
    let n = da.len().max(db.len());
    let get = |d: &[Option<usize>], i: usize| {
        if i + d.len() >= n {
            d[i + d.len() - n]
        } else {
            Some(1)
        }
    };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        out.push(match (get(da, i), get(db, i)) {
            (Some(1), y) => y,
            (x, Some(1)) => x,
            (Some(x), Some(y)) if x != y => {
                return Err(Error::invalid_argument(format!(
                    "Incompatible shapes: {a} vs. {b} for 'Substr'"
                )))
            }
            (Some(x), _) | (_, Some(x)) => Some(x),
            (None, None) => None,
        });
    }
    Ok(Shape::new(out))
}

struct LengthKernel {
    unit: Unit,
}

impl Kernel for LengthKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = match self.unit {
            Unit::Byte => map_strings(ctx.input(0), |s| Ok(s.len() as i32))?,
            Unit::Utf8Char => map_strings(ctx.input(0), |s| Ok(utf8_len(s) as i32))?,
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn unit_of(node: &Node) -> Result<Unit> {
    Unit::parse(&node.attr::<String>("unit")?)
}

pub(super) fn register() {
    let unit = || Some(AttrValue::Str("BYTE".into()));
    register_op(
        OpDef::new("Substr")
            .input("input", ArgType::Fixed(DType::String))
            .input("pos", ArgType::Attr("T"))
            .input("len", ArgType::Attr("T"))
            .output("output", ArgType::Fixed(DType::String))
            .type_attr("T", &[DType::I32, DType::I64])
            .attr("unit", AttrKind::Str, unit())
            .shape_fn(substr_shape),
    );
    register_kernel("Substr", |node| {
        Ok(Box::new(SubstrKernel {
            unit: unit_of(node)?,
        }))
    });
    register_op(
        OpDef::new("StringLength")
            .input("input", ArgType::Fixed(DType::String))
            .output("output", ArgType::Fixed(DType::I32))
            .attr("unit", AttrKind::Str, unit())
            .shape_fn(same_shape),
    );
    register_kernel("StringLength", |node| {
        Ok(Box::new(LengthKernel {
            unit: unit_of(node)?,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str, pos: i64, len: i64, unit: Unit) -> Option<String> {
        piece(&Bytes::copy_from_slice(s.as_bytes()), pos, len, unit)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    // Cases printed by TensorFlow 2.21's Substr.
    #[test]
    fn pieces_match_tensorflow() {
        assert_eq!(p("hello", 1, 3, Unit::Byte).unwrap(), "ell");
        assert_eq!(p("hello", -3, 2, Unit::Byte).unwrap(), "ll");
        assert_eq!(p("hello", 4, 10, Unit::Byte).unwrap(), "o");
        assert_eq!(p("hello", 5, 1, Unit::Byte).unwrap(), "");
        assert_eq!(p("hello", 1, -1, Unit::Byte).unwrap(), "ello");
        assert_eq!(p("hello", 6, 1, Unit::Byte), None);
        assert_eq!(p("hello", -6, 1, Unit::Byte), None);
        assert_eq!(p("h\u{e9}llo", 1, 2, Unit::Utf8Char).unwrap(), "\u{e9}l");
        assert_eq!(p("h\u{e9}llo", -4, 2, Unit::Utf8Char).unwrap(), "\u{e9}l");
        assert_eq!(p("hello", 1, -1, Unit::Utf8Char).unwrap(), "");
        assert_eq!(p("hello", -2, -1, Unit::Utf8Char), None);
        assert_eq!(p("hello", -2, 5, Unit::Utf8Char).unwrap(), "lo");
        let b = |v: &[u8], pos, len| piece(&Bytes::copy_from_slice(v), pos, len, Unit::Utf8Char);
        assert_eq!(b(b"\xbf\x80x", 0, 1).unwrap(), &b"\xbf\x80"[..]);
        assert_eq!(b(b"\x80", 1, 1).unwrap(), &b""[..]);
        assert_eq!(b(b"\x80", 2, 1), None);
        assert_eq!(utf8_len("h\u{e9}".as_bytes()), 2);
    }

    #[test]
    fn broadcast_index_maps() {
        assert_eq!(broadcast_indices(&[2], &[2, 2]), [0, 1, 0, 1]);
        assert_eq!(broadcast_indices(&[2, 1], &[2, 3]), [0, 0, 0, 1, 1, 1]);
        assert_eq!(broadcast_indices(&[], &[3]), [0, 0, 0]);
    }
}
