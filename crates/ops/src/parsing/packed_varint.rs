//! Packed varint lists of small values (pixels, labels, ids: one or two bytes each) decoded
//! sixteen bytes at a time with a byte shuffle, on x86-64 CPUs with AVX2 (found at run time
//! through `pulp`, so the build stays portable and the workspace free of `unsafe`).
//!
//! A scalar loop pays a mispredicted branch for almost every two-byte value among one-byte
//! ones (MNIST-like int64 pixels: about one in ten); here the continuation bits of eight bytes
//! index a table of shuffles that lay out up to eight varints as 16-bit lanes at once.

/// An element type packed varints decode into: int64 as stored, or float32 for a parse whose
/// output only a `Cast` to float reads (the plan then has the parse convert each value as it
/// decodes it, exactly as the Cast would: `v as f32`).
pub(crate) trait VarintElem: Copy + From<u8> {
    fn from_i64(v: i64) -> Self;
    /// Stores the eight 16-bit lanes of `v` as eight values in `out` (eight long).
    #[cfg(target_arch = "x86_64")]
    fn store8(simd: pulp::x86::V3, v: core::arch::x86_64::__m128i, out: &mut [Self]);
}

impl VarintElem for i64 {
    #[inline(always)]
    fn from_i64(v: i64) -> i64 {
        v
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn store8(simd: pulp::x86::V3, v: core::arch::x86_64::__m128i, out: &mut [i64]) {
        let (sse2, avx2) = (simd.sse2, simd.avx2);
        let lo: [i64; 4] = pulp::cast(avx2._mm256_cvtepu16_epi64(v));
        let hi: [i64; 4] = pulp::cast(avx2._mm256_cvtepu16_epi64(sse2._mm_srli_si128::<8>(v)));
        out[..4].copy_from_slice(&lo);
        out[4..8].copy_from_slice(&hi);
    }
}

impl VarintElem for f32 {
    #[inline(always)]
    fn from_i64(v: i64) -> f32 {
        v as f32
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn store8(simd: pulp::x86::V3, v: core::arch::x86_64::__m128i, out: &mut [f32]) {
        // Values below 2^14 convert exactly.
        let f: [f32; 8] = pulp::cast(
            simd.avx
                ._mm256_cvtepi32_ps(simd.avx2._mm256_cvtepu16_epi32(v)),
        );
        out[..8].copy_from_slice(&f);
    }
}

/// Decodes the leading varints of `bytes` into `out` while each has at most two bytes and `out`
/// has room for eight more values; returns (bytes consumed, values written). The caller decodes
/// the rest (a longer varint, the last few bytes) with its scalar loop. Slots of `out` past the
/// values written may have been overwritten.
pub(crate) fn decode_short_varints<T: VarintElem>(bytes: &[u8], out: &mut [T]) -> (usize, usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(simd) = pulp::x86::V3::try_new() {
        return simd.vectorize(x86::Decode { simd, bytes, out });
    }
    let _ = (bytes, out);
    (0, 0)
}

/// What the continuation bits of eight bytes (starting at a varint boundary) say.
#[derive(Clone, Copy)]
struct Step {
    /// For 16-bit lane k: the byte indices of varint k's low and high byte (0x80: zero).
    shuffle: [u8; 16],
    /// Varints that start in the eight bytes.
    count: u8,
    /// Bytes they take: 8, or 9 when the last one continues into byte 8; 0 when a varint
    /// has three bytes or more (the table does not apply).
    consumed: u8,
}

const fn step(mask: u8) -> Step {
    let mut s = Step {
        shuffle: [0x80; 16],
        count: 0,
        consumed: 0,
    };
    let mut p = 0usize;
    while p < 8 {
        let k = s.count as usize;
        s.shuffle[2 * k] = p as u8;
        if mask & (1 << p) != 0 {
            if p + 1 < 8 && mask & (1 << (p + 1)) != 0 {
                // Two continuation bytes in a row: a varint of three bytes or more.
                s.consumed = 0;
                return s;
            }
            s.shuffle[2 * k + 1] = (p + 1) as u8;
            p += 2;
        } else {
            p += 1;
        }
        s.count += 1;
    }
    s.consumed = p as u8;
    s
}

static STEPS: [Step; 256] = {
    let mut t = [Step {
        shuffle: [0; 16],
        count: 0,
        consumed: 0,
    }; 256];
    let mut m = 0;
    while m < 256 {
        t[m] = step(m as u8);
        m += 1;
    }
    t
};

/// Whether every varint starting in the eight bytes whose continuation bits are the low
/// bits of `mask` (bit 8: the byte after them) has at most two bytes.
fn short_varints(mask: u32) -> bool {
    mask & (mask >> 1) & 0xff == 0
}

/// (bytes, values) of the window of eight bytes whose continuation bits are the low bits of
/// `mask`, when [`short_varints`]: a continuation bit in bytes 0..7 joins the next byte to its
/// varint, and one in byte 7 carries the last varint into byte 8.
fn window(mask: u32) -> (usize, usize) {
    (
        8 + ((mask >> 7) & 1) as usize,
        8 - (mask & 0x7f).count_ones() as usize,
    )
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::__m128i;
    use pulp::x86::V3;

    use super::{short_varints, window, VarintElem, STEPS};

    pub(super) struct Decode<'a, T> {
        pub(super) simd: V3,
        pub(super) bytes: &'a [u8],
        pub(super) out: &'a mut [T],
    }

