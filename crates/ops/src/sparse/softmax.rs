//! `SparseSoftmax`: softmax over the present entries of each innermost row.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Result, Tensor,
};

use super::checks::{dims_of, summarize};
use super::reorder::row_major_order;
use super::SparseOutput;

/// `tf.sparse.softmax(sp_input)` (op `SparseSoftmax`): for float32/float64 values of rank >= 2,
/// the softmax of the entries sharing all but the last index (missing entries take no part).
/// The new values follow the row-major order of the indices; the result keeps `sp`'s indices
/// and dense shape, as TensorFlow's does.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_softmax, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let sp = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[3, 2], vec![0i64, 0, 0, 3, 1, 2])?)?,
///     constant(&g, vec![1.0f32, 1.0, 5.0])?,
///     constant(&g, vec![2i64, 4])?,
/// )?;
/// let soft = sparse_softmax(&sp)?;
/// assert_eq!(Session::new(&g)?.eval(&soft.values)?.to_vec::<f32>()?, [0.5, 0.5, 1.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_softmax(sp: &SparseOutput) -> Result<SparseOutput> {
    let g = sp.graph().clone();
    let _scope = g.name_scope("SparseSoftmax");
    let op = crate::new_op(&g, "SparseSoftmax")
        .input(&sp.indices)
        .input(&sp.values)
        .input(&sp.dense_shape)
        .build()?;
    SparseOutput::new(sp.indices.clone(), op.output(0)?, sp.dense_shape.clone())
}

/// Eigen's vectorized `exp` for float (`pexp_float`, without FMA), as TensorFlow's AVX build
/// evaluates the full packets of a group.
fn pexp_f32(x0: f32) -> f32 {
    let x = x0.min(88.723);
    let m = (x * std::f32::consts::LOG2_E + 0.5).floor();
    let r = m * -0.693_359_4 + x;
    let r = m * 2.121_944_4e-4 + r;
    let r2 = r * r;
    let p_even = r2 * 1.374_496_4e-3 + 4.166_965_2e-2;
    let p_odd = r2 * 8.368_945e-3 + 0.166_665_18;
    let p_even = r2 * p_even + 0.499_999_88;
    let p_low = r + 1.0;
    let y = r * p_odd + p_even;
    let y = r2 * y + p_low;
    if x0 < -104.0 {
        return 0.0;
    }
    ldexp_f32(y, m).max(x0)
}

/// Eigen's vectorized `exp` for double (`pexp_double`, without FMA).
fn pexp_f64(x0: f64) -> f64 {
    let x = x0.min(709.784);
    let fx = (std::f64::consts::LOG2_E * x + 0.5).floor();
    let x = x - fx * 0.693_145_751_953_125;
    let x = x - fx * 1.428_606_820_309_417_2e-6;
    let x2 = x * x;
    let px = 1.261_771_930_748_105_9e-4 * x2 + 3.029_944_077_074_419_6e-2;
    let px = (px * x2 + 1.0) * x;
    let qx = 3.001_985_051_386_644_6e-6 * x2 + 2.524_483_403_496_841e-3;
    let qx = qx * x2 + 2.272_655_482_081_550_3e-1;
    let qx = qx * x2 + 2.0;
    let y = 2.0 * (px / (qx - px)) + 1.0;
    if x0 < -709.784 {
        return 0.0;
    }
    ldexp_f64(y, fx).max(x0)
}

/// `y * 2^e` in steps that stay exact through the subnormal range, as Eigen's `pldexp` does.
fn ldexp_f32(y: f32, e: f32) -> f32 {
    if !e.is_finite() {
        return y * e.exp2();
    }
    let e = e.clamp(-300.0, 300.0) as i32;
    let b = e.div_euclid(4);
    let step = f32::from_bits((((b + 127).clamp(0, 254)) as u32) << 23);
    let last = f32::from_bits((((e - 3 * b + 127).clamp(0, 254)) as u32) << 23);
    y * step * step * step * last
}

fn ldexp_f64(y: f64, e: f64) -> f64 {
    if !e.is_finite() {
        return y * e.exp2();
    }
    let e = e.clamp(-3000.0, 3000.0) as i64;
    let b = e.div_euclid(4);
    let step = f64::from_bits((((b + 1023).clamp(0, 2046)) as u64) << 52);
    let last = f64::from_bits((((e - 3 * b + 1023).clamp(0, 2046)) as u64) << 52);
    y * step * step * step * last
}

