//! `tf.random.Generator` in graph mode: a state variable (`random_generator/StateVar`) and
//! methods that draw from it, node for node as TensorFlow 2.21's `stateful_random_ops.py`
//! builds them: `RngReadAndSkip` reserves counters and returns the state it read, whose
//! counter and key feed a V2 stateless op.

use weir_graph::{DType, Error, Graph, Output, Result, Tensor};

use super::super::stateless_v2::Algorithm;
use super::super::ShapeArg;
use super::generator_methods::{
    GeneratorBinomial, GeneratorNormal, GeneratorUniform, GeneratorUniformFullInt,
};
use crate::array::constant_named;
use crate::state::Variable;

/// The seed of [`Generator::from_seed`] and [`create_rng_state`]: a Python integer (128 bits
/// here, sign-extended beyond as Python's infinite-precision ints are) or a vector of integers.
#[derive(Clone, Debug)]
pub enum RngSeed {
    /// An integer, cut into 64-bit words, low word first.
    Int(i128),
    /// Words, cut to the state size or padded with zeros on the left.
    Words(Vec<i64>),
}

impl From<u64> for RngSeed {
    fn from(s: u64) -> RngSeed {
        RngSeed::Int(s as i128)
    }
}
impl From<i64> for RngSeed {
    fn from(s: i64) -> RngSeed {
        RngSeed::Int(s as i128)
    }
}
impl From<i32> for RngSeed {
    fn from(s: i32) -> RngSeed {
        RngSeed::Int(s as i128)
    }
}
impl From<i128> for RngSeed {
    fn from(s: i128) -> RngSeed {
        RngSeed::Int(s)
    }
}
impl From<Vec<i64>> for RngSeed {
    fn from(s: Vec<i64>) -> RngSeed {
        RngSeed::Words(s)
    }
}

/// The state size of an algorithm: three words for Philox (and auto-select), two for ThreeFry.
fn state_size(alg: Algorithm) -> usize {
    match alg {
        Algorithm::ThreeFry => 2,
        _ => 3,
    }
}

/// The counter size: two words for Philox (and auto-select), one for ThreeFry.
fn counter_size(alg: Algorithm) -> usize {
    state_size(alg) - 1
}

/// `tf.random.create_rng_state(seed, alg)`: the int64 state vector a seed gives.
pub fn create_rng_state(seed: impl Into<RngSeed>, alg: Algorithm) -> Tensor {
    let size = state_size(alg);
    let words = match seed.into() {
        RngSeed::Int(s) => int_words(s, size),
        RngSeed::Words(w) => {
            let w = &w[..w.len().min(size)];
            let mut out = vec![0i64; size - w.len()];
            out.extend_from_slice(w);
            out
        }
    };
    Tensor::from(words)
}

/// A Python int chopped into `size` 64-bit words, low word first; a negative one has all
/// bits set above, as Python's `seed >>= 64` keeps it negative.
fn int_words(mut s: i128, size: usize) -> Vec<i64> {
    (0..size)
        .map(|_| {
            let w = s as u64 as i64;
            s >>= 64;
            w
        })
        .collect()
}

/// The Python side's `_shape_tensor`: an empty list becomes an int64 shape, others as usual.
pub(super) fn shape_tensor(graph: &Graph, shape: &ShapeArg) -> Result<Output> {
    match shape {
        ShapeArg::Fixed(d) if d.is_empty() => {
            constant_named(graph, Tensor::from(Vec::<i64>::new()), "shape")
        }
        s => s.to_output(graph),
    }
}

/// A graph-mode `tf.random.Generator`: its state lives in the session, in an int64 variable,
/// so every run of a method continues the stream.
///
/// ```
/// use weir_graph::{DType, Graph};
/// use weir_ops::random::{Algorithm, Generator};
///
/// let g = Graph::new();
/// let gen = Generator::from_seed(&g, 7, Algorithm::Philox)?;
/// assert_eq!(gen.state().name(), "random_generator/StateVar");
/// let noise = gen.normal([4]).stddev(0.5).build()?;
/// let ids = gen.uniform([3]).minval(0).maxval(10).dtype(DType::I64).build()?;
/// let seeds = gen.make_seeds(2)?; // int64 [2, 2], for stateless ops
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Generator {
    state: Variable,
    alg: Algorithm,
}

