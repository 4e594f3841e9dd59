//! Reductions in the order TensorFlow's CPU kernels (Eigen's tensor reductions) combine
//! values, for the types whose results depend on that order beyond a last-bit wobble: float16
//! sums, where each partial sum rounds to 11 bits, and the float32 sums behind bfloat16.
//!
//! TensorFlow reshapes a reduction to one of five layouts after merging dims
//! ([`Plan`]): all reduced; `[K, R]` (inner); `[R, K]` (outer); `[R, K, R2]`; `[A, R, K]`;
//! anything else is transposed to `[kept, reduced]` first. Eigen then
//! - reduces a contiguous lane with a tree (halving, split on packet boundaries, until
//!   `packet * leaf` values) whose leaves sum four packet accumulators, then single packets,
//!   then the leftover scalars, and adds the horizontal sum of the packet;
//! - reduces a strided column (kept inner dim) per output packet with four accumulators over
//!   the rows (when there are 16 or more), and output elements outside whole packets, or whose
//!   packet would cross a row, sequentially.

use weir_graph::{bf16, f16};

use super::arith_ext::{via, ComplexArith};
use super::binary::Arith;
use super::reduce_engine::Plan;

/// The widest packet handled (8 lanes: float, float16 and bfloat16 under AVX).
const MAX_PACKET: usize = 8;

/// One reduction as Eigen evaluates it for one element type.
pub(crate) struct EigenReducer<T, F: Fn(T, T) -> T, H: Fn(&[T]) -> T> {
    /// The reducer's initial value.
    pub identity: T,
    /// The combining operation, scalar and per packet lane.
    pub f: F,
    /// The horizontal reduction of one packet accumulator (`predux`).
    pub predux: H,
    /// Lanes per packet (at most 8).
    pub packet: usize,
    /// Eigen's `LeafSize<T>`: the tree stops splitting at `packet * leaf` values.
    pub leaf: usize,
}

impl<T: Copy, F: Fn(T, T) -> T, H: Fn(&[T]) -> T> EigenReducer<T, F, H> {
    /// Eigen's `InnerMostDimReducer`: the contiguous values `x[first..first + num]`, where
    /// `first` is their offset in the whole input (the tree splits at packet-aligned offsets).
    fn lane(&self, x: &[T], first: usize, num: usize) -> T {
        let p = self.packet;
        if num > p * self.leaf {
            let split = p * (first + num.div_ceil(2)).div_ceil(p);
            let left = (split - first).min(num);
            let mut acc = (self.f)(self.identity, self.lane(x, first, left));
            if left < num {
                acc = (self.f)(acc, self.lane(x, split, num - left));
            }
            return acc;
        }
        let mut acc0 = [self.identity; MAX_PACKET];
        let mut start = 0;
        if num >= 4 * p {
            let end = num / (4 * p) * (4 * p);
            let (mut acc1, mut acc2, mut acc3) = (acc0, acc0, acc0);
            for chunk in x[first..first + end].chunks_exact(4 * p) {
                for k in 0..p {
                    acc0[k] = (self.f)(acc0[k], chunk[k]);
                    acc1[k] = (self.f)(acc1[k], chunk[p + k]);
                    acc2[k] = (self.f)(acc2[k], chunk[2 * p + k]);
                    acc3[k] = (self.f)(acc3[k], chunk[3 * p + k]);
                }
            }
            for other in [acc1, acc2, acc3] {
                for k in 0..p {
                    acc0[k] = (self.f)(acc0[k], other[k]);
                }
            }
            start = end;
        }
        if start + p <= num {
            let end = num / p * p;
            for chunk in x[first + start..first + end].chunks_exact(p) {
                for k in 0..p {
                    acc0[k] = (self.f)(acc0[k], chunk[k]);
                }
            }
            start = end;
        }
        let rest = x[first + start..first + num]
            .iter()
            .fold(self.identity, |a, &v| (self.f)(a, v));
        (self.f)(rest, (self.predux)(&acc0[..p]))
    }

