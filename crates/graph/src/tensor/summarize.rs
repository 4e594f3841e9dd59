//! A tensor's values summarized the way TensorFlow's `Tensor::SummarizeValue` writes them in
//! `Assert`'s message: the first `max_entries` values in nested brackets, `...` where values were
//! left out, floats as C's `%g` at the shortest precision that reads back exactly.

use std::fmt::Write;

use bytes::Bytes;

use super::Tensor;
use crate::{DType, ResourceHandle};

impl Tensor {
    /// At most `max_entries` of this tensor's values (all when negative) as TensorFlow's
    /// `Tensor::SummarizeValue` prints them: `1 2 3...` for a vector, `[[1.5 2][3...]...]` for a
    /// matrix, strings C-escaped without quotes, bools as `1`/`0`.
    ///
    /// ```
    /// use weir_graph::Tensor;
    /// let t = Tensor::from_vec(&[2, 2], vec![1.5f32, 2.0, 3.0, 4.0])?;
    /// assert_eq!(t.summarize_value(3), "[1.5 2][3...]...");
    /// assert_eq!(Tensor::from(vec![1i32, 2, 3, 4, 5]).summarize_value(-1), "1 2 3 4 5");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn summarize_value(&self, max_entries: i64) -> String {
        let n = self.num_elements();
        let limit = usize::try_from(max_entries).map_or(n, |m| m.min(n));
        let elements: Vec<String> = match self.dtype() {
            DType::String => strings(self.as_slice::<Bytes>(), limit, |b| c_escape(b)),
            DType::Resource => strings(self.as_slice::<ResourceHandle>(), limit, |h| {
                h.name().to_string()
            }),
            DType::Bool => strings(self.as_slice::<bool>(), limit, |&b| u8::from(b).to_string()),
            DType::F32 => strings(self.as_slice::<f32>(), limit, |&v| float_to_string(v)),
            DType::F64 => strings(self.as_slice::<f64>(), limit, |&v| double_to_string(v)),
            // Eigen's half types print as the float they widen to.
            DType::F16 => strings(self.as_slice::<crate::f16>(), limit, |v| {
                float_to_string(v.to_f32())
            }),
            DType::BF16 => strings(self.as_slice::<crate::bf16>(), limit, |v| {
                float_to_string(v.to_f32())
            }),
            // std::complex's operator<<: "(re,im)".
            DType::C64 => strings(self.as_slice::<crate::Complex<f32>>(), limit, |c| {
                format!("({},{})", float_to_string(c.re), float_to_string(c.im))
            }),
            DType::C128 => strings(self.as_slice::<crate::Complex<f64>>(), limit, |c| {
                format!("({},{})", double_to_string(c.re), double_to_string(c.im))
            }),
            d => {
                crate::match_real_dtype!(d, T => strings(self.as_slice::<T>(), limit, T::to_string),
                _ => Vec::new())
            }
        };
        let mut out = String::new();
        if self.shape().is_empty() {
            out.push_str(&elements.join(" "));
        } else {
            let mut next = 0;
            one_dim(0, self.shape(), &elements, &mut next, &mut out);
        }
        if n > limit {
            out.push_str("...");
        }
        out
    }
}

