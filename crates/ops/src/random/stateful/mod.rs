//! TensorFlow 2's stateful RNG ops, which draw from a generator state kept in an int64
//! variable (`StatefulUniform`, `StatefulUniformInt`, `StatefulUniformFullInt`,
//! `StatefulStandardNormalV2`, `StatefulTruncatedNormal`, `StatefulRandomBinomial`, `RngSkip`,
//! `RngReadAndSkip`), and
//! [`Generator`], the graph-mode `tf.random.Generator` built on them.
//!
//! A Philox state is three int64 words: the 128-bit counter (low word first) and the 64-bit
//! key. Each op reads the state, moves the counter past what it draws (256 blocks per output,
//! as TensorFlow reserves them) and draws from the state it read, so consecutive runs continue
//! the stream exactly as TensorFlow's CPU kernels do.
//!
//! ```
//! use weir_graph::{Graph, Shape};
//! use weir_ops::random::{Algorithm, Generator};
//!
//! let g = Graph::new();
//! let gen = Generator::from_seed(&g, 1234, Algorithm::Philox)?;
//! let u = gen.uniform([2, 3]).build()?;
//! assert_eq!(u.name(), "stateful_uniform:0");
//! assert_eq!(u.shape(), Shape::known(&[2, 3]));
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod generator;
mod generator_methods;
mod kernels;
pub mod raw;

use weir_graph::{Error, Result, Tensor};

use super::philox::Philox;
use super::stateless_v2::{philox_of, ALG_AUTO_SELECT, ALG_PHILOX, ALG_THREEFRY};

pub use generator::{create_rng_state, Generator, RngSeed};
pub use generator_methods::{
    GeneratorBinomial, GeneratorNormal, GeneratorUniform, GeneratorUniformFullInt,
};

/// Registers the stateful RNG ops and kernels.
pub(super) fn register() {
    kernels::register();
}

/// The counter skip of `outputs` draws: TensorFlow reserves 256 blocks per output, in uint64
/// arithmetic that wraps.
fn skip_of(outputs: u64) -> u64 {
    outputs.wrapping_mul(256)
}

/// TensorFlow's `CheckState`: an int64 vector.
fn check_state(state: &Tensor) -> Result<()> {
    if state.dtype() != weir_graph::DType::I64 {
        return Err(Error::invalid_argument(format!(
            "dtype of RNG state variable must be int64, not {}",
            state.dtype().python_name()
        )));
    }
    if state.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "RNG state must have one and only one dimension, not {}",
            state.rank()
        )));
    }
    Ok(())
}

/// The algorithm of a stateful op, as TensorFlow's CPU kernels take it: Philox (or
/// auto-select, Philox on CPU); ThreeFry is Unimplemented; anything else InvalidArgument.
fn require_philox(alg: i64) -> Result<()> {
    match alg {
        a if a == ALG_PHILOX as i64 || a == ALG_AUTO_SELECT as i64 => Ok(()),
        a if a == ALG_THREEFRY as i64 => Err(Error::unimplemented(
            "Non-XLA devices don't support the ThreeFry algorithm.",
        )),
        a => Err(Error::invalid_argument(format!(
            "Unsupported algorithm id: {a}"
        ))),
    }
}

/// The Philox generator of a state (counter words, then key), after TensorFlow's size check.
fn philox_of_state(state: &[i64]) -> Result<Philox> {
    if state.len() < 3 {
        return Err(Error::invalid_argument(format!(
            "For the Philox algorithm, the size of state must be at least 3; got {}",
            state.len()
        )));
    }
    Ok(philox_of(
        state[2] as u64,
        [state[0] as u64, state[1] as u64],
    ))
}

/// `state` with its Philox part replaced by `gen`'s counter and key.
fn write_philox(state: &[i64], gen: &Philox) -> Vec<i64> {
    let (key, counter) = super::stateless_v2::key_counter_of(gen);
    let mut out = state.to_vec();
    out[0] = counter[0] as i64;
    out[1] = counter[1] as i64;
    out[2] = key as i64;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipping_moves_the_counter_with_tensorflows_carries() {
        // [-1, -1, 7] skipped by one output: the 128-bit counter wraps to 255.
        let gen = philox_of_state(&[-1, -1, 7]).unwrap();
        let mut next = gen;
        next.skip(skip_of(1));
        assert_eq!(write_philox(&[-1, -1, 7], &next), [255, 0, 7]);
        // A huge skip wraps in uint64 before it is added, as in TensorFlow.
        assert_eq!(skip_of(1 << 60), 0);
    }

    #[test]
    fn bad_states_and_algorithms_fail_in_tensorflows_words() {
        let e = philox_of_state(&[1, 2]).unwrap_err();
        assert_eq!(
            e.message(),
            "For the Philox algorithm, the size of state must be at least 3; got 2"
        );
        assert!(require_philox(2).unwrap_err().is_unimplemented());
        assert_eq!(
            require_philox(0).unwrap_err().message(),
            "Unsupported algorithm id: 0"
        );
        let e = check_state(&Tensor::from(vec![1i32, 2, 3])).unwrap_err();
        assert_eq!(
            e.message(),
            "dtype of RNG state variable must be int64, not int32"
        );
    }
}
