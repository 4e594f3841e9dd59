//! Three byte planes interleaved into triples (CHW -> HWC of an RGB image) with byte shuffles:
//! sixteen pixels take nine `pshufb` and six `por`, where the element loop took about ten
//! instructions per pixel (a quarter of `cifar_t2`'s time).

use super::transpose::interleave;

/// Writes `block` as rows of three bytes, byte `k` of row `r` from `planes[k][r]`.
pub(super) fn interleave3(block: &mut [u8], planes: [&[u8]; 3]) {
    #[cfg(target_arch = "x86_64")]
    if let Some(simd) = pulp::x86::V3::try_new() {
        return simd.vectorize(x86::Interleave3 {
            simd,
            block,
            planes,
        });
    }
    interleave(block, planes)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::__m128i;
    use pulp::x86::V3;

    use super::interleave;

    /// `SHUFFLES[v][k]` moves plane `k`'s bytes of sixteen pixels to where they go in the
    /// `v`-th sixteen bytes of the output (0x80 clears a byte another plane fills).
    const SHUFFLES: [[[u8; 16]; 3]; 3] = {
        let mut m = [[[0x80u8; 16]; 3]; 3];
        let mut v = 0;
        while v < 3 {
            let mut j = 0;
            while j < 16 {
                let at = 16 * v + j;
                m[v][at % 3][j] = (at / 3) as u8;
                j += 1;
            }
            v += 1;
        }
        m
    };

    pub(super) struct Interleave3<'a> {
        pub(super) simd: V3,
        pub(super) block: &'a mut [u8],
        pub(super) planes: [&'a [u8]; 3],
    }

    impl pulp::NullaryFnOnce for Interleave3<'_> {
        type Output = ();

        #[inline(always)]
        fn call(self) {
            let Interleave3 {
                simd,
                block,
                planes,
            } = self;
            let rows = block.len() / 3;
            let sixteens = rows / 16;
            let masks: [[__m128i; 3]; 3] = SHUFFLES.map(|v| v.map(pulp::cast));
            let load = |k: usize, i: usize| -> __m128i {
                let b: [u8; 16] = planes[k][16 * i..16 * i + 16]
                    .try_into()
                    .expect("sixteen bytes");
                pulp::cast(b)
            };
            for (i, out) in block.chunks_exact_mut(48).take(sixteens).enumerate() {
                let p = [load(0, i), load(1, i), load(2, i)];
                for (v, o) in out.chunks_exact_mut(16).enumerate() {
                    let s = |k: usize| simd.ssse3._mm_shuffle_epi8(p[k], masks[v][k]);
                    let bytes: [u8; 16] = pulp::cast(
                        simd.sse2
                            ._mm_or_si128(simd.sse2._mm_or_si128(s(0), s(1)), s(2)),
                    );
                    o.copy_from_slice(&bytes);
                }
            }
            let done = 16 * sixteens;
            interleave(&mut block[3 * done..], planes.map(|p| &p[done..]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shuffles give what the element loop gives, for sixteens, their remainders and
    /// planes longer than the block.
    #[test]
    fn matches_the_element_loop() {
        for rows in [0usize, 1, 15, 16, 17, 32, 47, 100] {
            let planes: Vec<Vec<u8>> = (0..3)
                .map(|k| (0..rows + 5).map(|r| (r * 7 + k * 101) as u8).collect())
                .collect();
            let runs = [&planes[0][..], &planes[1][..], &planes[2][..]];
            let mut got = vec![0u8; 3 * rows];
            interleave3(&mut got, runs);
            let mut want = vec![0u8; 3 * rows];
            interleave(&mut want, runs);
            assert_eq!(got, want, "{rows} rows");
            for (r, px) in got.chunks_exact(3).enumerate() {
                assert_eq!(px, [planes[0][r], planes[1][r], planes[2][r]]);
            }
        }
    }
}
