//! Random ops, seeded the TensorFlow way: `tf.random.uniform`, `tf.random.normal`,
//! `tf.random.truncated_normal`, `tf.random.shuffle`, `tf.random.categorical` (multinomial),
//! `tf.random.gamma`, `tf.random.poisson`, `parameterized_truncated_normal`,
//! `tf.image.random_crop`, and their stateless forms (`tf.random.stateless_uniform`, ...; see
//! `stateless`), whose values depend only on a seed tensor.
//!
//! Each op takes its seeds from [`Graph::get_seed`](weir_graph::Graph::get_seed) (graph-level
//! seed plus op-level seed) and stores them as the attrs `seed`/`seed2`. `(0, 0)` draws fresh
//! nondeterministic seeds; any other pair gives a reproducible stream per op. The kernel keeps
//! its generator (TensorFlow's Philox4x32-10) behind a lock, so every run draws new numbers,
//! and two sessions on one graph replay the same sequence. Seeded ops yield exactly the numbers
//! TensorFlow's CPU kernels yield for the same seeds.
//!
//! ```
//! use weir_graph::{Graph, Shape};
//! use weir_ops::random::RandomUniform;
//!
//! let g = Graph::new();
//! g.set_random_seed(1);
//! let u = RandomUniform::new([2, 3]).minval(-1.0).maxval(1.0).seed(2).build(&g)?;
//! assert_eq!(u.shape(), Shape::known(&[2, 3]));
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod builders;
mod crop;
mod gamma;
mod gamma_grad;
pub(crate) mod kernels;
mod multinomial;
mod parameterized_truncated_normal;
pub mod philox;
mod poisson;
mod shuffle;
pub mod stateful;
mod stateless;
pub mod stateless_v2;

use weir_graph::{
    format_dims, AttrDef, AttrKind, AttrValue, DType, Error, Graph, InferenceContext, OpDef,
    Output, Result, Shape, Tensor,
};

pub use builders::{
    random_normal, random_uniform, truncated_normal, RandomNormal, RandomUniform, TruncatedNormal,
};
pub use crop::{random_crop, RandomCrop};
pub use gamma::{random_gamma, RandomGamma};
pub use gamma_grad::random_gamma_grad;
pub(crate) use kernels::with_seed_attrs;
pub use multinomial::{multinomial, Multinomial};
pub use parameterized_truncated_normal::{
    parameterized_truncated_normal, ParameterizedTruncatedNormal,
};
pub use poisson::{random_poisson, RandomPoisson};
pub use shuffle::random_shuffle;
pub use stateful::{create_rng_state, Generator, RngSeed};
pub use stateless::{
    stateless_categorical, stateless_random_normal, stateless_random_uniform,
    stateless_truncated_normal, SeedArg, StatelessCategorical, StatelessRandomNormal,
    StatelessRandomUniform, StatelessTruncatedNormal,
};
pub use stateless_v2::{
    stateless_random_normal_v2, stateless_random_uniform_v2, stateless_shuffle,
    stateless_truncated_normal_v2, Algorithm, StatelessNormalV2, StatelessShuffle,
    StatelessTruncatedNormalV2, StatelessUniformV2,
};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    kernels::register();
    crop::register();
    multinomial::register();
    shuffle::register();
    stateless::register();
    stateless_v2::register();
    stateful::register();
    gamma::register();
    poisson::register();
    parameterized_truncated_normal::register();
}

/// The shape argument of the random ops: a fixed shape (added as an int32 `Const`) or a 1-D
/// int32/int64 tensor computed in the graph.
#[derive(Clone, Debug)]
pub enum ShapeArg {
    /// A shape known when building.
    Fixed(Vec<usize>),
    /// A 1-D int32 or int64 tensor holding the shape.
    Tensor(Output),
}

impl ShapeArg {
    /// The shape as a graph tensor, named `shape` in the current scope as TensorFlow's
    /// `shape_tensor` names it.
    pub(crate) fn to_output(&self, g: &Graph) -> Result<Output> {
        match self {
            ShapeArg::Tensor(o) => Ok(o.clone()),
            ShapeArg::Fixed(dims) => {
                let v = dims
                    .iter()
                    .map(|&d| {
                        i32::try_from(d).map_err(|_| {
                            Error::invalid_argument(format!("Dimension {d} does not fit in int32"))
                        })
                    })
                    .collect::<Result<Vec<i32>>>()?;
                crate::array::constant_named(g, Tensor::from(v), "shape")
            }
        }
    }
}

impl From<&[usize]> for ShapeArg {
    fn from(d: &[usize]) -> ShapeArg {
        ShapeArg::Fixed(d.to_vec())
    }
}
impl From<Vec<usize>> for ShapeArg {
    fn from(d: Vec<usize>) -> ShapeArg {
        ShapeArg::Fixed(d)
    }
}
impl<const N: usize> From<[usize; N]> for ShapeArg {
    fn from(d: [usize; N]) -> ShapeArg {
        ShapeArg::Fixed(d.to_vec())
    }
}
impl From<Output> for ShapeArg {
    fn from(o: Output) -> ShapeArg {
        ShapeArg::Tensor(o)
    }
}
impl From<&Output> for ShapeArg {
    fn from(o: &Output) -> ShapeArg {
        ShapeArg::Tensor(o.clone())
    }
}

