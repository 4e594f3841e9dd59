//! The softmax of TensorFlow's CTC loss as its x86 build computes it with Eigen: the array
//! `exp()` (`crate::math::eigen_exp`: a different last bit from glibc's `exp`, which the
//! loss's log-space sums carry through), the array `sum()` (AVX packets of 8 floats or 4 doubles
//! and their pairwise reduction), and TensorFlow's flushing of subnormal results to zero. The
//! build has no FMA, so each `pmadd` is a multiply then an add, both rounded.

/// Eigen's `redux` of a sum over an aligned array on AVX (`lanes` = 8 floats or 4 doubles):
/// whole packets added lane-wise (two accumulators, then merged), the packet folded in halves,
/// then the remaining elements one by one; arrays shorter than a packet are summed in order.
pub(super) fn eigen_sum<T: Copy + std::ops::Add<Output = T>>(v: &[T], lanes: usize) -> T {
    let n = v.len();
    let end = n / lanes * lanes;
    if end == 0 {
        return v[1..].iter().fold(v[0], |s, &x| s + x);
    }
    let end2 = n / (2 * lanes) * (2 * lanes);
    let mut p0: [T; 8] = [v[0]; 8];
    p0[..lanes].copy_from_slice(&v[..lanes]);
    let add = |p: &mut [T; 8], at: usize| {
        for (i, x) in p.iter_mut().take(lanes).enumerate() {
            *x = *x + v[at + i];
        }
    };
    if end > lanes {
        let mut p1: [T; 8] = [v[0]; 8];
        p1[..lanes].copy_from_slice(&v[lanes..2 * lanes]);
        let mut at = 2 * lanes;
        while at < end2 {
            add(&mut p0, at);
            add(&mut p1, at + lanes);
            at += 2 * lanes;
        }
        for i in 0..lanes {
            p0[i] = p0[i] + p1[i];
        }
        if end > end2 {
            add(&mut p0, end2);
        }
    }
    let mut width = lanes;
    while width > 1 {
        width /= 2;
        for i in 0..width {
            p0[i] = p0[i] + p0[i + width];
        }
    }
    v[end..].iter().fold(p0[0], |s, &x| s + x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::eigen_exp::{exp_f32, exp_f64};

    #[test]
    fn close_to_the_exact_exponential() {
        for i in -200..=50 {
            let x = i as f32 * 0.37;
            let want = f64::from(x).exp();
            let got = f64::from(exp_f32(x));
            assert!((got - want).abs() <= 3e-7 * want, "{x}: {got} vs {want}");
            let xd = f64::from(x);
            assert!((exp_f64(xd) - want).abs() <= 1e-15 * want, "{xd}");
        }
        let v: Vec<f64> = (0..21).map(|i| f64::from(i) * 0.5).collect();
        assert_eq!(eigen_sum(&v, 4), v.iter().sum::<f64>());
        assert_eq!(eigen_sum(&v[..3], 4), 1.5);
        assert_eq!(exp_f32(-200.0), 0.0);
    }
}
