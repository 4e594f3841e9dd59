//! Arithmetic operators on graph tensors: `&a + &b`, `&x * 2.0`, `1.0 - &x`, `-&x`.
//!
//! Each operator adds a node and returns `Result<Output>`, since adding a node validates dtypes
//! and shapes: `(x.matmul(&w)? + &b)?`. The ops are the ones TensorFlow's Python operators
//! create: `+` `AddV2`, `-` `Sub`, `*` `Mul`, `/` true division (`RealDiv`, after a `Cast` of
//! integers to float as `tf.truediv` does), `%` `FloorMod`, unary `-` `Neg`, and for bool
//! tensors `&` `LogicalAnd`, `|` `LogicalOr`, `!` `LogicalNot`. A scalar operand becomes a
//! `Const` of the tensor's dtype, as Python converts its numbers.

use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Rem, Sub};

use crate::{DType, Error, Output, Result, Tensor};

fn binary(op: &str, x: &Output, y: &Output) -> Result<Output> {
    if op == "RealDiv" {
        return truediv(x, y);
    }
    x.graph()
        .new_operation(op)
        .input(x)
        .input(y)
        .build()?
        .output(0)
}

fn unary(op: &str, x: &Output) -> Result<Output> {
    x.graph().new_operation(op).input(x).build()?.output(0)
}

/// `tf.truediv`: integers are cast to float32 (8 and 16 bits) or float64 (32 and 64 bits) first.
fn truediv(x: &Output, y: &Output) -> Result<Output> {
    let target = match x.dtype() {
        DType::I8 | DType::I16 | DType::U8 | DType::U16 => DType::F32,
        DType::I32 | DType::I64 => DType::F64,
        _ => {
            return x
                .graph()
                .new_operation("RealDiv")
                .input(x)
                .input(y)
                .build()?
                .output(0)
        }
    };
    if y.dtype() != x.dtype() {
        return Err(Error::invalid_argument(format!(
            "x and y must have the same dtype, got {} != {}",
            x.dtype(),
            y.dtype()
        )));
    }
    let cast = |t: &Output| -> Result<Output> {
        t.graph()
            .new_operation("Cast")
            .input(t)
            .attr("DstT", target)
            .build()?
            .output(0)
    };
    let g = x.graph();
    let _scope = g.name_scope("truediv");
    let (xf, yf) = (cast(x)?, cast(y)?);
    g.new_operation("RealDiv")
        .input(&xf)
        .input(&yf)
        .build()?
        .output(0)
}

/// A rank-0 tensor of `dtype` holding `v`; InvalidArgument when `v` does not fit exactly.
pub fn scalar_of(dtype: DType, v: f64) -> Result<Tensor> {
    let int = |lo: f64, hi: f64| -> Result<f64> {
        if v.fract() != 0.0 || v < lo || v > hi {
            Err(Error::invalid_argument(format!(
                "Cannot convert {v} to a tensor of dtype {dtype}"
            )))
        } else {
            Ok(v)
        }
    };
    Ok(match dtype {
        DType::F32 => Tensor::scalar(v as f32),
        DType::F64 => Tensor::scalar(v),
        DType::I8 => Tensor::scalar(int(i8::MIN as f64, i8::MAX as f64)? as i8),
        DType::I16 => Tensor::scalar(int(i16::MIN as f64, i16::MAX as f64)? as i16),
        DType::I32 => Tensor::scalar(int(i32::MIN as f64, i32::MAX as f64)? as i32),
        DType::I64 => Tensor::scalar(int(i64::MIN as f64, i64::MAX as f64)? as i64),
        DType::U8 => Tensor::scalar(int(0.0, u8::MAX as f64)? as u8),
        DType::U16 => Tensor::scalar(int(0.0, u16::MAX as f64)? as u16),
        DType::U32 => Tensor::scalar(int(0.0, u32::MAX as f64)? as u32),
        DType::U64 => Tensor::scalar(int(0.0, u64::MAX as f64)? as u64),
        // numpy rounds a Python float straight to float16; ml_dtypes' bfloat16 goes through
        // float32.
        DType::F16 => Tensor::scalar(crate::f16::from_f64(v)),
        DType::BF16 => Tensor::scalar(crate::bf16::from_f32(v as f32)),
        DType::C64 => Tensor::scalar(crate::Complex::new(v as f32, 0.0)),
        DType::C128 => Tensor::scalar(crate::Complex::new(v, 0.0)),
        _ => {
            return Err(Error::invalid_argument(format!(
                "Cannot use a number as a {dtype} tensor"
            )))
        }
    })
}

fn scalar_like(x: &Output, v: f64) -> Result<Output> {
    let t = scalar_of(x.dtype(), v)?;
    x.graph()
        .new_operation("Const")
        .attr("dtype", t.dtype())
        .attr("value", t)
        .build()?
        .output(0)
}