impl Tensor {
    /// At most `max_entries` values from each end of every dimension (all when negative), as
    /// TensorFlow's `Tensor::SummarizeValue(max_entries, print_v2=true)` writes them for
    /// `tf.print` and `tf.strings.format`: numpy's layout, `...` where values were left out,
    /// strings quoted and C-escaped, types it cannot print as `?`.
    ///
    /// ```
    /// use weir_graph::Tensor;
    /// let t = Tensor::from_vec(&[2, 3], vec![1.5f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    /// assert_eq!(t.summarize_value_v2(3), "[[1.5 2 3]\n [4 5 6]]");
    /// assert_eq!(Tensor::from((0..10).collect::<Vec<i64>>()).summarize_value_v2(2), "[0 1 ... 8 9]");
    /// assert_eq!(Tensor::from(vec!["a\"b"]).summarize_value_v2(3), r#"["a\"b"]"#);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn summarize_value_v2(&self, max_entries: i64) -> String {
        let n = self.num_elements();
        let max = usize::try_from(max_entries).unwrap_or(n);
        let limit = max.min(n);
        let mut out = String::new();
        if !printable_v2(self.dtype()) {
            // TensorFlow's fallback for the types it has no printer for.
            let rank = self.shape().len();
            if rank > 0 {
                out.push('[');
            }
            out.push_str(&vec!["?"; limit].join(" "));
            if max < n {
                out.push_str("...");
            }
            if rank > 0 {
                out.push(']');
            }
            return out;
        }
        if self.shape().is_empty() {
            for i in 0..limit {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(&self.element_v2(i));
            }
            if n > limit {
                out.push_str("...");
            }
            return out;
        }
        self.one_dim_v2(0, limit, 0, &mut out);
        out
    }

    /// Dimension `dim` from flat element `base` on (TensorFlow's `PrintOneDimV2`): the first
    /// and last `ends` entries, `...` between them when some were left out.
    fn one_dim_v2(&self, dim: usize, ends: usize, base: usize, out: &mut String) {
        let shape = self.shape();
        if dim == shape.len() {
            out.push_str(&self.element_v2(base));
            return;
        }
        out.push('[');
        let count = shape[dim];
        let stride: usize = shape[dim + 1..].iter().product();
        for i in 0..ends.min(count) {
            if i > 0 {
                dim_spacing(dim, shape.len(), out);
            }
            self.one_dim_v2(dim + 1, ends, base + stride * i, out);
        }
        if count > 2 * ends {
            dim_spacing(dim, shape.len(), out);
            out.push_str("...");
        }
        for i in ends.max(count.saturating_sub(ends))..count {
            dim_spacing(dim, shape.len(), out);
            self.one_dim_v2(dim + 1, ends, base + stride * i, out);
        }
        out.push(']');
    }

    /// Element `i` as `PrintOneElement(x, print_v2=true)` writes it.
    fn element_v2(&self, i: usize) -> String {
        let one = |t: &Tensor| -> Option<String> {
            Some(match t.dtype() {
                DType::String => format!("\"{}\"", c_escape(&t.as_slice::<Bytes>().ok()?[i])),
                DType::Bool => u8::from(t.as_slice::<bool>().ok()?[i]).to_string(),
                DType::F32 => float_to_string(t.as_slice::<f32>().ok()?[i]),
                DType::F64 => double_to_string(t.as_slice::<f64>().ok()?[i]),
                DType::F16 => float_to_string(t.as_slice::<crate::f16>().ok()?[i].to_f32()),
                DType::BF16 => float_to_string(t.as_slice::<crate::bf16>().ok()?[i].to_f32()),
                d => crate::match_real_dtype!(d, T => t.as_slice::<T>().ok()?[i].to_string(),
                    _ => return None),
            })
        };
        one(self).unwrap_or_else(|| "?".to_string())
    }
}

/// Whether `SummarizeValue` has an element printer for `dtype` (complex numbers, handles and
/// variants print as `?` in its print_v2 form).
fn printable_v2(dtype: DType) -> bool {
    !matches!(dtype, DType::C64 | DType::C128 | DType::Resource)
}

/// The separator between entries of dimension `dim` (TensorFlow's `PrintDimSpacing`): a space
/// in the innermost one, else one newline per inner dimension and an indent.
fn dim_spacing(dim: usize, rank: usize, out: &mut String) {
    if dim + 1 == rank {
        out.push(' ');
        return;
    }
    for _ in 0..rank - dim - 1 {
        out.push('\n');
    }
    for _ in 0..=dim {
        out.push(' ');
    }
}

/// The first `limit` elements of `values`, each as `show` writes it.
fn strings<T>(
    values: crate::Result<&[T]>,
    limit: usize,
    show: impl Fn(&T) -> String,
) -> Vec<String> {
    values
        .map(|v| v.iter().take(limit).map(show).collect())
        .unwrap_or_default()
}

/// Dimension `dim` of the elements from `*next` on (TensorFlow's `PrintOneDim`): the innermost
/// dimension space-separated, the outer ones each element in brackets, stopping when the
/// summarized elements run out.
fn one_dim(dim: usize, shape: &[usize], elements: &[String], next: &mut usize, out: &mut String) {
    if *next >= elements.len() {
        return;
    }
    if dim + 1 == shape.len() {
        for i in 0..shape[dim] {
            if *next >= elements.len() {
                if dim != 0 {
                    out.push_str("...");
                }
                return;
            }
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&elements[*next]);
            *next += 1;
        }
        return;
    }
    for _ in 0..shape[dim] {
        let opened = *next < elements.len();
        if opened {
            out.push('[');
        }
        one_dim(dim + 1, shape, elements, next, out);
        if opened {
            out.push(']');
        }
    }
}

