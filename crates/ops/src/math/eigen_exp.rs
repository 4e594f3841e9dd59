//! `exp` as TensorFlow's x86 build computes it in Eigen array expressions: `pexp_float` and
//! `pexp_double`, which differ from glibc's `exp` in the last bit for some inputs. The build has
//! no FMA, so each `pmadd` is a multiply then an add, both rounded. Used where those last bits
//! reach a result TensorFlow users compare (the CTC loss's log-space sums, PowerSign's update).

/// `2^e * a` as Eigen's `pldexp` forms it: three multiplications by `2^floor(e/4)`, then one by
/// the rest, so that no power of two overflows.
fn ldexp_f32(a: f32, e: f32) -> f32 {
    let e = e.clamp(-278.0, 278.0) as i32;
    let b = e >> 2;
    let c = f32::from_bits(((b + 127) as u32) << 23);
    let out = a * c * c * c;
    let rest = e - 3 * b;
    out * f32::from_bits(((rest + 127) as u32) << 23)
}

fn ldexp_f64(a: f64, e: f64) -> f64 {
    let e = e.clamp(-2099.0, 2099.0) as i64;
    let b = e >> 2;
    let c = f64::from_bits(((b + 1023) as u64) << 52);
    let out = a * c * c * c;
    let rest = e - 3 * b;
    out * f64::from_bits(((rest + 1023) as u64) << 52)
}

/// Eigen's `pexp_float` on one element.
pub(crate) fn exp_f32(x0: f32) -> f32 {
    if x0 < -104.0 {
        return 0.0;
    }
    if x0.is_nan() {
        return x0;
    }
    let x = x0.min(88.723);
    let m = (x * std::f32::consts::LOG2_E + 0.5).floor();
    let r = m * -0.693_359_4_f32 + x; // Eigen's -0.693359375f, as f32.
    let r = m * 2.121_944_4e-4_f32 + r;
    let r2 = r * r;
    let p_even = r2 * 1.374_496_4e-3_f32 + 4.166_965_2e-2_f32;
    let p_odd = r2 * 8.368_945e-3_f32 + 0.166_665_18_f32;
    let p_even = r2 * p_even + 0.499_999_88_f32;
    let p_low = r + 1.0;
    let y = r * p_odd + p_even;
    let y = r2 * y + p_low;
    ldexp_f32(y, m).max(x0)
}

/// Eigen's `pexp_double` on one element.
pub(crate) fn exp_f64(x0: f64) -> f64 {
    if x0 < -745.519 {
        return 0.0;
    }
    if x0.is_nan() {
        return x0;
    }
    let x = x0.min(709.784);
    let fx = (std::f64::consts::LOG2_E * x + 0.5).floor();
    let tmp = fx * 0.693_145_751_953_125;
    let z = fx * 1.428_606_820_309_417_2e-6;
    let x = x - tmp - z;
    let x2 = x * x;
    let px = 1.261_771_930_748_105_9e-4 * x2 + 3.029_944_077_074_419_6e-2;
    // Cephes' p2, 9.99999999999999999910e-1, is 1 in double precision.
    let px = (px * x2 + 1.0) * x;
    let qx = 3.001_985_051_386_644_6e-6 * x2 + 2.524_483_403_496_841e-3;
    let qx = qx * x2 + 2.272_655_482_081_550_3e-1;
    let qx = qx * x2 + 2.0;
    let x = px / (qx - px);
    let x = 2.0 * x + 1.0;
    ldexp_f64(x, fx).max(x0)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(-200.0), 0.0);
        assert!(exp_f32(f32::NAN).is_nan());
    }
}
