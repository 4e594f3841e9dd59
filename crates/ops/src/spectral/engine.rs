//! The FFT passes under every spectral kernel: complex transforms along one axis of a
//! row-major buffer, and the real-to-complex / complex-to-real transforms of its innermost
//! axis, each planned once per call with `rustfft` and run over all the lines at once.

use rustfft::num_complex::Complex;
use rustfft::{FftDirection, FftNum, FftPlanner};

/// Transforms every line of `data` (row-major, `shape`) along `axis`, unscaled.
pub(crate) fn fft_axis<T: FftNum>(
    planner: &mut FftPlanner<T>,
    data: &mut [Complex<T>],
    shape: &[usize],
    axis: usize,
    direction: FftDirection,
) {
    let n = shape[axis];
    if n <= 1 || data.is_empty() {
        return;
    }
    let plan = planner.plan_fft(n, direction);
    let mut scratch = vec![Complex::new(T::zero(), T::zero()); plan.get_inplace_scratch_len()];
    let inner: usize = shape[axis + 1..].iter().product();
    if inner == 1 {
        plan.process_with_scratch(data, &mut scratch);
        return;
    }
    // Each [n, inner] block is turned into `inner` contiguous lines, transformed in one call,
    // and turned back.
    let block = n * inner;
    let mut lines = vec![Complex::new(T::zero(), T::zero()); block];
    for chunk in data.chunks_exact_mut(block) {
        for k in 0..n {
            for i in 0..inner {
                lines[i * n + k] = chunk[k * inner + i];
            }
        }
        plan.process_with_scratch(&mut lines, &mut scratch);
        for k in 0..n {
            for i in 0..inner {
                chunk[k * inner + i] = lines[i * n + k];
            }
        }
    }
}

/// The forward transform of each real row of `rows` (`len` values each, contiguous), keeping
/// the `len / 2 + 1` non-negative frequencies of each, appended to `out`.
pub(crate) fn rfft_rows<T: FftNum>(
    planner: &mut FftPlanner<T>,
    rows: &[T],
    len: usize,
    out: &mut Vec<Complex<T>>,
) {
    if len == 0 {
        return;
    }
    let plan = planner.plan_fft_forward(len);
    let mut scratch = vec![Complex::new(T::zero(), T::zero()); plan.get_inplace_scratch_len()];
    let mut buf: Vec<Complex<T>> = rows.iter().map(|&x| Complex::new(x, T::zero())).collect();
    plan.process_with_scratch(&mut buf, &mut scratch);
    for row in buf.chunks_exact(len) {
        out.extend_from_slice(&row[..len / 2 + 1]);
    }
}

/// The inverse transform, unscaled, of each Hermitian half-spectrum row of `rows` (`len / 2 +
/// 1` values each) as `len` real values: the missing half is the conjugate mirror, and the
/// imaginary parts of the zero and (for even `len`) Nyquist bins are ignored, as a
/// complex-to-real FFT does.
pub(crate) fn irfft_rows<T: FftNum>(
    planner: &mut FftPlanner<T>,
    rows: &[Complex<T>],
    len: usize,
    scale: T,
    out: &mut Vec<T>,
) {
    if len == 0 {
        return;
    }
    let half = len / 2 + 1;
    let plan = planner.plan_fft_inverse(len);
    let mut scratch = vec![Complex::new(T::zero(), T::zero()); plan.get_inplace_scratch_len()];
    let zero = Complex::new(T::zero(), T::zero());
    let mut buf = vec![zero; rows.len() / half * len];
    for (row, full) in rows.chunks_exact(half).zip(buf.chunks_exact_mut(len)) {
        full[..half].copy_from_slice(row);
        full[0].im = T::zero();
        if len % 2 == 0 {
            full[len / 2].im = T::zero();
        }
        for k in half..len {
            full[k] = full[len - k].conj();
        }
    }
    plan.process_with_scratch(&mut buf, &mut scratch);
    out.extend(buf.iter().map(|z| z.re * scale));
}

/// The input offset of each row (every index but the innermost) of `out_dims`, read from a
/// row-major tensor of `in_shape` (same rank, each dim at least `out_dims`'s).
pub(crate) fn row_offsets(out_dims: &[usize], in_shape: &[usize]) -> Vec<usize> {
    let rank = in_shape.len();
    let mut strides = vec![1usize; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * in_shape[i + 1];
    }
    let outer = &out_dims[..rank - 1];
    let rows: usize = outer.iter().product();
    let mut offsets = Vec::with_capacity(rows);
    let mut idx = vec![0usize; outer.len()];
    let mut off = 0usize;
    for _ in 0..rows {
        offsets.push(off);
        for ax in (0..outer.len()).rev() {
            idx[ax] += 1;
            off += strides[ax];
            if idx[ax] < outer[ax] {
                break;
            }
            off -= strides[ax] * outer[ax];
            idx[ax] = 0;
        }
    }
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_dft(x: &[Complex<f64>]) -> Vec<Complex<f64>> {
        let n = x.len();
        (0..n)
            .map(|k| {
                x.iter()
                    .enumerate()
                    .fold(Complex::new(0.0, 0.0), |acc, (j, &v)| {
                        let a = -2.0 * std::f64::consts::PI * (j * k) as f64 / n as f64;
                        acc + v * Complex::new(a.cos(), a.sin())
                    })
            })
            .collect()
    }

    #[test]
    fn outer_axis_matches_a_naive_dft() {
        // A [3, 2] buffer transformed along axis 0: each column is one line.
        let data: Vec<Complex<f64>> = (0..6)
            .map(|i| Complex::new(i as f64, 1.0 - i as f64))
            .collect();
        let mut got = data.clone();
        let mut p = FftPlanner::new();
        fft_axis(&mut p, &mut got, &[3, 2], 0, FftDirection::Forward);
        for c in 0..2 {
            let col: Vec<_> = (0..3).map(|r| data[r * 2 + c]).collect();
            for (r, want) in naive_dft(&col).into_iter().enumerate() {
                assert!((got[r * 2 + c] - want).norm() < 1e-12);
            }
        }
    }

    #[test]
    fn real_round_trip() {
        let x = [1.0f64, -2.0, 3.5, 0.25, 7.0];
        let mut p = FftPlanner::new();
        let mut spec = Vec::new();
        rfft_rows(&mut p, &x, 5, &mut spec);
        assert_eq!(spec.len(), 3);
        let mut back = Vec::new();
        irfft_rows(&mut p, &spec, 5, 1.0 / 5.0, &mut back);
        for (a, b) in x.iter().zip(&back) {
            assert!((a - b).abs() < 1e-12);
        }
        assert_eq!(row_offsets(&[2, 2, 3], &[3, 4, 5]), vec![0, 5, 20, 25]);
    }
}
