//! f32 products with at most [`MAX_COLS`] output columns: a classifier's logits `x . W` and its
//! weight gradient `x^T . g`, where `W` has one column per class.
//!
//! Why not matrixmultiply: it copies ("packs") both operands into panels on every call, so with
//! ten columns it copies the whole large operand (a batch of 128 MNIST rows is 400 KB, read
//! column-wise for `x^T`) for ten multiply-adds per copied float, and its 16-wide register tiles
//! run 10/16 full. In a softmax classifier's training step, packing took as many samples as the
//! multiply-adds (perf: 29% and 28%). Here the large operand is read in place, and only the
//! narrow one is rearranged.
//!
//! The loops use pulp's portable vectors, compiled for AVX-512, AVX2 and the baseline and
//! chosen at run time. As with matrixmultiply, the last bits of a sum depend on the vector width
//! (lanes are summed in a different order).

use std::borrow::Cow;

use weir_graph::{Result, Tensor};

use crate::util::Isa;

/// The widest product computed here.
pub(super) const MAX_COLS: usize = 16;

/// Whether an `[m, k] . [k, n]` f32 product goes through this module: narrow, and large enough
/// that the pass over the wide operand, not the call, is what costs.
pub(super) fn applies(m: usize, k: usize, n: usize) -> bool {
    (1..=MAX_COLS).contains(&n) && m * k >= 4096
}

/// `op(a) . op(b)` for f32 matrices (`op` transposes when `ta`/`tb`), whose shapes the caller
/// has checked: `[m, k] . [k, n]` after the transposes, with `n <= MAX_COLS`.
pub(super) fn product(ta: bool, tb: bool, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    product_with(ta, tb, a, b, Isa::Dispatched)
}

/// [`product`] with the kernel run on `isa` (tests pick each instruction set).
fn product_with(ta: bool, tb: bool, a: &Tensor, b: &Tensor, isa: Isa) -> Result<Tensor> {
    let (xs, ys) = (a.as_slice::<f32>()?, b.as_slice::<f32>()?);
    let (ar, ac) = (a.shape()[0], a.shape()[1]);
    let (m, k) = if ta { (ac, ar) } else { (ar, ac) };
    let n = if tb { b.shape()[0] } else { b.shape()[1] };
    let mut out = vec![0.0f32; m * n];
    // `a^T` is read as [k][m] rows against b as [k][n] rows (one row's values broadcast per
    // step of k); `a` as [m][k] rows against b as [n][k] rows (each output a dot product of two
    // contiguous rows). b is rearranged only when its layout is the other one.
    let narrow = match (ta, tb) {
        (true, false) | (false, true) => Cow::Borrowed(ys),
        (true, true) => Cow::Owned(transpose(ys, n, k)),
        (false, false) => Cow::Owned(transpose(ys, k, n)),
    };
    isa.run(Kernel {
        wide: xs,
        m,
        k,
        narrow: &narrow,
        n,
        out: &mut out,
        transposed: ta,
    });
    Tensor::from_vec(&[m, n], out)
}

/// One product's operands, for [`pulp::Arch::dispatch`]: its `with_simd` is compiled once per
/// instruction set (AVX-512, AVX2, the baseline), the variant chosen at run time.
struct Kernel<'a> {
    /// `[m, k]` rows, or `[k, m]` rows when `transposed`.
    wide: &'a [f32],
    m: usize,
    k: usize,
    /// `[n, k]` rows, or `[k, n]` rows when `transposed`.
    narrow: &'a [f32],
    n: usize,
    out: &'a mut [f32],
    transposed: bool,
}

impl pulp::WithSimd for Kernel<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, simd: S) {
        let Kernel {
            wide,
            m,
            k,
            narrow,
            n,
            out,
            transposed,
        } = self;
        if transposed {
            columns_kernel(simd, wide, m, k, narrow, n, out);
        } else {
            dots_kernel(simd, wide, m, k, narrow, n, out);
        }
    }
}

/// The `[cols, rows]` transpose of a row-major `[rows, cols]` matrix.
pub(super) fn transpose(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut t = vec![0.0f32; x.len()];
    for (r, row) in x.chunks_exact(cols).enumerate() {
        for (c, &v) in row.iter().enumerate() {
            t[c * rows + r] = v;
        }
    }
    t
}

