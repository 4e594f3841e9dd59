//! The kernels of `FractionalMaxPool` and `FractionalAvgPool` and the pooling sequences they
//! draw, as TensorFlow's `fractional_max_pool_op.cc`, `fractional_avg_pool_op.cc` and
//! `fractional_pool_common.cc` compute them (the backward kernels are in
//! `fractional_pool_grad.rs`): each run seeds a fresh Philox generator with the kernel's (seed, seed2), draws
//! the row sequence, then the column sequence, so seeded runs give TensorFlow's sequences.

use weir_graph::{DType, Error, Kernel, Node, OpContext, Result, Tensor, TensorType};

use crate::random::philox::{fresh_seed, GuardedPhilox, Single};

/// The cumulative pooling sequence of one dimension (`GeneratePoolingSequence`): `out_len + 1`
/// boundaries from 0 to `in_len` whose gaps are `in_len / out_len` or one more.
pub(super) fn pooling_sequence(
    in_len: usize,
    out_len: usize,
    generator: &GuardedPhilox,
    pseudo_random: bool,
) -> Vec<i64> {
    let diff = if pseudo_random {
        pseudo_random_gaps(in_len, out_len, generator)
    } else {
        random_gaps(in_len, out_len, generator)
    };
    let mut cum = Vec::with_capacity(out_len + 1);
    cum.push(0i64);
    for d in diff {
        cum.push(cum[cum.len() - 1] + d);
    }
    cum
}

/// Graham's pseudo-random gaps: `ceil(alpha * (i + u))` for one `u` drawn below the bound
/// that keeps every gap within [k, k + 1]. TensorFlow starts the boundaries at 1 and ends them
/// at `in_len + 1`, so the first and last gaps are those of that shifted sequence.
fn pseudo_random_gaps(in_len: usize, out_len: usize, generator: &GuardedPhilox) -> Vec<i64> {
    let alpha = in_len as f64 / out_len as f64;
    let k = (in_len / out_len) as f64;
    let u_max1 = (k + 2.0) / alpha - 1.0;
    let u_max2 = (in_len as f64 + 1.0 - k) / alpha - (out_len as f64 - 1.0);
    let max_u = u_max1.min(u_max2);
    let mut local = generator.reserve_words(2);
    let u = Single::new(&mut local).next_f64() * max_u;
    let mut cum = vec![0i64; out_len + 1];
    cum[0] = 1;
    cum[out_len] = in_len as i64 + 1;
    for (i, c) in cum.iter_mut().enumerate().take(out_len).skip(1) {
        *c = (alpha * (i as f64 + u)).ceil() as i32 as i64;
    }
    cum.windows(2).map(|w| w[1] - w[0]).collect()
}

/// Random gaps: `in_len % out_len` gaps of k + 1 among gaps of k, shuffled by TensorFlow's
/// `RandomShuffle` (swap i with `i + draw % (n - i)`) on 32-bit Philox draws.
fn random_gaps(in_len: usize, out_len: usize, generator: &GuardedPhilox) -> Vec<i64> {
    let k = (in_len / out_len) as i64;
    let extra = in_len % out_len;
    let mut diff: Vec<i64> = (0..out_len)
        .map(|i| if i < extra { k + 1 } else { k })
        .collect();
    let mut local = generator.reserve_words(out_len as u64);
    let mut single = Single::new(&mut local);
    let n = diff.len();
    for i in 0..n.saturating_sub(1) {
        let j = i + (single.next_u32() % (n - i) as u32) as usize;
        diff.swap(i, j);
    }
    diff
}

/// The configuration of a forward kernel, checked as TensorFlow's kernel constructors check
/// it.
pub(super) struct ForwardKernel {
    avg: bool,
    ratio: [f32; 4],
    pseudo_random: bool,
    overlapping: bool,
    seeds: (i64, i64),
}

