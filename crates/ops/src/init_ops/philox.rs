//! TensorFlow's random generator (Philox4x32-10, `random::PhiloxRandom`) and the sampling its
//! CPU kernels do for uniform, normal and truncated-normal floats, so that a seeded weir
//! initializer or dropout draws the numbers TensorFlow's `RandomUniform`,
//! `RandomStandardNormal` and `TruncatedNormal` draw for the same (seed, seed2).

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

/// The generator is the random family's Philox4x32-10 (one implementation for every op).
pub(crate) use crate::random::philox::Philox;

/// A float in [0, 1) from the low 23 bits of `x` (TensorFlow's `Uint32ToFloat`).
#[inline]
pub(crate) fn u32_to_f32(x: u32) -> f32 {
    f32::from_bits((127 << 23) | (x & 0x7f_ffff)) - 1.0
}

/// A double in [0, 1) from 52 bits of two words (TensorFlow's `Uint64ToDouble`).
#[inline]
pub(crate) fn u64_to_f64(hi: u32, lo: u32) -> f64 {
    let mantissa = ((hi as u64 & 0xf_ffff) << 32) | lo as u64;
    f64::from_bits((1023u64 << 52) | mantissa) - 1.0
}

/// Two standard normals from two words (TensorFlow's `BoxMullerFloat`).
#[inline]
fn box_muller_f32(x0: u32, x1: u32) -> [f32; 2] {
    let u1 = u32_to_f32(x0).max(1.0e-7);
    // 2 * M_PI is a double in TensorFlow's expression; the product is narrowed afterwards.
    let v1 = (2.0 * std::f64::consts::PI * u32_to_f32(x1) as f64) as f32;
    let r = (-2.0f32 * u1.ln()).sqrt();
    let (s, c) = v1.sin_cos();
    [s * r, c * r]
}

/// Two standard normals from four words (TensorFlow's `BoxMullerDouble`).
#[inline]
fn box_muller_f64(x: [u32; 4]) -> [f64; 2] {
    let u1 = u64_to_f64(x[0], x[1]).max(1.0e-7);
    let v1 = 2.0 * std::f64::consts::PI * u64_to_f64(x[2], x[3]);
    let r = (-2.0 * u1.ln()).sqrt();
    let (s, c) = v1.sin_cos();
    [s * r, c * r]
}

/// The distributions the initializers and dropout draw from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dist {
    /// Uniform in [0, 1).
    Uniform,
    /// Standard normal.
    Normal,
    /// Standard normal, redrawn outside two standard deviations.
    TruncatedNormal,
}

/// An element type the samplers fill.
pub(crate) trait Sample: Copy + Default {
    /// Fills `out` from `gen` by `dist`, exactly as TensorFlow's `FillPhiloxRandom` does for
    /// this type, whatever way its work is sharded.
    fn fill(gen: Philox, dist: Dist, out: &mut [Self]);
}

/// Fills `out` group by group, one generator block per group.
fn fill_fixed<T: Copy, const G: usize>(
    mut gen: Philox,
    out: &mut [T],
    f: impl Fn([u32; 4]) -> [T; G],
) {
    for chunk in out.chunks_mut(G) {
        let g = f(gen.next_block());
        chunk.copy_from_slice(&g[..chunk.len()]);
    }
}

/// Words one at a time from consecutive blocks (TensorFlow's `SingleSampleAdapter`).
struct Words {
    gen: Philox,
    buf: [u32; 4],
    used: usize,
}

impl Words {
    fn next(&mut self) -> u32 {
        if self.used == 4 {
            self.buf = self.gen.next_block();
            self.used = 0;
        }
        self.used += 1;
        self.buf[self.used - 1]
    }
}

/// Fills `out` the way TensorFlow fills distributions that reject samples: group `i` draws
/// from its own stretch of the stream, 256 words reserved per output.
fn fill_variable<T: Copy, const G: usize>(
    base: Philox,
    out: &mut [T],
    f: impl Fn(&mut Words) -> [T; G],
) {
    let skip_per_group = (G * 256 / 4) as u64;
    for (i, chunk) in out.chunks_mut(G).enumerate() {
        let mut gen = base;
        gen.skip(i as u64 * skip_per_group);
        let mut words = Words {
            gen,
            buf: [0; 4],
            used: 4,
        };
        let g = f(&mut words);
        chunk.copy_from_slice(&g[..chunk.len()]);
    }
}

/// The half types as TensorFlow samples them: a uniform from the low mantissa bits of one
/// word (`Uint16ToHalf`, `Uint16ToGfloat16`), normals and truncated normals drawn in f32 (one
/// word per value, truncation tested in f32) and rounded.
macro_rules! half_sample {
    ($($t:ty, $mant_bits:expr, $exp_one:expr;)*) => {$(
        impl Sample for $t {
            fn fill(gen: Philox, dist: Dist, out: &mut [$t]) {
                match dist {
                    Dist::Uniform => fill_fixed(gen, out, |b| {
                        b.map(|x| {
                            let man = (x & ((1 << $mant_bits) - 1)) as u16;
                            <$t>::from_bits(($exp_one << $mant_bits) | man) - <$t>::ONE
                        })
                    }),
                    _ => {
                        let mut wide = vec![0.0f32; out.len()];
                        f32::fill(gen, dist, &mut wide);
                        for (o, w) in out.iter_mut().zip(wide) {
                            *o = <$t>::from_f32(w);
                        }
                    }
                }
            }
        }
    )*};
}

half_sample! {
    weir_graph::f16, 10, 15;
    weir_graph::bf16, 7, 127;
}

