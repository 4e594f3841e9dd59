//! TensorFlow 2's stateless random ops, which take a Philox key and counter instead of a seed:
//! `StatelessRandomGetKeyCounter`, `StatelessRandomGetAlg`, `StatelessRandomGetKeyCounterAlg`,
//! `StatelessRandomUniformV2`, `StatelessRandomNormalV2`, `StatelessTruncatedNormalV2`,
//! `StatelessRandomUniformIntV2`, `StatelessRandomUniformFullIntV2`, `StatelessShuffle`, and
//! the samplers `StatelessRandomGammaV3`, `StatelessRandomGammaV2`, `StatelessRandomPoisson`
//! and `StatelessRandomBinomial`.
//!
//! TensorFlow 2.21's `tf.random.stateless_uniform(shape, seed)` scrambles the seed into a key
//! (`uint64 [1]`) and a counter (`uint64 [2]`) with `StatelessRandomGetKeyCounter`, then draws
//! with the V2 op; [`StatelessUniformV2`] and its siblings build that same node structure.
//! The values equal TensorFlow's CPU results bit for bit: the algorithm `alg` is Philox (1),
//! or auto-select (3), which is Philox on CPU; ThreeFry (2) fails as TensorFlow's CPU kernels
//! fail.
//!
//! ```
//! use weir_graph::{Graph, Shape};
//! use weir_ops::random::StatelessUniformV2;
//!
//! let g = Graph::new();
//! let u = StatelessUniformV2::new([2, 3], [1, 2]).build(&g)?;
//! assert_eq!(u.name(), "stateless_random_uniform:0");
//! assert_eq!(u.shape(), Shape::known(&[2, 3]));
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod binomial;
mod builders;
mod gamma_poisson;
mod kernels;
pub mod raw;

use weir_graph::{format_dims, Error, InferenceContext, Result, Tensor};

use super::philox::Philox;

pub(crate) use binomial::{BinomialPlan, BINOMIAL_TYPES};
pub use builders::{
    stateless_random_normal_v2, stateless_random_uniform_v2, stateless_shuffle,
    stateless_truncated_normal_v2, StatelessNormalV2, StatelessShuffle, StatelessTruncatedNormalV2,
    StatelessUniformV2,
};
pub(crate) use kernels::{full_int, ALG_AUTO_SELECT, ALG_PHILOX, ALG_THREEFRY};

/// Registers the V2 stateless ops and kernels.
pub(super) fn register() {
    kernels::register();
    gamma_poisson::register();
    binomial::register();
}

/// An RNG algorithm of TensorFlow's counter-based generators (`tf.random.Algorithm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Algorithm {
    /// Philox4x32-10 (`"philox"`, id 1).
    Philox,
    /// ThreeFry (`"threefry"`, id 2); TensorFlow's CPU kernels do not implement it.
    ThreeFry,
    /// The device's choice (`"auto_select"`, id 3): Philox on CPU.
    #[default]
    AutoSelect,
}

impl Algorithm {
    /// TensorFlow's id of the algorithm, as the `alg` inputs take it.
    pub fn id(self) -> i32 {
        match self {
            Algorithm::Philox => ALG_PHILOX,
            Algorithm::ThreeFry => ALG_THREEFRY,
            Algorithm::AutoSelect => ALG_AUTO_SELECT,
        }
    }

    /// The algorithm a Python name (`"philox"`, `"threefry"`, `"auto_select"`) names, as
    /// `convert_alg_to_int` canonicalizes it; InvalidArgument with TensorFlow's words otherwise.
    pub fn from_name(name: &str) -> Result<Algorithm> {
        let canon: String = name
            .trim()
            .to_lowercase()
            .chars()
            .filter(|&c| c != '-' && c != '_')
            .collect();
        match canon.as_str() {
            "philox" => Ok(Algorithm::Philox),
            "threefry" => Ok(Algorithm::ThreeFry),
            "autoselect" => Ok(Algorithm::AutoSelect),
            _ => Err(Error::invalid_argument(format!(
                "Argument `alg` got unsupported value {name}. Supported values are \
                 `Algorithm.PHILOX`, `Algorithm.THREEFRY` and `Algorithm.AUTO_SELECT`."
            ))),
        }
    }
}

/// The key, counter and algorithm inputs of a V2 kernel, checked as TensorFlow's
/// `GetKeyCounterAlgFromInputs` checks them. The algorithm is resolved (auto-select becomes
/// Philox) but not yet required to be supported: TensorFlow rejects an unknown one only when
/// there is something to draw.
pub(crate) struct KeyCounterAlg {
    key: u64,
    counter: [u64; 2],
    /// The resolved algorithm id.
    pub(crate) alg: i32,
}