/// `out[i][j] = a[i] . bt[j]` for rows `a` of `[m, k]` and `bt` of `[n, k]`: four rows of `a`
/// against two of `bt` at a time (eight accumulators, six vector loads per eight multiply-adds),
/// every row read in place.
#[inline(always)]
fn dots_kernel<S: pulp::Simd>(
    simd: S,
    a: &[f32],
    m: usize,
    k: usize,
    bt: &[f32],
    n: usize,
    out: &mut [f32],
) {
    let mut i = 0;
    while i + 4 <= m {
        dots_block::<S, 4>(simd, a, i, k, bt, n, out);
        i += 4;
    }
    while i < m {
        dots_block::<S, 1>(simd, a, i, k, bt, n, out);
        i += 1;
    }
}

#[inline(always)]
fn dots_block<S: pulp::Simd, const R: usize>(
    simd: S,
    a: &[f32],
    i: usize,
    k: usize,
    bt: &[f32],
    n: usize,
    out: &mut [f32],
) {
    let rows: [&[f32]; R] = std::array::from_fn(|r| &a[(i + r) * k..(i + r + 1) * k]);
    let heads: [&[S::f32s]; R] = std::array::from_fn(|r| S::as_simd_f32s(rows[r]).0);
    let chunks = heads[0].len();
    let done = chunks * S::F32_LANES;
    let mut j = 0;
    while j < n {
        // The last odd column pairs with itself; only its first result is stored.
        let cols: [&[f32]; 2] = std::array::from_fn(|c| {
            let jj = (j + c).min(n - 1);
            &bt[jj * k..(jj + 1) * k]
        });
        let bs: [&[S::f32s]; 2] = std::array::from_fn(|c| S::as_simd_f32s(cols[c]).0);
        let mut acc = [[simd.splat_f32s(0.0); 2]; R];
        for t in 0..chunks {
            let (b0, b1) = (bs[0][t], bs[1][t]);
            for r in 0..R {
                let av = heads[r][t];
                acc[r][0] = simd.mul_add_e_f32s(av, b0, acc[r][0]);
                acc[r][1] = simd.mul_add_e_f32s(av, b1, acc[r][1]);
            }
        }
        let nb = (n - j).min(2);
        for r in 0..R {
            for c in 0..nb {
                let mut s = simd.reduce_sum_f32s(acc[r][c]);
                for t in done..k {
                    s += rows[r][t] * cols[c][t];
                }
                out[(i + r) * n + j + c] = s;
            }
        }
        j += nb;
    }
}

