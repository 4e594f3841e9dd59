//! `MatMul` and `BatchMatMulV2` of float16, bfloat16, complex64 and complex128 matrices: the
//! [`Gemm`] kernels of these types and their dispatch.
//!
//! Half products accumulate each dot product in float and round once (TensorFlow's CPU kernel
//! gives the float sum rounded: 4096 products of 0.1 and 1 in float16 are 409.5, where a half
//! accumulator would stop at 256). Complex products use ndarray's general product; Eigen's
//! blocked kernel sums in another order, so results may differ from TensorFlow's in the last
//! bits.

use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2};
use weir_graph::{Complex, DType, Error, Result, Tensor};

use super::matmul::{batch_product, Gemm};

/// The half types multiply in float: each dot product accumulates in float and rounds once,
/// as TensorFlow's CPU kernel does (products of halves are exact in float).
macro_rules! half_gemm {
    ($($t:ty),*) => {$(
        impl Gemm for $t {
            fn gemm(a: ArrayView2<'_, Self>, b: ArrayView2<'_, Self>, c: &mut ArrayViewMut2<'_, Self>) {
                let (aw, bw) = (a.mapv(|v| v.to_f32()), b.mapv(|v| v.to_f32()));
                let mut cw = ndarray::Array2::<f32>::zeros(c.raw_dim());
                general_mat_mul(1.0, &aw, &bw, 0.0, &mut cw);
                c.zip_mut_with(&cw, |o, &v| *o = <$t>::from_f32(v));
            }
        }
    )*};
}
half_gemm!(weir_graph::f16, weir_graph::bf16);

macro_rules! complex_gemm {
    ($($t:ty),*) => {$(
        impl Gemm for Complex<$t> {
            fn gemm(a: ArrayView2<'_, Self>, b: ArrayView2<'_, Self>, c: &mut ArrayViewMut2<'_, Self>) {
                general_mat_mul(Complex::new(1.0, 0.0), &a, &b, Complex::new(0.0, 0.0), c);
            }
            fn conj(x: Self) -> Self {
                x.conj()
            }
            const COMPLEX: bool = true;
        }
    )*};
}
complex_gemm!(f32, f64);

/// The product of half or complex matrices (batched or not).
pub(super) fn wide_product(
    dt: DType,
    adj_a: bool,
    adj_b: bool,
    conjugate: bool,
    a: &Tensor,
    b: &Tensor,
) -> Result<Tensor> {
    weir_graph::match_half_dtype!(dt, T => batch_product::<T>(adj_a, adj_b, conjugate, a, b),
        _ => weir_graph::match_complex_dtype!(dt,
            T => batch_product::<T>(adj_a, adj_b, conjugate, a, b),
            _ => Err(Error::internal(format!("no wide product for {dt}")))))
}

/// `MatMul`'s types in TensorFlow's CPU kernels.
pub(super) const MATMUL_TYPES: &[DType] = &[
    DType::F32,
    DType::F64,
    DType::I32,
    DType::I64,
    DType::F16,
    DType::BF16,
    DType::C64,
    DType::C128,
];

/// `BatchMatMulV2`'s types: TensorFlow's, and the 8- and 16-bit integers weir already took.
pub(super) const BATCH_MATMUL_TYPES: &[DType] = &[
    DType::F32,
    DType::F64,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::F16,
    DType::BF16,
    DType::C64,
    DType::C128,
];
