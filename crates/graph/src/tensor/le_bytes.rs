//! Little-endian bytes of one element, as TensorFlow lays numbers out in `tensor_content`,
//! checkpoints, `tf.io.decode_raw` input and `tf.bitcast`.

use half::{bf16, f16};
use num_complex::Complex;

use super::TensorType;

/// An element type with a fixed little-endian layout: every number type, complex (real part
/// first) and bool (one byte, 0 or 1).
pub trait LeBytes: TensorType + Copy {
    /// Bytes per element.
    const SIZE: usize;
    /// Appends the element's bytes.
    fn put(self, out: &mut Vec<u8>);
    /// Reads an element from exactly [`SIZE`](LeBytes::SIZE) bytes.
    fn get(b: &[u8]) -> Self;
}

macro_rules! le_numbers {
    ($($t:ty),*) => {$(
        impl LeBytes for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(b);
                <$t>::from_le_bytes(a)
            }
        }
    )*};
}
le_numbers!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16);

macro_rules! le_complex {
    ($($t:ty),*) => {$(
        impl LeBytes for Complex<$t> {
            const SIZE: usize = 2 * std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                self.re.put(out);
                self.im.put(out);
            }
            fn get(b: &[u8]) -> Self {
                let half = std::mem::size_of::<$t>();
                Complex::new(<$t>::get(&b[..half]), <$t>::get(&b[half..]))
            }
        }
    )*};
}
le_complex!(f32, f64);

impl LeBytes for bool {
    const SIZE: usize = 1;
    fn put(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn get(b: &[u8]) -> Self {
        b[0] != 0
    }
}

/// Runs `$body` with `$T` bound to the [`LeBytes`] type of `$dtype` (every number type, complex
/// and bool); evaluates `$other` for strings and resources.
#[macro_export]
macro_rules! match_le_dtype {
    ($dtype:expr, $T:ident => $body:expr, _ => $other:expr) => {
        match $dtype {
            $crate::DType::Bool => { type $T = bool; $body }
            $crate::DType::C64 => { type $T = $crate::Complex<f32>; $body }
            $crate::DType::C128 => { type $T = $crate::Complex<f64>; $body }
            $crate::DType::F16 => { type $T = $crate::f16; $body }
            $crate::DType::BF16 => { type $T = $crate::bf16; $body }
            other => $crate::match_real_dtype!(other, $T => $body, _ => $other),
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: LeBytes + PartialEq + std::fmt::Debug>(v: T, bytes: &[u8]) {
        let mut out = Vec::new();
        v.put(&mut out);
        assert_eq!(out, bytes);
        assert_eq!(T::get(&out), v);
        assert_eq!(T::SIZE, bytes.len());
    }

    #[test]
    fn layouts_are_tensorflows() {
        round_trip(f16::from_f32(1.0), &[0x00, 0x3c]);
        round_trip(bf16::from_f32(-2.0), &[0x00, 0xc0]);
        round_trip(
            Complex::new(1.0f32, -2.0),
            &[0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0],
        );
        round_trip(0x0102_0304u32, &[4, 3, 2, 1]);
        round_trip(true, &[1]);
    }
}