/// Bytes escaped as C source (absl's `Utf8SafeCEscape`): `\n \r \t \" \' \\` by name, other
/// control characters in octal, bytes of UTF-8 sequences as they are.
fn c_escape(b: &[u8]) -> String {
    let mut out = Vec::with_capacity(b.len());
    for &c in b {
        match c {
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\'' => out.extend_from_slice(b"\\'"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x20..=0x7e | 0x80..=0xff => out.push(c),
            _ => out.extend_from_slice(format!("\\{c:03o}").as_bytes()),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A float as TensorFlow's `FloatToBuffer` writes it: `%.6g`, or `%.9g` when six digits do not
/// read back as the same float; subnormals as zero.
fn float_to_string(v: f32) -> String {
    // TensorFlow's kernels run with denormals flushed, so a subnormal reaches printf as zero.
    let v = if v.is_subnormal() {
        0.0f32.copysign(v)
    } else {
        v
    };
    let short = g_format(f64::from(v), 6);
    if short.parse::<f32>().is_ok_and(|r| r == v) {
        short
    } else {
        g_format(f64::from(v), 9)
    }
}

/// A double as TensorFlow's `DoubleToBuffer` writes it: `%.15g`, or `%.17g` when fifteen digits
/// do not read back as the same double.
fn double_to_string(v: f64) -> String {
    let v = if v.is_subnormal() {
        0.0f64.copysign(v)
    } else {
        v
    };
    let short = g_format(v, 15);
    if short.parse::<f64>().is_ok_and(|r| r == v) {
        short
    } else {
        g_format(v, 17)
    }
}

/// C's `%.{precision}g`: `precision` significant digits, in exponent form when the exponent is
/// below -4 or at least `precision`, trailing zeros dropped.
fn g_format(v: f64, precision: usize) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    let p = precision.max(1);
    // The exponent after rounding to p digits decides the form.
    let sci = format!("{:.*e}", p - 1, v);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let mut s = trim_zeros(mantissa).to_string();
        let _ = write!(s, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
        s
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        trim_zeros(&format!("{v:.decimals$}")).to_string()
    }
}

/// A decimal number without the zeros ending its fraction (and without a bare point).
fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every expected string below is what TensorFlow 2.21's Assert printed for the same tensor
    // and summarize (gen_logging_ops._assert in a tf.compat.v1 session).

    #[test]
    fn vectors_matrices_and_cubes_are_cut_where_tensorflow_cuts_them() {
        let ints = Tensor::from(vec![1i32, 2, 3, 4, 5]);
        assert_eq!(ints.summarize_value(3), "1 2 3...");
        assert_eq!(ints.summarize_value(-1), "1 2 3 4 5");
        assert_eq!(Tensor::from(vec![1i32, 2]).summarize_value(0), "...");
        let m = Tensor::from_vec(&[2, 2], vec![1.5f32, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(m.summarize_value(3), "[1.5 2][3...]...");
        assert_eq!(m.summarize_value(10), "[1.5 2][3 4]");
        let cube = Tensor::from_vec(&[2, 2, 2], (0..8i64).collect()).unwrap();
        assert_eq!(cube.summarize_value(5), "[[0 1][2 3]][[4...]]...");
        assert_eq!(Tensor::from(7i64).summarize_value(3), "7");
        assert_eq!(
            Tensor::zeros(DType::F32, &[0]).unwrap().summarize_value(3),
            ""
        );
        assert_eq!(
            Tensor::zeros(DType::I32, &[2, 0])
                .unwrap()
                .summarize_value(3),
            ""
        );
    }

    #[test]
    fn elements_print_as_tensorflow_prints_them() {
        let s = Tensor::from("hello\n\t\"q'\u{1}é");
        assert_eq!(s.summarize_value(3), "hello\\n\\t\\\"q\\'\\001é");
        let strs = Tensor::from(vec!["a", "b", "c", "d"]);
        assert_eq!(strs.summarize_value(3), "a b c...");
        assert_eq!(Tensor::from(vec![true, false]).summarize_value(3), "1 0");
        let floats = Tensor::from(vec![
            0.1f32,
            1e-7,
            1e10,
            f32::NAN,
            f32::INFINITY,
            -0.0,
            123_456_789.0,
            1.0 / 3.0,
        ]);
        assert_eq!(
            floats.summarize_value(8),
            "0.1 1e-07 1e+10 nan inf -0 123456792 0.333333343"
        );
        let doubles = Tensor::from(vec![0.1f64, 1e-7, 1.0 / 3.0, 2.5e300]);
        assert_eq!(
            doubles.summarize_value(8),
            "0.1 1e-07 0.33333333333333331 2.5e+300"
        );
        assert_eq!(
            Tensor::from(vec![0u8, 200, 255]).summarize_value(3),
            "0 200 255"
        );
        assert_eq!(Tensor::from(vec![-5i8, 7]).summarize_value(3), "-5 7");
    }

    #[test]
    fn g_format_follows_c() {
        assert_eq!(g_format(100000.0, 6), "100000");
        assert_eq!(g_format(1_000_000.0, 6), "1e+06");
        assert_eq!(g_format(0.0001, 6), "0.0001");
        assert_eq!(g_format(0.00001234, 6), "1.234e-05");
        assert_eq!(g_format(-2.5, 6), "-2.5");
        assert_eq!(g_format(0.0, 6), "0");
        assert_eq!(g_format(999999.5, 6), "1e+06");
        assert_eq!(g_format(f64::NEG_INFINITY, 6), "-inf");
    }
}
