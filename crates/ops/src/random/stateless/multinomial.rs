//! `StatelessMultinomial` (`tf.random.stateless_categorical`): class indices drawn from
//! unnormalized log-probabilities, depending only on the seed.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result, Shape,
    Tensor,
};

use super::super::dtype_repr;
use super::super::multinomial::draw;
use super::super::type_attr_default;
use super::{check_seed_shape, philox_from_seed, SeedArg};

/// `tf.random.stateless_categorical(logits, num_samples, seed)`: for each row of the
/// `[batch, classes]` logits, `num_samples` int64 class indices drawn with probabilities
/// `softmax(row)`, the same for the same seed.
pub fn stateless_categorical(
    logits: impl Into<Output>,
    num_samples: usize,
    seed: impl Into<SeedArg>,
) -> Result<Output> {
    StatelessCategorical::new(num_samples, seed).build(logits)
}

/// The options of `tf.random.stateless_categorical(logits, num_samples, seed, dtype=None)`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape, Tensor};
/// # use weir_ops::{array::constant, random::StatelessCategorical};
/// let g = Graph::new();
/// let logits = constant(&g, Tensor::from_vec(&[2, 3], vec![0.0f32, 1.0, 2.0, 0.0, 0.0, 0.0])?)?;
/// let draws = StatelessCategorical::new(5, [1, 2]).dtype(DType::I32).build(&logits)?;
/// assert_eq!(draws.shape(), Shape::known(&[2, 5]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct StatelessCategorical {
    num_samples: usize,
    seed: SeedArg,
    dtype: DType,
    name: Option<String>,
}

impl StatelessCategorical {
    /// `num_samples` int64 draws per row, from `seed`.
    pub fn new(num_samples: usize, seed: impl Into<SeedArg>) -> StatelessCategorical {
        StatelessCategorical {
            num_samples,
            seed: seed.into(),
            dtype: DType::I64,
            name: None,
        }
    }

    /// int32 or int64 (the default).
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// The name scope (default `stateless_categorical`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the `StatelessMultinomial` node.
    pub fn build(self, logits: impl Into<Output>) -> Result<Output> {
        let logits = logits.into();
        let g = logits.graph().clone();
        let _scope = g.name_scope(self.name.as_deref().unwrap_or("stateless_categorical"));
        if !matches!(self.dtype, DType::I32 | DType::I64) {
            return Err(Error::invalid_argument(format!(
                "Argument `dtype` got invalid value {}. Accepted dtypes are (tf.int32, tf.int64).",
                dtype_repr(self.dtype)
            )));
        }
        let n = i32::try_from(self.num_samples).map_err(|_| {
            Error::invalid_argument(format!(
                "num_samples {} does not fit in int32",
                self.num_samples
            ))
        })?;
        let num_samples = crate::array::constant_named(&g, Tensor::from(n), "num_samples")?;
        let seed = self.seed.to_output(&g)?;
        crate::new_op(&g, "StatelessMultinomial")
            .input(logits)
            .input(num_samples)
            .input(seed)
            .attr("output_dtype", self.dtype)
            .build()?
            .output(0)
    }
}

struct StatelessMultinomialKernel {
    output_dtype: DType,
}

impl Kernel for StatelessMultinomialKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        // TensorFlow checks the seed before the logits.
        let gen = philox_from_seed(ctx.input(2))?;
        let out = draw(ctx.input(0), ctx.input(1), self.output_dtype, |_| gen)?;
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_seed_shape(ctx, 2)?;
    let logits = ctx.with_rank(0, 2)?;
    ctx.with_rank(1, 0)?;
    let n = match ctx
        .input_const(1)
        .map(|t| t.to_scalar::<i32>())
        .transpose()?
    {
        Some(n) if n < 0 => {
            return Err(Error::invalid_argument(format!(
                "Dimension size, given by scalar input 1, must be non-negative but is {n}"
            )))
        }
        n => n.map(|n| n as usize),
    };
    ctx.set_output(0, Shape::new(vec![logits.dim(0), n]));
    Ok(())
}

pub(super) fn register() {
    let def = OpDef::new("StatelessMultinomial")
        .input("logits", ArgType::Attr("T"))
        .input("num_samples", ArgType::Fixed(DType::I32))
        .input("seed", ArgType::Attr("Tseed"))
        .output("output", ArgType::Attr("output_dtype"))
        .type_attr("T", DType::FLOAT)
        .shape_fn(shape_fn);
    let def = type_attr_default(def, "Tseed", &[DType::I32, DType::I64], DType::I64);
    register_op(type_attr_default(
        def,
        "output_dtype",
        &[DType::I32, DType::I64],
        DType::I64,
    ));
    register_kernel("StatelessMultinomial", |node| {
        Ok(Box::new(StatelessMultinomialKernel {
            output_dtype: node.attr("output_dtype")?,
        }))
    });
}
