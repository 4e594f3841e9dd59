//! Where a matrix's nonzeros are, a bit per element: the masks the sparse products walk.

/// Where a matrix's nonzeros are: bit `t` of word `w` of row `i` is set when element
/// `(i, 64 * w + t)` is nonzero. A bit per element is cheap to build (a compare per element, no
/// stores per nonzero) and a word is one tile of 64 rows of `b`, whose set bits the
/// product walks with `trailing_zeros`.
#[derive(Debug, PartialEq)]
pub(super) struct NonzeroMasks {
    pub(super) rows: usize,
    pub(super) words: usize,
    pub(super) bits: Vec<u64>,
}

impl NonzeroMasks {
    /// The masks of the rows of a row-major `[rows, cols]` matrix.
    #[inline(always)]
    pub(super) fn of_rows(a: &[f32], rows: usize, cols: usize) -> NonzeroMasks {
        #[cfg(target_arch = "x86_64")]
        if let Some(simd) = pulp::x86::V3::try_new() {
            return simd.vectorize(x86::RowMasks {
                simd,
                a,
                rows,
                cols,
            });
        }
        NonzeroMasks::of_rows_with(a, rows, cols, word_of)
    }

    /// The row masks with each word (of up to 64 elements) computed by `word`.
    #[inline(always)]
    fn of_rows_with(
        a: &[f32],
        rows: usize,
        cols: usize,
        word: impl Fn(&[f32]) -> u64,
    ) -> NonzeroMasks {
        let words = cols.div_ceil(64);
        let mut bits = vec![0u64; rows * words];
        if cols > 0 {
            for (row, out) in a.chunks_exact(cols).zip(bits.chunks_exact_mut(words)) {
                for (chunk, w) in row.chunks(64).zip(out.iter_mut()) {
                    *w = word(chunk);
                }
            }
        }
        NonzeroMasks { rows, words, bits }
    }

