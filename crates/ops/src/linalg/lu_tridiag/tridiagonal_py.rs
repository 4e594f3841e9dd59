//! `tf.linalg.tridiagonal_solve` and `tf.linalg.tridiagonal_matmul`: the Python functions that
//! bring the diagonals (in any of the three `diagonals_format`s) to the ops' compact layout.

use weir_graph::{Error, Output, Result};

use crate::array::{expand_dims, pad, squeeze, stack, ArrayExt, ELLIPSIS};
use crate::complex::conj;
use crate::linalg::{Align, MatrixDiag};
use crate::s;

use super::tridiagonal_matmul::tridiagonal_mat_mul;
use super::tridiagonal_solve::tridiagonal_solve_op;

/// The diagonals of tridiagonal matrices, in one of `tf.linalg.tridiagonal_*`'s
/// `diagonals_format`s.
#[derive(Clone, Debug)]
pub enum Diagonals {
    /// `'compact'`: one `[..., 3, M]` tensor of superdiagonal, diagonal and subdiagonal (the
    /// superdiagonal's last and the subdiagonal's first entries are ignored).
    Compact(Output),
    /// `'sequence'`: `[superdiag, maindiag, subdiag]`, each `[..., M]` (the off-diagonals may
    /// also be `[..., M - 1]` for `tridiagonal_solve`).
    Sequence(Output, Output, Output),
    /// `'matrix'`: the `[..., M, M]` matrices themselves (entries off the three diagonals are
    /// ignored).
    Matrix(Output),
}

impl From<Output> for Diagonals {
    fn from(o: Output) -> Diagonals {
        Diagonals::Compact(o)
    }
}

impl From<&Output> for Diagonals {
    fn from(o: &Output) -> Diagonals {
        Diagonals::Compact(o.clone())
    }
}

/// `matrix_diag_part(m, k=(-1, 1), padding_value=0, align='LEFT_RIGHT')` after the check
/// that `m` is square.
fn matrix_to_compact(m: &Output) -> Result<Output> {
    let s = m.shape();
    if let (Some(a), Some(b)) = (s.dim(-1), s.dim(-2)) {
        if a != b {
            return Err(Error::invalid_argument(format!(
                "Expected last two dimensions of diagonals to be same, got {a} and {b}"
            )));
        }
    }
    MatrixDiag::new()
        .k_range(-1, 1)
        .align(Align::LeftRight)
        .diag_part(m)
}

/// The options of `tf.linalg.tridiagonal_solve(diagonals, rhs, diagonals_format='compact',
/// transpose_rhs=False, conjugate_rhs=False, partial_pivoting=True, perturb_singular=False)`.
#[derive(Clone, Copy, Debug)]
pub struct TridiagonalSolve {
    transpose_rhs: bool,
    conjugate_rhs: bool,
    partial_pivoting: bool,
    perturb_singular: bool,
}

impl Default for TridiagonalSolve {
    fn default() -> Self {
        TridiagonalSolve {
            transpose_rhs: false,
            conjugate_rhs: false,
            partial_pivoting: true,
            perturb_singular: false,
        }
    }
}

impl TridiagonalSolve {
    /// TensorFlow's defaults.
    pub fn new() -> TridiagonalSolve {
        TridiagonalSolve::default()
    }

    /// `transpose_rhs`: solve against the transpose of `rhs` (`[..., K, M]`).
    pub fn transpose_rhs(mut self, v: bool) -> TridiagonalSolve {
        self.transpose_rhs = v;
        self
    }

    /// `conjugate_rhs`: solve against the conjugate of `rhs`.
    pub fn conjugate_rhs(mut self, v: bool) -> TridiagonalSolve {
        self.conjugate_rhs = v;
        self
    }

    /// `partial_pivoting` (default true): pivot as LAPACK's `gtsv`; false runs the Thomas
    /// algorithm.
    pub fn partial_pivoting(mut self, v: bool) -> TridiagonalSolve {
        self.partial_pivoting = v;
        self
    }

    /// `perturb_singular`: perturb tiny pivots so numerically singular systems still solve.
    pub fn perturb_singular(mut self, v: bool) -> TridiagonalSolve {
        self.perturb_singular = v;
        self
    }

    /// Adds the solve of `rhs` (`[..., M, K]`, or `[..., M]`) by the tridiagonal `diagonals`.
    pub fn build(self, diagonals: impl Into<Diagonals>, rhs: impl Into<Output>) -> Result<Output> {
        if self.perturb_singular && !self.partial_pivoting {
            return Err(Error::invalid_argument(
                "partial_pivoting must be True if perturb_singular is.",
            ));
        }
        let compact = match diagonals.into() {
            Diagonals::Compact(d) => d,
            Diagonals::Matrix(m) => matrix_to_compact(&m)?,
            Diagonals::Sequence(sup, main, sub) => {
                let (ss, ms, bs) = (sup.shape(), main.shape(), sub.shape());
                let head = |s: &weir_graph::Shape| match s.dims() {
                    Some(d) if !d.is_empty() => weir_graph::Shape::new(d[..d.len() - 1].to_vec()),
                    _ => weir_graph::Shape::unknown(),
                };
                if !head(&bs).is_compatible_with(&head(&ms))
                    || !head(&ss).is_compatible_with(&head(&ms))
                {
                    return Err(Error::invalid_argument(format!(
                        "Tensors representing the three diagonals must have the same shape,\
                         except for the last dimension, got {}, {}, {}",
                        bs.python_str(),
                        ms.python_str(),
                        ss.python_str()
                    )));
                }
                let m = ms.dim(-1);
                let fix = |t: Output, name: &str, padding: [i64; 2]| -> Result<Output> {
                    let n = t.shape().dim(-1);
                    match (n, m) {
                        (None, _) | (Some(0), _) => Ok(t),
                        (Some(n), Some(m)) if n == m => Ok(t),
                        (Some(n), Some(m)) if n + 1 == m => {
                            let r = t.shape().rank().unwrap_or(1);
                            let mut p = vec![[0i64, 0]; r - 1];
                            p.push(padding);
                            pad(t, &p)
                        }
                        (Some(n), m) => Err(Error::invalid_argument(format!(
                            "Expected {name} to be have length {} or {}, got {n}.",
                            m.map_or("None".to_string(), |m| m.to_string()),
                            m.map_or("None".to_string(), |m| (m as i64 - 1).to_string()),
                        ))),
                    }
                };
                let sub = fix(sub, "subdiagonal", [1, 0])?;
                let sup = fix(sup, "superdiagonal", [0, 1])?;
                stack(&[sup, main, sub], -2)?
            }
        };
        self.compact(compact, rhs.into())
    }