    /// The reduction of `x` (non-empty) laid out as `plan` says, in Eigen's order.
    pub fn run(&self, x: &[T], plan: &Plan) -> Vec<T> {
        let (dims, reduced) = plan.runs();
        if x.is_empty() || plan.out_len == 0 {
            return vec![self.identity; plan.out_len];
        }
        if plan.out_len == 1 {
            return vec![self.lane(x, 0, x.len())];
        }
        match (dims, reduced) {
            ([k, r], [false, true]) => (0..*k).map(|o| self.lane(x, o * r, *r)).collect(),
            ([r, k], [true, false]) => columns(x, 1, *r, *k, self.packet, self.identity, &self.f),
            ([a, r, k], [false, true, false]) => {
                columns(x, *a, *r, *k, self.packet, self.identity, &self.f)
            }
            // Neither the innermost dim reduced nor kept alone: Eigen's generic path, each
            // output sequentially, the last reduced dim outermost.
            ([r, k, r2], [true, false, true]) => (0..*k)
                .map(|o| {
                    let mut acc = self.identity;
                    for j2 in 0..*r2 {
                        for j in 0..*r {
                            acc = (self.f)(acc, x[(j * k + o) * r2 + j2]);
                        }
                    }
                    acc
                })
                .collect(),
            _ => {
                let (rows, len) = (plan.out_len, plan.count);
                let t = transpose_reduced_last(x, dims, reduced);
                (0..rows).map(|o| self.lane(&t, o * len, len)).collect()
            }
        }
    }
}

/// `[A, R, K]` reduced over `R` (`A` may be 1) as Eigen evaluates it with packets of
/// `packet` outputs: packets that stay within a row of `K` take the packet path
/// ([`column_packet`]), the other outputs are folded in order.
pub(crate) fn columns<T: Copy>(
    x: &[T],
    a: usize,
    r: usize,
    k: usize,
    packet: usize,
    identity: T,
    f: &impl Fn(T, T) -> T,
) -> Vec<T> {
    let out_len = a * k;
    let packed = out_len / packet * packet;
    let mut out = Vec::with_capacity(out_len);
    for o in 0..out_len {
        let first = (o / k) * r * k + o % k;
        let base = o - o % packet;
        let in_packet = o < packed && base % k + packet - 1 < k;
        out.push(if in_packet {
            column_packet(x, first, k, r, identity, f)
        } else {
            column_sequential(x, first, k, r, identity, f)
        });
    }
    out
}

/// One output of a kept-inner-dim reduction through Eigen's packet path
/// (`InnerMostDimPreserver`): `size` values `stride` apart from `first`, in four accumulators
/// when there are 16 or more.
fn column_packet<T: Copy>(
    x: &[T],
    first: usize,
    stride: usize,
    size: usize,
    identity: T,
    f: &impl Fn(T, T) -> T,
) -> T {
    if size < 16 {
        return column_sequential(x, first, stride, size, identity, f);
    }
    let unrolled = size / 4 * 4;
    let mut acc = [identity; 4];
    for j in 0..unrolled {
        acc[j % 4] = f(acc[j % 4], x[first + j * stride]);
    }
    let mut a = acc[0];
    for &b in &acc[1..] {
        a = f(a, b);
    }
    for j in unrolled..size {
        a = f(a, x[first + j * stride]);
    }
    a
}

/// One output through Eigen's scalar path: the values in order.
fn column_sequential<T: Copy>(
    x: &[T],
    first: usize,
    stride: usize,
    size: usize,
    identity: T,
    f: &impl Fn(T, T) -> T,
) -> T {
    (0..size).fold(identity, |a, j| f(a, x[first + j * stride]))
}

/// The reductions whose results depend on the order of combination.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Arithmetic {
    Sum,
    Mean,
    Prod,
}

/// float16 `Sum`, `Mean`, `Prod` as TensorFlow computes them: Eigen's reduction in half
/// (packets of 8, leaves of 200 packets; a packet's lanes are folded in float), and `Mean`
/// divides the half sum by the count converted to half (so a count above 65504 is infinite).
pub(crate) fn reduce_f16(op: Arithmetic, x: &[f16], plan: &Plan) -> Vec<f16> {
    let widened = |f: fn(f32, f32) -> f32| {
        move |lanes: &[f16]| {
            let mut w = [0f32; MAX_PACKET];
            for (w, l) in w.iter_mut().zip(lanes) {
                *w = l.to_f32();
            }
            f16::from_f32(tree(&w[..lanes.len()], f))
        }
    };
    let r = |identity: f16, f: fn(f16, f16) -> f16, g: fn(f32, f32) -> f32| EigenReducer {
        identity,
        f,
        predux: widened(g),
        packet: 8,
        leaf: 200,
    };
    match op {
        Arithmetic::Prod => r(f16::ONE, f16::mul, |a, b| a * b).run(x, plan),
        Arithmetic::Sum | Arithmetic::Mean => {
            let mut v = r(f16::ZERO, f16::add, |a, b| a + b).run(x, plan);
            if op == Arithmetic::Mean {
                let n = f16::from_f32(plan.count as f32);
                for s in &mut v {
                    *s = via(*s, n, |a, b| a / b);
                }
            }
            v
        }
    }
}

