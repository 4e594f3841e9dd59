//! Neural-network ops (`tf.nn`): activations, softmax, bias_add, the cross-entropy losses,
//! l2_loss, dropout, in_top_k, top_k, conv2d, depthwise_conv2d_native, max_pool, lrn,
//! fused_batch_norm, and the composites moments, batch_normalization, l2_normalize,
//! embedding_lookup(_sparse), conv2d_transpose, depthwise_conv2d and separable_conv2d, plus
//! the backward kernels their
//! gradient functions call (`ReluGrad`, `BiasAddGrad`, `Conv2DBackpropInput`, `MaxPoolGrad`,
//! ...).
//!
//! Kernels work on contiguous row-major slices of `f32` or `f64` and reuse their input buffer
//! for the output when no one else holds it. The activations (and their gradients), softmax,
//! bias_add, the softmax cross-entropies, l2_loss, conv2d (and its backprops), the max and
//! average pools and fused_batch_norm (V2/V3, float statistics) also take `f16` and `bf16`
//! where TensorFlow's CPU kernels do, rounding as TensorFlow's Eigen kernels round (see
//! [`NnFloat`]). Two ops are weir's own fused forms of what
//! TensorFlow composes from several ops: `SigmoidCrossEntropyWithLogits` (TensorFlow builds it
//! from select/relu/log1p) and `Dropout` (TensorFlow builds it from random_uniform, a compare and
//! two multiplies); both compute TensorFlow's formula in one pass.
//!
//! ```
//! use weir_graph::{DType, Graph, Shape};
//! use weir_ops::{array::placeholder, nn};
//!
//! let g = Graph::new();
//! let logits = placeholder(&g, DType::F32, Shape::new(vec![None, Some(10)]))?;
//! let probs = nn::softmax(&logits)?;
//! assert_eq!(probs.shape(), Shape::new(vec![None, Some(10)]));
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod activations;
mod activations_more;
mod atrous_conv;
mod avg_pool;
mod batch_norm_global;
mod bias_add;
mod candidate_sampling;
mod conv;
mod conv3d;
mod conv3d_kernels;
mod conv3d_shape;
mod conv_composites;
mod ctc;
mod data_format;
mod depthwise_conv;
mod depthwise_kernels;
mod dilation;
mod dropout;
mod embedding;
mod fixed_unigram;
mod fractional_pool;
mod fractional_pool_grad;
mod fractional_pool_kernels;
mod fused_batch_norm;
mod fused_batch_norm_grad;
mod in_top_k;
mod losses;
mod lrn;
mod max_pool_argmax;
mod max_pool_grad_grad;
mod max_pool_v2;
mod moments;
mod moments_more;
mod normalize;
mod padding;
mod pool;
mod pool3d;
mod pool3d_grad;
pub mod rnn_block;
mod sampled_losses;
mod softmax;
mod top_k;
mod unary_grad;
// Registered by `candidate_sampling::register`.
mod all_sampler;
mod unigram_sampler;

