//! Adagrad with epsilon (`ApplyAdagradV2`, `SparseApplyAdagradV2` and their `Resource*` forms)
//! and Keras' momentum (`ResourceApplyKerasMomentum`, `ResourceSparseApplyKerasMomentum`): their
//! rules in the float order of TensorFlow's `training_ops.cc` (the dense functors and the
//! sparse ones compute the same expression), for the float and complex types, and their
//! `tf.raw_ops` builders. The kernel is in `apply_extra.rs`.
//!
//! Complex Adagrad divides as Eigen does: elements in a SIMD packet by `pdiv_complex` (both
//! operands scaled by `max(|c|, |d|)`) after its packet `sqrt`, the others by `std::complex`'s
//! Smith division after Eigen's scalar `complex_sqrt`.

use std::ops::{Add, Mul, Sub};

use num_traits::Float;
use weir_graph::{bf16, f16, Complex, Operation, Output, Result};

use super::apply_extra::Args;
use super::apply_extra_ops::{build, GradCheck};
use crate::state::Variable;

/// An element type of the Adagrad V2 and Keras momentum kernels.
pub(super) trait V2Elem:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self>
{
    /// `num / (sqrt(a) + eps)`, as TensorFlow computes it in a packet or on a lone element.
    fn over_root(num: Self, a: Self, eps: Self, packet: bool) -> Self;
}

macro_rules! real_v2 {
    ($($t:ty),*) => {$(
        impl V2Elem for $t {
            fn over_root(num: Self, a: Self, eps: Self, _packet: bool) -> Self {
                num / (Float::sqrt(a) + eps)
            }
        }
    )*};
}
real_v2!(f16, bf16, f32, f64);

/// One lane of Eigen's overflow-safe `|z|` (and its scalar `hypot`): `p * sqrt(1 + (q / p)²)`
/// with `p` the larger magnitude.
fn hypot<T: Float>(x: T, y: T) -> T {
    let (p, q) = (x.abs().max(y.abs()), x.abs().min(y.abs()));
    if q == T::zero() {
        p
    } else {
        let r = q / p;
        p * (T::one() + r * r).sqrt()
    }
}

/// Eigen's complex square roots on finite values: `w = sqrt((|x| + |z|) / 2)` and the other
/// part `y / 2w`, mirrored for a negative real part. The packet form takes `y / 2w` as
/// `(y / w) / 2` also where `x` is zero (the scalar form gives `±w` there).
fn complex_sqrt<T: Float>(z: Complex<T>, packet: bool) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    let zero = T::zero();
    let half = T::from(0.5).unwrap_or_else(T::nan);
    let w = (half * (x.abs() + hypot(x, y))).sqrt();
    let eta = if x == zero && y == zero {
        zero
    } else {
        half * (y / w)
    };
    let signed_w = if y < zero { -w } else { w };
    if packet {
        if x < zero {
            Complex::new(eta.abs(), w.copysign(y))
        } else {
            Complex::new(w, eta)
        }
    } else if x == zero {
        Complex::new(w, signed_w)
    } else if x > zero {
        Complex::new(w, y / (w + w))
    } else {
        Complex::new(y.abs() / (w + w), signed_w)
    }
}

/// `a / b`: Eigen's `pdiv_complex` in a packet, `std::complex`'s Smith division alone.
fn complex_div<T: Float>(a: Complex<T>, b: Complex<T>, packet: bool) -> Complex<T> {
    let (c, d) = (b.re, b.im);
    if packet {
        let m = c.abs().max(d.abs());
        let (c, d) = (c / m, d / m);
        let den = c * c + d * d;
        Complex::new(
            (a.re * c + a.im * d) / den / m,
            (a.im * c - a.re * d) / den / m,
        )
    } else if c.abs() >= d.abs() {
        let r = d / c;
        let den = c + d * r;
        Complex::new((a.re + a.im * r) / den, (a.im - a.re * r) / den)
    } else {
        let r = c / d;
        let den = c * r + d;
        Complex::new((a.re * r + a.im) / den, (a.im * r - a.re) / den)
    }
}

macro_rules! complex_v2 {
    ($($t:ty),*) => {$(
        impl V2Elem for Complex<$t> {
            fn over_root(num: Self, a: Self, eps: Self, packet: bool) -> Self {
                complex_div(num, complex_sqrt(a, packet) + eps, packet)
            }
        }
    )*};
}
complex_v2!(f32, f64);

/// Adagrad V2 on one element, scalars `[lr, epsilon]`, flag `update_slots`:
/// `accum += g * g`, `var -= g * lr / (sqrt(accum) + epsilon)`.
pub(super) fn adagrad_v2<T: V2Elem>(a: &Args<'_, T>, st: &mut [T], g: T) {
    let (lr, eps) = (a.s[0], a.s[1]);
    if a.flag {
        st[1] = st[1] + g * g;
    }
    st[0] = st[0] - T::over_root(g * lr, st[1], eps, a.packet);
}

/// Keras momentum on one element, scalars `[lr, momentum]`, flag `use_nesterov`:
/// `accum = accum * momentum - g * lr`, then `var += accum`, or with Nesterov
/// `var += accum * momentum - g * lr`.
pub(super) fn keras_momentum<T: V2Elem>(a: &Args<'_, T>, st: &mut [T], g: T) {
    let (lr, momentum) = (a.s[0], a.s[1]);
    let accum = st[1] * momentum - g * lr;
    st[0] = if a.flag {
        st[0] + (accum * momentum - g * lr)
    } else {
        st[0] + accum
    };
    st[1] = accum;
}

