//! TensorFlow's counter-based generator (Philox4x32-10) and the distributions its random
//! kernels draw with, reproduced bit for bit so that a seeded weir op yields the numbers the
//! same op yields in TensorFlow.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use weir_graph::{bf16, f16, Node, Result};

const W32A: u32 = 0x9E37_79B9;
const W32B: u32 = 0xBB67_AE85;
const M4X32A: u32 = 0xD251_1F53;
const M4X32B: u32 = 0xCD9E_8D57;

/// Philox4x32-10: each call returns 128 random bits and advances a 128-bit counter, so
/// skipping ahead is O(1) and disjoint counter ranges give independent streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Philox {
    counter: [u32; 4],
    key: [u32; 2],
}

impl Philox {
    /// TensorFlow's `PhiloxRandom(seed_lo, seed_hi)`: the first seed is the key, the second the
    /// high half of the counter.
    pub fn new(seed_lo: u64, seed_hi: u64) -> Philox {
        Philox {
            counter: [0, 0, seed_hi as u32, (seed_hi >> 32) as u32],
            key: [seed_lo as u32, (seed_lo >> 32) as u32],
        }
    }

    /// A generator from an explicit counter and key.
    pub fn from_parts(counter: [u32; 4], key: [u32; 2]) -> Philox {
        Philox { counter, key }
    }

    /// The counter and key, as `tf.random.Generator` stores them in its state variable.
    pub fn parts(&self) -> ([u32; 4], [u32; 2]) {
        (self.counter, self.key)
    }

    /// Advances the counter by `count` 128-bit samples.
    pub fn skip(&mut self, count: u64) {
        let lo = count as u32;
        let mut hi = (count >> 32) as u32;
        self.counter[0] = self.counter[0].wrapping_add(lo);
        if self.counter[0] < lo {
            hi = hi.wrapping_add(1);
        }
        self.counter[1] = self.counter[1].wrapping_add(hi);
        if self.counter[1] < hi {
            self.counter[2] = self.counter[2].wrapping_add(1);
            if self.counter[2] == 0 {
                self.counter[3] = self.counter[3].wrapping_add(1);
            }
        }
    }

    /// The next 128 random bits.
    #[inline]
    pub fn next_block(&mut self) -> [u32; 4] {
        let mut c = self.counter;
        let mut k = self.key;
        for round in 0..10 {
            if round > 0 {
                k[0] = k[0].wrapping_add(W32A);
                k[1] = k[1].wrapping_add(W32B);
            }
            let p0 = (M4X32A as u64) * (c[0] as u64);
            let p1 = (M4X32B as u64) * (c[2] as u64);
            c = [
                (p1 >> 32) as u32 ^ c[1] ^ k[0],
                p1 as u32,
                (p0 >> 32) as u32 ^ c[3] ^ k[1],
                p0 as u32,
            ];
        }
        self.skip_one();
        c
    }

    fn skip_one(&mut self) {
        for word in &mut self.counter {
            *word = word.wrapping_add(1);
            if *word != 0 {
                break;
            }
        }
    }
}

/// Hands out a generator's 128-bit blocks one 32-bit word at a time (TensorFlow's
/// `SingleSampleAdapter`).
pub struct Single<'a> {
    gen: &'a mut Philox,
    buf: [u32; 4],
    used: usize,
}

impl<'a> Single<'a> {
    /// An adapter that starts with a fresh block.
    pub fn new(gen: &'a mut Philox) -> Single<'a> {
        Single {
            gen,
            buf: [0; 4],
            used: 4,
        }
    }

    /// The next 32 random bits.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if self.used == 4 {
            self.buf = self.gen.next_block();
            self.used = 0;
        }
        let v = self.buf[self.used];
        self.used += 1;
        v
    }

    /// A uniform double in [0, 1) from two words (TensorFlow's `SimplePhilox::RandDouble`).
    pub fn next_f64(&mut self) -> f64 {
        let x0 = self.next_u32();
        let x1 = self.next_u32();
        u64_to_f64(x0, x1)
    }
}

/// A float in [0, 1) from the low 23 bits (TensorFlow's `Uint32ToFloat`).
#[inline]
pub fn u32_to_f32(x: u32) -> f32 {
    f32::from_bits((127 << 23) | (x & 0x7f_ffff)) - 1.0
}

