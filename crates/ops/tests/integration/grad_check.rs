//! Helpers of the nn tests: one fetch with feeds, and a backward kernel checked against central
//! differences of its forward kernel.

use weir_graph::{Output, Result, Tensor};
use weir_session::{RunArgs, Session};

pub fn run1(sess: &Session, out: &Output, feeds: &[(&Output, &Tensor)]) -> Result<Tensor> {
    let mut args = RunArgs::new().fetch(out);
    for (k, v) in feeds {
        args = args.feed(*k, (*v).clone());
    }
    Ok(sess.run(&args)?.remove(0))
}

/// Checks `analytic` (built from placeholder `x` and upstream gradient `dy`) against the
/// central difference of `sum(dy * y)` with respect to `x`, `y` the forward output.
pub fn check_grad(
    sess: &Session,
    x: &Output,
    x0: &Tensor,
    y: &Output,
    dy: &[f64],
    analytic: &Output,
    other: &[(&Output, &Tensor)],
) -> Result<()> {
    let mut feeds = vec![(x, x0)];
    feeds.extend_from_slice(other);
    let got = run1(sess, analytic, &feeds)?.to_vec::<f64>()?;
    let base = x0.to_vec::<f64>()?;
    assert_eq!(got.len(), base.len(), "gradient size");
    let eps = 1e-6;
    for i in 0..base.len() {
        let obj = |d: f64| -> Result<f64> {
            let mut v = base.clone();
            v[i] += d;
            let t = Tensor::from_vec(x0.shape(), v)?;
            let mut f = vec![(x, &t)];
            f.extend_from_slice(other);
            let out = run1(sess, y, &f)?.to_vec::<f64>()?;
            Ok(out.iter().zip(dy).map(|(a, b)| a * b).sum())
        };
        let numeric = (obj(eps)? - obj(-eps)?) / (2.0 * eps);
        assert!(
            (numeric - got[i]).abs() <= 1e-5 * numeric.abs().max(1.0),
            "{}: d/dx[{i}] analytic {} numeric {numeric}",
            analytic.name(),
            got[i]
        );
    }
    Ok(())
}
