//! The sparse product's loops: the output cut into stripes of columns, each stripe computed
//! tile by tile of `b`, in registers.
//!
//! Why stripes of columns, not bands of rows: a band of rows reads every row of `b` (the
//! 784x128 weights are 400 KB), and each tile of `b` served only the band's rows. A stripe of 64
//! columns reads only its share of `b`, and every output row of the stripe reuses each tile of
//! it. `cargo bench --bench ops -- matmul_sparse20` with `WEIR_INTRA_OP_THREADS=1` on the 2-core
//! EPYC, old and new binaries alternated four times, medians of the kernel column: 207 -> 179 us
//! for 128x784x128, 240 -> 218 us for its transposed form. On two threads the two layouts
//! measured the same within this host's noise (111-162 us against 111-160 us).

use std::sync::atomic::{AtomicBool, Ordering};

use super::masks::NonzeroMasks;

/// The widest stripe, in vectors: eight accumulators, a broadcast and a spare of the sixteen
/// vector registers of AVX2.
const MAX_VECTORS: usize = 8;

/// `op(a)` for the product: its nonzero masks and where its elements are in `a`.
pub(super) struct OpA<'a> {
    /// `a` as stored.
    pub(super) a: &'a [f32],
    pub(super) masks: &'a NonzeroMasks,
    /// The columns of `a` as stored: the distance between an element and the one below it.
    pub(super) cols: usize,
}

impl OpA<'_> {
    /// The mask word `w` of row `i`.
    #[inline(always)]
    fn word(&self, i: usize, w: usize) -> u64 {
        self.masks.bits[i * self.masks.words + w]
    }

    /// Row `i`'s elements from column `64 * w` on, and the distance between two of them:
    /// `op(a)[i][64 * w + t]` is `segment[t * stride]`.
    #[inline(always)]
    fn segment<const TRANSPOSED: bool>(&self, i: usize, w: usize) -> (&[f32], usize) {
        if TRANSPOSED {
            (&self.a[64 * w * self.cols + i..], self.cols)
        } else {
            (&self.a[i * self.cols + 64 * w..], 1)
        }
    }

    /// The nonzeros of row `i`: `(t, op(a)[i][t])` in increasing `t`.
    fn nonzeros<const TRANSPOSED: bool>(
        &self,
        i: usize,
    ) -> impl Iterator<Item = (usize, f32)> + '_ {
        (0..self.masks.words).flat_map(move |w| {
            let (segment, stride) = self.segment::<TRANSPOSED>(i, w);
            let mut m = self.word(i, w);
            std::iter::from_fn(move || {
                if m == 0 {
                    return None;
                }
                let t = m.trailing_zeros() as usize;
                m &= m - 1;
                Some((64 * w + t, segment[t * stride]))
            })
        })
    }
}

/// One task of a product: the columns `col..col + width` of the output rows `first..`.
pub(super) struct Stripe<'o> {
    pub(super) first: usize,
    pub(super) col: usize,
    /// Each row's piece of the stripe, `width` elements.
    pub(super) rows: Vec<&'o mut [f32]>,
}

/// Cuts `out` (`[m, n]` rows) into stripes of at most [`MAX_VECTORS`] vectors of `lanes`
/// columns (the columns past the last whole vector join the last stripe), each cut into
/// `bands` bands of rows, ordered band by band: when two threads take tasks in turn, each keeps
/// to the same stripe of `b`.
pub(super) fn stripes(out: &mut [f32], n: usize, lanes: usize, bands: usize) -> Vec<Stripe<'_>> {
    let vectors = n / lanes;
    let mut widths: Vec<usize> = (0..vectors.div_ceil(MAX_VECTORS))
        .map(|s| (vectors - s * MAX_VECTORS).min(MAX_VECTORS) * lanes)
        .collect();
    match widths.last_mut() {
        Some(last) => *last += n % lanes,
        None => widths.push(n),
    }
    let m = out.len() / n.max(1);
    let per_band = m.div_ceil(bands.max(1)).max(1);
    let mut tasks: Vec<Stripe<'_>> = (0..m.div_ceil(per_band))
        .flat_map(|band| {
            let mut col = 0;
            widths
                .iter()
                .map(|&width| {
                    let stripe = Stripe {
                        first: band * per_band,
                        col,
                        rows: Vec::with_capacity(per_band),
                    };
                    col += width;
                    stripe
                })
                .collect::<Vec<_>>()
        })
        .collect();
    for (i, mut row) in out.chunks_exact_mut(n.max(1)).enumerate() {
        let band = i / per_band;
        for (s, &width) in widths.iter().enumerate() {
            let (piece, rest) = row.split_at_mut(width);
            tasks[band * widths.len() + s].rows.push(piece);
            row = rest;
        }
    }
    tasks
}