impl Generator {
    /// `tf.random.Generator.from_seed(seed, alg)`.
    pub fn from_seed(graph: &Graph, seed: impl Into<RngSeed>, alg: Algorithm) -> Result<Generator> {
        let state = initial_state(graph, seed.into(), state_size(alg))?;
        Generator::from_state(&state, alg)
    }

    /// `tf.random.Generator.from_state(state, alg)`: a new state variable initialized to
    /// `state`, an int64 vector of the algorithm's state size.
    pub fn from_state(state: &Output, alg: Algorithm) -> Result<Generator> {
        let size = state_size(alg);
        let shape = state.shape();
        if !shape.is_compatible_with(&weir_graph::Shape::known(&[size])) {
            return Err(Error::invalid_argument(format!(
                "Shapes {} and ({size},) are incompatible",
                python_shape(&shape)
            )));
        }
        let graph = state.graph().clone();
        let _scope = graph.name_scope("random_generator");
        // The seed's state is computed in the graph, where weir cannot infer its length (Python
        // sets it); such a variable takes its shape from the first assignment.
        let var = Variable::builder(state.clone())
            .name("StateVar")
            .trainable(false)
            .validate_shape(shape.is_fully_defined())
            .build()?;
        Ok(Generator { state: var, alg })
    }

    /// A generator over an existing int64 state variable (Python's `from_state` given a
    /// variable), which it updates in place.
    pub fn from_variable(state: Variable, alg: Algorithm) -> Generator {
        Generator { state, alg }
    }

    /// The state variable (`generator.state`).
    pub fn state(&self) -> &Variable {
        &self.state
    }

    /// The algorithm (`generator.algorithm`).
    pub fn algorithm(&self) -> Algorithm {
        self.alg
    }

    pub(super) fn graph(&self) -> &Graph {
        self.state.graph()
    }

    /// `generator.skip(delta)`: the state as it was (int64 `[3]`), then the counter moved as
    /// drawing `delta` values would.
    pub fn skip(&self, delta: i64) -> Result<Output> {
        let g = self.graph().clone();
        self.read_and_skip(&g, Err(delta))
    }

    /// `RngReadAndSkip` of `delta` (an int tensor, or a Python int), with the algorithm and the
    /// delta cast as Python's `_skip_single_var` casts them.
    fn read_and_skip(&self, g: &Graph, delta: std::result::Result<&Output, i64>) -> Result<Output> {
        let scope = g.name_scope("Cast");
        let alg = constant_named(g, Tensor::scalar(self.alg.id()), "x")?;
        drop(scope);
        let scope = g.name_scope("Cast");
        let delta = match delta {
            Ok(t) => t.clone(),
            Err(d) => match i32::try_from(d) {
                Ok(d) => constant_named(g, Tensor::scalar(d), "x")?,
                Err(_) => constant_named(g, Tensor::scalar(d), "x")?,
            },
        };
        let delta = crate::new_op(g, "Cast")
            .name(scope.prefix())
            .input(&delta)
            .attr("DstT", DType::U64)
            .build()?
            .output(0)?;
        drop(scope);
        super::raw::rng_read_and_skip(self.state.handle(), &alg, &delta)
    }

    /// Python's `_prepare_key_counter`: reserves the counters of `shape`'s values and returns
    /// the key and counter (uint64) the draw starts from.
    fn prepare_key_counter(&self, g: &Graph, shape: &Output) -> Result<(Output, Output)> {
        let axis = constant_named(g, Tensor::from(vec![0i32]), "Const")?;
        let delta = crate::new_op(g, "Prod")
            .input(shape)
            .input(&axis)
            .attr("keep_dims", false)
            .build()?
            .output(0)?;
        let counter_key = self.read_and_skip(g, Ok(&delta))?;
        let n = counter_size(self.alg) as i32;
        let counter = slice(g, &counter_key, 0, n, 1)?;
        let counter = crate::array::bitcast(counter, DType::U64)?;
        let key = slice(g, &counter_key, n, n + 1, 0)?;
        let key = crate::array::bitcast(key, DType::U64)?;
        Ok((key, counter))
    }

    /// A V2 stateless op drawing `shape` values from this generator's next counters.
    pub(super) fn draw(
        &self,
        g: &Graph,
        op: &str,
        name: Option<&str>,
        shape: &Output,
        extra: &[&Output],
        dtype: Option<DType>,
    ) -> Result<Output> {
        let (key, counter) = self.prepare_key_counter(g, shape)?;
        let scope = g.name_scope(name.unwrap_or(op));
        let alg = constant_named(g, Tensor::scalar(self.alg.id()), "alg")?;
        let mut b = crate::new_op(g, op)
            .name(scope.prefix())
            .input(shape)
            .input(&key)
            .input(&counter)
            .input(&alg);
        for x in extra {
            b = b.input(*x);
        }
        if let Some(dtype) = dtype {
            b = b.attr("dtype", dtype);
        }
        let out = b.build()?.output(0);
        drop(scope);
        out
    }

