//! The reduction loops behind `Sum`, `Mean`, `Prod`, `Max`, `Min`, `Any` and `All`.
//!
//! The input's dims are simplified first, as TensorFlow's `ReductionHelper` does: size-1 dims
//! are dropped and neighbours that are both reduced (or both kept) merge. What is left
//! alternates between kept and reduced runs, and the innermost run decides the loop:
//! - innermost reduced: each output element folds one contiguous lane (`[K, R]`, or all);
//! - innermost kept: whole contiguous rows fold elementwise into a row of outputs (`[R, K]`),
//!   four rows per pass.
//!
//! Lanes fold with 16 independent accumulators so the loop vectorizes (floating-point sums are
//! not reassociated by the compiler on its own), and long lanes split in halves, which keeps
//! float sums about as accurate as numpy's pairwise summation.

/// One reduction: its identity and its (associative) combining function.
pub(crate) struct Fold<T, F: Fn(T, T) -> T> {
    pub identity: T,
    pub f: F,
}

const WIDTH: usize = 16;
const BLOCK: usize = 256;

impl<T: Copy, F: Fn(T, T) -> T> Fold<T, F> {
    /// The fold of a contiguous lane.
    pub fn lane(&self, xs: &[T]) -> T {
        if xs.len() > BLOCK {
            let mid = (xs.len() / 2).next_multiple_of(WIDTH).min(xs.len());
            return (self.f)(self.lane(&xs[..mid]), self.lane(&xs[mid..]));
        }
        let mut acc = [self.identity; WIDTH];
        let chunks = xs.chunks_exact(WIDTH);
        let rest = chunks.remainder();
        for c in chunks {
            for i in 0..WIDTH {
                acc[i] = (self.f)(acc[i], c[i]);
            }
        }
        // Combine pairwise: 16 -> 8 -> 4 -> 2 -> 1.
        let mut w = WIDTH;
        while w > 1 {
            w /= 2;
            for i in 0..w {
                acc[i] = (self.f)(acc[i], acc[i + w]);
            }
        }
        rest.iter().fold(acc[0], |a, &x| (self.f)(a, x))
    }

    /// Folds the rows of `block` (each `acc.len()` long) into `acc`, four rows per pass so the
    /// accumulator row is read and written a quarter as often.
    fn rows(&self, acc: &mut [T], block: &[T]) {
        let n = acc.len();
        let mut quads = block.chunks_exact(4 * n);
        for q in quads.by_ref() {
            let (a, rest) = q.split_at(n);
            let (b, rest) = rest.split_at(n);
            let (c, d) = rest.split_at(n);
            for ((((s, &a), &b), &c), &d) in acc.iter_mut().zip(a).zip(b).zip(c).zip(d) {
                *s = (self.f)(*s, (self.f)((self.f)(a, b), (self.f)(c, d)));
            }
        }
        for row in quads.remainder().chunks_exact(n) {
            for (a, &x) in acc.iter_mut().zip(row) {
                *a = (self.f)(*a, x);
            }
        }
    }
}

/// The simplified shape of a reduction: alternating kept/reduced runs, outermost first.
#[derive(Debug, PartialEq)]
pub(crate) struct Plan {
    dims: Vec<usize>,
    reduced: Vec<bool>,
    /// The number of output elements.
    pub out_len: usize,
    /// How many input elements fold into each output element.
    pub count: usize,
}

impl Plan {
    /// The plan for reducing the dims of `shape` flagged in `reduce`.
    pub fn new(shape: &[usize], reduce: &[bool]) -> Plan {
        let mut dims = Vec::new();
        let mut reduced: Vec<bool> = Vec::new();
        let (mut out_len, mut count) = (1usize, 1usize);
        for (&d, &r) in shape.iter().zip(reduce) {
            if r {
                count *= d;
            } else {
                out_len *= d;
            }
            if d == 1 {
                continue;
            }
            if reduced.last() == Some(&r) {
                *dims.last_mut().expect("dims and flags grow together") *= d;
            } else {
                dims.push(d);
                reduced.push(r);
            }
        }
        Plan {
            dims,
            reduced,
            out_len,
            count,
        }
    }

    /// The merged dims, outermost first, and whether each is reduced.
    pub fn runs(&self) -> (&[usize], &[bool]) {
        (&self.dims, &self.reduced)
    }

    /// Whether nothing is actually folded: every reduced dim has size 1, so the output is the
    /// input reshaped.
    pub fn is_identity(&self) -> bool {
        self.count == 1 && self.dims.iter().product::<usize>() == self.out_len
    }

