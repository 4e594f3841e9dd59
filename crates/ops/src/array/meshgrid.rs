//! `tf.meshgrid`: coordinate grids from 1-D tensors, built as TensorFlow's Python builds them
//! (each input reshaped to broadcast along its own axis, times a tensor of ones of the grid's
//! shape).

use weir_graph::{scalar_of, Error, Output, Result};

use super::{constant, fill, reshape, size, stack};

/// The `indexing` argument of [`meshgrid`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Indexing {
    /// Cartesian (`"xy"`, the default): the first two output dims are swapped.
    #[default]
    Xy,
    /// Matrix (`"ij"`).
    Ij,
}

/// `tf.meshgrid(*args, indexing="xy")`: for N 1-D inputs of sizes `s0..sN`, N grids of shape
/// `[s1, s0, s2, ...]` (`"xy"`) or `[s0, s1, ...]` (`"ij"`), grid `i` holding `args[i]` along
/// its axis.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::array::{constant, meshgrid, Indexing};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let (x, y) = (constant(&g, [1, 2, 3])?, constant(&g, [10, 20])?);
/// let grids = meshgrid(&[x, y], Indexing::Xy)?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&grids[0])?.to_vec::<i32>()?, vec![1, 2, 3, 1, 2, 3]);
/// assert_eq!(sess.eval(&grids[1])?.to_vec::<i32>()?, vec![10, 10, 10, 20, 20, 20]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn meshgrid(args: &[Output], indexing: Indexing) -> Result<Vec<Output>> {
    let first = args
        .first()
        .ok_or_else(|| Error::invalid_argument("meshgrid needs at least one tensor"))?;
    let g = crate::util::same_graph(&args.iter().collect::<Vec<_>>())?.clone();
    let _scope = g.name_scope("meshgrid");
    let ndim = args.len();
    let mut output = Vec::with_capacity(ndim);
    for (i, x) in args.iter().enumerate() {
        let mut s = vec![1i64; ndim];
        s[i] = -1;
        // Python's `stack(x)` of one tensor is the tensor itself.
        output.push(reshape(x, s)?);
    }
    // Python's `size` is a constant where the size is known.
    let mut shapes: Vec<Output> = args
        .iter()
        .map(|x| match x.shape().to_known() {
            Some(d) => constant(&g, d.iter().product::<usize>() as i32),
            None => size(x),
        })
        .collect::<Result<_>>()?;
    if indexing == Indexing::Xy && ndim > 1 {
        let mut s0 = vec![1i64; ndim];
        s0[1] = -1;
        let mut s1 = vec![1i64; ndim];
        s1[0] = -1;
        // (1, -1, 1, ...) and (-1, 1, 1, ...)
        output[0] = reshape(&output[0], s0)?;
        output[1] = reshape(&output[1], s1)?;
        shapes.swap(0, 1);
    }
    let one = constant(&g, scalar_of(first.dtype(), 1.0)?)?;
    let mult = fill(stack(&shapes, 0)?, &one)?;
    output.iter().map(|x| crate::math::mul(x, &mult)).collect()
}