    /// `generator.uniform(shape, minval=0, maxval=None, dtype=tf.float32, name=None)`.
    pub fn uniform(&self, shape: impl Into<ShapeArg>) -> GeneratorUniform {
        GeneratorUniform::new(self, shape.into())
    }

    /// `generator.uniform_full_int(shape, dtype=tf.uint64, name=None)`.
    pub fn uniform_full_int(&self, shape: impl Into<ShapeArg>) -> GeneratorUniformFullInt {
        GeneratorUniformFullInt::new(self, shape.into())
    }

    /// `generator.normal(shape, mean=0.0, stddev=1.0, dtype=tf.float32, name=None)`.
    pub fn normal(&self, shape: impl Into<ShapeArg>) -> GeneratorNormal {
        GeneratorNormal::new(self, shape.into(), false)
    }

    /// `generator.truncated_normal(shape, mean=0.0, stddev=1.0, dtype=tf.float32, name=None)`.
    pub fn truncated_normal(&self, shape: impl Into<ShapeArg>) -> GeneratorNormal {
        GeneratorNormal::new(self, shape.into(), true)
    }

    /// `generator.binomial(shape, counts, probs, dtype=tf.int32, name=None)`: binomial samples
    /// of `shape` (which ends with the broadcast shape of `counts` and `probs`).
    pub fn binomial(
        &self,
        shape: impl Into<ShapeArg>,
        counts: impl Into<Tensor>,
        probs: impl Into<Tensor>,
    ) -> GeneratorBinomial {
        GeneratorBinomial::new(self, shape.into(), counts.into(), probs.into())
    }

    /// `generator.make_seeds(count=1)`: int64 `[2, count]` seeds for stateless ops, new keys
    /// over zeros.
    pub fn make_seeds(&self, count: usize) -> Result<Output> {
        let keys = self.uniform_full_int([count]).dtype(DType::I64).build()?;
        let g = self.graph().clone();
        // `zeros_like` of a tensor of known shape is a constant in TensorFlow's graph.
        let zeros = constant_named(&g, Tensor::from(vec![0i64; count]), "zeros_like")?;
        crate::new_op(&g, "Pack")
            .name("stack")
            .input(&keys)
            .input(&zeros)
            .attr("axis", 0i64)
            .build()?
            .output(0)
    }

    /// `generator.split(count=1)`: `count` new generators, each with a fresh key drawn from
    /// this one and a zero counter. Their state variables are initialized from this
    /// generator's draw, so initialize this one first.
    pub fn split(&self, count: usize) -> Result<Vec<Generator>> {
        let keys = self.uniform_full_int([count]).dtype(DType::I64).build()?;
        let g = self.graph().clone();
        let keys = crate::array::unstack(keys, Some(count), 0)?;
        keys.iter()
            .map(|key| {
                let zero = crate::array::constant(&g, 0i64)?;
                let mut b = crate::new_op(&g, "Pack").name("packed");
                for _ in 1..state_size(self.alg) {
                    b = b.input(&zero);
                }
                let state = b.input(key).attr("axis", 0i64).build()?.output(0)?;
                Generator::from_state(&state, self.alg)
            })
            .collect()
    }
}