pub use activations::{
    elu, elu_grad, leaky_relu, leaky_relu_grad, leaky_relu_with_alpha, relu, relu6, relu6_grad,
    relu_grad, sigmoid, tanh,
};
pub use activations_more::{
    crelu, crelu_with_axis, selu, selu_grad, softplus, softplus_grad, softsign, softsign_grad,
};
pub use all_sampler::{all_candidate_sampler, AllCandidateSampler};
pub use atrous_conv::atrous_conv2d;
pub use avg_pool::{avg_pool, avg_pool_grad, AvgPool};
pub use batch_norm_global::{
    batch_norm_with_global_normalization, BatchNormWithGlobalNormalization,
};
pub use bias_add::{bias_add, bias_add_grad, bias_add_v1, BiasAdd};
pub use candidate_sampling::{
    compute_accidental_hits, log_uniform_candidate_sampler, uniform_candidate_sampler,
    CandidateSamples,
};
pub use conv::{conv2d, conv2d_backprop_filter, conv2d_backprop_input, Conv2D};
pub use conv3d::{
    conv3d, conv3d_backprop_filter_v2, conv3d_backprop_input_v2, conv3d_transpose, Conv3D,
};
pub use conv_composites::{conv2d_transpose, depthwise_conv2d, separable_conv2d};
pub use ctc::{
    ctc_beam_search_decoder, ctc_greedy_decoder, ctc_loss, prevent_gradient, CtcBeamSearchDecoder,
    CtcGreedyDecoder, CtcLoss,
};
pub use data_format::{data_format_dim_map, data_format_vec_permute, DataFormat};
pub use depthwise_conv::{
    depthwise_conv2d_native, depthwise_conv2d_native_backprop_filter,
    depthwise_conv2d_native_backprop_input, DepthwiseConv2dNative,
};
pub use dilation::{dilation2d, dilation2d_backprop_filter, dilation2d_backprop_input, erosion2d};
pub use dropout::{dropout, dropout_grad, Dropout};
pub use embedding::{
    embedding_lookup, embedding_lookup_sparse, safe_embedding_lookup_sparse, EmbeddingLookup,
    EmbeddingLookupSparse, SafeEmbeddingLookupSparse,
};
pub use fixed_unigram::{fixed_unigram_candidate_sampler, FixedUnigramCandidateSampler};
pub use fractional_pool::{
    fractional_avg_pool, fractional_avg_pool_grad, fractional_max_pool, fractional_max_pool_grad,
    FractionalPool, FractionalPoolOutputs,
};
pub use fused_batch_norm::fused_batch_norm;
pub use in_top_k::in_top_k;
pub use losses::{
    l2_loss, sigmoid_cross_entropy_with_logits, sigmoid_cross_entropy_with_logits_grad,
    softmax_cross_entropy_with_logits, sparse_softmax_cross_entropy_with_logits,
};
pub use lrn::{lrn, lrn_grad, Lrn};
pub use max_pool_argmax::{max_pool_with_argmax, MaxPoolWithArgmax};
pub use max_pool_grad_grad::max_pool_grad_grad;
pub use max_pool_v2::{max_pool_grad_v2, max_pool_v2};
pub use moments::{batch_normalization, moments, Moments};
pub use moments_more::{sufficient_statistics, weighted_moments};
pub use normalize::l2_normalize;
pub use padding::{conv_output_size, ExplicitPaddings, Padding};
pub use pool::{max_pool, max_pool_grad, MaxPool};
pub use pool3d::{
    avg_pool3d, avg_pool3d_grad, max_pool3d, max_pool3d_grad, max_pool3d_grad_grad, Pool3D,
};
pub use sampled_losses::{nce_loss, sampled_softmax_loss, SampledLoss};
pub use softmax::{log_softmax, softmax};
pub use top_k::{top_k, top_k_v2};
pub use unigram_sampler::{
    learned_unigram_candidate_sampler, thread_unsafe_unigram_candidate_sampler,
    LearnedUnigramCandidateSampler,
};

use num_traits::Float;
use weir_graph::{
    bf16, f16, Complex, DType, Error, InferenceContext, Result, Shape, Tensor, TensorType,
};

/// The floating-point element types the nn kernels are written for: `f32`, `f64` and the half
/// types `f16`/`bf16`, whose `half`-crate arithmetic widens each operand to f32, computes one
/// operation and rounds back, exactly as `Eigen::half`/`Eigen::bfloat16` do in TensorFlow.
pub(crate) trait NnFloat:
    Float + TensorType + Send + Sync + std::iter::Sum + 'static
{
    /// 0 (named so it does not clash with `TensorType::zero`).
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// True for `f16`/`bf16`, whose reductions follow Eigen's packet order (see `eigen_sum`).
    const HALF: bool = false;
    /// `1 / sqrt(self)` as Eigen's `rsqrt` gives it: the half types compute it in f32 and
    /// round once (not twice, as `ONE / self.sqrt()` would).
    fn rsqrt(self) -> Self {
        Self::ONE / self.sqrt()
    }
}
impl NnFloat for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
}
impl NnFloat for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
}
impl NnFloat for weir_graph::f16 {
    const ZERO: Self = weir_graph::f16::ZERO;
    const ONE: Self = weir_graph::f16::ONE;
    const HALF: bool = true;
    fn rsqrt(self) -> Self {
        Self::from_f32(1.0 / self.to_f32().sqrt())
    }
}
impl NnFloat for weir_graph::bf16 {
    const ZERO: Self = weir_graph::bf16::ZERO;
    const ONE: Self = weir_graph::bf16::ONE;
    const HALF: bool = true;
    fn rsqrt(self) -> Self {
        Self::from_f32(1.0 / self.to_f32().sqrt())
    }
}