/// A number argument (`minval`, `maxval`, `mean`, `stddev`): integers stay exact for int64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A floating-point value.
    Float(f64),
    /// An integer value.
    Int(i64),
}

impl From<f64> for Scalar {
    fn from(v: f64) -> Scalar {
        Scalar::Float(v)
    }
}
impl From<f32> for Scalar {
    fn from(v: f32) -> Scalar {
        Scalar::Float(v as f64)
    }
}
impl From<i64> for Scalar {
    fn from(v: i64) -> Scalar {
        Scalar::Int(v)
    }
}
impl From<i32> for Scalar {
    fn from(v: i32) -> Scalar {
        Scalar::Int(v as i64)
    }
}

/// A bound as Python prints it in messages: `None`, `0`, `1.5`.
fn python_value(v: Option<Scalar>) -> String {
    match v {
        None => "None".to_string(),
        Some(Scalar::Int(i)) => i.to_string(),
        Some(Scalar::Float(f)) => format!("{f:?}"),
    }
}

/// Python's repr of a dtype in messages: `<dtype: 'int32'>`.
fn dtype_repr(dtype: DType) -> String {
    format!("<dtype: '{}'>", dtype.python_name())
}

impl Scalar {
    /// A rank-0 tensor of `dtype` holding this value; InvalidArgument when it does not fit.
    pub(crate) fn to_tensor(self, dtype: DType) -> Result<Tensor> {
        match (self, dtype) {
            (Scalar::Int(v), DType::I64) => Ok(Tensor::from(v)),
            (Scalar::Int(v), DType::I32) => i32::try_from(v)
                .map(Tensor::from)
                .map_err(|_| Error::invalid_argument(format!("Value {v} does not fit in int32"))),
            (Scalar::Int(v), d) => weir_graph::scalar_of(d, v as f64),
            (Scalar::Float(v), d) => weir_graph::scalar_of(d, v),
        }
    }

    fn is(self, x: f64) -> bool {
        match self {
            Scalar::Float(v) => v == x,
            Scalar::Int(v) => v as f64 == x,
        }
    }
}

/// The run-time shape a shape tensor holds; TensorFlow's errors for bad ones.
pub(crate) fn shape_from_tensor(t: &Tensor) -> Result<Vec<usize>> {
    if t.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "shape must be a vector of {{int32,int64}}, got shape {}",
            format_dims(t.shape())
        )));
    }
    let dims: Vec<i64> = match t.dtype() {
        DType::I32 => t.as_slice::<i32>()?.iter().map(|&d| d as i64).collect(),
        DType::I64 => t.to_vec::<i64>()?,
        _ => {
            return Err(Error::invalid_argument(
                "shape must be a vector of {int32,int64}.",
            ))
        }
    };
    dims.iter()
        .map(|&d| {
            usize::try_from(d)
                .map_err(|_| Error::invalid_argument(format!("Dimension {d} must be >= 0")))
        })
        .collect()
}

/// Static shape from shape input `i` (TensorFlow's `MakeShapeFromShapeTensor`): the value when
/// it is a constant, the parts known at build time otherwise, else a rank from the input's
/// length with unknown dims.
pub(crate) fn shape_from_input(ctx: &InferenceContext<'_>, i: usize) -> Result<Shape> {
    let s = ctx.with_rank(i, 1)?;
    if let Some(t) = ctx.input_const(i) {
        let dims: Vec<i64> = match t.dtype() {
            DType::I32 => t.as_slice::<i32>()?.iter().map(|&d| d as i64).collect(),
            _ => t.to_vec::<i64>()?,
        };
        if let Some(&d) = dims.iter().find(|&&d| d < -1) {
            return Err(Error::invalid_argument(format!(
                "Dimension {d} must be >= -1 in the shape of '{}'",
                ctx.op_type
            )));
        }
        return Ok(Shape::from_i64(&dims));
    }
    if let Some(p) = ctx.input_partial_shape(i) {
        // Known in part: `tf.random.normal(tf.stack([n, 100]))` is [?, 100].
        return Ok(p.clone());
    }
    Ok(match s.dim(0) {
        Some(n) => Shape::unknown_of_rank(n),
        None => Shape::unknown(),
    })
}

/// Output 0 takes its shape from shape input 0.
pub(crate) fn random_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = shape_from_input(ctx, 0)?;
    ctx.set_output(0, s);
    Ok(())
}

/// Adds a type attr limited to `allowed` with a default (e.g. `out_type: {float, int32} = float`).
pub(crate) fn type_attr_default(
    mut def: OpDef,
    name: &'static str,
    allowed: &'static [DType],
    default: DType,
) -> OpDef {
    def.attrs.push(AttrDef {
        name,
        kind: AttrKind::Type,
        default: Some(AttrValue::Type(default)),
        allowed: Some(allowed),
        min: None,
    });
    def
}