/// `out[i][j] = sum_t a[t][i] * b[t][j]` for `a` of `[k, m]` (the transposed operand, read in
/// place) and `b` of `[k, n]`: two vectors of columns of `a` against four columns of `b` at a
/// time, so one step of `t` loads two vectors and four values for eight multiply-adds.
#[inline(always)]
fn columns_kernel<S: pulp::Simd>(
    simd: S,
    a: &[f32],
    m: usize,
    k: usize,
    b: &[f32],
    n: usize,
    out: &mut [f32],
) {
    let width = 2 * S::F32_LANES;
    let mut i = 0;
    while i + width <= m {
        let mut j = 0;
        while j < n {
            match n - j {
                1 => columns_block::<S, 1>(simd, a, m, k, b, n, i, j, out),
                2 => columns_block::<S, 2>(simd, a, m, k, b, n, i, j, out),
                3 => columns_block::<S, 3>(simd, a, m, k, b, n, i, j, out),
                _ => columns_block::<S, 4>(simd, a, m, k, b, n, i, j, out),
            }
            j += 4;
        }
        i += width;
    }
    // The last columns of a, fewer than a block: a scalar loop.
    for ii in i..m {
        for j in 0..n {
            let mut s = 0.0f32;
            for t in 0..k {
                s += a[t * m + ii] * b[t * n + j];
            }
            out[ii * n + j] = s;
        }
    }
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn columns_block<S: pulp::Simd, const G: usize>(
    simd: S,
    a: &[f32],
    m: usize,
    k: usize,
    b: &[f32],
    n: usize,
    i: usize,
    j: usize,
    out: &mut [f32],
) {
    let lanes = S::F32_LANES;
    let mut acc = [[simd.splat_f32s(0.0); 2]; G];
    for t in 0..k {
        let (av, _) = S::as_simd_f32s(&a[t * m + i..t * m + i + 2 * lanes]);
        let (a0, a1) = (av[0], av[1]);
        for g in 0..G {
            let bv = simd.splat_f32s(b[t * n + j + g]);
            acc[g][0] = simd.mul_add_e_f32s(a0, bv, acc[g][0]);
            acc[g][1] = simd.mul_add_e_f32s(a1, bv, acc[g][1]);
        }
    }
    // Spill each accumulator to memory once, then scatter its lanes down column j + g.
    let mut lane_buf = [0.0f32; 64];
    let buf = &mut lane_buf[..2 * lanes];
    for g in 0..G {
        {
            let (vs, _) = S::as_mut_simd_f32s(buf);
            vs[0] = acc[g][0];
            vs[1] = acc[g][1];
        }
        for (l, &v) in buf.iter().enumerate() {
            out[(i + l) * n + j + g] = v;
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The product in f64, summed in order: the reference.
    fn reference(ta: bool, tb: bool, a: &Tensor, b: &Tensor) -> Vec<f64> {
        let (x, y) = (a.as_slice::<f32>().unwrap(), b.as_slice::<f32>().unwrap());
        let (ar, ac) = (a.shape()[0], a.shape()[1]);
        let (br, bc) = (b.shape()[0], b.shape()[1]);
        let (m, k) = if ta { (ac, ar) } else { (ar, ac) };
        let n = if tb { br } else { bc };
        let at = |i: usize, t: usize| if ta { x[t * ac + i] } else { x[i * ac + t] } as f64;
        let bt = |t: usize, j: usize| if tb { y[j * bc + t] } else { y[t * bc + j] } as f64;
        let mut out = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                out[i * n + j] = (0..k).map(|t| at(i, t) * bt(t, j)).sum();
            }
        }
        out
    }

    /// The product on each instruction set this CPU has: the dispatched one, the baseline's
    /// one-lane vectors, AVX2's eight, AVX-512's sixteen (block widths differ).
    fn every_instruction_set(
        ta: bool,
        tb: bool,
        a: &Tensor,
        b: &Tensor,
    ) -> Vec<(&'static str, Tensor)> {
        Isa::all()
            .into_iter()
            .map(|(name, isa)| (name, product_with(ta, tb, a, b, isa).unwrap()))
            .collect()
    }

    /// A `[rows, cols]` matrix of varied values in about [-3, 3] (the sparse products' tests
    /// use it too).
    pub(in crate::math) fn filled(rows: usize, cols: usize, seed: usize) -> Tensor {
        let v = (0..rows * cols)
            .map(|i| (((i * 7919 + seed * 104_729) % 2001) as f32 - 1000.0) / 333.0)
            .collect();
        Tensor::from_vec(&[rows, cols], v).unwrap()
    }

    #[test]
    fn every_transpose_and_remainder_matches_the_reference() {
        // Rows and depths that leave remainders after the 4-row, 32-column and 16-lane blocks.
        for (m, k, n) in [
            (128, 784, 10),
            (784, 128, 10),
            (37, 19, 1),
            (70, 33, 3),
            (33, 129, 16),
            (5, 17, 7),
            (64, 16, 2),
        ] {
            for ta in [false, true] {
                for tb in [false, true] {
                    let a = if ta { filled(k, m, 1) } else { filled(m, k, 1) };
                    let b = if tb { filled(n, k, 2) } else { filled(k, n, 2) };
                    let want = reference(ta, tb, &a, &b);
                    let scale: f64 = want.iter().map(|v| v.abs()).fold(1.0, f64::max);
                    for (isa, got) in every_instruction_set(ta, tb, &a, &b) {
                        assert_eq!(got.shape(), &[m, n]);
                        let got = got.as_slice::<f32>().unwrap();
                        for (idx, (&g, &w)) in got.iter().zip(&want).enumerate() {
                            assert!(
                                (g as f64 - w).abs() <= 1e-5 * scale,
                                "{isa}: m={m} k={k} n={n} ta={ta} tb={tb} at {idx}: {g} vs {w}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn applies_only_to_narrow_products_of_some_size() {
        assert!(applies(128, 784, 10));
        assert!(applies(784, 128, 16));
        assert!(!applies(128, 784, 17));
        assert!(!applies(128, 784, 0));
        assert!(!applies(8, 8, 10));
    }
}
