//! `tf.compat.v1.foldl` and `tf.compat.v1.foldr` as TensorFlow 1 builds them: `elems`
//! unstacked into TensorArrays and a `while_loop` carrying the accumulators.

use weir_graph::{Error, Output, Result};

use super::functional::{elems_graph, Len, LoopOptions};
use crate::array::constant;
use crate::math::{add, greater, less, sub};
use crate::tensor_array::{Int32Arg, TensorArray};

/// The options `foldl` and `foldr` share.
#[derive(Clone, Debug)]
struct FoldOptions {
    initializer: Option<Vec<Output>>,
    options: LoopOptions,
    name: Option<String>,
}

impl Default for FoldOptions {
    fn default() -> Self {
        FoldOptions {
            initializer: None,
            options: LoopOptions {
                parallel_iterations: 10,
                back_prop: true,
                swap_memory: false,
            },
            name: None,
        }
    }
}

macro_rules! fold_builder {
    ($t:ident, $scope:literal, $right:literal) => {
        impl $t {
            #[doc = concat!("A `", $scope, "` with TensorFlow's defaults, named `", $scope, "`.")]
            pub fn new() -> $t {
                $t::default()
            }

            /// The accumulators' first values (TensorFlow's `initializer`); by default the
            /// first (for `foldr`, the last) element of each of `elems`.
            pub fn initializer(mut self, initializer: &[Output]) -> $t {
                self.0.initializer = Some(initializer.to_vec());
                self
            }

            /// How many iterations TensorFlow may run at once (default 10).
            pub fn parallel_iterations(mut self, n: i64) -> $t {
                self.0.options.parallel_iterations = n;
                self
            }

            /// Whether gradients may flow through the loop (default true).
            pub fn back_prop(mut self, on: bool) -> $t {
                self.0.options.back_prop = on;
                self
            }

            /// TensorFlow's `swap_memory` (default false); it changes nothing in weir.
            pub fn swap_memory(mut self, on: bool) -> $t {
                self.0.options.swap_memory = on;
                self
            }

            #[doc = concat!("The name scope of the ops (default `", $scope, "`).")]
            pub fn name(mut self, name: &str) -> $t {
                self.0.name = Some(name.to_string());
                self
            }

            #[doc = concat!("Builds the fold; see [`", $scope, "`].")]
            pub fn build(
                &self,
                f: impl FnOnce(&[Output], &[Output]) -> Result<Vec<Output>>,
                elems: &[Output],
            ) -> Result<Vec<Output>> {
                fold(&self.0, $right, $scope, f, elems)
            }
        }
    };
}

/// `tf.compat.v1.foldl(fn, elems, ...)` with its options; see [`foldl`].
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, control_flow::Foldl, math::sub};
/// let g = Graph::new();
/// let x = constant(&g, [1.0f32, 2.0, 3.0])?;
/// let init = constant(&g, 10.0f32)?;
/// let r = Foldl::new().initializer(&[init]).build(|a, x| Ok(vec![sub(&a[0], &x[0])?]), &[x])?;
/// assert_eq!(r.len(), 1);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Foldl(FoldOptions);

/// `tf.compat.v1.foldr(fn, elems, ...)` with its options; see [`foldr`].
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, control_flow::Foldr, math::sub};
/// let g = Graph::new();
/// let x = constant(&g, [1.0f32, 2.0, 3.0])?;
/// let r = Foldr::new().parallel_iterations(1).build(|a, x| Ok(vec![sub(&a[0], &x[0])?]), &[x])?;
/// assert_eq!(r.len(), 1);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Foldr(FoldOptions);

fold_builder!(Foldl, "foldl", false);
fold_builder!(Foldr, "foldr", true);

