//! Connectionist temporal classification (`tf.nn.ctc_loss`, `tf.nn.ctc_greedy_decoder`,
//! `tf.nn.ctc_beam_search_decoder` of TensorFlow 1.x): the ops `CTCLoss`, `CTCGreedyDecoder` and
//! `CTCBeamSearchDecoder`, and `PreventGradient`, which the loss's gradient wraps around the
//! op's own gradient output.
//!
//! The blank is the last class. The kernels follow TensorFlow's CPU kernels step for step, so
//! that their results agree bit for bit: log-space forward-backward for the loss, after the
//! softmax TensorFlow's Eigen expressions compute (`eigen_exp`), and the beam search's prefix
//! tree, its `gtl::TopN` beam (whose libstdc++ heap and sort decide the order of equal scores)
//! and its per-step softmax normalisation.

mod beam_search;
mod builders;
mod eigen_exp;
mod greedy;
mod loss;
mod prevent_gradient;
mod shapes;
mod top_n;

pub use builders::{
    ctc_beam_search_decoder, ctc_greedy_decoder, ctc_loss, CtcBeamSearchDecoder, CtcGreedyDecoder,
    CtcLoss,
};
pub use prevent_gradient::prevent_gradient;

use super::NnFloat;

/// The float types of the CTC kernels, with TensorFlow's mixed-precision helpers: its
/// `LogSumExp` and its gradient's `expf` run in single precision whatever `T` is.
pub(crate) trait CtcFloat: NnFloat + std::fmt::Debug {
    /// `log1pf(expf(x))`, with `x` rounded to `f32` as C++ does when it calls them on a double.
    fn log1p_expf(self) -> Self;
    /// `expf(x)`, with `x` rounded to `f32`.
    fn expf(self) -> Self;
    /// `exp(x)` as Eigen's vectorised array `exp()` computes it.
    fn eigen_exp(self) -> Self;
    /// The elements of an Eigen array of this type in one AVX packet.
    const LANES: usize;
}

/// `v`, or a zero of its sign if it is subnormal: TensorFlow runs its kernels with subnormals
/// flushed to zero.
pub(crate) fn ftz<T: CtcFloat>(v: T) -> T {
    if v.is_subnormal() {
        v * T::ZERO
    } else {
        v
    }
}

impl CtcFloat for f32 {
    fn log1p_expf(self) -> f32 {
        self.exp().ln_1p()
    }
    fn expf(self) -> f32 {
        self.exp()
    }
    fn eigen_exp(self) -> f32 {
        crate::math::eigen_exp::exp_f32(self)
    }
    const LANES: usize = 8;
}

impl CtcFloat for f64 {
    fn log1p_expf(self) -> f64 {
        f64::from((self as f32).exp().ln_1p())
    }
    fn expf(self) -> f64 {
        f64::from((self as f32).exp())
    }
    fn eigen_exp(self) -> f64 {
        crate::math::eigen_exp::exp_f64(self)
    }
    const LANES: usize = 4;
}

/// TensorFlow's `ctc::LogSumExp`: `ln(e^a + e^b)` of two log probabilities, exact when either
/// is `-inf` (log zero), the smaller one's share through `log1pf(expf(.))`.
pub(crate) fn log_sum_exp<T: CtcFloat>(a: T, b: T) -> T {
    let zero = T::neg_infinity();
    if a == zero {
        b
    } else if b == zero {
        a
    } else if a > b {
        a + (b - a).log1p_expf()
    } else {
        b + (a - b).log1p_expf()
    }
}

/// Registers the CTC ops and kernels.
pub(crate) fn register() {
    beam_search::register();
    greedy::register();
    loss::register();
    prevent_gradient::register();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_sum_exp_handles_log_zero_and_order() {
        let z = f64::NEG_INFINITY;
        assert_eq!(log_sum_exp(z, -1.5), -1.5);
        assert_eq!(log_sum_exp(-1.5, z), -1.5);
        assert_eq!(log_sum_exp(z, z), z);
        let (a, b) = (-0.5f32, -2.0f32);
        assert_eq!(log_sum_exp(a, b), log_sum_exp(b, a));
        assert!((log_sum_exp(a, b) - (a.exp() + b.exp()).ln()).abs() < 1e-6);
        // float64 goes through single precision, as TensorFlow's log1pf(expf(.)) does.
        let d = log_sum_exp(0.0f64, -1.0);
        assert_eq!(d, f64::from((-1.0f32).exp().ln_1p()));
    }
}