pub(super) fn make_forward(node: &Node) -> Result<Box<dyn Kernel>> {
    let avg = node.op_type() == "FractionalAvgPool";
    let ratio: Vec<f32> = node.attr("pooling_ratio")?;
    if ratio.len() != 4 {
        return Err(Error::invalid_argument(
            "pooling_ratio field must specify 4 dimensions",
        ));
    }
    if let Some(r) = ratio.iter().find(|&&r| r.is_nan() || r < 1.0) {
        return Err(Error::invalid_argument(format!(
            "pooling_ratio cannot be smaller than 1, got: {}",
            super::fractional_pool::format_float(*r)
        )));
    }
    if ratio[0] != 1.0 || ratio[3] != 1.0 {
        let what = if avg { "average" } else { "max" };
        return Err(Error::unimplemented(format!(
            "Fractional {what} pooling is not yet supported on the batch nor channel dimension."
        )));
    }
    let deterministic: bool = node.attr("deterministic")?;
    let (mut seed, mut seed2): (i64, i64) = (node.attr("seed")?, node.attr("seed2")?);
    if deterministic {
        // Fixed per kernel: every run of this session's node pools the same regions.
        if seed == 0 && seed2 == 0 {
            seed = fresh_seed() as i64;
            seed2 = fresh_seed() as i64;
        }
    } else if seed != 0 || seed2 != 0 {
        return Err(Error::invalid_argument(
            "Both seed and seed2 should be 0 if deterministic is false.",
        ));
    }
    Ok(Box::new(ForwardKernel {
        avg,
        ratio: [ratio[0], ratio[1], ratio[2], ratio[3]],
        pseudo_random: node.attr("pseudo_random")?,
        overlapping: node.attr("overlapping")?,
        seeds: (seed, seed2),
    }))
}

/// The inclusive input span `[start, end]` of pooling cell `i` of a sequence, clipped to
/// `len` as TensorFlow clips it (the last boundary of an overlapping cell is the input's end).
pub(super) fn span(seq: &[i64], i: usize, overlapping: bool, len: usize) -> (i64, i64) {
    let end = if overlapping {
        seq[i + 1]
    } else {
        seq[i + 1] - 1
    };
    (seq[i], end.min(len as i64 - 1))
}

/// An element the fractional pools take (TensorFlow registers int32, int64, float, double).
pub(super) trait PoolElem: TensorType + Copy + PartialOrd {
    const LOWEST: Self;
    const ZERO: Self;
    fn add(self, o: Self) -> Self;
    fn div_count(self, n: i64) -> Self;
    fn to_f64(self) -> f64;
    /// `static_cast<T>(double)`: truncation toward zero for the integers.
    fn from_f64(v: f64) -> Self;
}

macro_rules! pool_elem {
    ($($t:ty: $lowest:expr, $zero:expr, $add:expr, $div:expr;)*) => {$(
        impl PoolElem for $t {
            const LOWEST: Self = $lowest;
            const ZERO: Self = $zero;
            fn add(self, o: Self) -> Self {
                $add(self, o)
            }
            fn div_count(self, n: i64) -> Self {
                $div(self, n)
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
        }
    )*};
}
pool_elem! {
    f32: f32::MIN, 0.0, |a: f32, b| a + b, |a: f32, n| a / n as f32;
    f64: f64::MIN, 0.0, |a: f64, b| a + b, |a: f64, n| a / n as f64;
    i32: i32::MIN, 0, i32::wrapping_add, |a: i32, n| a.wrapping_div(n as i32);
    i64: i64::MIN, 0, i64::wrapping_add, |a: i64, n| a.wrapping_div(n);
}

/// Runs `$body` with `$T` bound to the element type of one of the four types.
macro_rules! match_pool_type {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            DType::F32 => {
                type $T = f32;
                $body
            }
            DType::F64 => {
                type $T = f64;
                $body
            }
            DType::I32 => {
                type $T = i32;
                $body
            }
            DType::I64 => {
                type $T = i64;
                $body
            }
            other => {
                return Err(Error::invalid_argument(format!(
                    "Unsupported dtype {other}: the fractional pools take float, double, int32 or int64"
                )))
            }
        }
    };
}
pub(super) use match_pool_type;