/// bfloat16 reductions as TensorFlow computes them: `Sum` and `Mean` in float (Eigen's float
/// reduction, then rounded; `Mean` divides in float), `Prod` in bfloat16 (leaves of 128
/// packets, lanes folded in float).
pub(crate) fn reduce_bf16(op: Arithmetic, x: &[bf16], plan: &Plan) -> Vec<bf16> {
    if op == Arithmetic::Prod {
        let r = EigenReducer {
            identity: bf16::ONE,
            f: bf16::mul,
            predux: |lanes: &[bf16]| {
                let mut w = [0f32; MAX_PACKET];
                for (w, l) in w.iter_mut().zip(lanes) {
                    *w = l.to_f32();
                }
                bf16::from_f32(tree(&w[..lanes.len()], |a, b| a * b))
            },
            packet: 8,
            leaf: 128,
        };
        return r.run(x, plan);
    }
    let wide: Vec<f32> = x.iter().map(|v| v.to_f32()).collect();
    let r = EigenReducer {
        identity: 0f32,
        f: |a: f32, b: f32| a + b,
        predux: |lanes: &[f32]| tree(lanes, |a, b| a + b),
        packet: 8,
        leaf: 1024,
    };
    let n = plan.count as f32;
    r.run(&wide, plan)
        .into_iter()
        .map(|s| bf16::from_f32(if op == Arithmetic::Mean { s / n } else { s }))
        .collect()
}

/// Complex reductions in Eigen's order (packets of [`ComplexArith::PACKET`], leaves of 1024
/// packets); `Mean` divides by the count.
pub(crate) fn reduce_complex<T: ComplexArith>(op: Arithmetic, x: &[T], plan: &Plan) -> Vec<T> {
    let r = |identity: T, f: fn(T, T) -> T| EigenReducer {
        identity,
        f,
        predux: move |lanes: &[T]| tree(lanes, f),
        packet: T::PACKET,
        leaf: 1024,
    };
    match op {
        Arithmetic::Prod => r(T::one(), T::mul).run(x, plan),
        Arithmetic::Sum => r(T::default(), T::add).run(x, plan),
        Arithmetic::Mean => {
            let mut v = r(T::default(), T::add).run(x, plan);
            for s in &mut v {
                *s = T::div_count(*s, plan.count);
            }
            v
        }
    }
}

/// The sum of one contiguous run as Eigen's `SumReducer` adds it in its own type (what
/// TensorFlow's kernels that reduce with Eigen directly get, such as `BiasAddGrad`'s NCHW
/// runs): float in packets of 8, double in packets of 4, leaves of 1024 packets.
pub(crate) fn lane_sum_f32(x: &[f32]) -> f32 {
    lane_sum(x, 0.0, |a, b| a + b, 8)
}

/// [`lane_sum_f32`] for double.
pub(crate) fn lane_sum_f64(x: &[f64]) -> f64 {
    lane_sum(x, 0.0, |a, b| a + b, 4)
}

/// [`lane_sum_f32`] for complex numbers (packets of [`ComplexArith::PACKET`]).
pub(crate) fn lane_sum_complex<T: ComplexArith>(x: &[T]) -> T {
    lane_sum(x, T::default(), T::add, T::PACKET)
}

/// [`lane_sum_f32`] for float16: sums rounded to half, packets of 8 whose lanes are folded in
/// float, leaves of 200 packets.
pub(crate) fn lane_sum_f16(x: &[f16]) -> f16 {
    half_lane_sum(x, f16::ZERO, |a, b| a + b, f16::to_f32, f16::from_f32, 200)
}