impl Sample for f32 {
    fn fill(gen: Philox, dist: Dist, out: &mut [f32]) {
        match dist {
            Dist::Uniform => fill_fixed(gen, out, |b| b.map(u32_to_f32)),
            Dist::Normal => fill_fixed(gen, out, |b| {
                let [a, c] = box_muller_f32(b[0], b[1]);
                let [d, e] = box_muller_f32(b[2], b[3]);
                [a, c, d, e]
            }),
            Dist::TruncatedNormal => fill_variable(gen, out, |w| {
                let mut g = [0.0f32; 4];
                let mut n = 0;
                loop {
                    for v in box_muller_f32(w.next(), w.next()) {
                        if v.abs() < 2.0 {
                            g[n] = v;
                            n += 1;
                            if n == 4 {
                                return g;
                            }
                        }
                    }
                }
            }),
        }
    }
}

impl Sample for f64 {
    fn fill(gen: Philox, dist: Dist, out: &mut [f64]) {
        match dist {
            Dist::Uniform => fill_fixed(gen, out, |b| {
                [u64_to_f64(b[0], b[1]), u64_to_f64(b[2], b[3])]
            }),
            Dist::Normal => fill_fixed(gen, out, box_muller_f64),
            Dist::TruncatedNormal => fill_variable(gen, out, |w| {
                let mut g = [0.0f64; 2];
                let mut n = 0;
                loop {
                    for v in box_muller_f64([w.next(), w.next(), w.next(), w.next()]) {
                        if v.abs() < 2.0 {
                            g[n] = v;
                            n += 1;
                            if n == 2 {
                                return g;
                            }
                        }
                    }
                }
            }),
        }
    }
}

/// Nondeterministic 64 bits, for ops whose seeds are both 0.
fn fresh_seed() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    h.finish()
}

/// One kernel's generator, advanced by every run (TensorFlow's `GuardedPhiloxRandom`): the
/// first run of a seeded op in a session draws what TensorFlow's first run draws, the second
/// run the second, and a new session starts over.
pub(crate) struct GuardedPhilox(Mutex<Philox>);

impl GuardedPhilox {
    /// Seeded by (seed, seed2); both 0 draws fresh seeds.
    pub(crate) fn new(seed: i64, seed2: i64) -> GuardedPhilox {
        let (a, b) = if seed == 0 && seed2 == 0 {
            (fresh_seed(), fresh_seed())
        } else {
            (seed as u64, seed2 as u64)
        };
        GuardedPhilox(Mutex::new(Philox::new(a, b)))
    }

    /// The generator for a run producing `n` outputs; reserves `n * 256` blocks as
    /// TensorFlow's `ReserveRandomOutputs(n, 256)` does.
    pub(crate) fn reserve_outputs(&self, n: usize) -> Philox {
        let mut g = self.0.lock();
        let here = *g;
        g.skip((n as u64).saturating_mul(256));
        here
    }
}

#[cfg(test)]
// Reference values are quoted with the digits TensorFlow printed.
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    #[test]
    fn random123_known_answers() {
        let mut g = Philox::from_parts([0; 4], [0; 2]);
        assert_eq!(
            g.next_block(),
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
        );
        let mut g = Philox::from_parts(
            [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
            [0xa4093822, 0x299f31d0],
        );
        assert_eq!(
            g.next_block(),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
    }

    #[test]
    fn skip_equals_drawing_and_carries() {
        let mut a = Philox::new(3, 4);
        let mut b = a;
        for _ in 0..5 {
            a.next_block();
        }
        b.skip(5);
        assert_eq!(a, b);
        let mut c = Philox::from_parts([u32::MAX, u32::MAX, 0, 0], [0, 0]);
        c.skip(1);
        assert_eq!(c, Philox::from_parts([0, 0, 1, 0], [0, 0]));
    }

    #[test]
    fn tensorflow_uniform_floats() {
        // tf.raw_ops.RandomUniform(shape=[6], dtype=tf.float32, seed=1, seed2=2), run twice
        // (values printed by TensorFlow 2.21).
        let g = GuardedPhilox::new(1, 2);
        let mut out = [0.0f32; 6];
        f32::fill(g.reserve_outputs(6), Dist::Uniform, &mut out);
        assert_eq!(
            out,
            [
                0.406396746635437,
                0.8575996160507202,
                0.05539584159851074,
                0.08587229251861572,
                0.41215360164642334,
                0.036630868911743164
            ]
        );
        f32::fill(g.reserve_outputs(6), Dist::Uniform, &mut out);
        assert_eq!(
            out,
            [
                0.49945497512817383,
                0.06284701824188232,
                0.4600658416748047,
                0.20280075073242188,
                0.0886303186416626,
                0.9726002216339111
            ]
        );
        let mut d = [0.0f64; 5];
        f64::fill(
            GuardedPhilox::new(1, 2).reserve_outputs(5),
            Dist::Uniform,
            &mut d,
        );
        assert_eq!(
            d,
            [
                0.2511744980841868,
                0.44316677020093853,
                0.2972296290781924,
                0.2577066944684787,
                0.9527181182843207
            ]
        );
    }

    #[test]
    fn truncated_stays_within_two_sigma() {
        let mut out = vec![0.0f32; 1000];
        f32::fill(Philox::new(7, 9), Dist::TruncatedNormal, &mut out);
        assert!(out.iter().all(|v| v.abs() < 2.0));
        let mean: f32 = out.iter().sum::<f32>() / 1000.0;
        assert!(mean.abs() < 0.1, "{mean}");
    }
}