/// Eigen's packet width for the half types on x86 (`Packet8h`/`Packet8bf`): TensorFlow's
/// inner-dimension sums keep this many running lanes.
const HALF_LANES: usize = 8;

/// The sum of `v` in the order TensorFlow's Eigen inner-most-dimension reduction adds it for
/// `T`: f32/f64 sequentially; the half types in 8 half-precision lanes (each add rounded),
/// the tail in a scalar half accumulator, the lanes then summed in f32 and rounded once
/// (`predux` widens the packet) and added to the tail. Bit-exact against TensorFlow 2.21 for
/// rows up to a few dozen elements; longer rows differ by a few ulp (Eigen's unrolling there
/// depends on the build's SIMD width).
pub(crate) fn eigen_sum<T: NnFloat>(v: &[T]) -> T {
    if !T::HALF || v.len() < HALF_LANES {
        return v.iter().fold(T::ZERO, |a, &b| a + b);
    }
    let mut lanes = [T::ZERO; HALF_LANES];
    let body = v.len() / HALF_LANES * HALF_LANES;
    for chunk in v[..body].chunks_exact(HALF_LANES) {
        for (l, &x) in lanes.iter_mut().zip(chunk) {
            *l = *l + x;
        }
    }
    let tail = v[body..].iter().fold(T::ZERO, |a, &b| a + b);
    let wide: f32 = lanes.iter().map(|l| l.to_f32().unwrap_or(f32::NAN)).sum();
    tail + T::from(wide).unwrap_or_else(T::nan)
}

/// An element of any number type, as the nn kernels TensorFlow registers for every number
/// type (BiasAdd, MaxPool) add it: integers wrap, as TensorFlow's do; floats and complex
/// numbers add as IEEE numbers (the half types rounding each sum, as Eigen's do).
pub(crate) trait NnNumber: TensorType + Copy {
    const ZERO: Self;
    fn plus(self, other: Self) -> Self;
    /// The sum of a contiguous run as Eigen's `SumReducer` adds it in this type.
    fn run_sum(run: &[Self]) -> Self {
        run.iter().fold(Self::ZERO, |a, &b| a.plus(b))
    }
}

macro_rules! wrapping_elem {
    ($($t:ty),*) => {$(
        impl NnNumber for $t {
            const ZERO: Self = 0;
            fn plus(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
        }
    )*};
}
wrapping_elem!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_elem {
    ($($t:ty => $zero:expr, $sum:path),*) => {$(
        impl NnNumber for $t {
            const ZERO: Self = $zero;
            fn plus(self, other: Self) -> Self {
                self + other
            }
            fn run_sum(run: &[Self]) -> Self {
                $sum(run)
            }
        }
    )*};
}
float_elem!(
    f32 => 0.0, crate::math::lane_sum_f32,
    f64 => 0.0, crate::math::lane_sum_f64,
    f16 => f16::ZERO, crate::math::lane_sum_f16,
    bf16 => bf16::ZERO, crate::math::lane_sum_bf16
);

macro_rules! complex_elem {
    ($($t:ty),*) => {$(
        impl NnNumber for Complex<$t> {
            const ZERO: Self = Complex::new(0.0, 0.0);
            fn plus(self, other: Self) -> Self {
                self + other
            }
            fn run_sum(run: &[Self]) -> Self {
                crate::math::lane_sum_complex(run)
            }
        }
    )*};
}
complex_elem!(f32, f64);

/// Runs `$body` with `$T` bound to the element type of a number `$dtype`; InvalidArgument
/// otherwise.
macro_rules! match_number {
    ($dtype:expr, $T:ident => $body:expr) => {
        weir_graph::match_complex_dtype!($dtype, $T => $body,
            _ => $crate::nn::match_real_or_half!($dtype, $T => $body))
    };
}
pub(crate) use match_number;

/// Runs `$body` with `$T` bound to the element type of a real number `$dtype` (the half types
/// included); InvalidArgument otherwise.
macro_rules! match_real_or_half {
    ($dtype:expr, $T:ident => $body:expr) => {
        weir_graph::match_real_dtype!($dtype, $T => $body,
            _ => weir_graph::match_half_dtype!($dtype, $T => $body,
                _ => return Err(weir_graph::Error::invalid_argument(format!(
                    "Unsupported dtype {}: this kernel takes number types", $dtype
                )))))
    };
}
pub(crate) use match_real_or_half;

/// Runs `$body` with `$T` bound to `f32` or `f64` per `$dtype`; InvalidArgument otherwise.
macro_rules! match_float {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            weir_graph::DType::F32 => {
                type $T = f32;
                $body
            }
            weir_graph::DType::F64 => {
                type $T = f64;
                $body
            }
            other => {
                return Err(weir_graph::Error::invalid_argument(format!(
                    "Unsupported dtype {other}: this kernel takes float or double"
                )))
            }
        }
    };
}
pub(crate) use match_float;