macro_rules! tensor_ops {
    ($($tr:ident $method:ident $op:literal;)*) => {$(
        impl $tr<&Output> for &Output {
            type Output = Result<Output>;
            fn $method(self, rhs: &Output) -> Result<Output> {
                binary($op, self, rhs)
            }
        }
        impl $tr<Output> for &Output {
            type Output = Result<Output>;
            fn $method(self, rhs: Output) -> Result<Output> {
                binary($op, self, &rhs)
            }
        }
        impl $tr<&Output> for Output {
            type Output = Result<Output>;
            fn $method(self, rhs: &Output) -> Result<Output> {
                binary($op, &self, rhs)
            }
        }
        impl $tr<Output> for Output {
            type Output = Result<Output>;
            fn $method(self, rhs: Output) -> Result<Output> {
                binary($op, &self, &rhs)
            }
        }
        // A generic impl (not one per number type) lets `&x * 2.0` infer the literal's type.
        impl<S: ScalarOperand> $tr<S> for &Output {
            type Output = Result<Output>;
            fn $method(self, rhs: S) -> Result<Output> {
                binary($op, self, &scalar_like(self, rhs.to_f64())?)
            }
        }
        impl<S: ScalarOperand> $tr<S> for Output {
            type Output = Result<Output>;
            fn $method(self, rhs: S) -> Result<Output> {
                binary($op, &self, &scalar_like(&self, rhs.to_f64())?)
            }
        }
        // On the left only one float and one integer type, so literals infer: `1.0 - &x`.
        tensor_ops!(@scalars $tr $method $op; f64 i64);
    )*};
    (@scalars $tr:ident $method:ident $op:literal; $($s:ty)*) => {$(
        impl $tr<&Output> for $s {
            type Output = Result<Output>;
            fn $method(self, rhs: &Output) -> Result<Output> {
                binary($op, &scalar_like(rhs, self as f64)?, rhs)
            }
        }
        impl $tr<Output> for $s {
            type Output = Result<Output>;
            fn $method(self, rhs: Output) -> Result<Output> {
                binary($op, &scalar_like(&rhs, self as f64)?, &rhs)
            }
        }
    )*};
}

/// A Rust number used as an operand beside a tensor (`&x * 2.0`); it becomes a constant of the
/// tensor's dtype, and must fit it exactly.
pub trait ScalarOperand: Copy {
    /// The number as `f64` (exact for every implementing type up to 2^53).
    fn to_f64(self) -> f64;
}

macro_rules! scalar_operands {
    ($($t:ty),*) => {$(
        impl ScalarOperand for $t {
            fn to_f64(self) -> f64 { self as f64 }
        }
    )*};
}
scalar_operands!(f32, f64, i8, i16, i32, i64, u8, u16);

tensor_ops! {
    Add add "AddV2";
    Sub sub "Sub";
    Mul mul "Mul";
    Div div "RealDiv";
    Rem rem "FloorMod";
}

macro_rules! logical_ops {
    ($($tr:ident $method:ident $op:literal;)*) => {$(
        impl $tr<&Output> for &Output {
            type Output = Result<Output>;
            fn $method(self, rhs: &Output) -> Result<Output> {
                binary($op, self, rhs)
            }
        }
        impl $tr<Output> for Output {
            type Output = Result<Output>;
            fn $method(self, rhs: Output) -> Result<Output> {
                binary($op, &self, &rhs)
            }
        }
        impl $tr<&Output> for Output {
            type Output = Result<Output>;
            fn $method(self, rhs: &Output) -> Result<Output> {
                binary($op, &self, rhs)
            }
        }
        impl $tr<Output> for &Output {
            type Output = Result<Output>;
            fn $method(self, rhs: Output) -> Result<Output> {
                binary($op, self, &rhs)
            }
        }
    )*};
}

logical_ops! {
    BitAnd bitand "LogicalAnd";
    BitOr bitor "LogicalOr";
}

impl Neg for &Output {
    type Output = Result<Output>;
    fn neg(self) -> Result<Output> {
        unary("Neg", self)
    }
}

impl Neg for Output {
    type Output = Result<Output>;
    fn neg(self) -> Result<Output> {
        unary("Neg", &self)
    }
}

impl Not for &Output {
    type Output = Result<Output>;
    fn not(self) -> Result<Output> {
        unary("LogicalNot", self)
    }
}

impl Not for Output {
    type Output = Result<Output>;
    fn not(self) -> Result<Output> {
        unary("LogicalNot", &self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_convert_exactly() {
        assert_eq!(scalar_of(DType::I32, 2.0).unwrap(), Tensor::from(2i32));
        assert!(scalar_of(DType::I32, 2.5).is_err());
        assert!(scalar_of(DType::U8, -1.0).is_err());
        assert!(scalar_of(DType::String, 1.0).is_err());
        assert_eq!(scalar_of(DType::F32, 0.5).unwrap(), Tensor::from(0.5f32));
    }
}
