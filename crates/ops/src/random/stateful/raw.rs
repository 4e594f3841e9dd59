//! Builders of the raw stateful RNG ops (`tf.raw_ops.StatefulUniform`, `RngSkip`, ...), which
//! take the resource handle of an int64 state variable and an algorithm id.
//!
//! ```
//! use weir_graph::{DType, Graph, Shape};
//! use weir_ops::array::constant;
//! use weir_ops::random::stateful::raw;
//! use weir_ops::state::Variable;
//!
//! let g = Graph::new();
//! let state = Variable::builder(constant(&g, [1234i64, 0, 0])?).trainable(false).build()?;
//! let alg = constant(&g, 1i64)?;
//! let u = raw::stateful_uniform(&g, state.handle(), &alg, [2, 2], DType::F32)?;
//! assert_eq!(u.shape(), Shape::known(&[2, 2]));
//! # Ok::<(), weir_graph::Error>(())
//! ```

use weir_graph::{DType, Graph, Operation, Output, Result};

use super::super::ShapeArg;

fn distribution(
    op: &str,
    graph: &Graph,
    resource: &Output,
    algorithm: &Output,
    shape: ShapeArg,
    dtype: DType,
) -> Result<Output> {
    let shape = shape.to_output(graph)?;
    crate::new_op(graph, op)
        .input(resource)
        .input(algorithm)
        .input(&shape)
        .attr("dtype", dtype)
        .attr("shape_dtype", shape.dtype())
        .build()?
        .output(0)
}

/// `StatefulUniform(resource, algorithm, shape, dtype)`: floats in `[0, 1)`.
pub fn stateful_uniform(
    graph: &Graph,
    resource: &Output,
    algorithm: &Output,
    shape: impl Into<ShapeArg>,
    dtype: DType,
) -> Result<Output> {
    distribution(
        "StatefulUniform",
        graph,
        resource,
        algorithm,
        shape.into(),
        dtype,
    )
}

/// `StatefulStandardNormalV2(resource, algorithm, shape, dtype)`: standard normal floats.
pub fn stateful_standard_normal_v2(
    graph: &Graph,
    resource: &Output,
    algorithm: &Output,
    shape: impl Into<ShapeArg>,
    dtype: DType,
) -> Result<Output> {
    distribution(
        "StatefulStandardNormalV2",
        graph,
        resource,
        algorithm,
        shape.into(),
        dtype,
    )
}

/// `StatefulTruncatedNormal(resource, algorithm, shape, dtype)`: standard normal floats
/// redrawn beyond two standard deviations.
pub fn stateful_truncated_normal(
    graph: &Graph,
    resource: &Output,
    algorithm: &Output,
    shape: impl Into<ShapeArg>,
    dtype: DType,
) -> Result<Output> {
    distribution(
        "StatefulTruncatedNormal",
        graph,
        resource,
        algorithm,
        shape.into(),
        dtype,
    )
}

/// `StatefulUniformFullInt(resource, algorithm, shape, dtype)`: ints over the whole range of
/// int32, int64, uint32 or uint64.
pub fn stateful_uniform_full_int(
    graph: &Graph,
    resource: &Output,
    algorithm: &Output,
    shape: impl Into<ShapeArg>,
    dtype: DType,
) -> Result<Output> {
    distribution(
        "StatefulUniformFullInt",
        graph,
        resource,
        algorithm,
        shape.into(),
        dtype,
    )
}

/// `StatefulUniformInt(resource, algorithm, shape, minval, maxval)`: ints in
/// `[minval, maxval)` of the bounds' dtype.
pub fn stateful_uniform_int(
    graph: &Graph,
    resource: &Output,
    algorithm: &Output,
    shape: impl Into<ShapeArg>,
    minval: &Output,
    maxval: &Output,
) -> Result<Output> {
    let shape = shape.into().to_output(graph)?;
    crate::new_op(graph, "StatefulUniformInt")
        .input(resource)
        .input(algorithm)
        .input(&shape)
        .input(minval)
        .input(maxval)
        .attr("dtype", minval.dtype())
        .attr("shape_dtype", shape.dtype())
        .build()?
        .output(0)
}

/// `RngSkip(resource, algorithm, delta)`: moves the state's counter as drawing `delta`
/// values would (int64 algorithm and delta).
pub fn rng_skip(resource: &Output, algorithm: &Output, delta: &Output) -> Result<Operation> {
    crate::new_op(resource.graph(), "RngSkip")
        .input(resource)
        .input(algorithm)
        .input(delta)
        .build()
}

/// `RngReadAndSkip(resource, alg, delta)`: the state as it was (int64 `[3]`), then the counter
/// moved as drawing `delta` values would (int32 `alg`, uint64 `delta`).
pub fn rng_read_and_skip(resource: &Output, alg: &Output, delta: &Output) -> Result<Output> {
    crate::new_op(resource.graph(), "RngReadAndSkip")
        .input(resource)
        .input(alg)
        .input(delta)
        .build()?
        .output(0)
}

/// `StatefulRandomBinomial(resource, algorithm, shape, counts, probs, dtype)`: binomial samples
/// drawn from the state variable (Philox only, as in TensorFlow).
pub fn stateful_random_binomial(
    graph: &Graph,
    resource: &Output,
    algorithm: &Output,
    shape: impl Into<ShapeArg>,
    counts: &Output,
    probs: &Output,
    dtype: DType,
) -> Result<Output> {
    let shape = shape.into().to_output(graph)?;
    crate::new_op(graph, "StatefulRandomBinomial")
        .input(resource)
        .input(algorithm)
        .input(&shape)
        .input(counts)
        .input(probs)
        .attr("dtype", dtype)
        .build()?
        .output(0)
}