/// [`lane_sum_f16`] for bfloat16 (leaves of 128 packets).
pub(crate) fn lane_sum_bf16(x: &[bf16]) -> bf16 {
    half_lane_sum(
        x,
        bf16::ZERO,
        |a, b| a + b,
        bf16::to_f32,
        bf16::from_f32,
        128,
    )
}

fn lane_sum<T: Copy>(x: &[T], zero: T, f: fn(T, T) -> T, packet: usize) -> T {
    EigenReducer {
        identity: zero,
        f,
        predux: |lanes: &[T]| tree(lanes, f),
        packet,
        leaf: 1024,
    }
    .lane(x, 0, x.len())
}

fn half_lane_sum<T: Copy>(
    x: &[T],
    zero: T,
    f: fn(T, T) -> T,
    widen: fn(T) -> f32,
    round: fn(f32) -> T,
    leaf: usize,
) -> T {
    EigenReducer {
        identity: zero,
        f,
        predux: |lanes: &[T]| {
            let mut w = [0f32; MAX_PACKET];
            for (w, &l) in w.iter_mut().zip(lanes) {
                *w = widen(l);
            }
            round(tree(&w[..lanes.len()], |a, b| a + b))
        },
        packet: 8,
        leaf,
    }
    .lane(x, 0, x.len())
}

/// `x` with its kept dims first and its reduced dims last (TensorFlow's transpose before a
/// reduction it cannot express in three dims), each group in its original order.
fn transpose_reduced_last<T: Copy>(x: &[T], dims: &[usize], reduced: &[bool]) -> Vec<T> {
    let n = dims.len();
    let mut strides = vec![1usize; n];
    for j in (0..n.saturating_sub(1)).rev() {
        strides[j] = strides[j + 1] * dims[j + 1];
    }
    let order: Vec<usize> = (0..n)
        .filter(|&j| !reduced[j])
        .chain((0..n).filter(|&j| reduced[j]))
        .collect();
    let pdims: Vec<usize> = order.iter().map(|&j| dims[j]).collect();
    let pstrides: Vec<usize> = order.iter().map(|&j| strides[j]).collect();
    let mut out = Vec::with_capacity(x.len());
    let mut idx = vec![0usize; n];
    let mut off = 0usize;
    for _ in 0..x.len() {
        out.push(x[off]);
        let mut j = n;
        while j > 0 {
            j -= 1;
            idx[j] += 1;
            off += pstrides[j];
            if idx[j] < pdims[j] {
                break;
            }
            off -= pstrides[j] * pdims[j];
            idx[j] = 0;
        }
    }
    out
}

/// Eigen's horizontal packet reduction: halves folded onto each other until one lane is left.
pub(crate) fn tree<T: Copy>(lanes: &[T], f: impl Fn(T, T) -> T) -> T {
    let mut acc = [lanes[0]; MAX_PACKET];
    acc[..lanes.len()].copy_from_slice(lanes);
    let mut w = lanes.len();
    while w > 1 {
        w /= 2;
        for i in 0..w {
            acc[i] = f(acc[i], acc[i + w]);
        }
    }
    acc[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    type IntReducer = EigenReducer<i64, fn(i64, i64) -> i64, fn(&[i64]) -> i64>;

    fn sum_reducer() -> IntReducer {
        EigenReducer {
            identity: 0,
            f: |a, b| a + b,
            predux: |l| tree(l, |a, b| a + b),
            packet: 8,
            leaf: 2,
        }
    }

    #[test]
    fn every_layout_sums_every_value_once() {
        let r = sum_reducer();
        let shape = [3usize, 5, 7, 2];
        let n: usize = shape.iter().product();
        let x: Vec<i64> = (0..n as i64).map(|v| v * v % 97).collect();
        for mask in 0..16u32 {
            let red: Vec<bool> = (0..4).map(|i| mask & (1 << i) != 0).collect();
            let plan = Plan::new(&shape, &red);
            let naive = Plan::new(&shape, &red).run(
                &x,
                &super::super::reduce_engine::Fold {
                    identity: 0,
                    f: |a, b| a + b,
                },
            );
            assert_eq!(r.run(&x, &plan), naive, "mask {mask:04b}");
        }
    }

    #[test]
    fn tree_folds_halves() {
        // (1, 3) and (2, 4) first, then the two partial results.
        assert_eq!(tree(&[1, 2, 3, 4], |a, b| a * 10 + b), 154);
    }
}
