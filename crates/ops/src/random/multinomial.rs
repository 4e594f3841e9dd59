//! `Multinomial`: draws class indices from unnormalized log-probabilities
//! (`tf.random.categorical`, `tf.compat.v1.multinomial`).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
    Shape, Tensor,
};

use super::kernels::with_seed_attrs;
use super::philox::{GuardedPhilox, Philox, Single};

/// `tf.random.categorical(logits, num_samples)`: for each row of the `[batch, classes]` logits,
/// `num_samples` class indices (int64) drawn with probabilities `softmax(row)`.
pub fn multinomial(logits: impl Into<Output>, num_samples: usize) -> Result<Output> {
    Multinomial::new(num_samples).build(logits)
}

/// The options of `tf.random.categorical(logits, num_samples, dtype=None, seed=None)`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape, Tensor};
/// # use weir_ops::{array::constant, random::Multinomial};
/// let g = Graph::new();
/// let logits = constant(&g, Tensor::from_vec(&[2, 3], vec![0.0f32, 1.0, 2.0, 0.0, 0.0, 0.0])?)?;
/// let draws = Multinomial::new(5).seed(3).output_dtype(DType::I32).build(&logits)?;
/// assert_eq!(draws.shape(), Shape::known(&[2, 5]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Multinomial {
    num_samples: usize,
    seed: Option<i64>,
    output_dtype: DType,
    name: Option<String>,
}

impl Multinomial {
    /// `num_samples` draws per row, as int64.
    pub fn new(num_samples: usize) -> Multinomial {
        Multinomial {
            num_samples,
            seed: None,
            output_dtype: DType::I64,
            name: None,
        }
    }

    /// The op-level seed.
    pub fn seed(mut self, seed: i64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// int32 or int64 (the default).
    pub fn output_dtype(mut self, dtype: DType) -> Self {
        self.output_dtype = dtype;
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node.
    pub fn build(self, logits: impl Into<Output>) -> Result<Output> {
        let logits = logits.into();
        let g = logits.graph().clone();
        let n = i32::try_from(self.num_samples).map_err(|_| {
            Error::invalid_argument(format!(
                "num_samples {} does not fit in int32",
                self.num_samples
            ))
        })?;
        let (s1, s2) = g.get_seed(self.seed);
        let num_samples = crate::array::constant(&g, Tensor::from(n))?;
        crate::new_op(&g, "Multinomial")
            .maybe_name(self.name.as_deref())
            .input(logits)
            .input(num_samples)
            .attr("seed", s1)
            .attr("seed2", s2)
            .attr("output_dtype", self.output_dtype)
            .build()?
            .output(0)
    }
}

/// Draws for every row, sequentially from `gen` as TensorFlow's CPU kernel does in one shard:
/// an unnormalized CDF in double over the finite logits, then an upper-bound search per draw.
fn sample<T: Copy + Into<f64>>(
    logits: &[T],
    classes: usize,
    num_samples: usize,
    single: &mut Single<'_>,
) -> Vec<i64> {
    let rows = logits.len() / classes;
    let mut out = Vec::with_capacity(rows * num_samples);
    let mut cdf = vec![0.0f64; classes];
    for row in logits.chunks_exact(classes) {
        let max = row
            .iter()
            .map(|&x| x.into())
            .filter(|x: &f64| x.is_finite())
            .fold(f64::MIN, f64::max);
        let mut total = 0.0f64;
        for (c, &x) in cdf.iter_mut().zip(row) {
            let x: f64 = x.into();
            if x.is_finite() {
                total += (x - max).exp();
            }
            *c = total;
        }
        for _ in 0..num_samples {
            let to_find = single.next_f64() * total;
            out.push(cdf.partition_point(|&c| c <= to_find) as i64);
        }
    }
    out
}

struct MultinomialKernel {
    gen: GuardedPhilox,
    output_dtype: DType,
}

impl Kernel for MultinomialKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = draw(ctx.input(0), ctx.input(1), self.output_dtype, |blocks| {
            self.gen.reserve_outputs(blocks, 256)
        })?;
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

/// The `[batch, num_samples]` draws of the multinomial kernels, after TensorFlow's checks of
/// `logits` and `num_samples`; `reserve(blocks)` gives the generator to draw from, the stateful
/// kernel's reservation of `blocks * 256` blocks or the stateless kernel's seed generator.
pub(super) fn draw(
    logits: &Tensor,
    ns: &Tensor,
    output_dtype: DType,
    reserve: impl FnOnce(u64) -> Philox,
) -> Result<Tensor> {
    if logits.rank() != 2 {
        return Err(Error::invalid_argument(format!(
            "logits should be a matrix, got shape {}",
            format_dims(logits.shape())
        )));
    }
    if ns.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "num_samples should be a scalar, got shape {}",
            format_dims(ns.shape())
        )));
    }
    let num_samples = ns.to_scalar::<i32>()?;
    if num_samples < 0 {
        return Err(Error::invalid_argument(format!(
            "num_samples should be non-negative, got {num_samples}"
        )));
    }
    let num_samples = num_samples as usize;
    let (batch, classes) = (logits.shape()[0], logits.shape()[1]);
    if classes == 0 {
        return Err(Error::invalid_argument(
            "num_classes should be positive, got 0",
        ));
    }
    let draws = if batch * num_samples == 0 {
        Vec::new()
    } else {
        // The CPU kernel draws doubles: two words per sample, rounded up to blocks.
        let per_row = num_samples.div_ceil(4) * 4 * 2;
        let mut local = reserve((batch * per_row) as u64);
        let mut single = Single::new(&mut local);
        match logits.dtype() {
            DType::F32 => sample(logits.as_slice::<f32>()?, classes, num_samples, &mut single),
            _ => sample(logits.as_slice::<f64>()?, classes, num_samples, &mut single),
        }
    };
    let shape = [batch, num_samples];
    match output_dtype {
        DType::I32 => Tensor::from_vec(&shape, draws.into_iter().map(|d| d as i32).collect()),
        _ => Tensor::from_vec(&shape, draws),
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let logits = ctx.with_rank(0, 2)?;
    ctx.with_rank(1, 0)?;
    let n = ctx
        .input_const(1)
        .and_then(|t| t.to_scalar::<i32>().ok())
        .and_then(|n| usize::try_from(n).ok());
    ctx.set_output(0, Shape::new(vec![logits.dim(0), n]));
    Ok(())
}

pub(super) fn register() {
    register_op(super::type_attr_default(
        with_seed_attrs(
            OpDef::new("Multinomial")
                .input("logits", ArgType::Attr("T"))
                .input("num_samples", ArgType::Fixed(DType::I32))
                .output("output", ArgType::Attr("output_dtype"))
                .type_attr("T", DType::FLOAT)
                .shape_fn(shape_fn),
        ),
        "output_dtype",
        &[DType::I32, DType::I64],
        DType::I64,
    ));
    register_kernel("Multinomial", |node| {
        Ok(Box::new(MultinomialKernel {
            gen: GuardedPhilox::from_node(node)?,
            output_dtype: node.attr("output_dtype")?,
        }))
    });
}
