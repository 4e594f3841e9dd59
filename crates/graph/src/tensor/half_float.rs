//! The two 16-bit float types, which TensorFlow's CPU kernels compute in float: each operation
//! widens its operands, computes in float and rounds the result back.

use half::{bf16, f16};

use super::TensorType;

/// `tf.float16` or `tf.bfloat16`: a 16-bit float that computes through `f32`, as
/// `Eigen::half` and `Eigen::bfloat16` do.
pub trait HalfFloat: TensorType + Copy + PartialOrd {
    /// `x` rounded to the nearest value (ties to even), as Eigen rounds.
    fn from_f32(x: f32) -> Self;
    /// The exact float value.
    fn to_f32(self) -> f32;
}

impl HalfFloat for f16 {
    fn from_f32(x: f32) -> Self {
        f16::from_f32(x)
    }
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
}

impl HalfFloat for bf16 {
    fn from_f32(x: f32) -> Self {
        bf16::from_f32(x)
    }
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
}
