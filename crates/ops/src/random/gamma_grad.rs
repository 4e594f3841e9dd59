//! `RandomGammaGrad`: the derivative of a `Gamma(alpha, 1)` sample with respect to `alpha`
//! (implicit reparameterization, Figurnov et al. 2018). Its kernel is with the incomplete gamma
//! functions (math/incomplete), whose iterations Eigen's `gamma_sample_der_alpha` shares.

use weir_graph::{Output, Result};

/// `tf.raw_ops.RandomGammaGrad(alpha, sample)`: `d sample / d alpha` for samples of
/// `Gamma(alpha, 1)`, with broadcasting; the gradient of `tf.random.gamma` uses it.
pub fn random_gamma_grad(alpha: impl Into<Output>, sample: impl Into<Output>) -> Result<Output> {
    let (a, x) = (alpha.into(), sample.into());
    let g = crate::util::same_graph(&[&a, &x])?.clone();
    crate::new_op(&g, "RandomGammaGrad")
        .input(a)
        .input(x)
        .build()?
        .output(0)
}
