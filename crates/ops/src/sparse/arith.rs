//! Element arithmetic shared by the sparse math kernels, with TensorFlow's CPU semantics:
//! integers wrap (TensorFlow's kernels do not check overflow), float sums follow Eigen's
//! vectorized order so results match TensorFlow bit for bit, and max propagates NaN the way
//! Eigen's `maximum()` does.

use weir_graph::{DType, Error, Result, Tensor, TensorType};

/// A real number type a sparse math kernel computes in.
pub(crate) trait Real: TensorType + Copy + PartialOrd + Default {
    /// Lanes of one 256-bit AVX packet, which TensorFlow's x86-64 build reduces with.
    const LANES: usize;
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    /// Truncating division for integers (the caller rules out zero divisors).
    fn div(self, o: Self) -> Self;
    /// `thresh <= std::abs(self)` as C++ computes it: narrow integers are promoted to `int`
    /// first (so |-128i8| is 128), `int32`/`int64` minima stay negative.
    fn within(self, thresh: Self) -> bool;
    fn is_zero(self) -> bool;
    /// The start of a max reduction: -inf for floats, the minimum for integers.
    fn lowest() -> Self;
}

macro_rules! float_real {
    ($t:ty, $lanes:expr) => {
        impl Real for $t {
            const LANES: usize = $lanes;
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn mul(self, o: Self) -> Self {
                self * o
            }
            fn div(self, o: Self) -> Self {
                self / o
            }
            fn within(self, thresh: Self) -> bool {
                thresh <= self.abs()
            }
            fn is_zero(self) -> bool {
                self == 0.0
            }
            fn lowest() -> Self {
                <$t>::NEG_INFINITY
            }
        }
    };
}

macro_rules! int_real {
    ($($t:ty => $wide:ident),*) => {$(
        impl Real for $t {
            const LANES: usize = 1;
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            fn div(self, o: Self) -> Self {
                if o == 0 { 0 } else { self.wrapping_div(o) }
            }
            #[allow(unused_comparisons, clippy::unnecessary_cast)]
            fn within(self, thresh: Self) -> bool {
                let wide = self as $wide;
                let abs = if wide < 0 { (0 as $wide).wrapping_sub(wide) } else { wide };
                (thresh as $wide) <= abs
            }
            fn is_zero(self) -> bool {
                self == 0
            }
            fn lowest() -> Self {
                <$t>::MIN
            }
        }
    )*};
}

float_real!(f32, 8);
float_real!(f64, 4);
int_real!(i8 => i32, i16 => i32, i32 => i32, i64 => i64, u8 => i32, u16 => i32, u32 => i64, u64 => i128);

/// `v.sum()` as Eigen computes it on TensorFlow's AVX build (found by matching its results):
/// with at least four packets of `LANES` values, four packet accumulators take turns over
/// the longest run of whole groups of four packets and are then added in order; each further
/// whole packet is added lane by lane; the leftover values are summed one by one from zero;
/// the result is that sum plus the packet's lanes reduced pairwise (halves added, then halves
/// of that).
pub(crate) fn eigen_sum<T: Real>(v: &[T]) -> T {
    let w = T::LANES;
    if w == 1 || v.len() < w {
        return v.iter().fold(T::default(), |a, &x| a.add(x));
    }
    let add_into = |acc: &mut [T], chunk: &[T]| {
        for (l, &x) in acc.iter_mut().zip(chunk) {
            *l = l.add(x);
        }
    };
    let mut lanes = vec![T::default(); w];
    let mut start = 0;
    if v.len() >= 4 * w {
        let quads = v.len() / (4 * w) * (4 * w);
        let mut accs = vec![vec![T::default(); w]; 4];
        for quad in v[..quads].chunks_exact(4 * w) {
            for (acc, chunk) in accs.iter_mut().zip(quad.chunks_exact(w)) {
                add_into(acc, chunk);
            }
        }
        for acc in &accs {
            add_into(&mut lanes, acc);
        }
        start = quads;
    }
    let whole = v.len() / w * w;
    for chunk in v[start..whole].chunks_exact(w) {
        add_into(&mut lanes, chunk);
    }
    let rest = v[whole..].iter().fold(T::default(), |a, &x| a.add(x));
    let mut n = w;
    while n > 1 {
        n /= 2;
        for i in 0..n {
            lanes[i] = lanes[i].add(lanes[i + n]);
        }
    }
    rest.add(lanes[0])
}