macro_rules! softmax_groups {
    ($name:ident, $t:ty, $lanes:expr, $pexp:ident) => {
        /// Each group's values shifted by its maximum, exponentiated and scaled by the inverse
        /// of their sum, as Eigen computes them in TensorFlow's AVX build: full packets of
        /// `$lanes` through the vectorized `exp`, the rest through the scalar one; the sum in
        /// four packet accumulators, then packets, then scalars, then a halving tree.
        fn $name(v: &[$t], order: &[usize], groups: &[(usize, usize)]) -> Vec<$t> {
            const P: usize = $lanes;
            let mut out = Vec::with_capacity(order.len());
            for &(a, b) in groups {
                let vals: Vec<$t> = order[a..b].iter().map(|&i| v[i]).collect();
                let n = vals.len();
                // Eigen's max keeps the accumulator unless a value is larger, so NaN is skipped.
                let max = vals
                    .iter()
                    .fold(<$t>::NEG_INFINITY, |m, &x| if m < x { x } else { m });
                let packed = n / P * P;
                let exps: Vec<$t> = vals
                    .iter()
                    .enumerate()
                    .map(|(k, &x)| {
                        if k < packed {
                            $pexp(x - max)
                        } else {
                            (x - max).exp()
                        }
                    })
                    .collect();
                let sum = {
                    let mut acc = [[0.0 as $t; P]; 4];
                    let by4 = n / (4 * P) * (4 * P);
                    for base in (0..by4).step_by(4 * P) {
                        for (u, lane) in acc.iter_mut().enumerate() {
                            for (l, x) in lane.iter_mut().enumerate() {
                                *x += exps[base + u * P + l];
                            }
                        }
                    }
                    let mut p = acc[0];
                    for lane in &acc[1..] {
                        for (x, y) in p.iter_mut().zip(lane) {
                            *x += y;
                        }
                    }
                    for base in (by4..packed).step_by(P) {
                        for (l, x) in p.iter_mut().enumerate() {
                            *x += exps[base + l];
                        }
                    }
                    let scalar = exps[packed..].iter().fold(0.0, |s, &x| s + x);
                    let mut width = P;
                    while width > 1 {
                        width /= 2;
                        for l in 0..width {
                            p[l] += p[l + width];
                        }
                    }
                    scalar + p[0]
                };
                let inv = 1.0 / sum;
                out.extend(exps.iter().map(|&x| x * inv));
            }
            out
        }
    };
}
softmax_groups!(softmax_f32, f32, 8, pexp_f32);
softmax_groups!(softmax_f64, f64, 4, pexp_f64);

struct SoftmaxKernel;

impl Kernel for SoftmaxKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (indices, values, shape) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if indices.rank() != 2 {
            return Err(Error::invalid_argument(format!(
                "Input sp_indices should be a matrix but received shape: {}",
                dims_of(indices)
            )));
        }
        if values.rank() != 1 || shape.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "Inputs sp_values and sp_shape should be vectors but received shapes: {} and {}",
                dims_of(values),
                dims_of(shape)
            )));
        }
        let dense = shape.to_vec::<i64>()?;
        if dense.len() < 2 {
            return Err(Error::invalid_argument(format!(
                "Input should have rank >= 2, but received shape: {}",
                summarize(&dense, 3)
            )));
        }
        if let Some(&d) = dense.iter().find(|&&d| d < 0) {
            return Err(Error::invalid_argument(format!(
                "Expected shape dimensions to be non-negative, got {d}"
            )));
        }
        let n = values.num_elements();
        if indices.shape()[0] != n {
            return Err(Error::invalid_argument(format!(
                "indices and values rows (indexing dimension) must match. (indices = {}, values = {n})",
                indices.shape()[0]
            )));
        }
        let rank = indices.shape()[1];
        if rank != dense.len() {
            return Err(Error::invalid_argument(
                "Order length must be SparseTensor rank.",
            ));
        }
        let ix = indices.as_slice::<i64>()?;
        let order = row_major_order(ix, n, rank);
        // Groups: runs of sorted entries sharing every index but the last.
        let outer = |i: usize| &ix[i * rank..i * rank + rank - 1];
        let mut groups = Vec::new();
        let mut start = 0;
        for k in 1..=n {
            if k == n || outer(order[k]) != outer(order[start]) {
                groups.push((start, k));
                start = k;
            }
        }
        let out = match values.dtype() {
            DType::F32 => Tensor::from_vec(&[n], softmax_f32(values.as_slice()?, &order, &groups))?,
            DType::F64 => Tensor::from_vec(&[n], softmax_f64(values.as_slice()?, &order, &groups))?,
            dt => {
                return Err(Error::invalid_argument(format!(
                    "SparseSoftmax does not support {dt}"
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 2)?;
    let values = ctx.with_rank(1, 1)?;
    ctx.with_rank(2, 1)?;
    ctx.set_output(0, values);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("SparseSoftmax")
            .input("sp_indices", ArgType::Fixed(DType::I64))
            .input("sp_values", ArgType::Attr("T"))
            .input("sp_shape", ArgType::Fixed(DType::I64))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::FLOAT)
            .shape_fn(shape_fn),
    );
    register_kernel("SparseSoftmax", |_| Ok(Box::new(SoftmaxKernel)));
}

#[cfg(test)]
mod tests {
    use super::softmax_f64;

    #[test]
    fn each_group_sums_to_one() {
        let out = softmax_f64(&[1.0, 3.0, 2.0], &[0, 2, 1], &[(0, 2), (2, 3)]);
        assert!((out[0] + out[1] - 1.0).abs() < 1e-15);
        assert!(out[0] < out[1]);
        assert_eq!(out[2], 1.0);
    }
}