impl KeyCounterAlg {
    /// Reads inputs `key`, `counter` and `alg` (the latter at input index `alg_index`).
    pub(crate) fn from_inputs(
        key: &Tensor,
        counter: &Tensor,
        alg: &Tensor,
        alg_index: usize,
    ) -> Result<KeyCounterAlg> {
        if alg.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "input {alg_index} (0-based) must have shape [], not {}",
                format_dims(alg.shape())
            )));
        }
        let mut id = alg.to_scalar::<i32>()?;
        if id == ALG_AUTO_SELECT {
            id = ALG_PHILOX;
        }
        if !(key.rank() == 1 && key.shape()[0] == 1) {
            return Err(Error::invalid_argument(format!(
                "key must have shape [1], not {}. (Note that batched keys are not supported yet.)",
                format_dims(key.shape())
            )));
        }
        // TensorFlow passes the algorithm's id where the minimum counter length belongs, so
        // Philox asks for one word and ThreeFry for two; weir keeps that check as it is.
        if !(counter.rank() == 1 && counter.shape()[0] as i64 >= id as i64) {
            return Err(Error::invalid_argument(format!(
                "counter must be a vector with length at least {id}; got shape: {}. (Note that \
                 batched counters are not supported yet.)",
                format_dims(counter.shape())
            )));
        }
        let c = counter.as_slice::<u64>()?;
        Ok(KeyCounterAlg {
            key: key.as_slice::<u64>()?[0],
            // A one-word counter passes the check above; TensorFlow then reads past its end,
            // weir reads zeros there.
            counter: [
                c.first().copied().unwrap_or(0),
                c.get(1).copied().unwrap_or(0),
            ],
            alg: id,
        })
    }

    /// The Philox generator the key and counter stand for; InvalidArgument for any other
    /// algorithm, as TensorFlow's CPU kernels fail.
    pub(crate) fn philox(&self) -> Result<Philox> {
        if self.alg != ALG_PHILOX {
            return Err(Error::invalid_argument(format!(
                "Unsupported algorithm id: {}",
                self.alg
            )));
        }
        Ok(philox_of(self.key, self.counter))
    }
}

/// TensorFlow's layout of a Philox key and counter in uint64 words: low 32 bits first.
pub(crate) fn philox_of(key: u64, counter: [u64; 2]) -> Philox {
    Philox::from_parts(
        [
            counter[0] as u32,
            (counter[0] >> 32) as u32,
            counter[1] as u32,
            (counter[1] >> 32) as u32,
        ],
        [key as u32, (key >> 32) as u32],
    )
}

/// The key and counter words of a generator, the inverse of [`philox_of`].
pub(crate) fn key_counter_of(gen: &Philox) -> (u64, [u64; 2]) {
    let (c, k) = gen.parts();
    let join = |lo: u32, hi: u32| lo as u64 | (hi as u64) << 32;
    (join(k[0], k[1]), [join(c[0], c[1]), join(c[2], c[3])])
}

/// Requires input `i` to be a vector of length `len` when known, in TensorFlow's words.
pub(crate) fn check_vector_len(ctx: &InferenceContext<'_>, i: usize, len: usize) -> Result<()> {
    let s = ctx.with_rank(i, 1)?;
    match s.dim(0) {
        Some(d) if d != len => Err(Error::invalid_argument(format!(
            "Dimension must be {len} but is {d} for '{}' (input {i} has shape {})",
            ctx.op_type,
            ctx.input_shape(i)
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_and_counter_words_round_trip() {
        let g = philox_of(0x0102_0304_0506_0708, [9, 1 << 40]);
        assert_eq!(key_counter_of(&g), (0x0102_0304_0506_0708, [9, 1 << 40]));
    }

    #[test]
    fn algorithm_names_are_canonicalized() {
        assert_eq!(Algorithm::from_name(" Auto-Select").unwrap().id(), 3);
        assert_eq!(Algorithm::from_name("PHILOX").unwrap(), Algorithm::Philox);
        assert!(Algorithm::from_name("mt").is_err());
    }

    #[test]
    fn inputs_are_checked_in_tensorflows_order() {
        let key = Tensor::from(vec![5u64]);
        let counter = Tensor::from(vec![7u64, 9]);
        let e = KeyCounterAlg::from_inputs(&key, &counter, &Tensor::from(vec![1i32]), 3);
        assert_eq!(
            e.err().unwrap().message(),
            "input 3 (0-based) must have shape [], not [1]"
        );
        let kca = KeyCounterAlg::from_inputs(&key, &counter, &Tensor::scalar(2i32), 3).unwrap();
        assert_eq!(
            kca.philox().unwrap_err().message(),
            "Unsupported algorithm id: 2"
        );
        let kca = KeyCounterAlg::from_inputs(&key, &counter, &Tensor::scalar(3i32), 3).unwrap();
        assert_eq!(kca.philox().unwrap(), philox_of(5, [7, 9]));
    }
}