/// Computes one stripe of `out = op(a) . b` for `[k, n]` rows of `b`: for each tile of 64 rows
/// of `b` (one mask word), each output row accumulates in registers the rows of the tile its
/// nonzeros select, continuing the sums of the tiles before; then the columns past the last
/// whole vector, one at a time. Each output is one multiply-add chain in increasing `t`.
///
/// Each tile's piece of the stripe is first checked for infinities and NaNs, where `0 * b` is
/// not zero and skipping `a`'s zeros would change the result: on finding one, this sets
/// `non_finite` and stops, and every stripe stops at its next tile. Checked here rather than in
/// a pass of its own, the tile is read while it is about to be used (a separate pass read the
/// 400 KB of weights from the third-level cache once more: 8-9 us of a 100 us product).
#[inline(always)]
pub(super) fn stripe<S: pulp::Simd, const TRANSPOSED: bool>(
    simd: S,
    op_a: &OpA<'_>,
    b: &[f32],
    n: usize,
    mut task: Stripe<'_>,
    non_finite: &AtomicBool,
) {
    let Some(width) = task.rows.first().map(|r| r.len()) else {
        return;
    };
    let k = b.len() / n.max(1);
    let vectors = (width / S::F32_LANES).min(MAX_VECTORS);
    for w in 0..op_a.masks.words {
        let tile = &b[64 * w * n + task.col..];
        let tile_rows = (k - 64 * w).min(64);
        if non_finite.load(Ordering::Relaxed) || !finite(simd, tile, n, tile_rows, width) {
            non_finite.store(true, Ordering::Relaxed);
            return;
        }
        let (first, rows) = (task.first, &mut task.rows[..]);
        match vectors {
            8 => block::<S, 8, TRANSPOSED>(simd, op_a, w, tile, n, first, rows),
            7 => block::<S, 7, TRANSPOSED>(simd, op_a, w, tile, n, first, rows),
            6 => block::<S, 6, TRANSPOSED>(simd, op_a, w, tile, n, first, rows),
            5 => block::<S, 5, TRANSPOSED>(simd, op_a, w, tile, n, first, rows),
            4 => block::<S, 4, TRANSPOSED>(simd, op_a, w, tile, n, first, rows),
            3 => block::<S, 3, TRANSPOSED>(simd, op_a, w, tile, n, first, rows),
            2 => block::<S, 2, TRANSPOSED>(simd, op_a, w, tile, n, first, rows),
            1 => block::<S, 1, TRANSPOSED>(simd, op_a, w, tile, n, first, rows),
            _ => {}
        }
    }
    let done = vectors * S::F32_LANES;
    if done < width {
        for (r, row) in task.rows.iter_mut().enumerate() {
            let i = task.first + r;
            for (c, o) in row.iter_mut().enumerate().skip(done) {
                let j = task.col + c;
                *o = op_a
                    .nonzeros::<TRANSPOSED>(i)
                    .fold(0.0f32, |s, (t, v)| v.mul_add(b[t * n + j], s));
            }
        }
    }
}

/// Whether the first `width` columns of the first `rows` rows of `tile` (rows `n` apart) are
/// all finite: `v * 0` is 0 for finite `v` and NaN otherwise, and a sum of those is NaN as soon
/// as one is. One chain per vector of a row, so the adds overlap.
#[inline(always)]
pub(super) fn finite<S: pulp::Simd>(
    simd: S,
    tile: &[f32],
    n: usize,
    rows: usize,
    width: usize,
) -> bool {
    let zero = simd.splat_f32s(0.0);
    let mut acc = [zero; MAX_VECTORS];
    let mut rest = 0.0f32;
    for row in tile.chunks(n).take(rows) {
        let row = &row[..width];
        let (vs, tail) = S::as_simd_f32s(row);
        for (c, &v) in vs.iter().enumerate() {
            let q = c % MAX_VECTORS;
            acc[q] = simd.mul_add_f32s(v, zero, acc[q]);
        }
        for &v in tail {
            rest += v * 0.0;
        }
    }
    let sum = acc.iter().fold(zero, |s, &v| simd.add_f32s(s, v));
    simd.reduce_sum_f32s(sum) + rest == 0.0
}

