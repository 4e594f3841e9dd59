//! The dense gradients of TensorFlow's `ConditionalAccumulator`: the shape checks of
//! `ApplyGrad`, the running sum, and the mean `TakeGrad` divides it into.
//!
//! TensorFlow registers accumulator kernels for float16, float32 and float64 only; the sums
//! and quotients are elementwise in the gradient's type (float16 rounding after each operation,
//! as `Eigen::half` does), so they match TensorFlow's bit for bit.

use std::ops::{Add, Div};

use weir_graph::{f16, format_dims, DType, Error, Result, Shape, Tensor, TensorType};

/// The dtypes TensorFlow has accumulator kernels for, in the order its "No OpKernel was
/// registered" message lists them.
pub(super) const KERNEL_TYPES: &[DType] = &[DType::F64, DType::F32, DType::F16];

/// An element type accumulators compute in.
pub(super) trait Elem: TensorType + Copy + Add<Output = Self> + Div<Output = Self> {
    /// The gradient count as this type, as TensorFlow converts the `int` counter.
    fn from_count(n: i32) -> Self;
}

impl Elem for f32 {
    fn from_count(n: i32) -> f32 {
        n as f32
    }
}

impl Elem for f64 {
    fn from_count(n: i32) -> f64 {
        f64::from(n)
    }
}

impl Elem for f16 {
    fn from_count(n: i32) -> f16 {
        // Eigen::half converts an int through float.
        f16::from_f32(n as f32)
    }
}

/// Runs `$body` with `$T` bound to the element type of an accumulator dtype; an Internal
/// error for any other (the creation kernels refuse them).
macro_rules! match_accum_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            weir_graph::DType::F16 => {
                type $T = weir_graph::f16;
                $body
            }
            weir_graph::DType::F32 => {
                type $T = f32;
                $body
            }
            weir_graph::DType::F64 => {
                type $T = f64;
                $body
            }
            other => Err(weir_graph::Error::internal(format!(
                "no accumulator arithmetic for {other}"
            ))),
        }
    };
}
pub(super) use match_accum_dtype;

/// TensorFlow's `ConditionalAccumulator::ValidateShape`: a gradient must have the exact shape
/// of those accumulated so far (when there are any) and fit the declared `shape`.
pub(super) fn validate(shape: &Shape, sum: Option<&Tensor>, grad: &Tensor) -> Result<()> {
    if let Some(sum) = sum {
        if sum.shape() != grad.shape() {
            return Err(mismatch(&format_dims(sum.shape()), grad));
        }
    }
    if !shape.is_compatible_with_dims(grad.shape()) {
        return Err(mismatch(&shape.to_string(), grad));
    }
    Ok(())
}

fn mismatch(expected: &str, grad: &Tensor) -> Error {
    Error::invalid_argument(format!(
        "Shape mismatch: expected {expected}, got {}",
        format_dims(grad.shape())
    ))
}

/// `sum + grad`, elementwise (in place when nothing else holds `sum`'s data).
pub(super) fn add(mut sum: Tensor, grad: &Tensor) -> Result<Tensor> {
    fn go<T: Elem>(sum: &mut Tensor, grad: &Tensor) -> Result<()> {
        let g = grad.as_slice::<T>()?;
        for (s, &x) in sum.as_slice_mut::<T>()?.iter_mut().zip(g) {
            *s = *s + x;
        }
        Ok(())
    }
    match_accum_dtype!(sum.dtype(), T => go::<T>(&mut sum, grad))?;
    Ok(sum)
}

/// `sum / count`, elementwise: the MEAN reduction.
pub(super) fn divide(mut sum: Tensor, count: i32) -> Result<Tensor> {
    fn go<T: Elem>(sum: &mut Tensor, count: i32) -> Result<()> {
        let c = T::from_count(count);
        for s in sum.as_slice_mut::<T>()? {
            *s = *s / c;
        }
        Ok(())
    }
    match_accum_dtype!(sum.dtype(), T => go::<T>(&mut sum, count))?;
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_gradient_fixes_the_shape_within_the_declared_one() {
        let declared = Shape::new(vec![None, Some(2)]);
        let g = Tensor::from_vec(&[3, 2], vec![0f32; 6]).unwrap();
        validate(&declared, None, &g).unwrap();
        let other = Tensor::from_vec(&[4, 2], vec![0f32; 8]).unwrap();
        validate(&declared, None, &other).unwrap();
        let e = validate(&declared, Some(&g), &other).unwrap_err();
        assert!(e.is_invalid_argument());
        assert_eq!(e.message(), "Shape mismatch: expected [3,2], got [4,2]");
        let wrong = Tensor::from_vec(&[2, 3], vec![0f32; 6]).unwrap();
        let e = validate(&declared, None, &wrong).unwrap_err();
        assert_eq!(e.message(), "Shape mismatch: expected [?,2], got [2,3]");
        let e = validate(&Shape::unknown(), Some(&g), &Tensor::scalar(1f32)).unwrap_err();
        assert_eq!(e.message(), "Shape mismatch: expected [3,2], got []");
    }

    #[test]
    fn half_sums_round_after_each_addition() {
        // 2048 + 1 is not a float16: it rounds back to 2048 each time.
        let mut sum = Tensor::from_vec(&[1], vec![f16::from_f32(2048.0)]).unwrap();
        let one = Tensor::from_vec(&[1], vec![f16::ONE]).unwrap();
        for _ in 0..3 {
            sum = add(sum, &one).unwrap();
        }
        assert_eq!(sum.to_vec::<f16>().unwrap(), vec![f16::from_f32(2048.0)]);
        let mean = divide(sum, 3).unwrap();
        let want = f16::from_f32(2048.0 / 3.0);
        assert_eq!(mean.to_vec::<f16>().unwrap(), vec![want]);
    }

    #[test]
    fn adding_never_changes_a_shared_gradient() {
        let g = Tensor::from_vec(&[2], vec![1f64, 2.0]).unwrap();
        let sum = add(g.clone(), &g).unwrap();
        assert_eq!(sum.to_vec::<f64>().unwrap(), vec![2.0, 4.0]);
        assert_eq!(g.to_vec::<f64>().unwrap(), vec![1.0, 2.0]);
        assert!(add(Tensor::scalar(1i32), &Tensor::scalar(1i32))
            .unwrap_err()
            .is_internal());
    }
}
