//! `TridiagonalSolve`: solves batches of tridiagonal systems given by their three diagonals
//! (`[..., 3, M]`: superdiagonal, diagonal, subdiagonal) with the three CPU algorithms of
//! TensorFlow's kernel: LAPACK `gtsv`-style partial pivoting (the default), the Thomas
//! algorithm, and `lagtf`/`lagts`-style pivoting that perturbs tiny pivots.

use std::cmp::Ordering;

use num_traits::{Float, One, Zero};
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    Result, Tensor,
};

use super::scalar::{with_field, Field, FIELDS};
use super::shapes::{at_least, batch, dim_back, merge, merge_dim, with_value};

/// The raw `TridiagonalSolve` op (`tf.raw_ops.TridiagonalSolve`): `X` with `T X = rhs` for each
/// `[3, M]` compact `diagonals` and `[M, K]` `rhs` of equal batch dimensions. A singular system
/// gives NaN (zeros for complex types, as TensorFlow's `numeric_limits` has it).
pub fn tridiagonal_solve_op(
    diagonals: impl Into<Output>,
    rhs: impl Into<Output>,
    partial_pivoting: bool,
    perturb_singular: bool,
) -> Result<Output> {
    let (d, r) = (diagonals.into(), rhs.into());
    let g = crate::util::same_graph(&[&d, &r])?.clone();
    crate::new_op(&g, "TridiagonalSolve")
        .input(d)
        .input(r)
        .attr("partial_pivoting", partial_pivoting)
        .attr("perturb_singular", perturb_singular)
        .build()?
        .output(0)
}

/// `TridiagonalSolveShapeFn`.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let lhs = at_least(ctx.input_shape(0), 2)?;
    let rhs = at_least(ctx.input_shape(1), 2)?;
    merge(&batch(&lhs), &batch(&rhs))?;
    merge_dim(dim_back(&lhs, 1), dim_back(&rhs, 2))?;
    with_value(dim_back(&lhs, 2), 3)?;
    let out = ctx.input_shape(1).clone();
    ctx.set_output(0, out);
    Ok(())
}

/// LAPACK's `xLAMCH` safe minimum and its reciprocal, as TensorFlow's `MaybePerturbPivot`
/// computes them.
fn safemin_bignum<R: Float>() -> (R, R) {
    let one = R::one();
    let tiny = R::min_positive_value();
    let small = one / R::max_value();
    let safemin = if small < tiny {
        tiny
    } else {
        (one + R::epsilon()) * small
    };
    (safemin, one / safemin)
}

/// `MaybePerturbPivot`: nudges `pivot` (by `perturb`, doubling) or scales it and `row` up so
/// that neither `row / pivot` nor `1 / pivot` overflows.
fn maybe_perturb<T: Field>(perturb: T::Real, pivot: &mut T, row: &mut [T]) {
    let one = T::Real::one();
    let (safemin, bignum) = safemin_bignum::<T::Real>();
    let mut abs_pivot = pivot.modulus();
    if abs_pivot >= one {
        return;
    }
    let mut perturb = perturb.abs().max(safemin);
    perturb = perturb.copysign(pivot.re());
    let max_factor = row
        .iter()
        .map(|v| v.modulus())
        .fold(None, |acc: Option<T::Real>, v| {
            Some(match acc {
                Some(a) if v.partial_cmp(&a) != Some(Ordering::Greater) => a,
                _ => v,
            })
        })
        .unwrap_or_else(T::Real::neg_infinity);
    let mut stop = false;
    while abs_pivot < one && !stop {
        if abs_pivot < safemin {
            if abs_pivot == T::Real::zero() || max_factor * safemin > abs_pivot {
                *pivot = *pivot + T::from_real(perturb);
                perturb = perturb + perturb;
            } else {
                *pivot = *pivot * T::from_real(bignum);
                for v in row.iter_mut() {
                    *v = *v * T::from_real(bignum);
                }
                stop = true;
            }
        } else if max_factor > abs_pivot * bignum {
            *pivot = *pivot + T::from_real(perturb);
            perturb = perturb + perturb;
        } else {
            stop = true;
        }
        abs_pivot = pivot.modulus();
    }
}

