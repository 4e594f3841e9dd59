//! f32 products whose left operand is mostly zeros: a batch of MNIST-like images (about 80% zero
//! pixels), one-hot or bag-of-words rows. Both the layer `x . W` and its weight gradient
//! `x^T . g` take `x` as the left operand, so skipping its zeros removes most of the
//! multiply-adds of a first layer's forward and backward products.
//!
//! Why this is exact: a zero of `a` contributes `0 * b` to a sum, which is a signed zero when
//! `b` is finite, and adding a zero leaves a sum unchanged (a sum starts at +0, and +0 + -0 is +0).
//! So the product is the dense one summed in the same order, as long as `b` is finite; when it
//! holds an infinity or a NaN (where `0 * b` is NaN), or when `a` is dense, the caller runs the
//! dense kernel. Each output is one multiply-add chain in increasing `k`, on every instruction
//! set.
//!
//! How: a bit per element of `a` marks its nonzeros, then each output row accumulates, in
//! registers, the rows of `b` its nonzeros select, one tile of `b` at a time. One vector load of
//! `b` feeds one multiply-add, so the kernel runs at the first-level cache's bandwidth rather
//! than the multipliers' rate: below [`MAX_DENSITY`] it still wins.

use std::borrow::Cow;

use weir_graph::{Result, Tensor};

use crate::util::Isa;

mod masks;

use masks::NonzeroMasks;

use super::matmul_narrow::transpose;

/// The largest share of nonzeros in `a` for which this kernel is used. `cargo bench --bench ops
/// -- matmul_` on a 2-core AVX2 EPYC, 128x784x128, microseconds per call: matrixmultiply 344 at
/// any density; this kernel 153 at 20% nonzeros, 192 at 30%, 320 at 40%, 514 at 100%. The
/// margin below the crossover leaves room for AVX-512, where matrixmultiply gains more.
const MAX_DENSITY: f64 = 0.30;

/// The smallest product (m * k * n multiply-adds) worth the density check.
const MIN_WORK: usize = 1 << 16;

/// `op(a) . op(b)` for f32 matrices when `op(a)` is sparse enough and `b` finite, `None` when the
/// dense kernel should run instead. The caller has checked the shapes: `[m, k] . [k, n]` after
/// the transposes.
pub(super) fn product(ta: bool, tb: bool, a: &Tensor, b: &Tensor) -> Result<Option<Tensor>> {
    product_with(ta, tb, a, b, Isa::Dispatched)
}

/// [`product`] with the kernel run on `isa` (tests pick each instruction set).
fn product_with(ta: bool, tb: bool, a: &Tensor, b: &Tensor, isa: Isa) -> Result<Option<Tensor>> {
    let (xs, ys) = (a.as_slice::<f32>()?, b.as_slice::<f32>()?);
    let (ar, ac) = (a.shape()[0], a.shape()[1]);
    let (m, k) = if ta { (ac, ar) } else { (ar, ac) };
    let n = if tb { b.shape()[0] } else { b.shape()[1] };
    if n == 0 || m.saturating_mul(k).saturating_mul(n) < MIN_WORK || !looks_sparse(xs) {
        return Ok(None);
    }
    // The kernel reads b as [k][n] rows.
    let b_rows = if tb {
        Cow::Owned(transpose(ys, n, k))
    } else {
        Cow::Borrowed(ys)
    };
    let out = isa.run(Sparse {
        a: xs,
        rows: ar,
        cols: ac,
        transposed: ta,
        b: &b_rows,
        n,
    });
    out.map(|o| Tensor::from_vec(&[m, n], o)).transpose()
}

/// Whether a spread sample of at most [`SAMPLE`] elements of `a` is sparse enough to be worth
/// the masks: a dense operand (a hidden layer's activations, say) costs the dense product only
/// a thousand loads, not a full pass. The masks then count exactly.
fn looks_sparse(a: &[f32]) -> bool {
    let step = (a.len() / SAMPLE).max(1);
    let (seen, nonzero) = a
        .iter()
        .step_by(step)
        .fold((0usize, 0usize), |(s, nz), &v| {
            (s + 1, nz + usize::from(v != 0.0))
        });
    // The margin keeps a sample that drew a few more nonzeros than the whole for the exact count.
    nonzero as f64 <= (MAX_DENSITY + 0.1) * seen as f64
}

/// Elements sampled by [`looks_sparse`].
const SAMPLE: usize = 1024;