/// The state a seed gives, computed in the graph as Python's `_make_1d_state` builds it (cast,
/// reshape, cut to the state size, pad with zeros on the left), so the nodes and names that
/// follow match TensorFlow's.
fn initial_state(g: &Graph, seed: RngSeed, size: usize) -> Result<Output> {
    let words = match seed {
        RngSeed::Int(s) => int_words(s, size),
        RngSeed::Words(w) => w,
    };
    let n = words.len();
    let scope = g.name_scope("Cast");
    let fits = words.iter().all(|&w| i32::try_from(w).is_ok());
    let state = if fits {
        let x = constant_named(
            g,
            Tensor::from(words.iter().map(|&w| w as i32).collect::<Vec<_>>()),
            "x",
        )?;
        crate::new_op(g, "Cast")
            .name(scope.prefix())
            .input(&x)
            .attr("DstT", DType::I64)
            .build()?
            .output(0)?
    } else {
        constant_named(g, Tensor::from(words), "x")?
    };
    drop(scope);
    let scope = g.name_scope("Reshape");
    let flat = constant_named(g, Tensor::from(vec![-1i32]), "shape")?;
    let state = crate::new_op(g, "Reshape")
        .name(scope.prefix())
        .input(&state)
        .input(&flat)
        .build()?
        .output(0)?;
    drop(scope);
    let state = slice(g, &state, 0, size as i32, 0)?;
    let scope = g.name_scope("Maximum");
    let x = constant_named(g, Tensor::scalar((size - n.min(size)) as i32), "x")?;
    let y = constant_named(g, Tensor::scalar(0i32), "y")?;
    let pad = crate::new_op(g, "Maximum")
        .name(scope.prefix())
        .input(&x)
        .input(&y)
        .build()?
        .output(0)?;
    drop(scope);
    let scope = g.name_scope("zeros");
    let dims = crate::new_op(g, "Pack")
        .name("packed")
        .input(&pad)
        .attr("axis", 0i64)
        .build()?
        .output(0)?;
    let zero = constant_named(g, Tensor::scalar(0i64), "Const")?;
    let zeros = crate::new_op(g, "Fill")
        .name(scope.prefix())
        .input(&dims)
        .input(&zero)
        .build()?
        .output(0)?;
    drop(scope);
    let scope = g.name_scope("concat");
    let axis = constant_named(g, Tensor::scalar(0i32), "axis")?;
    let out = crate::new_op(g, "ConcatV2")
        .name(scope.prefix())
        .input(&zeros)
        .input(&state)
        .input(&axis)
        .build()?
        .output(0);
    drop(scope);
    out
}

/// `x[begin:end]` as Python's slicing builds it (`strided_slice` with its `stack` constants).
fn slice(g: &Graph, x: &Output, begin: i32, end: i32, begin_mask: i64) -> Result<Output> {
    let scope = g.name_scope("strided_slice");
    let b = constant_named(g, Tensor::from(vec![begin]), "stack")?;
    let e = constant_named(g, Tensor::from(vec![end]), "stack_1")?;
    let s = constant_named(g, Tensor::from(vec![1i32]), "stack_2")?;
    let out = crate::new_op(g, "StridedSlice")
        .name(scope.prefix())
        .input(x)
        .input(&b)
        .input(&e)
        .input(&s)
        .attr("begin_mask", begin_mask)
        .build()?
        .output(0);
    drop(scope);
    out
}

/// A static shape as Python prints it in messages: `(3,)`, `(2, 3)`, `<unknown>`.
fn python_shape(s: &weir_graph::Shape) -> String {
    match s.dims() {
        None => "<unknown>".to_string(),
        Some(d) => {
            let parts: Vec<String> = d
                .iter()
                .map(|x| x.map_or("None".to_string(), |n| n.to_string()))
                .collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_become_states_as_create_rng_state_makes_them() {
        let s = create_rng_state(1234u64, Algorithm::Philox);
        assert_eq!(s.to_vec::<i64>().unwrap(), [1234, 0, 0]);
        let big = (1i128 << 64) | 5;
        let s = create_rng_state(big, Algorithm::AutoSelect);
        assert_eq!(s.to_vec::<i64>().unwrap(), [5, 1, 0]);
        let s = create_rng_state(vec![12i64, 34], Algorithm::Philox);
        assert_eq!(s.to_vec::<i64>().unwrap(), [0, 12, 34]);
        let s = create_rng_state(vec![1i64, 2, 3, 4], Algorithm::ThreeFry);
        assert_eq!(s.to_vec::<i64>().unwrap(), [1, 2]);
        let s = create_rng_state(u64::MAX, Algorithm::Philox);
        assert_eq!(s.to_vec::<i64>().unwrap(), [-1, 0, 0]);
        // Python: create_rng_state(-2, "philox") is [-2, -1, -1].
        let s = create_rng_state(-2i64, Algorithm::Philox);
        assert_eq!(s.to_vec::<i64>().unwrap(), [-2, -1, -1]);
    }

    #[test]
    fn a_state_of_the_wrong_size_is_refused() {
        let g = Graph::new();
        let st = crate::array::constant(&g, [1i64, 2]).unwrap();
        let e = Generator::from_state(&st, Algorithm::Philox).unwrap_err();
        assert_eq!(e.message(), "Shapes (2,) and (3,) are incompatible");
    }
}
