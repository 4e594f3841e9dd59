//! Stateless random ops: `tf.random.stateless_uniform`, `tf.random.stateless_normal`,
//! `tf.random.stateless_truncated_normal` and `tf.random.stateless_categorical` (ops
//! `StatelessRandomUniform`, `StatelessRandomUniformInt`, `StatelessRandomUniformFullInt`,
//! `StatelessRandomNormal`, `StatelessTruncatedNormal`, `StatelessMultinomial`).
//!
//! The numbers depend only on the `seed` input, a shape-`[2]` int32 or int64 tensor: every
//! run of every session gives the same values for the same seed and shape. The seed is
//! scrambled into a Philox key and counter as TensorFlow's `GenerateKey` does, and the values
//! are then drawn as the stateful kernels draw them, so they equal TensorFlow 2.21's CPU
//! results bit for bit. (TensorFlow 2.21's Python emits `StatelessRandomGetKeyCounter` and the
//! V2 ops, which take that key and counter as uint64 tensors; on CPU they give the same
//! numbers as the V1 ops built here.)
//!
//! ```
//! use weir_graph::{DType, Graph, Shape};
//! use weir_ops::random::StatelessRandomUniform;
//!
//! let g = Graph::new();
//! let u = StatelessRandomUniform::new([2, 3], [1, 2]).dtype(DType::F64).build(&g)?;
//! assert_eq!(u.shape(), Shape::known(&[2, 3]));
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod builders;
mod kernels;
mod multinomial;

use weir_graph::{format_dims, DType, Error, Graph, InferenceContext, Output, Result, Tensor};

use super::philox::Philox;

pub use builders::{
    stateless_random_normal, stateless_random_uniform, stateless_truncated_normal,
    StatelessRandomNormal, StatelessRandomUniform, StatelessTruncatedNormal,
};
pub use multinomial::{stateless_categorical, StatelessCategorical};

/// Registers the stateless ops and kernels.
pub(super) fn register() {
    kernels::register();
    multinomial::register();
}

/// The `seed` argument of the stateless ops: two numbers known when building (a constant, as
/// Python converts a list) or a shape-`[2]` int32/int64 tensor computed in the graph.
#[derive(Clone, Debug)]
pub enum SeedArg {
    /// A seed known when building: an int32 constant when both fit in int32, int64 otherwise,
    /// as `tf.convert_to_tensor` types a list of Python ints.
    Fixed([i64; 2]),
    /// An int32 or int64 tensor of shape `[2]`.
    Tensor(Output),
}

impl SeedArg {
    /// The seed as a graph tensor, named `seed` in the current scope.
    pub(crate) fn to_output(&self, g: &Graph) -> Result<Output> {
        match self {
            SeedArg::Tensor(o) => Ok(o.clone()),
            SeedArg::Fixed([a, b]) => {
                let t = match (i32::try_from(*a), i32::try_from(*b)) {
                    (Ok(x), Ok(y)) => Tensor::from(vec![x, y]),
                    _ => Tensor::from(vec![*a, *b]),
                };
                crate::array::constant_named(g, t, "seed")
            }
        }
    }
}

impl From<[i64; 2]> for SeedArg {
    fn from(s: [i64; 2]) -> SeedArg {
        SeedArg::Fixed(s)
    }
}
impl From<[i32; 2]> for SeedArg {
    fn from(s: [i32; 2]) -> SeedArg {
        SeedArg::Fixed([s[0] as i64, s[1] as i64])
    }
}
impl From<Output> for SeedArg {
    fn from(o: Output) -> SeedArg {
        SeedArg::Tensor(o)
    }
}
impl From<&Output> for SeedArg {
    fn from(o: &Output) -> SeedArg {
        SeedArg::Tensor(o.clone())
    }
}

/// The generator of a seed tensor (TensorFlow's `GenerateKey`): InvalidArgument unless the
/// seed has shape `[2]`. An int32 seed is sign-extended, as TensorFlow's cast to uint64 does.
pub(crate) fn philox_from_seed(seed: &Tensor) -> Result<Philox> {
    if seed.rank() != 1 || seed.shape()[0] != 2 {
        return Err(Error::invalid_argument(format!(
            "seed must have shape [2], not {}",
            format_dims(seed.shape())
        )));
    }
    let (s0, s1) = match seed.dtype() {
        DType::I32 => {
            let v = seed.as_slice::<i32>()?;
            (v[0] as i64 as u64, v[1] as i64 as u64)
        }
        DType::I64 => {
            let v = seed.to_vec::<i64>()?;
            (v[0] as u64, v[1] as u64)
        }
        dt => {
            return Err(Error::invalid_argument(format!(
                "Invalid seed type: {}",
                dt.python_name()
            )))
        }
    };
    // One Philox round over the seed scrambles it, so that neither half needs to be strong.
    let counter = [s0 as u32, (s0 >> 32) as u32, s1 as u32, (s1 >> 32) as u32];
    let mix = Philox::from_parts(counter, [0x3ec8_f720, 0x0246_1e29]).next_block();
    Ok(Philox::from_parts([0, 0, mix[2], mix[3]], [mix[0], mix[1]]))
}

/// TensorFlow's check of a seed input in shape functions: rank 1, of size 2 when known.
pub(crate) fn check_seed_shape(ctx: &InferenceContext<'_>, i: usize) -> Result<()> {
    let s = ctx.with_rank(i, 1)?;
    match s.dim(0) {
        Some(d) if d != 2 => {
            let shapes: Vec<String> = (0..ctx.num_inputs())
                .map(|j| ctx.input_shape(j).to_string())
                .collect();
            Err(Error::invalid_argument(format!(
                "Dimension must be 2 but is {d} for '{}' with input shapes: {}.",
                ctx.op_type,
                shapes.join(", ")
            )))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_scramble_as_tensorflow_does() {
        // The first words TensorFlow 2.21's StatelessRandomUniform draws for seed [1, 2].
        let mut g = philox_from_seed(&Tensor::from(vec![1i32, 2])).unwrap();
        let w = g.next_block();
        let f = super::super::philox::u32_to_f32(w[0]);
        assert_eq!(f, 0.844_060_4);
        // An int32 seed is sign-extended: [-1, 7] as int32 and as int64 draw the same.
        let a = philox_from_seed(&Tensor::from(vec![-1i32, 7])).unwrap();
        let b = philox_from_seed(&Tensor::from(vec![-1i64, 7])).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn fixed_seeds_are_typed_as_python_types_a_list() {
        let g = Graph::new();
        let small = SeedArg::from([1i64, -2]).to_output(&g).unwrap();
        assert_eq!(small.dtype(), DType::I32);
        let big = SeedArg::from([1i64, 1 << 40]).to_output(&g).unwrap();
        assert_eq!(big.dtype(), DType::I64);
        assert_eq!(big.name(), "seed_1:0");
    }

    #[test]
    fn bad_seeds_fail_as_in_tensorflow() {
        let e = philox_from_seed(&Tensor::from(vec![1i64, 2, 3])).unwrap_err();
        assert_eq!(e.message(), "seed must have shape [2], not [3]");
        let m = Tensor::from_vec(&[1, 2], vec![1i64, 2]).unwrap();
        let e = philox_from_seed(&m).unwrap_err();
        assert_eq!(e.message(), "seed must have shape [2], not [1,2]");
    }
}