/// One product's operands, for [`Isa::run`]: its `with_simd` is compiled once per
/// instruction set (AVX-512, AVX2, the baseline), so the loops that build the masks vectorize
/// too.
struct Sparse<'a> {
    /// `a` as stored: `[rows, cols]`, used transposed when `transposed`.
    a: &'a [f32],
    rows: usize,
    cols: usize,
    transposed: bool,
    /// `[k, n]` rows.
    b: &'a [f32],
    n: usize,
}

impl pulp::WithSimd for Sparse<'_> {
    type Output = Option<Vec<f32>>;

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, simd: S) -> Option<Vec<f32>> {
        let Sparse {
            a,
            rows,
            cols,
            transposed,
            b,
            n,
        } = self;
        // Element (i, t) of op(a) is a[i * row_stride + t * depth_stride].
        let (masks, row_stride, depth_stride) = if transposed {
            (NonzeroMasks::of_columns(a, rows, cols), 1, cols)
        } else {
            (NonzeroMasks::of_rows(a, rows, cols), cols, 1)
        };
        if masks.count() as f64 > MAX_DENSITY * a.len() as f64 || !all_finite(b) {
            return None;
        }
        let op_a = OpA {
            a,
            masks: &masks,
            row_stride,
            depth_stride,
        };
        let mut out = vec![0.0f32; masks.rows * n];
        // Split between cores only when the product's multiply-adds outweigh the hand-off
        // (a few microseconds).
        let rows_per_chunk = if masks.count().saturating_mul(n) >= SPLIT_WORK {
            masks.rows.div_ceil(CHUNKS).max(8)
        } else {
            masks.rows
        };
        crate::intra_op::for_each_row_chunk(&mut out, n, rows_per_chunk, false, |first, rows| {
            simd.vectorize(RowRange {
                simd,
                op_a: &op_a,
                first,
                b,
                n,
                out: rows,
            })
        });
        Some(out)
    }
}

/// The multiply-adds (nonzeros of `a` times columns of `b`) from which a product is split
/// between the intra-op pool's threads: about 30 us of work on one core.
const SPLIT_WORK: usize = 1 << 18;

/// The chunks of output rows a split product is cut into, so a helper that starts late still
/// takes its share.
const CHUNKS: usize = 8;

/// The output rows `first..first + out.len() / n` of a product, for one thread of a split:
/// re-entering the instruction set's context, since a helper thread runs it outside the
/// dispatching function.
struct RowRange<'a, 'b, S> {
    simd: S,
    op_a: &'a OpA<'b>,
    first: usize,
    b: &'a [f32],
    n: usize,
    out: &'a mut [f32],
}

impl<S: pulp::Simd> pulp::NullaryFnOnce for RowRange<'_, '_, S> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        tiled_product(self.simd, self.op_a, self.first, self.b, self.n, self.out);
    }
}

/// Whether every value is finite: `v * 0` is 0 for finite `v` and NaN otherwise, and a sum of
/// those is NaN as soon as one is. Sixteen partial sums, so the loop vectorizes.
#[inline(always)]
fn all_finite(b: &[f32]) -> bool {
    let mut acc = [0.0f32; 16];
    let chunks = b.chunks_exact(16);
    let tail = chunks.remainder();
    for c in chunks {
        for (s, &v) in acc.iter_mut().zip(c) {
            *s += v * 0.0;
        }
    }
    for &v in tail {
        acc[0] += v * 0.0;
    }
    acc.iter().sum::<f32>() == 0.0
}

/// `op(a)` for the product: its nonzero masks and where its elements are in `a`.
struct OpA<'a> {
    a: &'a [f32],
    masks: &'a NonzeroMasks,
    row_stride: usize,
    depth_stride: usize,
}

impl OpA<'_> {
    /// The mask word `w` of row `i`.
    #[inline(always)]
    fn word(&self, i: usize, w: usize) -> u64 {
        self.masks.bits[i * self.masks.words + w]
    }

    /// The nonzeros of row `i` in mask word `w`: `(t, op(a)[i][t])` in increasing `t`.
    #[inline(always)]
    fn nonzeros(&self, i: usize, w: usize) -> impl Iterator<Item = (usize, f32)> + '_ {
        let mut m = self.word(i, w);
        std::iter::from_fn(move || {
            if m == 0 {
                return None;
            }
            let t = w * 64 + m.trailing_zeros() as usize;
            m &= m - 1;
            Some((t, self.a[i * self.row_stride + t * self.depth_stride]))
        })
    }
}