/// A float16 in [0, 1) from the low 10 bits (TensorFlow's `Uint16ToHalf`: the low 16 bits of
/// the sample, a mantissa under exponent 0, minus 1 in half precision, which is exact).
#[inline]
pub fn u32_to_f16(x: u32) -> f16 {
    f16::from_bits((15 << 10) | (x & 0x3ff) as u16) - f16::ONE
}

/// A bfloat16 in [0, 1) from the low 7 bits (TensorFlow's `Uint16ToGfloat16`).
#[inline]
pub fn u32_to_bf16(x: u32) -> bf16 {
    bf16::from_bits((127 << 7) | (x & 0x7f) as u16) - bf16::ONE
}

/// A double in [0, 1) from 52 of the 64 bits (TensorFlow's `Uint64ToDouble`).
#[inline]
pub fn u64_to_f64(x0: u32, x1: u32) -> f64 {
    let man = (((x0 & 0xf_ffff) as u64) << 32) | x1 as u64;
    f64::from_bits((1023u64 << 52) | man) - 1.0
}

/// Two standard normal floats from two words (TensorFlow's `BoxMullerFloat`).
#[inline]
pub fn box_muller_f32(x0: u32, x1: u32) -> (f32, f32) {
    let u1 = u32_to_f32(x0).max(1.0e-7);
    // TensorFlow multiplies by the double M_PI before narrowing.
    let v1 = (2.0 * std::f64::consts::PI * u32_to_f32(x1) as f64) as f32;
    let u2 = (-2.0f32 * u1.ln()).sqrt();
    let (s, c) = v1.sin_cos();
    (s * u2, c * u2)
}

/// Two standard normal doubles from four words (TensorFlow's `BoxMullerDouble`).
#[inline]
pub fn box_muller_f64(x0: u32, x1: u32, x2: u32, x3: u32) -> (f64, f64) {
    let u1 = u64_to_f64(x0, x1).max(1.0e-7);
    let v1 = 2.0 * std::f64::consts::PI * u64_to_f64(x2, x3);
    let u2 = (-2.0 * u1.ln()).sqrt();
    let (s, c) = v1.sin_cos();
    (s * u2, c * u2)
}

/// Fills `out` group by group, each group from the next 128-bit block, as TensorFlow fills
/// fixed-sample distributions (uniform, normal, uniform int).
pub fn fill_blocks<T: Copy, const G: usize>(
    mut gen: Philox,
    out: &mut [T],
    mut dist: impl FnMut([u32; 4]) -> [T; G],
) {
    for chunk in out.chunks_mut(G) {
        let group = dist(gen.next_block());
        chunk.copy_from_slice(&group[..chunk.len()]);
    }
}

/// Fills `out` as TensorFlow fills distributions that reject samples (truncated normal): group
/// `i` starts from its own reserved counter range, 256 words per output.
pub fn fill_variable<T: Copy, const G: usize>(
    base: Philox,
    out: &mut [T],
    mut dist: impl FnMut(&mut Single<'_>) -> [T; G],
) {
    let skip_per_group = (G * 256 / 4) as u64;
    for (i, chunk) in out.chunks_mut(G).enumerate() {
        let mut gen = base;
        gen.skip(i as u64 * skip_per_group);
        let group = dist(&mut Single::new(&mut gen));
        chunk.copy_from_slice(&group[..chunk.len()]);
    }
}

/// Standard normal floats cut at two standard deviations (TensorFlow's
/// `TruncatedNormalDistribution<float>`).
pub fn truncated_f32(single: &mut Single<'_>) -> [f32; 4] {
    let mut out = [0.0f32; 4];
    let mut n = 0;
    loop {
        let (a, b) = box_muller_f32(single.next_u32(), single.next_u32());
        for v in [a, b] {
            if v.abs() < 2.0 {
                out[n] = v;
                n += 1;
                if n == 4 {
                    return out;
                }
            }
        }
    }
}

/// Standard normal doubles cut at two standard deviations.
pub fn truncated_f64(single: &mut Single<'_>) -> [f64; 2] {
    let mut out = [0.0f64; 2];
    let mut n = 0;
    loop {
        let (a, b) = box_muller_f64(
            single.next_u32(),
            single.next_u32(),
            single.next_u32(),
            single.next_u32(),
        );
        for v in [a, b] {
            if v.abs() < 2.0 {
                out[n] = v;
                n += 1;
                if n == 2 {
                    return out;
                }
            }
        }
    }
}

/// 64 bits that differ between calls and processes, for ops whose seeds are both 0.
pub fn fresh_seed() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    h.finish()
}

