//! The update rules of the kernels in `apply_more.rs`, one element at a time, in the float
//! order of TensorFlow's `training_ops.cc`: the dense functors (Eigen expressions), the sparse
//! kernels on rows of a variable of rank 2 or more, and their scalar code on vectors.

use crate::nn::NnFloat;

use super::apply_more::Kind;

/// Eigen's `sign`: -1, 0 or 1 (0 for NaN).
fn sign<T: NnFloat>(x: T) -> T {
    if x > T::ZERO {
        T::ONE
    } else if x < T::ZERO {
        -T::ONE
    } else {
        T::ZERO
    }
}

/// `training_ops.cc`'s `sgn`: 0 for 0, -1 below, 1 otherwise (NaN included).
fn sgn<T: NnFloat>(x: T) -> T {
    if x == T::ZERO {
        T::ZERO
    } else if x < T::ZERO {
        -T::ONE
    } else {
        T::ONE
    }
}

/// `std::max(a, b)` and Eigen's `cwiseMax`: `a < b ? b : a`.
fn max<T: PartialOrd>(a: T, b: T) -> T {
    if a < b {
        b
    } else {
        a
    }
}

/// `std::min(a, b)` and Eigen's `cwiseMin`: `b < a ? b : a`.
fn min<T: PartialOrd>(a: T, b: T) -> T {
    if b < a {
        b
    } else {
        a
    }
}

fn wide<T: NnFloat>(x: T) -> f64 {
    x.to_f64().unwrap_or(f64::NAN)
}

fn narrow<T: NnFloat>(x: f64) -> T {
    T::from(x).unwrap_or_else(T::nan)
}

/// `x^y` rounded once: TensorFlow's float `pow` is within an ulp and, on the values the tests
/// cover, the correctly rounded result.
fn pow<T: NnFloat>(x: T, y: T) -> T {
    narrow(wide(x).powf(wide(y)))
}

/// How the update is computed: elementwise over the whole variable (dense ops), on one row of a
/// variable of rank 2 or more, or on one element of a vector (sparse ops).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Path {
    Dense,
    Row,
    Scalar,
}

/// The scalar inputs of one run.
pub(super) struct Params<T> {
    /// The floating scalars in [`Kind::scalar_names`] order.
    pub s: Vec<T>,
    /// AdagradDA's global step.
    pub step: i64,
    /// FTRL's `multiply_linear_by_lr`.
    pub mul_lr: bool,
    /// Momentum's `use_nesterov`.
    pub nesterov: bool,
    /// Adagrad's `update_slots`.
    pub update_slots: bool,
}