/// Rows `first..` of `out = op(a) . b` (as many as `out` holds) for `[k, n]` rows of `b`: for
/// each block of up to eight vectors of columns, for each tile of 64 rows of `b` (one mask
/// word), each output row accumulates in registers the rows of the tile its nonzeros select.
///
/// Why tiles: a tile's block of columns (64 rows x 8 vectors, 16 KiB with AVX2) stays in the
/// first-level cache while every output row takes its nonzeros from it. Untiled, each nonzero
/// fetched a row of `b` from the second-level cache or beyond (the 784x128 weights are 400 KB),
/// and the loads, not the multiply-adds, set the pace: 1,260 us untiled against 706 us tiled
/// for a 128x784x128 product with every element nonzero.
#[inline(always)]
fn tiled_product<S: pulp::Simd>(
    simd: S,
    op_a: &OpA<'_>,
    first: usize,
    b: &[f32],
    n: usize,
    out: &mut [f32],
) {
    let lanes = S::F32_LANES;
    let vectors = n / lanes;
    let mut j = 0;
    while j < vectors * lanes {
        let g = (vectors - j / lanes).min(8);
        for w in 0..op_a.masks.words {
            match g {
                8 => block::<S, 8>(simd, op_a, w, first, b, n, j, out),
                7 => block::<S, 7>(simd, op_a, w, first, b, n, j, out),
                6 => block::<S, 6>(simd, op_a, w, first, b, n, j, out),
                5 => block::<S, 5>(simd, op_a, w, first, b, n, j, out),
                4 => block::<S, 4>(simd, op_a, w, first, b, n, j, out),
                3 => block::<S, 3>(simd, op_a, w, first, b, n, j, out),
                2 => block::<S, 2>(simd, op_a, w, first, b, n, j, out),
                _ => block::<S, 1>(simd, op_a, w, first, b, n, j, out),
            }
        }
        j += g * lanes;
    }
    // Columns past the last whole vector, one at a time, in the same order.
    for (i, row) in out.chunks_exact_mut(n).enumerate() {
        let i = first + i;
        for (jj, o) in row.iter_mut().enumerate().skip(j) {
            *o = (0..op_a.masks.words)
                .flat_map(|w| op_a.nonzeros(i, w))
                .fold(0.0f32, |s, (t, v)| v.mul_add(b[t * n + jj], s));
        }
    }
}