fn fold(
    opts: &FoldOptions,
    right: bool,
    default_name: &str,
    f: impl FnOnce(&[Output], &[Output]) -> Result<Vec<Output>>,
    elems: &[Output],
) -> Result<Vec<Output>> {
    let g = elems_graph(elems)?;
    let _scope = g.name_scope(opts.name.as_deref().unwrap_or(default_name));
    if elems.iter().any(|e| e.shape().rank() == Some(0)) {
        // Python fails on `shape[0]` of a scalar (an IndexError).
        return Err(Error::invalid_argument(
            "Elements in elems must be 1+ dimensional Tensors, not scalars",
        ));
    }
    let n = Len::of(&elems[0], true)?;
    let elems_tas = elems
        .iter()
        .map(|e| {
            TensorArray::new(e.dtype())
                .size(n.arg())
                .build(&g)?
                .unstack(e)
        })
        .collect::<Result<Vec<_>>>()?;
    let (i, a) = match (&opts.initializer, right) {
        (None, false) => {
            let a = elems_tas
                .iter()
                .map(|ta| ta.read(0))
                .collect::<Result<Vec<_>>>()?;
            (constant(&g, 1i32)?, a)
        }
        (None, true) => {
            let i = n.minus(&g, 1)?;
            let a = elems_tas
                .iter()
                .map(|ta| ta.read(i.clone()))
                .collect::<Result<Vec<_>>>()?;
            (i.output(&g)?, a)
        }
        (Some(init), false) => (constant(&g, 0i32)?, init.clone()),
        (Some(init), true) => (n.arg().output(&g)?, init.clone()),
    };
    let mut vars = vec![i];
    vars.extend(a);
    let max = n.tensor(&g, "maximum_iterations")?;
    let mut out = opts.options.while_loop(&max).build(
        |v| {
            if right {
                greater(&v[0], &constant(&g, 0i32)?)
            } else {
                less(&v[0], &n.tensor(&g, "Less/y")?)
            }
        },
        |v| {
            let one = constant(&g, 1i32)?;
            let (index, next_i) = if right {
                let i = sub(&v[0], &one)?;
                (i.clone(), i)
            } else {
                (v[0].clone(), add(&v[0], &one)?)
            };
            let reads = elems_tas
                .iter()
                .map(|ta| ta.read(Int32Arg::Tensor(index.clone())))
                .collect::<Result<Vec<_>>>()?;
            let a_out = f(&v[1..], &reads)?;
            let mut next = vec![next_i];
            next.extend(a_out);
            Ok(next)
        },
        &vars,
    )?;
    out.remove(0);
    Ok(out)
}

/// `tf.compat.v1.foldl(fn, elems, initializer)`: `f` applied to the accumulators and each
/// element of `elems` in turn, from the first element to the last; the final accumulators.
///
/// `f(acc, elem)` gets the accumulators and one element of each of `elems` and returns the
/// next accumulators. Without an `initializer` the accumulators start as the first element of
/// each of `elems`. Options are on [`Foldl`].
///
/// ```
/// # use weir_graph::{Graph, Shape};
/// # use weir_ops::{array::constant, control_flow::foldl, math::add};
/// let g = Graph::new();
/// let x = constant(&g, [1.0f32, 2.0, 3.0, 4.0])?;
/// let total = foldl(|a, x| Ok(vec![add(&a[0], &x[0])?]), &[x], None)?;
/// assert_eq!(total[0].shape(), Shape::scalar());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn foldl(
    f: impl FnOnce(&[Output], &[Output]) -> Result<Vec<Output>>,
    elems: &[Output],
    initializer: Option<&[Output]>,
) -> Result<Vec<Output>> {
    let mut b = Foldl::new();
    if let Some(init) = initializer {
        b = b.initializer(init);
    }
    b.build(f, elems)
}

/// `tf.compat.v1.foldr(fn, elems, initializer)`: like [`foldl`], from the last element to the
/// first; without an `initializer` the accumulators start as the last element of each of
/// `elems`. Options are on [`Foldr`].
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, control_flow::foldr, math::sub};
/// let g = Graph::new();
/// let x = constant(&g, [1.0f32, 2.0, 3.0, 4.0])?;
/// let r = foldr(|a, x| Ok(vec![sub(&a[0], &x[0])?]), &[x], None)?;
/// assert_eq!(r.len(), 1);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn foldr(
    f: impl FnOnce(&[Output], &[Output]) -> Result<Vec<Output>>,
    elems: &[Output],
    initializer: Option<&[Output]>,
) -> Result<Vec<Output>> {
    let mut b = Foldr::new();
    if let Some(init) = initializer {
        b = b.initializer(init);
    }
    b.build(f, elems)
}