/// `tf.raw_ops.ApplyAdagradV2`: Adagrad with `epsilon` outside the root (Keras' Adagrad):
/// `accum += grad^2` (with `update_slots`), `var -= lr * grad / (sqrt(accum) + epsilon)`;
/// returns the new value.
pub fn apply_adagrad_v2(
    var: &Variable,
    accum: &Variable,
    lr: impl Into<Output>,
    epsilon: impl Into<Output>,
    grad: impl Into<Output>,
    update_slots: bool,
) -> Result<Output> {
    let rest = vec![lr.into(), epsilon.into(), grad.into()];
    let flag = Some(("update_slots", update_slots));
    build(
        "ApplyAdagradV2",
        &[var, accum],
        rest,
        GradCheck::Dense(2),
        flag,
    )?
    .output(0)
}

/// `tf.raw_ops.SparseApplyAdagradV2`: [`apply_adagrad_v2`] on the rows `indices`, row `i` of
/// `grad` going to row `indices[i]` (repeated indices update a row repeatedly).
pub fn sparse_apply_adagrad_v2(
    var: &Variable,
    accum: &Variable,
    lr: impl Into<Output>,
    epsilon: impl Into<Output>,
    grad: impl Into<Output>,
    indices: impl Into<Output>,
    update_slots: bool,
) -> Result<Output> {
    let rest = vec![lr.into(), epsilon.into(), grad.into(), indices.into()];
    let flag = Some(("update_slots", update_slots));
    build(
        "SparseApplyAdagradV2",
        &[var, accum],
        rest,
        GradCheck::Sparse(2),
        flag,
    )?
    .output(0)
}

/// `tf.raw_ops.ResourceApplyKerasMomentum`: momentum as Keras' SGD keeps it, the velocity
/// holding the learning rate: `accum = accum * momentum - lr * grad`, `var += accum`, or with
/// `use_nesterov` `var += accum * momentum - lr * grad`. The op has no output.
pub fn resource_apply_keras_momentum(
    var: &Variable,
    accum: &Variable,
    lr: impl Into<Output>,
    grad: impl Into<Output>,
    momentum: impl Into<Output>,
    use_nesterov: bool,
) -> Result<Operation> {
    let rest = vec![lr.into(), grad.into(), momentum.into()];
    let flag = Some(("use_nesterov", use_nesterov));
    build(
        "ResourceApplyKerasMomentum",
        &[var, accum],
        rest,
        GradCheck::None,
        flag,
    )
}

/// `tf.raw_ops.ResourceSparseApplyKerasMomentum`: [`resource_apply_keras_momentum`] on the
/// rows `indices`.
pub fn resource_sparse_apply_keras_momentum(
    var: &Variable,
    accum: &Variable,
    lr: impl Into<Output>,
    grad: impl Into<Output>,
    indices: impl Into<Output>,
    momentum: impl Into<Output>,
    use_nesterov: bool,
) -> Result<Operation> {
    let rest = vec![lr.into(), grad.into(), indices.into(), momentum.into()];
    let flag = Some(("use_nesterov", use_nesterov));
    build(
        "ResourceSparseApplyKerasMomentum",
        &[var, accum],
        rest,
        GradCheck::None,
        flag,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complex_square_roots_square_back() {
        for z in [
            Complex::new(3.0f64, 4.0),
            Complex::new(-3.0, 4.0),
            Complex::new(-3.0, -4.0),
            Complex::new(0.0, 2.0),
            Complex::new(0.5, 0.0),
        ] {
            for packet in [false, true] {
                let r = complex_sqrt(z, packet);
                assert!((r * r - z).norm() < 1e-14, "{z} {packet}: {r}");
                assert!(r.re >= 0.0);
            }
        }
        assert_eq!(
            complex_sqrt(Complex::new(3.0, 4.0), false),
            Complex::new(2.0, 1.0)
        );
    }

    #[test]
    fn complex_division_paths_agree_on_easy_values() {
        let (a, b) = (Complex::new(1.0f64, 2.0), Complex::new(3.0, -4.0));
        let want = a / b;
        for packet in [false, true] {
            assert!((complex_div(a, b, packet) - want).norm() < 1e-15);
        }
    }

    #[test]
    fn keras_momentum_steps_with_the_scaled_velocity() {
        let s = [0.1f32, 0.9];
        let plain = Args {
            s: &s,
            flag: false,
            packet: false,
        };
        let mut st = [1.0f32, 0.5];
        keras_momentum(&plain, &mut st, 2.0);
        assert_eq!(st[1], 0.5 * 0.9 - 2.0 * 0.1);
        assert_eq!(st[0], 1.0 + (0.5 * 0.9 - 2.0 * 0.1));
        let nesterov = Args {
            flag: true,
            ..plain
        };
        let mut st = [1.0f32, 0.5];
        keras_momentum(&nesterov, &mut st, 2.0);
        let acc = 0.5f32 * 0.9 - 2.0 * 0.1;
        assert_eq!(st[0], 1.0 + (acc * 0.9 - 2.0 * 0.1));
    }
}