/// One system: `sup`, `dia`, `sub` of length `n`, `rhs` and `x` row-major `n x k`, `u` scratch
/// of `3n` (columns: diagonal, superdiagonal, second superdiagonal of `U`), `row` of `k`.
struct System<'a, T> {
    sup: &'a [T],
    dia: &'a [T],
    sub: &'a [T],
    rhs: &'a [T],
    k: usize,
}

impl<T: Field> System<'_, T> {
    fn rhs_row(&self, i: usize) -> &[T] {
        &self.rhs[i * self.k..(i + 1) * self.k]
    }

    /// `SolveWithGaussianEliminationWithPivoting` (LAPACK `gtsv`); false when singular.
    fn pivoting(&self, x: &mut [T], u: &mut [[T; 3]]) -> bool {
        let (n, k) = (self.dia.len(), self.k);
        let zero = T::fzero();
        u[0][0] = self.dia[0];
        u[0][1] = self.sup[0];
        x[..k].copy_from_slice(self.rhs_row(0));
        for i in 0..n - 1 {
            let (head, tail) = x.split_at_mut((i + 1) * k);
            let (xi, xn) = (&mut head[i * k..], &mut tail[..k]);
            let rn = self.rhs_row(i + 1);
            if u[i][0].modulus() >= self.sub[i + 1].modulus() {
                if u[i][0] == zero {
                    return false;
                }
                let f = self.sub[i + 1].quot(u[i][0]);
                u[i + 1][0] = self.dia[i + 1] - f * u[i][1];
                for j in 0..k {
                    xn[j] = rn[j] - f * xi[j];
                }
                if i != n - 2 {
                    u[i + 1][1] = self.sup[i + 1];
                    u[i][2] = zero;
                }
            } else {
                let f = u[i][0].quot(self.sub[i + 1]);
                u[i][0] = self.sub[i + 1];
                u[i + 1][0] = u[i][1] - f * self.dia[i + 1];
                u[i][1] = self.dia[i + 1];
                for j in 0..k {
                    xn[j] = xi[j] - f * rn[j];
                    xi[j] = rn[j];
                }
                if i != n - 2 {
                    u[i][2] = self.sup[i + 1];
                    u[i + 1][1] = -(f * self.sup[i + 1]);
                }
            }
        }
        if u[n - 1][0] == zero {
            return false;
        }
        for j in 0..k {
            x[(n - 1) * k + j] = x[(n - 1) * k + j].quot(u[n - 1][0]);
        }
        for j in 0..k {
            x[(n - 2) * k + j] =
                (x[(n - 2) * k + j] - u[n - 2][1] * x[(n - 1) * k + j]).quot(u[n - 2][0]);
        }
        for i in (0..n.saturating_sub(2)).rev() {
            for j in 0..k {
                let v = x[i * k + j] - u[i][1] * x[(i + 1) * k + j] - u[i][2] * x[(i + 2) * k + j];
                x[i * k + j] = v.quot(u[i][0]);
            }
        }
        true
    }

    /// `SolveWithThomasAlgorithm`; false when a pivot is zero.
    fn thomas(&self, x: &mut [T], u: &mut [[T; 3]]) -> bool {
        let (n, k) = (self.dia.len(), self.k);
        let zero = T::fzero();
        if self.dia[0] == zero {
            return false;
        }
        u[0][0] = self.sup[0].quot(self.dia[0]);
        for (xj, &r) in x[..k].iter_mut().zip(&self.rhs[..k]) {
            *xj = r.quot(self.dia[0]);
        }
        for i in 1..n {
            let denom = self.dia[i] - self.sub[i] * u[i - 1][0];
            if denom == zero {
                return false;
            }
            u[i][0] = self.sup[i].quot(denom);
            for j in 0..k {
                x[i * k + j] = (self.rhs[i * k + j] - self.sub[i] * x[(i - 1) * k + j]).quot(denom);
            }
        }
        for i in (0..n - 1).rev() {
            for j in 0..k {
                x[i * k + j] = x[i * k + j] - u[i][0] * x[(i + 1) * k + j];
            }
        }
        true
    }

    /// `SolveWithGaussianEliminationWithPivotingAndPerturbSingular` (LAPACK `lagtf`+`lagts`).
    fn perturbed(&self, x: &mut [T], u: &mut [[T; 3]], row: &mut [T]) {
        let (n, k) = (self.dia.len(), self.k);
        let zero = T::fzero();
        let rzero = T::Real::zero();
        let eps = T::Real::epsilon();
        let scale = |xs: &mut [T], s: T| {
            for v in xs.iter_mut() {
                *v = *v * s;
            }
        };
        if n == 1 {
            let mut denom = self.dia[0];
            let tol = eps * denom.modulus();
            row.copy_from_slice(self.rhs_row(0));
            maybe_perturb(tol, &mut denom, row);
            x.copy_from_slice(row);
            scale(x, T::fone().quot(denom));
            return;
        }
        u[0][0] = self.dia[0];
        u[0][1] = self.sup[0];
        let mut max_abs_u = u[0][0].modulus().max(u[0][1].modulus());
        let mut scale1 = u[0][0].modulus() + u[0][1].modulus();
        x[..k].copy_from_slice(self.rhs_row(0));
        for i in 0..n - 1 {
            let (head, tail) = x.split_at_mut((i + 1) * k);
            let (xi, xn) = (&mut head[i * k..], &mut tail[..k]);
            let rn = self.rhs_row(i + 1);
            u[i + 1][0] = self.dia[i + 1];
            let mut scale2 = self.sub[i + 1].modulus() + u[i + 1][0].modulus();
            if i < n - 2 {
                scale2 = scale2 + self.sup[i + 1].modulus();
            }
            if self.sub[i + 1] == zero {
                scale1 = scale2;
                u[i + 1][1] = self.sup[i + 1];
                u[i][2] = zero;
                xn.copy_from_slice(rn);
            } else {
                let piv1 = if u[i][0] == zero {
                    rzero
                } else {
                    u[i][0].modulus() / scale1
                };
                let piv2 = self.sub[i + 1].modulus() / scale2;
                if piv2 <= piv1 {
                    scale1 = scale2;
                    let f = self.sub[i + 1].quot(u[i][0]);
                    u[i + 1][0] = self.dia[i + 1] - f * u[i][1];
                    u[i + 1][1] = self.sup[i + 1];
                    u[i][2] = zero;
                    for j in 0..k {
                        xn[j] = rn[j] - f * xi[j];
                    }
                } else {
                    let f = u[i][0].quot(self.sub[i + 1]);
                    u[i][0] = self.sub[i + 1];
                    u[i + 1][0] = u[i][1] - f * self.dia[i + 1];
                    u[i][1] = self.dia[i + 1];
                    if i < n - 2 {
                        u[i][2] = self.sup[i + 1];
                        u[i + 1][1] = -(f * self.sup[i + 1]);
                    }
                    for j in 0..k {
                        xn[j] = xi[j] - f * rn[j];
                        xi[j] = rn[j];
                    }
                }
            }
            if i < n - 2 {
                for c in u[i] {
                    max_abs_u = max_abs_u.max(c.modulus());
                }
            }
        }
        max_abs_u = max_abs_u.max(u[n - 1][0].modulus());
        let tol = eps * max_abs_u;
        let mut denom = u[n - 1][0];
        row.copy_from_slice(&x[(n - 1) * k..]);
        maybe_perturb(tol, &mut denom, row);
        let inv = T::fone().quot(denom);
        for j in 0..k {
            x[(n - 1) * k + j] = row[j] * inv;
        }
        for i in (0..n - 1).rev() {
            denom = u[i][0];
            for j in 0..k {
                let mut v = x[i * k + j] - u[i][1] * x[(i + 1) * k + j];
                if i + 2 < n {
                    v = v - u[i][2] * x[(i + 2) * k + j];
                }
                row[j] = v;
            }
            maybe_perturb(tol.copysign(denom.re()), &mut denom, row);
            let inv = T::fone().quot(denom);
            for j in 0..k {
                x[i * k + j] = row[j] * inv;
            }
        }
    }
}

