//! libstdc++'s `std::mt19937_64`, `std::uniform_int_distribution` and `std::shuffle`, step for
//! step, for the TensorFlow kernels whose output order depends on them: `RecordInput` shuffles
//! its file list each epoch with `std::shuffle` driven by an `mt19937_64`, and places records
//! in its buffer with the same engine. Any other shuffle would read the files in another order.

/// `std::mt19937_64`: the 64-bit Mersenne Twister with the standard's parameters.
pub(crate) struct Mt19937_64 {
    state: [u64; N],
    next: usize,
}

const N: usize = 312;
const M: usize = 156;
const UPPER: u64 = 0xFFFF_FFFF_8000_0000;
const LOWER: u64 = 0x7FFF_FFFF;

impl Mt19937_64 {
    /// The engine seeded as `std::mt19937_64(seed)` seeds it.
    pub(crate) fn new(seed: u64) -> Mt19937_64 {
        let mut state = [0u64; N];
        state[0] = seed;
        for i in 1..N {
            let p = state[i - 1];
            state[i] = 6_364_136_223_846_793_005u64
                .wrapping_mul(p ^ (p >> 62))
                .wrapping_add(i as u64);
        }
        Mt19937_64 { state, next: N }
    }

    fn twist(&mut self) {
        for k in 0..N {
            let y = (self.state[k] & UPPER) | (self.state[(k + 1) % N] & LOWER);
            let mut v = self.state[(k + M) % N] ^ (y >> 1);
            if y & 1 != 0 {
                v ^= 0xB502_6F5A_A966_19E9;
            }
            self.state[k] = v;
        }
        self.next = 0;
    }

    /// The next output, as `engine()` gives it.
    pub(crate) fn next_u64(&mut self) -> u64 {
        if self.next >= N {
            self.twist();
        }
        let mut x = self.state[self.next];
        self.next += 1;
        x ^= (x >> 29) & 0x5555_5555_5555_5555;
        x ^= (x << 17) & 0x71D6_7FFF_EDA6_0000;
        x ^= (x << 37) & 0xFFF7_EEE0_0000_0000;
        x ^ (x >> 43)
    }

    /// `std::uniform_int_distribution<uint64_t>{0, range - 1}(engine)` for `range >= 1`: the
    /// engine covers all 64 bits, so libstdc++ scales with a 128-bit product and rejects the
    /// few low products below `2^64 mod range` (Lemire's method).
    pub(crate) fn below(&mut self, range: u64) -> u64 {
        let mut product = u128::from(self.next_u64()) * u128::from(range);
        if (product as u64) < range {
            let threshold = range.wrapping_neg() % range;
            while (product as u64) < threshold {
                product = u128::from(self.next_u64()) * u128::from(range);
            }
        }
        (product >> 64) as u64
    }
}

/// `std::shuffle(v.begin(), v.end(), engine)` as libstdc++ runs it: when the engine's range
/// holds the square of the length, it draws one number for each two swaps.
pub(crate) fn shuffle<T>(v: &mut [T], g: &mut Mt19937_64) {
    let n = v.len() as u64;
    if n == 0 {
        return;
    }
    if u64::MAX / n >= n {
        let mut i = 1usize;
        if n % 2 == 0 {
            let j = g.below(2) as usize;
            v.swap(i, j);
            i += 1;
        }
        while i < v.len() {
            let range = i as u64 + 1;
            let x = g.below(range * (range + 1));
            v.swap(i, (x / (range + 1)) as usize);
            v.swap(i + 1, (x % (range + 1)) as usize);
            i += 2;
        }
        return;
    }
    for i in 1..v.len() {
        let j = g.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The C++ standard fixes the 10000th output of a default-seeded `mt19937_64`.
    #[test]
    fn the_10000th_output_of_the_default_seed_is_the_standards() {
        let mut g = Mt19937_64::new(5489);
        let mut x = 0;
        for _ in 0..10_000 {
            x = g.next_u64();
        }
        assert_eq!(x, 9_981_545_732_273_789_042);
    }

    #[test]
    fn below_stays_in_range_and_shuffle_permutes() {
        let mut g = Mt19937_64::new(7);
        for r in [1u64, 2, 3, 10, u64::MAX] {
            for _ in 0..100 {
                assert!(g.below(r) < r);
            }
        }
        for n in 0..20 {
            let mut v: Vec<usize> = (0..n).collect();
            shuffle(&mut v, &mut g);
            v.sort_unstable();
            assert_eq!(v, (0..n).collect::<Vec<_>>());
        }
    }
}