/// [`match_float`] plus `f16` and `bf16`, for the kernels TensorFlow also registers for
/// `half` and `bfloat16`.
macro_rules! match_float_or_half {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            weir_graph::DType::F16 => {
                type $T = weir_graph::f16;
                $body
            }
            weir_graph::DType::BF16 => {
                type $T = weir_graph::bf16;
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
            other => {
                return Err(weir_graph::Error::invalid_argument(format!(
                    "Unsupported dtype {other}: this kernel takes half, bfloat16, float or double"
                )))
            }
        }
    };
}
pub(crate) use match_float_or_half;

/// A half or bfloat16 tensor widened to f32 (exactly), for the kernels TensorFlow computes
/// in f32 for the half types; other dtypes pass through unchanged.
pub(crate) fn widen_half(x: &Tensor) -> Result<Tensor> {
    match x.dtype() {
        DType::F16 | DType::BF16 => crate::math::cast::cast_tensor(x, DType::F32),
        _ => Ok(x.clone()),
    }
}

/// `x` mapped elementwise by `f`, written into `x`'s own buffer when no one else holds it.
pub(crate) fn map_in_place<T: TensorType + Copy>(
    mut x: Tensor,
    f: impl Fn(T) -> T,
) -> Result<Tensor> {
    for v in x.as_slice_mut::<T>()? {
        *v = f(*v);
    }
    Ok(x)
}

/// `a` combined elementwise with `b` (same shape) by `f(a, b)`, written into `a`'s buffer.
pub(crate) fn zip_in_place<T: TensorType + Copy>(
    mut a: Tensor,
    b: &Tensor,
    what: &str,
    f: impl Fn(T, T) -> T,
) -> Result<Tensor> {
    same_shape(&a, b, what)?;
    let bs = b.as_slice::<T>()?;
    for (x, &y) in a.as_slice_mut::<T>()?.iter_mut().zip(bs) {
        *x = f(*x, y);
    }
    Ok(a)
}

/// InvalidArgument unless `a` and `b` have one shape (TensorFlow's wording for grad kernels).
pub(crate) fn same_shape(a: &Tensor, b: &Tensor, what: &str) -> Result<()> {
    if a.shape() != b.shape() {
        return Err(Error::invalid_argument(format!(
            "{what}: inputs must have the same shape, got {} and {}",
            weir_graph::format_dims(a.shape()),
            weir_graph::format_dims(b.shape())
        )));
    }
    Ok(())
}