    /// `_tridiagonal_solve_compact_format`.
    fn compact(self, diags: Output, rhs: Output) -> Result<Output> {
        let (dr, rr) = (diags.shape().rank(), rhs.shape().rank());
        if let Some(dr) = dr {
            if dr < 2 {
                return Err(Error::invalid_argument(format!(
                    "Expected diagonals to have rank at least 2, got {dr}"
                )));
            }
            if let Some(rr) = rr {
                if rr != dr && rr != dr - 1 {
                    return Err(Error::invalid_argument(format!(
                        "Expected the rank of rhs to be {} or {dr}, got {rr}",
                        dr - 1
                    )));
                }
                let (ds, rs) = (diags.shape(), rhs.shape());
                let db = &ds.dims().unwrap_or_default()[..dr - 2];
                let rd = rs.dims().unwrap_or_default();
                let rb = &rd[..(dr - 2).min(rd.len())];
                let compatible = db.len() == rb.len()
                    && db
                        .iter()
                        .zip(rb)
                        .all(|(a, b)| a.is_none() || b.is_none() || a == b);
                if !compatible {
                    return Err(Error::invalid_argument(format!(
                        "Batch shapes {} and {} are incompatible",
                        weir_graph::Shape::new(db.to_vec()).python_str(),
                        weir_graph::Shape::new(rb.to_vec()).python_str()
                    )));
                }
            }
        }
        if let Some(n) = diags.shape().dim(-2) {
            if n != 3 {
                return Err(Error::invalid_argument(format!(
                    "Expected 3 diagonals got {n}"
                )));
            }
        }
        let check_m = |rhs: &Output| -> Result<()> {
            if let (Some(a), Some(b)) = (diags.shape().dim(-1), rhs.shape().dim(-2)) {
                if a != b && a != 0 && b != 0 {
                    return Err(Error::invalid_argument(format!(
                        "Expected number of left-hand sided and right-hand sides to be equal, \
                         got {a} and {b}"
                    )));
                }
            }
            Ok(())
        };
        let op = |d: &Output, r: Output| {
            tridiagonal_solve_op(d, r, self.partial_pivoting, self.perturb_singular)
        };
        if let (Some(dr), Some(rr)) = (dr, rr) {
            if rr == dr - 1 {
                let r = if self.conjugate_rhs { conj(&rhs)? } else { rhs };
                let r = expand_dims(r, -1)?;
                check_m(&r)?;
                return squeeze(op(&diags, r)?, &[-1]);
            }
        }
        let rhs = if self.transpose_rhs {
            let t = crate::linalg::lu_tridiag::matrix_transpose(&rhs)?;
            if self.conjugate_rhs {
                conj(t)?
            } else {
                t
            }
        } else if self.conjugate_rhs {
            conj(&rhs)?
        } else {
            rhs
        };
        check_m(&rhs)?;
        op(&diags, rhs)
    }
}

/// `tf.linalg.tridiagonal_solve(diagonals, rhs)` with TensorFlow's defaults (see
/// [`TridiagonalSolve`] for the options): `X` with `T X = rhs` for the tridiagonal `T`.
pub fn tridiagonal_solve(
    diagonals: impl Into<Diagonals>,
    rhs: impl Into<Output>,
) -> Result<Output> {
    TridiagonalSolve::new().build(diagonals, rhs)
}

/// `tf.linalg.tridiagonal_matmul(diagonals, rhs, diagonals_format)`: `T rhs` for the
/// tridiagonal `T` and `rhs` `[..., M, N]`.
pub fn tridiagonal_matmul(
    diagonals: impl Into<Diagonals>,
    rhs: impl Into<Output>,
) -> Result<Output> {
    let (sup, main, sub) = match diagonals.into() {
        Diagonals::Compact(d) => (
            d.at(s![ELLIPSIS, 0, ..])?,
            d.at(s![ELLIPSIS, 1, ..])?,
            d.at(s![ELLIPSIS, 2, ..])?,
        ),
        Diagonals::Sequence(a, b, c) => (a, b, c),
        Diagonals::Matrix(m) => {
            let d = matrix_to_compact(&m)?;
            (
                d.at(s![ELLIPSIS, 0, ..])?,
                d.at(s![ELLIPSIS, 1, ..])?,
                d.at(s![ELLIPSIS, 2, ..])?,
            )
        }
    };
    tridiagonal_mat_mul(
        expand_dims(sup, -2)?,
        expand_dims(main, -2)?,
        expand_dims(sub, -2)?,
        rhs,
    )
}