/// For every row of a stripe: `row[..G vectors] += sum over the nonzeros t of tile w of
/// op(a)[i][64 w + t] * tile[t][..G vectors]`, continuing the sums already in the row (zero
/// before the first tile).
///
/// Why slices fixed to `G` vectors: the loop then holds no bounds check and no multiply beyond
/// the row offset in `b`, and its accumulators stay in registers.
#[inline(always)]
fn block<S: pulp::Simd, const G: usize, const TRANSPOSED: bool>(
    simd: S,
    op_a: &OpA<'_>,
    w: usize,
    tile: &[f32],
    n: usize,
    first: usize,
    rows: &mut [&mut [f32]],
) {
    let width = G * S::F32_LANES;
    for (r, row) in rows.iter_mut().enumerate() {
        let i = first + r;
        let mut m = op_a.word(i, w);
        if m == 0 {
            continue;
        }
        let (segment, stride) = op_a.segment::<TRANSPOSED>(i, w);
        let (ov, _) = S::as_mut_simd_f32s(&mut row[..width]);
        let ov: &mut [S::f32s; G] = (&mut ov[..G]).try_into().expect("G vectors");
        let mut acc = *ov;
        while m != 0 {
            let t = m.trailing_zeros() as usize;
            m &= m - 1;
            let av = simd.splat_f32s(segment[t * stride]);
            let (bv, _) = S::as_simd_f32s(&tile[t * n..t * n + width]);
            let bv: &[S::f32s; G] = bv[..G].try_into().expect("G vectors");
            for q in 0..G {
                acc[q] = simd.mul_add_f32s(av, bv[q], acc[q]);
            }
        }
        *ov = acc;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::Isa;

    /// [`finite`] of a `[rows, n]` tile's first `width` columns, on one instruction set.
    struct Finite<'a> {
        tile: &'a [f32],
        n: usize,
        width: usize,
    }

    impl pulp::WithSimd for Finite<'_> {
        type Output = bool;

        fn with_simd<S: pulp::Simd>(self, simd: S) -> bool {
            finite(
                simd,
                self.tile,
                self.n,
                self.tile.len() / self.n,
                self.width,
            )
        }
    }

    #[test]
    fn the_finite_check_sees_every_infinity_and_nan_in_its_columns() {
        // 5 rows of 37: widths with whole vectors, a tail, and both.
        let n = 37;
        for (isa_name, isa) in Isa::all() {
            for width in [3, 8, 16, 35, 37] {
                let check = |tile: &[f32]| isa.run(Finite { tile, n, width });
                let mut tile = vec![1.0f32; 5 * n];
                tile[3] = -0.0;
                tile[n + 1] = f32::MAX;
                tile[2 * n] = f32::MIN_POSITIVE / 2.0;
                assert!(check(&tile), "{isa_name} width {width}");
                for bad in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
                    for at in [0, width - 1, 4 * n + width / 2] {
                        let mut t = tile.clone();
                        t[at] = bad;
                        assert!(!check(&t), "{isa_name} width {width}: {bad} at {at}");
                    }
                    // Outside the stripe's columns: not this stripe's business.
                    if width < n {
                        let mut t = tile.clone();
                        t[2 * n + width] = bad;
                        assert!(check(&t), "{isa_name} width {width}: {bad} outside");
                    }
                }
            }
        }
    }

    #[test]
    fn stripes_cover_every_element_once_band_by_band() {
        // n = 128 on eight lanes: two stripes of 64; n = 21: two vectors and five columns;
        // n = 3: no whole vector.
        for (m, n, bands, want_widths) in [
            (10, 128, 2, vec![64, 64]),
            (10, 21, 3, vec![21]),
            (5, 3, 1, vec![3]),
            (9, 200, 4, vec![64, 64, 64, 8]),
        ] {
            let mut out: Vec<f32> = (0..m * n).map(|v| v as f32).collect();
            let tasks = stripes(&mut out, n, 8, bands);
            let per_band = m.div_ceil(bands);
            assert_eq!(tasks.len(), m.div_ceil(per_band) * want_widths.len());
            let mut seen = vec![0u8; m * n];
            for (k, task) in tasks.iter().enumerate() {
                let s = k % want_widths.len();
                assert_eq!(task.first, (k / want_widths.len()) * per_band);
                assert_eq!(task.col, want_widths[..s].iter().sum::<usize>());
                for (r, row) in task.rows.iter().enumerate() {
                    assert_eq!(row.len(), want_widths[s]);
                    for (c, &v) in row.iter().enumerate() {
                        let at = (task.first + r) * n + task.col + c;
                        assert_eq!(v as usize, at);
                        seen[at] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "m={m} n={n}");
        }
    }
}