/// Shape function: output 0 has input 0's shape.
pub(crate) fn same_as_input0(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

/// Shape function: output 0 is the merge of inputs 0 and 1 (a gradient and its features).
pub(crate) fn merge_inputs01(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx
        .input_shape(0)
        .merge_with(ctx.input_shape(1))
        .map_err(|e| Error::invalid_argument(format!("{} for '{}'", e.message(), ctx.op_type)))?;
    ctx.set_output(0, s);
    Ok(())
}

/// The static shape without its last dimension (`[?, 10]` -> `[?]`); unknown stays unknown.
pub(crate) fn drop_last_dim(s: &Shape) -> Shape {
    match s.dims() {
        Some(d) if !d.is_empty() => Shape::new(d[..d.len() - 1].to_vec()),
        _ => Shape::unknown(),
    }
}

pub(crate) const FLOATS: &[DType] = DType::FLOAT;

/// TensorFlow's `{half, bfloat16, float, double}`: the CPU kernels of most nn ops.
pub(crate) const HALF_FLOATS: &[DType] = &[DType::F16, DType::BF16, DType::F32, DType::F64];
/// The types `MaxPool` and `MaxPoolV2` take: the real types but uint32 and uint64 (which their
/// gradients take).
pub(crate) const MAX_POOL_TYPES: &[DType] = &[
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::I16,
    DType::I8,
    DType::U16,
];

/// `tf.nn.zero_fraction(value)`: the float32 share of `value`'s elements that are zero (the
/// sparsity of a layer's activations, as TensorFlow's CIFAR-10 model summarizes it).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::zero_fraction};
/// let g = Graph::new();
/// let f = zero_fraction(constant(&g, Tensor::from(vec![0.0f32, 1.0, 0.0, 3.0]))?)?;
/// assert_eq!(f.dtype(), weir_graph::DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn zero_fraction(value: impl Into<weir_graph::Output>) -> Result<weir_graph::Output> {
    let v = value.into();
    let g = v.graph().clone();
    let _scope = g.name_scope("zero_fraction");
    let zero = crate::array::constant_named(&g, weir_graph::scalar_of(v.dtype(), 0.0)?, "zero")?;
    let is_zero = crate::math::cast(crate::math::equal(&v, &zero)?, DType::F32)?;
    crate::math::Reduce::mean().name("fraction").build(&is_zero)
}

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    activations::register();
    activations_more::register();
    avg_pool::register();
    batch_norm_global::register();
    bias_add::register();
    data_format::register();
    candidate_sampling::register();
    conv::register();
    conv3d::register();
    ctc::register();
    depthwise_conv::register();
    dilation::register();
    dropout::register();
    fractional_pool::register();
    fused_batch_norm::register();
    in_top_k::register();
    losses::register();
    lrn::register();
    max_pool_argmax::register();
    max_pool_grad_grad::register();
    pool::register();
    max_pool_v2::register();
    pool3d::register();
    rnn_block::register();
    softmax::register();
    top_k::register();
    unary_grad::register();
}

#[cfg(test)]
mod tests {
    use super::*;
    use weir_graph::f16;

    #[test]
    fn half_sums_keep_eight_lanes_and_add_them_in_f32() {
        // 2048 + 1 rounds back to 2048 in float16, so a sequential float16 sum stays at 2048;
        // Eigen's lanes hold 2048 and seven 1s, summed in f32 to 2055 (rounded to 2056), and
        // the tail's 1 then rounds to even again.
        let mut v = vec![f16::from_f32(2048.0)];
        v.extend([f16::ONE; 8]);
        assert_eq!(eigen_sum(&v), f16::from_f32(2056.0));
        let sequential = v.iter().fold(f16::ZERO, |a, &b| a + b);
        assert_eq!(sequential, f16::from_f32(2048.0));
        // Fewer than eight elements and the float types: one running sum.
        assert_eq!(eigen_sum(&v[..7]), f16::from_f32(2048.0));
        assert_eq!(eigen_sum(&[0.1f32; 10]), (0..10).fold(0f32, |a, _| a + 0.1));
    }

    #[test]
    fn half_rsqrt_rounds_once() {
        for bits in [0x3c00u16, 0x4000, 0x3555, 0x0400, 0x7bff] {
            let x = f16::from_bits(bits);
            assert_eq!(x.rsqrt(), f16::from_f32(1.0 / x.to_f32().sqrt()));
        }
    }
}
