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
use std::sync::atomic::AtomicBool;

use weir_graph::{Result, Tensor};

use crate::util::Isa;

mod masks;
mod stripes;

use masks::NonzeroMasks;
use stripes::{OpA, Stripe};

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
        let masks = if transposed {
            NonzeroMasks::of_columns(a, rows, cols)
        } else {
            NonzeroMasks::of_rows(a, rows, cols)
        };
        if masks.count() as f64 > MAX_DENSITY * a.len() as f64 {
            return None;
        }
        let op_a = OpA {
            a,
            masks: &masks,
            cols,
        };
        let mut out = vec![0.0f32; masks.rows * n];
        // Split between cores only when the product's multiply-adds outweigh the hand-off
        // (a few microseconds).
        let split = masks.count().saturating_mul(n) >= SPLIT_WORK;
        let stripe_count = (n / S::F32_LANES).div_ceil(8).max(1);
        // A large b (a layer's 784x128 weights) is shared out by stripes, so each core reads
        // only its part of it. A small one (the 128x128 gradient of the weight gradient) fits
        // every core's cache whole: the split is then by rows alone, each task taking every
        // stripe of its band, so each row of `a` is read by one core. (Split by stripes, both
        // cores read all of the weight gradient's x^T: medians of 152 us against 165 us per
        // traced training step, old layout against stripes.)
        let whole_b = std::mem::size_of_val(b) <= SMALL_B;
        let (bands, per_task) = match (split, whole_b) {
            (false, _) => (1, 1),
            (true, true) => (CHUNKS, stripe_count),
            (true, false) => (CHUNKS.div_ceil(stripe_count), 1),
        };
        let mut tasks: Vec<Vec<Stripe<'_>>> = Vec::new();
        for (k, stripe) in stripes::stripes(&mut out, n, S::F32_LANES, bands)
            .into_iter()
            .enumerate()
        {
            if k % per_task == 0 {
                tasks.push(Vec::with_capacity(per_task));
            }
            if let Some(task) = tasks.last_mut() {
                task.push(stripe);
            }
        }
        let non_finite = AtomicBool::new(false);
        let run = |stripes| {
            simd.vectorize(StripeTask {
                simd,
                op_a: &op_a,
                transposed,
                b,
                n,
                stripes,
                non_finite: &non_finite,
            })
        };
        if split {
            crate::intra_op::for_each_task(tasks.into_iter(), false, run);
        } else {
            tasks.into_iter().for_each(run);
        }
        (!non_finite.into_inner()).then_some(out)
    }
}

/// The multiply-adds (nonzeros of `a` times columns of `b`) from which a product is split
/// between the intra-op pool's threads: about 30 us of work on one core.
const SPLIT_WORK: usize = 1 << 18;

/// The tasks a split product is cut into (at least one per stripe of columns), so a helper
/// that starts late still takes its share.
const CHUNKS: usize = 4;

/// The largest `b`, in bytes, that a split leaves whole to every task: half of a core's
/// second-level cache on the EPYC this was measured on.
const SMALL_B: usize = 256 << 10;

/// One task of a product (stripes of one band), for one thread of a split: re-entering the
/// instruction set's context, since a helper thread runs it outside the dispatching function.
struct StripeTask<'a, 'b, 'o, S> {
    simd: S,
    op_a: &'a OpA<'b>,
    transposed: bool,
    b: &'a [f32],
    n: usize,
    stripes: Vec<Stripe<'o>>,
    non_finite: &'a AtomicBool,
}

impl<S: pulp::Simd> pulp::NullaryFnOnce for StripeTask<'_, '_, '_, S> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        let StripeTask {
            simd,
            op_a,
            transposed,
            b,
            n,
            stripes: tasks,
            non_finite,
        } = self;
        for task in tasks {
            if transposed {
                stripes::stripe::<S, true>(simd, op_a, b, n, task, non_finite);
            } else {
                stripes::stripe::<S, false>(simd, op_a, b, n, task, non_finite);
            }
        }
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