/// `v.maximum()` as Eigen computes it for short vectors: from [`Real::lowest`], each value
/// replaces the running max unless it is smaller (so a NaN replaces it, and a later number
/// replaces the NaN).
pub(crate) fn eigen_max<T: Real>(v: &[T]) -> T {
    v.iter()
        .fold(T::lowest(), |acc, &t| if t < acc { acc } else { t })
}

/// An int32 or int64 tensor's elements as i64.
pub(crate) fn index_values(t: &Tensor) -> Result<Vec<i64>> {
    match t.dtype() {
        DType::I32 => Ok(t.as_slice::<i32>()?.iter().map(|&x| x as i64).collect()),
        DType::I64 => t.to_vec::<i64>(),
        dt => Err(Error::invalid_argument(format!(
            "Expected int32 or int64 indices, got {dt}"
        ))),
    }
}

/// TensorFlow's `TensorShape::BuildTensorShape` check of a shape vector: every dimension
/// non-negative, and the element count representable.
pub(crate) fn build_shape(dims: &[i64]) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(dims.len());
    let mut total: i64 = 1;
    for &d in dims {
        if d < 0 {
            return Err(Error::invalid_argument(format!(
                "Expected shape dimensions to be non-negative, got {d}"
            )));
        }
        total = total.checked_mul(d).ok_or_else(|| {
            Error::invalid_argument(format!(
                "Encountered overflow when multiplying {total} with {d}, result: -1"
            ))
        })?;
        out.push(d as usize);
    }
    Ok(out)
}

/// The largest dense output a sparse math kernel allocates (16 GiB): a bigger dense shape,
/// which comes from an untrusted `dense_shape`, is ResourceExhausted in TensorFlow's words
/// instead of an abort.
const MAX_OUTPUT_BYTES: usize = 1 << 34;

/// `n` copies of `fill` for an output of `shape`, refusing sizes the allocator should not try.
pub(crate) fn alloc_output<T: Clone>(shape: &[usize], fill: T, dtype: DType) -> Result<Vec<T>> {
    let n = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|&n| n.saturating_mul(std::mem::size_of::<T>().max(1)) <= MAX_OUTPUT_BYTES);
    let mut v = Vec::new();
    match n {
        Some(n) if v.try_reserve_exact(n).is_ok() => {
            v.resize(n, fill);
            Ok(v)
        }
        _ => Err(Error::resource_exhausted(format!(
            "OOM when allocating tensor with shape{} and type {} on \
             /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu",
            weir_graph::format_dims(shape),
            dtype.name()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_sums_are_sequential_and_long_ones_use_lanes() {
        assert_eq!(eigen_sum(&[1.0f32, 2.0, 3.0]), 6.0);
        let v: Vec<f32> = (0..45).map(|i| 1.0 / (i as f32 + 1.0)).collect();
        // Four accumulators over the first 32, added in order, then the fifth packet.
        let mut acc = [[0.0f32; 8]; 4];
        for (a, c) in acc.iter_mut().zip(v[..32].chunks(8)) {
            for (l, x) in a.iter_mut().zip(c) {
                *l += x;
            }
        }
        let mut lanes = [0.0f32; 8];
        for a in acc
            .iter()
            .chain([&<[f32; 8]>::try_from(&v[32..40]).unwrap()])
        {
            for (l, x) in lanes.iter_mut().zip(a) {
                *l += x;
            }
        }
        let rest: f32 = v[40..].iter().fold(0.0, |a, x| a + x);
        let b: Vec<f32> = (0..4).map(|i| lanes[i] + lanes[i + 4]).collect();
        let want = rest + ((b[0] + b[2]) + (b[1] + b[3]));
        assert_eq!(eigen_sum(&v).to_bits(), want.to_bits());
        assert_eq!(eigen_sum::<i32>(&[i32::MAX, 1]), i32::MIN);
    }

    #[test]
    fn max_follows_eigens_nan_handling() {
        assert!(eigen_max(&[2.0f32, f32::NAN]).is_nan());
        assert_eq!(eigen_max(&[f32::NAN, 1.0]), 1.0);
        assert_eq!(eigen_max(&[f32::NEG_INFINITY]), f32::NEG_INFINITY);
        assert_eq!(eigen_max::<i8>(&[-128]), -128);
    }

    #[test]
    fn thresholds_compare_like_cpp() {
        assert!((-128i8).within(0));
        assert!(!i32::MIN.within(0));
        assert!(!f32::NAN.within(0.0));
        assert!((-2.0f64).within(2.0));
    }

    #[test]
    fn shapes_are_checked() {
        assert!(build_shape(&[-1]).is_err());
        assert!(build_shape(&[i64::MAX, 2]).is_err());
        assert_eq!(build_shape(&[2, 0]).unwrap(), vec![2, 0]);
    }
}