fn solve_typed<T: Field>(
    diags: &Tensor,
    rhs: &Tensor,
    pivoting: bool,
    perturb: bool,
) -> Result<Tensor> {
    let (ds, rs) = (diags.shape(), rhs.shape());
    let r = ds.len();
    if r < 2 {
        return Err(Error::invalid_argument(format!(
            "Input tensor 0 must have rank >= 2, got {r}"
        )));
    }
    if rs.len() != r {
        return Err(Error::invalid_argument(
            "All input tensors must have the same rank.",
        ));
    }
    if ds[..r - 2] != rs[..r - 2] {
        return Err(Error::invalid_argument(
            "All input tensors must have the same outer dimensions.",
        ));
    }
    if ds[r - 2] != 3 {
        return Err(Error::invalid_argument(format!(
            "Expected diagonals to be provided as a matrix with 3 rows, got {} rows.",
            ds[r - 2]
        )));
    }
    let (n, k) = (ds[r - 1], rs[r - 1]);
    if rs[r - 2] != n {
        return Err(Error::invalid_argument(format!(
            "Expected the same number of left-hand sides and right-hand sides, got {n} and {}.",
            rs[r - 2]
        )));
    }
    let d = diags.as_slice::<T>()?;
    let b = rhs.as_slice::<T>()?;
    let mut out = vec![T::fzero(); b.len()];
    let nb: usize = ds[..r - 2].iter().product();
    let mut u = vec![[T::fzero(); 3]; n];
    let mut row = vec![T::fzero(); k];
    for m in 0..nb {
        if n == 0 {
            break;
        }
        let dm = &d[m * 3 * n..(m + 1) * 3 * n];
        let sys = System {
            sup: &dm[..n],
            dia: &dm[n..2 * n],
            sub: &dm[2 * n..],
            rhs: &b[m * n * k..(m + 1) * n * k],
            k,
        };
        let x = &mut out[m * n * k..(m + 1) * n * k];
        let ok = if pivoting && perturb {
            sys.perturbed(x, &mut u, &mut row);
            true
        } else if n == 1 {
            if sys.dia[0] == T::fzero() {
                false
            } else {
                for (xj, &r) in x[..k].iter_mut().zip(&sys.rhs[..k]) {
                    *xj = r.quot(sys.dia[0]);
                }
                true
            }
        } else if pivoting {
            sys.pivoting(x, &mut u)
        } else {
            sys.thomas(x, &mut u)
        };
        if !ok {
            x.fill(T::limits_nan());
        }
    }
    Tensor::from_vec(rs, out)
}

