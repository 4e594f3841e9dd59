//! Builders of the raw V2 stateless ops (`tf.raw_ops.StatelessRandomUniformV2`, ...), which take
//! an explicit key, counter and algorithm.
//!
//! ```
//! use weir_graph::{DType, Graph, Shape};
//! use weir_ops::array::constant;
//! use weir_ops::random::stateless_v2::raw;
//!
//! let g = Graph::new();
//! let (key, counter) = raw::stateless_random_get_key_counter(&constant(&g, [1i64, 2])?)?;
//! let alg = constant(&g, 1i32)?;
//! let u = raw::stateless_random_uniform_v2(&g, [4], &key, &counter, &alg, DType::F64)?;
//! assert_eq!(u.shape(), Shape::known(&[4]));
//! # Ok::<(), weir_graph::Error>(())
//! ```

use weir_graph::{DType, Graph, Output, Result};

use super::super::ShapeArg;
pub use super::binomial::stateless_random_binomial;
pub use super::gamma_poisson::{
    stateless_random_gamma_v2, stateless_random_gamma_v3, stateless_random_poisson,
};

/// `StatelessRandomGetKeyCounter(seed)`: the Philox key (`uint64 [1]`) and counter
/// (`uint64 [2]`) of a shape-`[2]` int32/int64 seed.
pub fn stateless_random_get_key_counter(seed: &Output) -> Result<(Output, Output)> {
    let op = crate::new_op(seed.graph(), "StatelessRandomGetKeyCounter")
        .input(seed)
        .attr("Tseed", seed.dtype())
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `StatelessRandomGetKeyCounterAlg(seed)`: the key, the counter and the algorithm
/// (`int32`, Philox on CPU).
pub fn stateless_random_get_key_counter_alg(seed: &Output) -> Result<(Output, Output, Output)> {
    let op = crate::new_op(seed.graph(), "StatelessRandomGetKeyCounterAlg")
        .input(seed)
        .attr("Tseed", seed.dtype())
        .build()?;
    Ok((op.output(0)?, op.output(1)?, op.output(2)?))
}

/// `StatelessRandomGetAlg()`: the algorithm auto-select picks (`int32` 1, Philox, on CPU).
pub fn stateless_random_get_alg(graph: &Graph) -> Result<Output> {
    crate::new_op(graph, "StatelessRandomGetAlg")
        .build()?
        .output(0)
}

fn distribution(
    op: &str,
    graph: &Graph,
    shape: ShapeArg,
    key: &Output,
    counter: &Output,
    alg: &Output,
    dtype: DType,
) -> Result<Output> {
    let shape = shape.to_output(graph)?;
    crate::new_op(graph, op)
        .input(&shape)
        .input(key)
        .input(counter)
        .input(alg)
        .attr("dtype", dtype)
        .attr("Tshape", shape.dtype())
        .build()?
        .output(0)
}

/// `StatelessRandomUniformV2(shape, key, counter, alg, dtype)`: floats in `[0, 1)` (float16,
/// bfloat16, float32 or float64).
pub fn stateless_random_uniform_v2(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    key: &Output,
    counter: &Output,
    alg: &Output,
    dtype: DType,
) -> Result<Output> {
    distribution(
        "StatelessRandomUniformV2",
        graph,
        shape.into(),
        key,
        counter,
        alg,
        dtype,
    )
}

/// `StatelessRandomNormalV2(shape, key, counter, alg, dtype)`: standard normal floats.
pub fn stateless_random_normal_v2(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    key: &Output,
    counter: &Output,
    alg: &Output,
    dtype: DType,
) -> Result<Output> {
    distribution(
        "StatelessRandomNormalV2",
        graph,
        shape.into(),
        key,
        counter,
        alg,
        dtype,
    )
}

/// `StatelessTruncatedNormalV2(shape, key, counter, alg, dtype)`: standard normal floats
/// redrawn beyond two standard deviations.
pub fn stateless_truncated_normal_v2(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    key: &Output,
    counter: &Output,
    alg: &Output,
    dtype: DType,
) -> Result<Output> {
    distribution(
        "StatelessTruncatedNormalV2",
        graph,
        shape.into(),
        key,
        counter,
        alg,
        dtype,
    )
}

/// `StatelessRandomUniformFullIntV2(shape, key, counter, alg, dtype)`: ints over the whole range
/// of int32, int64, uint32 or uint64.
pub fn stateless_random_uniform_full_int_v2(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    key: &Output,
    counter: &Output,
    alg: &Output,
    dtype: DType,
) -> Result<Output> {
    distribution(
        "StatelessRandomUniformFullIntV2",
        graph,
        shape.into(),
        key,
        counter,
        alg,
        dtype,
    )
}

/// `StatelessRandomUniformIntV2(shape, key, counter, alg, minval, maxval)`: ints in
/// `[minval, maxval)`, of the bounds' dtype.
pub fn stateless_random_uniform_int_v2(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    key: &Output,
    counter: &Output,
    alg: &Output,
    minval: &Output,
    maxval: &Output,
) -> Result<Output> {
    let shape = shape.into().to_output(graph)?;
    crate::new_op(graph, "StatelessRandomUniformIntV2")
        .input(&shape)
        .input(key)
        .input(counter)
        .input(alg)
        .input(minval)
        .input(maxval)
        .attr("dtype", minval.dtype())
        .attr("Tshape", shape.dtype())
        .build()?
        .output(0)
}

/// `StatelessShuffle(value, key, counter, alg)`: `value` with its first dimension permuted.
pub fn stateless_shuffle(
    value: &Output,
    key: &Output,
    counter: &Output,
    alg: &Output,
) -> Result<Output> {
    crate::new_op(value.graph(), "StatelessShuffle")
        .input(value)
        .input(key)
        .input(counter)
        .input(alg)
        .attr("T", value.dtype())
        .build()?
        .output(0)
}