/// A generator shared by every run of one kernel: TensorFlow's `GuardedPhiloxRandom`. Each run
/// reserves a disjoint range of counters under the lock and draws outside it.
pub struct GuardedPhilox(Mutex<Philox>);

impl GuardedPhilox {
    /// Seeded with `seed` and `seed2`; both 0 means fresh nondeterministic seeds.
    pub fn new(seed: i64, seed2: i64) -> GuardedPhilox {
        let (s1, s2) = if seed == 0 && seed2 == 0 {
            (fresh_seed(), fresh_seed())
        } else {
            (seed as u64, seed2 as u64)
        };
        GuardedPhilox(Mutex::new(Philox::new(s1, s2)))
    }

    /// Seeded from a node's `seed` and `seed2` attrs.
    pub fn from_node(node: &Node) -> Result<GuardedPhilox> {
        Ok(GuardedPhilox::new(node.attr("seed")?, node.attr("seed2")?))
    }

    /// The generator as it is, then moved past `blocks` 128-bit samples.
    pub fn reserve_blocks(&self, blocks: u64) -> Philox {
        let mut g = self.0.lock();
        let local = *g;
        g.skip(blocks);
        local
    }

    /// Reserves enough blocks for `words` 32-bit samples.
    pub fn reserve_words(&self, words: u64) -> Philox {
        self.reserve_blocks(words.div_ceil(4))
    }

    /// Reserves `count * multiplier` blocks, TensorFlow's conservative reservation for kernels
    /// whose distributions may reject samples.
    pub fn reserve_outputs(&self, count: u64, multiplier: u64) -> Philox {
        self.reserve_blocks(count.saturating_mul(multiplier))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_uniforms_use_the_low_mantissa_bits() {
        assert_eq!(u32_to_f16(0), f16::ZERO);
        assert_eq!(u32_to_f16(0x3ff), f16::from_f32(1.0 - 2f32.powi(-10)));
        // Only the low 10 (float16) or 7 (bfloat16) bits count.
        assert_eq!(u32_to_f16(0xffff_fc01), f16::from_f32(2f32.powi(-10)));
        assert_eq!(u32_to_bf16(0x7f), bf16::from_f32(1.0 - 2f32.powi(-7)));
        assert_eq!(u32_to_bf16(0xffff_ff80), bf16::ZERO);
    }

    #[test]
    fn known_answer_vectors() {
        // Random123's published philox4x32-10 known-answer tests.
        let mut g = Philox::from_parts([0; 4], [0; 2]);
        assert_eq!(
            g.next_block(),
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
        );
        let mut g = Philox::from_parts([u32::MAX; 4], [u32::MAX; 2]);
        assert_eq!(
            g.next_block(),
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
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
    fn skip_matches_drawing() {
        let mut a = Philox::new(5, 9);
        let mut b = a;
        for _ in 0..7 {
            a.next_block();
        }
        b.skip(7);
        assert_eq!(a, b);
        let mut c = Philox::from_parts([u32::MAX, u32::MAX, 0, 0], [1, 2]);
        c.skip(1);
        assert_eq!(c.counter, [0, 0, 1, 0]);
        let mut d = Philox::from_parts([u32::MAX, 0, 0, 0], [1, 2]);
        d.skip(1 << 32);
        assert_eq!(d.counter, [u32::MAX, 1, 0, 0]);
    }

    #[test]
    fn conversions_stay_in_range() {
        assert_eq!(u32_to_f32(0), 0.0);
        assert!(u32_to_f32(u32::MAX) < 1.0);
        assert_eq!(u64_to_f64(0, 0), 0.0);
        assert!(u64_to_f64(u32::MAX, u32::MAX) < 1.0);
        let (a, b) = box_muller_f32(0, 0);
        assert!(a.is_finite() && b.is_finite());
    }

    #[test]
    fn guarded_reservations_are_disjoint() {
        let g = GuardedPhilox::new(1, 2);
        let a = g.reserve_words(5);
        let b = g.reserve_words(1);
        let mut a2 = a;
        a2.skip(2);
        assert_eq!(a2, b);
        let f1 = GuardedPhilox::new(0, 0).reserve_blocks(1);
        let f2 = GuardedPhilox::new(0, 0).reserve_blocks(1);
        assert_ne!(f1, f2);
    }
}