struct SolveKernel {
    pivoting: bool,
    perturb: bool,
}

impl Kernel for SolveKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (d, b) = (ctx.input(0), ctx.input(1));
        let out = with_field!(d.dtype(), T => solve_typed::<T>(d, b, self.pivoting, self.perturb))?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let pivoting: bool = node.attr("partial_pivoting")?;
    let perturb: bool = node.attr("perturb_singular")?;
    if perturb && !pivoting {
        return Err(Error::invalid_argument(
            "Setting perturb_singular requires also setting partial_pivoting.",
        ));
    }
    Ok(Box::new(SolveKernel { pivoting, perturb }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("TridiagonalSolve")
            .input("diagonals", ArgType::Attr("T"))
            .input("rhs", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .attr(
                "partial_pivoting",
                AttrKind::Bool,
                Some(AttrValue::Bool(true)),
            )
            .attr(
                "perturb_singular",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .type_attr("T", FIELDS)
            .shape_fn(shape_fn),
    );
    register_kernel("TridiagonalSolve", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pivots_past_a_zero_diagonal_and_flags_singular_systems() {
        // [[0, 1], [1, 1]] x = [1, 2] needs a row interchange: x = [1, 1].
        let d = Tensor::from_vec(&[3, 2], vec![1.0f64, 0.0, 0.0, 1.0, 0.0, 1.0]).unwrap();
        let b = Tensor::from_vec(&[2, 1], vec![1.0f64, 2.0]).unwrap();
        let x = solve_typed::<f64>(&d, &b, true, false).unwrap();
        assert_eq!(x.to_vec::<f64>().unwrap(), vec![1.0, 1.0]);
        let x = solve_typed::<f64>(&d, &b, false, false).unwrap();
        assert!(x.to_vec::<f64>().unwrap().iter().all(|v| v.is_nan()));
        let bad = Tensor::from_vec(&[4, 2], vec![0.0f64; 8]).unwrap();
        let e = solve_typed::<f64>(&bad, &b, true, false).unwrap_err();
        assert_eq!(
            e.message(),
            "Expected diagonals to be provided as a matrix with 3 rows, got 4 rows."
        );
    }
}