/// For every output row: `out[i][j..j + G vectors] += sum over the nonzeros t of tile w of
/// op(a)[i][t] * b[t][j..]`, continuing the sums already in `out` (zero before the first
/// tile), so each output is one chain in increasing `t`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn block<S: pulp::Simd, const G: usize>(
    simd: S,
    op_a: &OpA<'_>,
    w: usize,
    first: usize,
    b: &[f32],
    n: usize,
    j: usize,
    out: &mut [f32],
) {
    let width = G * S::F32_LANES;
    for (i, row) in out.chunks_exact_mut(n).enumerate() {
        let i = first + i;
        if op_a.word(i, w) == 0 {
            continue;
        }
        let (ov, _) = S::as_mut_simd_f32s(&mut row[j..j + width]);
        let mut acc: [S::f32s; G] = std::array::from_fn(|q| ov[q]);
        for (t, v) in op_a.nonzeros(i, w) {
            let av = simd.splat_f32s(v);
            let start = t * n + j;
            let (bv, _) = S::as_simd_f32s(&b[start..start + width]);
            for q in 0..G {
                acc[q] = simd.mul_add_f32s(av, bv[q], acc[q]);
            }
        }
        ov[..G].copy_from_slice(&acc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::matmul_narrow::tests::filled;

    /// `op(a) . op(b)` summed in f32 in increasing k with a fused multiply-add per term and the
    /// zeros included: the dense product this kernel must reproduce bit for bit.
    fn reference(ta: bool, tb: bool, a: &Tensor, b: &Tensor) -> Vec<f32> {
        let (x, y) = (a.as_slice::<f32>().unwrap(), b.as_slice::<f32>().unwrap());
        let (ar, ac) = (a.shape()[0], a.shape()[1]);
        let (br, bc) = (b.shape()[0], b.shape()[1]);
        let (m, k) = if ta { (ac, ar) } else { (ar, ac) };
        let n = if tb { br } else { bc };
        let at = |i: usize, t: usize| if ta { x[t * ac + i] } else { x[i * ac + t] };
        let bt = |t: usize, j: usize| if tb { y[j * bc + t] } else { y[t * bc + j] };
        let mut out = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                out[i * n + j] = (0..k).fold(0.0f32, |s, t| at(i, t).mul_add(bt(t, j), s));
            }
        }
        out
    }

    /// The product on each instruction set this CPU has.
    fn every_instruction_set(
        ta: bool,
        tb: bool,
        a: &Tensor,
        b: &Tensor,
    ) -> Vec<(&'static str, Option<Tensor>)> {
        Isa::all()
            .into_iter()
            .map(|(name, isa)| (name, product_with(ta, tb, a, b, isa).unwrap()))
            .collect()
    }

    fn sparse(rows: usize, cols: usize, every: usize, seed: usize) -> Tensor {
        let v = (0..rows * cols)
            .map(|i| {
                let h = i.wrapping_mul(2_654_435_761).wrapping_add(seed * 40_503) >> 7;
                match h % every {
                    0 => ((h % 2001) as f32 - 1000.0) / 333.0,
                    1 => -0.0,
                    _ => 0.0,
                }
            })
            .collect();
        Tensor::from_vec(&[rows, cols], v).unwrap()
    }

    #[test]
    fn sparse_products_equal_the_dense_sum_bit_for_bit() {
        // Widths that leave remainders after 8-vector blocks and after whole vectors.
        for (m, k, n) in [
            (128, 784, 128),
            (64, 100, 200),
            (33, 257, 17),
            (40, 64, 31),
            (17, 300, 64),
        ] {
            for ta in [false, true] {
                for tb in [false, true] {
                    let a = if ta {
                        sparse(k, m, 5, 1)
                    } else {
                        sparse(m, k, 5, 1)
                    };
                    let b = if tb { filled(n, k, 2) } else { filled(k, n, 2) };
                    let want = reference(ta, tb, &a, &b);
                    for (isa, got) in every_instruction_set(ta, tb, &a, &b) {
                        let got = got.unwrap_or_else(|| panic!("{isa}: sparse path not taken"));
                        assert_eq!(got.shape(), &[m, n]);
                        let got = got.as_slice::<f32>().unwrap();
                        for (idx, (&g, &w)) in got.iter().zip(&want).enumerate() {
                            assert_eq!(
                                g.to_bits(),
                                w.to_bits(),
                                "{isa}: m={m} k={k} n={n} ta={ta} tb={tb} at {idx}: {g} vs {w}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_finite_check_sees_every_infinity_and_nan() {
        assert!(all_finite(&[1.0; 40]));
        assert!(all_finite(&[-0.0, f32::MAX, f32::MIN_POSITIVE / 2.0]));
        assert!(!all_finite(&[f32::NAN; 3]));
        let mut v = vec![1.0f32; 37];
        v[36] = f32::NEG_INFINITY;
        assert!(!all_finite(&v));
    }

    #[test]
    fn dense_operands_and_non_finite_weights_take_the_dense_path() {
        let dense = filled(64, 100, 1);
        let b = filled(100, 64, 2);
        assert!(product(false, false, &dense, &b).unwrap().is_none());
        let a = sparse(64, 100, 5, 1);
        assert!(product(false, false, &a, &b).unwrap().is_some());
        // 0 * inf is NaN in the dense sum, so a non-finite b must not skip zeros.
        for bad in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
            let mut v = b.to_vec::<f32>().unwrap();
            v[777] = bad;
            let b = Tensor::from_vec(&[100, 64], v).unwrap();
            assert!(product(false, false, &a, &b).unwrap().is_none(), "{bad}");
        }
        // Dense at the sampled places, sparse elsewhere: the sample rejects it. Sparse at the
        // sampled places but dense elsewhere: the exact count does.
        let len = 64 * 100;
        let step = len / SAMPLE;
        let sampled = |dense_at_samples: bool| {
            let v: Vec<f32> = (0..len)
                .map(|i| {
                    if (i % step == 0) == dense_at_samples {
                        1.0
                    } else {
                        0.0
                    }
                })
                .collect();
            Tensor::from_vec(&[64, 100], v).unwrap()
        };
        assert!(!looks_sparse(sampled(true).as_slice::<f32>().unwrap()));
        assert!(product(false, false, &sampled(true), &b).unwrap().is_none());
        assert!(looks_sparse(sampled(false).as_slice::<f32>().unwrap()));
        assert!(product(false, false, &sampled(false), &b)
            .unwrap()
            .is_none());
        // Too small to be worth a check.
        let tiny = sparse(4, 4, 5, 1);
        assert!(product(false, false, &tiny, &filled(4, 4, 2))
            .unwrap()
            .is_none());
    }
}