    /// The reduction of `x` by `fold`, one value per output element.
    pub fn run<T: Copy, F: Fn(T, T) -> T>(&self, x: &[T], fold: &Fold<T, F>) -> Vec<T> {
        let mut out = vec![fold.identity; self.out_len];
        if x.is_empty() || self.out_len == 0 {
            return out;
        }
        let k = self.dims.len();
        if k == 0 {
            out[0] = x[0];
            return out;
        }
        let inner = self.dims[k - 1];
        if !self.reduced[k - 1] && k == 1 {
            out.copy_from_slice(x);
            return out;
        }
        // Output strides of the outer dims (0 for reduced ones).
        let mut out_stride = vec![0usize; k];
        let mut s = if self.reduced[k - 1] { 1 } else { inner };
        for j in (0..k - 1).rev() {
            if !self.reduced[j] {
                out_stride[j] = s;
                s *= self.dims[j];
            }
        }
        let outer = &self.dims[..k - 1];
        if self.reduced[k - 1] {
            // All-reduced, or lanes: one fold per contiguous lane.
            if k == 1 {
                out[0] = fold.lane(x);
                return out;
            }
            let mut o = 0usize;
            let mut idx = vec![0usize; k - 1];
            for lane in x.chunks_exact(inner) {
                out[o] = (fold.f)(out[o], fold.lane(lane));
                advance(&mut idx, outer, &out_stride, &mut o);
            }
        } else {
            // Kept and reduced runs alternate, so the run before the innermost is reduced: each
            // block of `rows` consecutive rows folds into the same row of outputs.
            let rows = self.dims[k - 2];
            let outer = &self.dims[..k - 2];
            let mut o = 0usize;
            let mut idx = vec![0usize; k - 2];
            for block in x.chunks_exact(rows * inner) {
                fold.rows(&mut out[o..o + inner], block);
                advance(&mut idx, outer, &out_stride[..k - 2], &mut o);
            }
        }
        out
    }
}

/// Steps the odometer `idx` over `dims`, keeping the output offset `o` in step.
fn advance(idx: &mut [usize], dims: &[usize], stride: &[usize], o: &mut usize) {
    let mut j = idx.len();
    while j > 0 {
        j -= 1;
        idx[j] += 1;
        *o += stride[j];
        if idx[j] < dims[j] {
            return;
        }
        *o -= stride[j] * dims[j];
        idx[j] = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(shape: &[usize], reduce: &[bool]) -> Vec<i64> {
        let n: usize = shape.iter().product();
        let x: Vec<i64> = (0..n as i64).collect();
        Plan::new(shape, reduce).run(
            &x,
            &Fold {
                identity: 0,
                f: |a, b| a + b,
            },
        )
    }

    #[test]
    fn every_layout_reduces_like_a_naive_loop() {
        // [2,3,4] with all 8 reduction patterns against a direct computation.
        let shape = [2usize, 3, 4];
        for mask in 0..8u32 {
            let reduce: Vec<bool> = (0..3).map(|i| mask & (1 << i) != 0).collect();
            let got = sum(&shape, &reduce);
            let out_dims: Vec<usize> = (0..3)
                .map(|i| if reduce[i] { 1 } else { shape[i] })
                .collect();
            let mut want = vec![0i64; out_dims.iter().product()];
            for a in 0..2 {
                for b in 0..3 {
                    for c in 0..4 {
                        let v = (a * 12 + b * 4 + c) as i64;
                        let o = [a, b, c];
                        let oi = (0..3).fold(0, |acc, i| {
                            acc * out_dims[i] + if reduce[i] { 0 } else { o[i] }
                        });
                        want[oi] += v;
                    }
                }
            }
            assert_eq!(got, want, "mask {mask:03b}");
        }
    }

    #[test]
    fn size_one_and_empty_dims() {
        assert_eq!(sum(&[1, 3, 1], &[true, false, true]), vec![0, 1, 2]);
        assert!(Plan::new(&[1, 3, 1], &[true, false, true]).is_identity());
        assert_eq!(sum(&[0, 3], &[true, false]), vec![0, 0, 0]);
        assert_eq!(sum(&[3, 0], &[false, true]), vec![0, 0, 0]);
        assert_eq!(sum(&[], &[]), vec![0]);
        assert_eq!(Plan::new(&[4, 0], &[true, false]).out_len, 0);
    }

    #[test]
    fn long_float_lanes_are_accurate() {
        let x = vec![0.1f32; 1 << 20];
        let fold = Fold {
            identity: 0.0f32,
            f: |a, b| a + b,
        };
        let s = Plan::new(&[1 << 20], &[true]).run(&x, &fold)[0];
        assert!((s - 104857.6).abs() < 0.02, "{s}");
    }
}