/// Applies the update of `kind` to one element: `st` holds the variable, then its slots.
pub(super) fn update<T: NnFloat>(kind: Kind, path: Path, p: &Params<T>, st: &mut [T], g: T) {
    let one = T::ONE;
    let two = one + one;
    match kind {
        Kind::Adadelta => {
            let (lr, rho, eps) = (p.s[0], p.s[1], p.s[2]);
            let (v, a, u) = (st[0], st[1], st[2]);
            let a = a * rho + g * g * (one - rho);
            let update = (u + eps).sqrt() * (a + eps).rsqrt() * g;
            st[0] = v - update * lr;
            st[1] = a;
            st[2] = u * rho + update * update * (one - rho);
        }
        Kind::Ftrl { v2 } => {
            let (lr, l1, l2) = (p.s[0], p.s[1], p.s[2]);
            let (l2s, lr_power) = if v2 {
                (p.s[3], p.s[4])
            } else {
                (T::ZERO, p.s[3])
            };
            let (v, a, l) = (st[0], st[1], st[2]);
            let gs = if v2 { g + two * l2s * v } else { g };
            let na = a + g * g;
            let half = lr_power == -(one / two);
            let root = |x: T| if half { x.sqrt() } else { pow(x, -lr_power) };
            let (l1, l2x) = if p.mul_lr {
                (l1 * lr, two * l2 * lr)
            } else {
                (l1, two * l2)
            };
            let (nl, quadratic) = if path == Path::Scalar {
                let mut sigma = pow(na, -lr_power) - pow(a, -lr_power);
                if p.mul_lr {
                    (l + gs * lr - sigma * v, root(na) + l2x)
                } else {
                    sigma = sigma / lr;
                    (l + gs - sigma * v, root(na) / lr + l2x)
                }
            } else if p.mul_lr {
                (l + (gs * lr - (root(na) - root(a)) * v), root(na) + l2x)
            } else {
                (
                    l + (gs - (root(na) - root(a)) / lr * v),
                    root(na) / lr + l2x,
                )
            };
            st[0] = if path == Path::Dense {
                if nl.abs() > l1 {
                    (l1 * sign(nl) - nl) / quadratic
                } else {
                    T::ZERO
                }
            } else {
                (max(min(nl, l1), -l1) - nl) / quadratic
            };
            st[1] = na;
            st[2] = nl;
        }
        Kind::ProximalAdagrad | Kind::ProximalGradientDescent => {
            let (lr, l1, l2) = (p.s[0], p.s[1], p.s[2]);
            let mut v = st[0];
            let rate = if kind == Kind::ProximalAdagrad {
                st[1] = st[1] + g * g;
                if path == Path::Scalar {
                    lr / st[1].sqrt()
                } else {
                    lr * (one / st[1].sqrt())
                }
            } else {
                lr
            };
            if path == Path::Scalar {
                v = v - rate * g;
                // `... / (1.0 + l2 * rate)`: a double denominator.
                let denom = 1.0 + wide(l2 * rate);
                st[0] = if l1 > T::ZERO {
                    narrow(wide(sgn(v) * max(v.abs() - rate * l1, T::ZERO)) / denom)
                } else {
                    narrow(wide(v) / denom)
                };
            } else {
                v = v - g * rate;
                let denom = one + l2 * rate;
                st[0] = if l1 > T::ZERO {
                    sign(v) * max(v.abs() - rate * l1, T::ZERO) / denom
                } else {
                    v / denom
                };
            }
        }
        Kind::AdagradDa => {
            let (lr, l1, l2) = (p.s[0], p.s[1], p.s[2]);
            let steps = p.step as f32 as f64;
            match path {
                Path::Dense | Path::Row => {
                    let k: T = narrow(steps);
                    let ga = st[1] + g;
                    let gg = st[2] + g * g;
                    st[0] = if path == Path::Dense {
                        let denom = l2 * (k * lr) + gg.sqrt();
                        if l1 > T::ZERO {
                            lr * -one * sign(ga) * max(ga.abs() - k * l1, T::ZERO) / denom
                        } else {
                            lr * ga * -one / denom
                        }
                    } else {
                        let denom = l2 + gg.sqrt() / (k * lr);
                        if l1 > T::ZERO {
                            -one * sign(ga) * max(ga.abs() / k - l1, T::ZERO) / denom
                        } else {
                            -one * (ga / k) / denom
                        }
                    };
                    st[1] = ga;
                    st[2] = gg;
                }
                Path::Scalar => {
                    // The gradient and the hyperparameters are read as doubles.
                    let g = wide(g);
                    let ga: T = narrow(wide(st[1]) + g);
                    let gg: T = narrow(wide(st[2]) + g * g);
                    let (lr, l1, l2) = (wide(lr), wide(l1), wide(l2));
                    let k = p.step as f64;
                    let denom = k * l2 * lr + wide(gg.sqrt());
                    st[0] = if l1 > 0.0 {
                        narrow(wide(sgn(-ga)) * lr * max(wide(ga.abs()) - k * l1, 0.0) / denom)
                    } else {
                        narrow(-wide(ga) * lr / denom)
                    };
                    st[1] = ga;
                    st[2] = gg;
                }
            }
        }
        // The sparse kernels of the other optimizers, on rows (chips) of the variable.
        Kind::Momentum => {
            let (lr, momentum) = (p.s[0], p.s[1]);
            let a = st[1] * momentum + g;
            st[0] = if p.nesterov {
                st[0] - (lr * g + lr * momentum * a)
            } else {
                st[0] - lr * a
            };
            st[1] = a;
        }
        Kind::RmsProp { centered } => {
            let (lr, rho, momentum, eps) = (p.s[0], p.s[1], p.s[2], p.s[3]);
            let ms = st[st.len() - 2] * rho + g * g * (one - rho);
            let denom = if centered {
                let mg = st[1] * rho + g * (one - rho);
                st[1] = mg;
                ms + eps - mg * mg
            } else {
                ms + eps
            };
            // Eigen's scalar `rsqrt` is `1 / sqrt`.
            let mom = st[st.len() - 1] * momentum + one / denom.sqrt() * lr * g;
            st[0] = st[0] - mom;
            let n = st.len();
            st[n - 2] = ms;
            st[n - 1] = mom;
        }
        Kind::Adagrad => {
            let lr = p.s[0];
            if p.update_slots {
                st[1] = st[1] + g * g;
            }
            st[0] = if path == Path::Scalar {
                st[0] - lr * g / st[1].sqrt()
            } else {
                st[0] - lr * g * (one / st[1].sqrt())
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ftrl_zeroes_weights_whose_linear_term_is_within_l1() {
        let p = Params {
            s: vec![0.1f64, 10.0, 0.0, -0.5],
            step: 0,
            mul_lr: false,
            nesterov: false,
            update_slots: true,
        };
        for path in [Path::Dense, Path::Row, Path::Scalar] {
            let mut st = [1.0, 0.1, 0.0];
            update(Kind::Ftrl { v2: false }, path, &p, &mut st, 0.5);
            assert_eq!(st[0], 0.0, "{path:?}");
            assert!((st[1] - 0.35).abs() < 1e-15);
        }
    }
}
