//! `RandomShuffle`: permutes a tensor along its first dimension.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result, Tensor,
    TensorType,
};

use super::kernels::with_seed_attrs;
use super::philox::{GuardedPhilox, Single};

/// `tf.random.shuffle(value, seed=None)`: `value` with its first dimension randomly permuted,
/// a new permutation each run. Any dtype; rank-0 and one-row tensors pass through unchanged.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, random::random_shuffle};
/// let g = Graph::new();
/// let files = constant(&g, ["a.tfrecord", "b.tfrecord", "c.tfrecord"])?;
/// let shuffled = random_shuffle(&files, Some(7))?;
/// assert_eq!(shuffled.shape(), files.shape());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn random_shuffle(value: impl Into<Output>, seed: Option<i64>) -> Result<Output> {
    let value = value.into();
    let g = value.graph().clone();
    let (s1, s2) = g.get_seed(seed);
    crate::new_op(&g, "RandomShuffle")
        .input(value)
        .attr("seed", s1)
        .attr("seed2", s2)
        .build()?
        .output(0)
}

/// TensorFlow's forward Fisher-Yates: exactly `n - 1` draws, draw `i` taken modulo `n - i`.
pub(crate) fn permutation(n: usize, single: &mut Single<'_>) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..n).collect();
    for i in 0..n.saturating_sub(1) {
        let j = i + (single.next_u32() % (n - i) as u32) as usize;
        perm.swap(i, j);
    }
    perm
}

pub(crate) fn gather_rows<T: TensorType>(t: &Tensor, perm: &[usize]) -> Result<Tensor> {
    let src = t.as_slice::<T>()?;
    let row = src.len() / perm.len();
    let out = if row == 1 {
        perm.iter().map(|&p| src[p].clone()).collect()
    } else {
        let mut out = Vec::with_capacity(src.len());
        for &p in perm {
            out.extend_from_slice(&src[p * row..(p + 1) * row]);
        }
        out
    };
    Tensor::from_vec(t.shape(), out)
}

struct ShuffleKernel {
    gen: GuardedPhilox,
}

impl Kernel for ShuffleKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0);
        if input.num_elements() <= 1 || input.shape()[0] <= 1 {
            let t = ctx.take_input(0);
            ctx.set_output(0, t);
            return Ok(());
        }
        let n = input.shape()[0];
        if n > u32::MAX as usize {
            return Err(Error::invalid_argument(format!(
                "RandomShuffle supports at most 2^32-1 rows, got {n}"
            )));
        }
        let mut local = self.gen.reserve_words(n as u64 - 1);
        let perm = permutation(n, &mut Single::new(&mut local));
        let dt = input.dtype();
        let out = weir_graph::match_data_dtype!(dt, T => gather_rows::<T>(input, &perm)?,
            _ => return Err(Error::invalid_argument(format!("RandomShuffle does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn same_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    register_op(with_seed_attrs(
        OpDef::new("RandomShuffle")
            .input("value", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(same_shape),
    ));
    register_kernel("RandomShuffle", |node| {
        Ok(Box::new(ShuffleKernel {
            gen: GuardedPhilox::from_node(node)?,
        }))
    });
}
