//! Streaming (non-temporal) stores, for data written now and read only after it has left this
//! core's cache: decoded batches going into a queue.
//!
//! Why: a `decode_raw` → `cast` → scale batch of 128 MNIST images is 400 KB of fresh float32
//! that goes into a queue; a dequeue reads its rows back in random order, long after they were
//! written. Ordinary stores first read every line they write from memory (the line must be
//! owned before it is changed), which doubles the traffic; on the 2-vCPU bench machine that
//! read was most of the cost of those writes. Streaming stores write whole lines without reading them. The values are the
//! same: each is `f32::from(b)` then the scale, as the scalar loop computes it.
//!
//! Why not the rows a queue copies into its slots as well: each is written under the slot
//! chunk's lock, and releasing it waits for the row to reach memory either way; streaming them
//! (tried on mnist_bytes_t2) saved nothing.
//!
//! `unsafe` is allowed here only: a streaming store takes a raw pointer.
#![allow(unsafe_code)]

/// Decoded outputs of at least this many bytes are streamed: more than a core's cache is likely
/// to keep (half of a 2 MB L2 shared with the input and the queue's copies), so the next reader
/// finds them in memory either way.
pub(crate) const STREAM_MIN_BYTES: usize = 256 * 1024;

/// Appends `f32::from(b)`, then `scale`d, for every byte of `src` to `out`, with streaming stores
/// where the CPU has AVX2 (the plain loop elsewhere). `out` must have room for `src.len()` more
/// values.
pub(crate) fn extend_u8_as_f32(
    out: &mut Vec<f32>,
    src: &[u8],
    scale: Option<weir_graph::OutputScale>,
) {
    debug_assert!(out.capacity() - out.len() >= src.len());
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is present, and `out` has room for `src.len()` more values.
            unsafe { avx2::extend_u8_as_f32(out, src, scale) };
            return;
        }
    }
    out.extend(src.iter().map(|&b| apply(f32::from(b), scale)));
}

#[inline(always)]
fn apply(x: f32, scale: Option<weir_graph::OutputScale>) -> f32 {
    match scale {
        None => x,
        Some(s) => s.apply(x),
    }
}

/// Makes streaming stores visible to other threads before the output is handed on: they are
/// weakly ordered, so the release of a lock or an atomic alone does not order them.
pub(crate) fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SFENCE has no preconditions (SSE is in the x86-64 baseline).
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use weir_graph::OutputScale;

    use super::apply;

    /// # Safety
    /// AVX2 must be available and `out` must have room for `src.len()` more values.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn extend_u8_as_f32(
        out: &mut Vec<f32>,
        src: &[u8],
        scale: Option<OutputScale>,
    ) {
        let start = out.len();
        let n = src.len();
        let dst = out.as_mut_ptr().add(start);
        // Ordinary stores up to the first 32-byte boundary (streaming stores need it).
        let head = ((32 - (dst as usize & 31)) / 4 % 8).min(n);
        for (i, &b) in src[..head].iter().enumerate() {
            dst.add(i).write(apply(f32::from(b), scale));
        }
        let mut i = head;
        let (mul, c) = match scale {
            None => (true, 1.0),
            Some(OutputScale::Mul(c)) => (true, c),
            Some(OutputScale::Div(c)) => (false, c),
        };
        let cv = _mm256_set1_ps(c);
        while i + 8 <= n {
            let b = _mm_loadl_epi64(src.as_ptr().add(i) as *const __m128i);
            let x = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b));
            // x * 1.0 is x: the unscaled case needs no branch of its own.
            let y = if mul {
                _mm256_mul_ps(x, cv)
            } else {
                _mm256_div_ps(x, cv)
            };
            _mm256_stream_ps(dst.add(i), y);
            i += 8;
        }
        for (j, &b) in src.iter().enumerate().skip(i) {
            dst.add(j).write(apply(f32::from(b), scale));
        }
        out.set_len(start + n);
    }
}

#[cfg(test)]
mod tests {
    use weir_graph::OutputScale;

    use super::*;

    /// Every length and start alignment gives the plain loop's values, for every scale.
    #[test]
    fn streamed_values_are_the_plain_loops() {
        let src: Vec<u8> = (0..300u32).map(|i| (i * 37 % 256) as u8).collect();
        let scales = [
            None,
            Some(OutputScale::Mul(1.0 / 255.0)),
            Some(OutputScale::Div(255.0)),
            Some(OutputScale::Mul(-3.5)),
        ];
        for scale in scales {
            for prefix in 0..9 {
                for len in [0, 1, 7, 8, 9, 31, 64, 100, 300] {
                    let s = &src[..len];
                    let mut out = vec![9.0f32; prefix];
                    out.reserve(len);
                    extend_u8_as_f32(&mut out, s, scale);
                    fence();
                    let mut want = vec![9.0f32; prefix];
                    want.extend(s.iter().map(|&b| apply(f32::from(b), scale)));
                    assert_eq!(
                        out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                        want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                        "{scale:?}, prefix {prefix}, length {len}"
                    );
                }
            }
        }
    }
}