    /// How many nonzeros.
    pub(super) fn count(&self) -> usize {
        self.bits.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The masks of the columns of a row-major `[rows, cols]` matrix (the rows of its
    /// transpose). Each row of the matrix sets one bit in every column's word: a pass in
    /// memory order, into words laid out by column, then reordered to a column's words together.
    #[inline(always)]
    pub(super) fn of_columns(a: &[f32], rows: usize, cols: usize) -> NonzeroMasks {
        let words = rows.div_ceil(64);
        let mut by_word = vec![0u64; words * cols];
        if cols > 0 {
            for (i, row) in a.chunks_exact(cols).take(rows).enumerate() {
                let (w, t) = (i / 64, i % 64);
                let dst = &mut by_word[w * cols..(w + 1) * cols];
                for (d, &v) in dst.iter_mut().zip(row) {
                    *d |= u64::from(v != 0.0) << t;
                }
            }
        }
        let mut bits = vec![0u64; cols * words];
        for (w, word) in by_word.chunks_exact(cols.max(1)).enumerate() {
            for (c, &m) in word.iter().enumerate() {
                bits[c * words + w] = m;
            }
        }
        NonzeroMasks {
            rows: cols,
            words,
            bits,
        }
    }
}

/// The mask word of up to 64 elements, in plain Rust: the compiler turns a bit per element into
/// shifts of 64-bit lanes, where AVX2's compare and movemask give eight bits at once (with it,
/// the 128x784x128 product at 20% nonzeros went from 152-156 to 137-139 us).
#[inline(always)]
fn word_of(chunk: &[f32]) -> u64 {
    chunk
        .iter()
        .enumerate()
        .fold(0u64, |w, (t, &v)| w | u64::from(v != 0.0) << t)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::{__m256, _CMP_NEQ_UQ};
    use pulp::x86::V3;

    use super::{word_of, NonzeroMasks};

    /// [`NonzeroMasks::of_rows`] with AVX2: eight compares and a movemask per byte of a mask.
    pub(super) struct RowMasks<'a> {
        pub(super) simd: V3,
        pub(super) a: &'a [f32],
        pub(super) rows: usize,
        pub(super) cols: usize,
    }

    impl pulp::NullaryFnOnce for RowMasks<'_> {
        type Output = NonzeroMasks;

        #[inline(always)]
        fn call(self) -> NonzeroMasks {
            let RowMasks {
                simd,
                a,
                rows,
                cols,
            } = self;
            let avx = simd.avx;
            let zero = avx._mm256_setzero_ps();
            NonzeroMasks::of_rows_with(a, rows, cols, |chunk| {
                let eights = chunk.chunks_exact(8);
                let tail = eights.remainder();
                let mut w = 0u64;
                for (k, eight) in eights.enumerate() {
                    let raw: [f32; 8] = eight.try_into().expect("eight floats");
                    let v: __m256 = pulp::cast(raw);
                    // Not-equal, unordered: a NaN counts as nonzero, as `v != 0.0` does.
                    let ne = avx._mm256_cmp_ps::<_CMP_NEQ_UQ>(v, zero);
                    w |= (avx._mm256_movemask_ps(ne) as u32 as u64) << (8 * k);
                }
                if !tail.is_empty() {
                    // Fewer than eight left, so the shift is below 64.
                    w |= word_of(tail) << (chunk.len() - tail.len());
                }
                w
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_masks_match_the_portable_loop() {
        // Widths with and without a partial last word and a partial last eight; NaN, negative
        // zero and subnormals among the values.
        for cols in [1, 7, 8, 63, 64, 65, 100, 784] {
            let rows = 5;
            let v: Vec<f32> = (0..rows * cols)
                .map(|i| match ((i * 2_654_435_761usize) >> 5) % 7 {
                    0 => f32::NAN,
                    1 => -0.0,
                    2 => f32::MIN_POSITIVE / 4.0,
                    3 => 1.5,
                    _ => 0.0,
                })
                .collect();
            assert_eq!(
                NonzeroMasks::of_rows(&v, rows, cols),
                NonzeroMasks::of_rows_with(&v, rows, cols, word_of),
                "cols={cols}"
            );
        }
    }

    #[test]
    fn masks_and_their_transpose_mark_the_nonzeros() {
        // [[0, 2, 0], [-0, 5, 6]]: a negative zero is a zero.
        let a = [0.0f32, 2.0, 0.0, -0.0, 5.0, 6.0];
        let masks = NonzeroMasks::of_rows(&a, 2, 3);
        assert_eq!(masks.bits, vec![0b010, 0b110]);
        assert_eq!(masks.count(), 3);
        let t = NonzeroMasks::of_columns(&a, 2, 3);
        assert_eq!((t.rows, t.words), (3, 1));
        assert_eq!(t.bits, vec![0b00, 0b11, 0b10]);
        // Rows longer than a word.
        let mut wide = vec![0.0f32; 2 * 130];
        wide[129] = 1.0;
        wide[130 + 64] = 1.0;
        let masks = NonzeroMasks::of_rows(&wide, 2, 130);
        assert_eq!(masks.bits, vec![0, 0, 0b10, 0, 1, 0]);
        let t = NonzeroMasks::of_columns(&wide, 2, 130);
        assert_eq!(t.bits[64], 0b10);
        assert_eq!(t.bits[129], 0b01);
        assert_eq!(t.count(), 2);
        assert!(NonzeroMasks::of_rows(&[], 3, 0).bits.is_empty());
        assert!(NonzeroMasks::of_columns(&[], 3, 0).bits.is_empty());
        // Columns longer than a word: 130 rows of one column, nonzero at rows 1 and 129.
        let mut tall = vec![0.0f32; 130];
        tall[1] = 3.0;
        tall[129] = f32::NAN;
        let t = NonzeroMasks::of_columns(&tall, 130, 1);
        assert_eq!((t.rows, t.words), (1, 3));
        assert_eq!(t.bits, vec![0b10, 0, 0b10]);
    }
}