/// The pooled tensor of `x` (`[n, h, w, c]`) over the cells of `rows` x `cols`: the maximum,
/// or the mean (summed in `T` in row-major window order, then divided by the count).
fn pool<T: PoolElem>(
    x: &Tensor,
    rows: &[i64],
    cols: &[i64],
    overlapping: bool,
    avg: bool,
) -> Result<Tensor> {
    let d = x.shape();
    let (n, h, w, c) = (d[0], d[1], d[2], d[3]);
    let (oh, ow) = (rows.len() - 1, cols.len() - 1);
    let xs = x.as_slice::<T>()?;
    let init = if avg { T::ZERO } else { T::LOWEST };
    let mut out = vec![init; n * oh * ow * c];
    for b in 0..n {
        for r in 0..oh {
            let (r0, r1) = span(rows, r, overlapping, h);
            for q in 0..ow {
                let (c0, c1) = span(cols, q, overlapping, w);
                let o = ((b * oh + r) * ow + q) * c;
                let cell = &mut out[o..o + c];
                let mut count = 0i64;
                for y in r0..=r1 {
                    for x_ in c0..=c1 {
                        let i = ((b * h + y as usize) * w + x_ as usize) * c;
                        for (acc, &v) in cell.iter_mut().zip(&xs[i..i + c]) {
                            *acc = if avg {
                                acc.add(v)
                            } else if v > *acc {
                                v
                            } else {
                                *acc
                            };
                        }
                        count += 1;
                    }
                }
                if avg {
                    for acc in cell.iter_mut() {
                        *acc = acc.div_count(count);
                    }
                }
            }
        }
    }
    Tensor::from_vec(&[n, oh, ow, c], out)
}

impl Kernel for ForwardKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0).clone();
        if x.rank() != 4 {
            return Err(Error::invalid_argument("tensor_in must be 4-dimensional"));
        }
        let dims = x.shape().to_vec();
        let mut out_dims = [0usize; 4];
        for i in 0..4 {
            if (dims[i] as f32) < self.ratio[i] {
                return Err(Error::invalid_argument(format!(
                    "Pooling ratio is higher than input dimension size for dimension {i}. \
                     Input dim size: {} pooling ratio: {}",
                    dims[i],
                    super::fractional_pool::format_float(self.ratio[i])
                )));
            }
            // In float, as TensorFlow divides an int by the float ratio.
            out_dims[i] = (dims[i] as f32 / self.ratio[i]).floor() as usize;
        }
        let generator = GuardedPhilox::new(self.seeds.0, self.seeds.1);
        let rows = pooling_sequence(dims[1], out_dims[1], &generator, self.pseudo_random);
        let cols = pooling_sequence(dims[2], out_dims[2], &generator, self.pseudo_random);
        let out = match_pool_type!(x.dtype(), T =>
            pool::<T>(&x, &rows, &cols, self.overlapping, self.avg)?);
        ctx.set_output(0, out);
        ctx.set_output(1, Tensor::from(rows));
        ctx.set_output(2, Tensor::from(cols));
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(seq: &[i64], in_len: usize, out_len: usize) -> bool {
        let k = (in_len / out_len) as i64;
        seq.len() == out_len + 1
            && seq[0] == 0
            && seq[out_len] == in_len as i64
            && seq
                .windows(2)
                .all(|w| w[1] - w[0] == k || w[1] - w[0] == k + 1)
    }

    #[test]
    fn sequences_cover_the_input_in_gaps_of_k_or_k_plus_one() {
        for (i, o) in [(10, 6), (10, 5), (23, 10), (7, 4), (13, 7), (17, 4), (5, 5)] {
            for pseudo in [false, true] {
                let g = GuardedPhilox::new(3, 9);
                let s = pooling_sequence(i, o, &g, pseudo);
                assert!(valid(&s, i, o), "{i} -> {o} pseudo {pseudo}: {s:?}");
            }
        }
    }
}