    impl<T: VarintElem> pulp::NullaryFnOnce for Decode<'_, T> {
        type Output = (usize, usize);

        #[inline(always)]
        fn call(self) -> (usize, usize) {
            let Decode { simd, bytes, out } = self;
            let (sse2, ssse3, avx2) = (simd.sse2, simd.ssse3, simd.avx2);
            let low7 = sse2._mm_set1_epi16(0x007f);
            let high7 = sse2._mm_set1_epi16(0x7f00);
            // Lays out the varints that start in the first eight bytes of `block` (whose
            // continuation bits are `mask`) as eight values at out[n..n + 8].
            let emit = |out: &mut [T], n: usize, block: __m128i, mask: u32| {
                let shuffle = STEPS[(mask & 0xff) as usize].shuffle;
                let pairs = ssse3._mm_shuffle_epi8(block, pulp::cast(shuffle));
                // Lane = low byte | high byte << 8; value = (low & 0x7f) | high << 7.
                let v = sse2._mm_or_si128(
                    sse2._mm_and_si128(pairs, low7),
                    sse2._mm_srli_epi16::<1>(sse2._mm_and_si128(pairs, high7)),
                );
                T::store8(simd, v, &mut out[n..n + 8]);
            };
            let load = |at: &[u8]| -> __m128i {
                let raw: [u8; 16] = at[..16].try_into().expect("sixteen bytes");
                pulp::cast(raw)
            };
            let mask32 = |at: &[u8]| -> u64 {
                let raw: [u8; 32] = at[..32].try_into().expect("thirty-two bytes");
                avx2._mm256_movemask_epi8(pulp::cast(raw)) as u32 as u64
            };
            let (mut i, mut n) = (0usize, 0usize);
            while out.len() - n >= 8 {
                let Some(chunk) = bytes.get(i..i + 16) else {
                    break;
                };
                // Up to four windows per round, as the bytes and the room allow. Where the next
                // window starts follows from the continuation bits alone (8 bytes, or 9 when
                // byte 7 continues), so the loop's chain is loads and movemasks, not also table
                // lookups, and the shuffles of successive windows overlap.
                let (bits, windows) = if bytes.len() - i >= 64 && out.len() - n >= 32 {
                    (mask32(&bytes[i..]) | mask32(&bytes[i + 32..]) << 32, 4)
                } else if bytes.len() - i >= 32 && out.len() - n >= 16 {
                    (mask32(&bytes[i..]), 2)
                } else {
                    (sse2._mm_movemask_epi8(load(chunk)) as u32 as u64, 1)
                };
                let mut offset = 0usize;
                for _ in 0..windows {
                    // At most 27 bytes in after three windows: the nine bits fit in `bits`.
                    let mask = (bits >> offset) as u32;
                    if !short_varints(mask) {
                        break;
                    }
                    emit(out, n, load(&bytes[i + offset..]), mask);
                    let (used, made) = window(mask);
                    n += made;
                    offset += used;
                }
                if offset == 0 {
                    break;
                }
                i += offset;
            }
            (i, n)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(values: &[u64]) -> Vec<u8> {
        let mut b = Vec::new();
        for &v in values {
            let mut v = v;
            while v >= 0x80 {
                b.push((v as u8) | 0x80);
                v >>= 7;
            }
            b.push(v as u8);
        }
        b
    }

    /// What the fast path decodes must be a prefix of the values, with its exact byte length,
    /// into int64 and into float32 alike.
    fn roundtrip(values: &[u64], room: usize) {
        let bytes = encode(values);
        let mut out = vec![-1i64; room];
        let (used, made) = decode_short_varints(&bytes, &mut out);
        assert!(made <= room && used <= bytes.len());
        assert_eq!(
            &out[..made],
            &values[..made].iter().map(|&v| v as i64).collect::<Vec<_>>()[..]
        );
        let mut floats = vec![-1f32; room];
        assert_eq!(decode_short_varints(&bytes, &mut floats), (used, made));
        assert_eq!(
            &floats[..made],
            &values[..made]
                .iter()
                .map(|&v| v as i64 as f32)
                .collect::<Vec<_>>()[..]
        );
        assert_eq!(
            encode(&values[..made]).len(),
            used,
            "consumed bytes of {made} values"
        );
    }

    #[test]
    fn table_lays_out_one_and_two_byte_varints() {
        let s = step(0);
        assert_eq!((s.count, s.consumed), (8, 8));
        let s = step(0b1000_0001);
        assert_eq!((s.count, s.consumed), (7, 9));
        assert_eq!(&s.shuffle[..4], &[0, 1, 2, 0x80]);
        assert_eq!(step(0b0000_0110).consumed, 0);
    }

    #[test]
    fn the_window_arithmetic_agrees_with_the_table() {
        for m in 0u32..512 {
            let s = &STEPS[(m & 0xff) as usize];
            let table_says_short = s.consumed != 0 && !(s.consumed == 9 && m & 0x100 != 0);
            assert_eq!(short_varints(m), table_says_short, "mask {m:#b}");
            if table_says_short {
                assert_eq!(
                    window(m),
                    (s.consumed as usize, s.count as usize),
                    "mask {m:#b}"
                );
            }
        }
    }

    #[test]
    fn agrees_with_the_encoding_on_mixed_lists() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for len in [0usize, 1, 7, 8, 15, 16, 17, 40, 784] {
            for _ in 0..200 {
                let values: Vec<u64> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        match x % 20 {
                            0..=13 => 0,
                            14..=16 => x >> 58,           // one byte
                            17 | 18 => (x >> 40) % 16384, // one or two bytes
                            _ => x >> (x % 64),           // any length
                        }
                    })
                    .collect();
                roundtrip(&values, len);
                roundtrip(&values, len + 8);
                roundtrip(&values, len / 2);
            }
        }
    }

    #[test]
    fn decodes_whole_blocks_where_the_cpu_can() {
        let values: Vec<u64> = (0..100).map(|i| (i * 37) % 300).collect();
        let bytes = encode(&values);
        let mut out = vec![0i64; 100];
        let (used, made) = decode_short_varints(&bytes, &mut out);
        #[cfg(target_arch = "x86_64")]
        if pulp::x86::V3::is_available() {
            // Only the last few values (under 16 bytes, or under 8 slots) are left.
            assert!(
                made >= 80 && bytes.len() - used < 24,
                "{made} values, {used} bytes"
            );
        }
        let want: Vec<i64> = values[..made].iter().map(|&v| v as i64).collect();
        assert_eq!(&out[..made], &want[..]);
    }

    #[test]
    fn stops_before_a_long_varint() {
        let mut values = vec![5u64; 20];
        values[3] = 1 << 20;
        let bytes = encode(&values);
        let mut out = vec![0i64; 20];
        let (used, made) = decode_short_varints(&bytes, &mut out);
        assert!(made <= 3, "{made}");
        assert_eq!(used, made);
    }
}
