//! `tf.compat.v1.scan` as TensorFlow 1 builds it: `elems` unstacked into TensorArrays, a
//! `while_loop` carrying the accumulators and the flows of the TensorArrays the accumulators
//! are written to, and those stacked.

use weir_graph::{Output, Result, Shape};

use super::functional::{check_structure, elems_graph, static_len, Len, LoopOptions};
use crate::array::constant;
use crate::math::{add, greater_equal, less, sub};
use crate::tensor_array::{Int32Arg, TensorArray};

/// `tf.compat.v1.scan(fn, elems, ...)` with its options; see [`scan`].
///
/// (Named `ScanFn` because [`math::Scan`](crate::math::Scan) is `cumsum`'s builder.)
///
/// ```
/// # use weir_graph::{Graph, Shape};
/// # use weir_ops::{array::constant, control_flow::ScanFn, math::add};
/// let g = Graph::new();
/// let x = constant(&g, [1.0f32, 2.0, 3.0, 4.0])?;
/// let sums = ScanFn::new().reverse(true).build(|a, x| Ok(vec![add(&a[0], &x[0])?]), &[x])?;
/// assert_eq!(sums[0].shape(), Shape::known(&[4]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ScanFn {
    initializer: Option<Vec<Output>>,
    options: LoopOptions,
    infer_shape: bool,
    reverse: bool,
    name: Option<String>,
}

impl Default for ScanFn {
    fn default() -> Self {
        ScanFn {
            initializer: None,
            options: LoopOptions {
                parallel_iterations: 10,
                back_prop: true,
                swap_memory: false,
            },
            infer_shape: true,
            reverse: false,
            name: None,
        }
    }
}

impl ScanFn {
    /// A `scan` with TensorFlow's defaults, named `scan`.
    pub fn new() -> ScanFn {
        ScanFn::default()
    }

    /// The accumulators' first values (TensorFlow's `initializer`); by default the first
    /// element of each of `elems`, which is then also the first output.
    pub fn initializer(mut self, initializer: &[Output]) -> ScanFn {
        self.initializer = Some(initializer.to_vec());
        self
    }

    /// How many iterations TensorFlow may run at once (default 10).
    pub fn parallel_iterations(mut self, n: i64) -> ScanFn {
        self.options.parallel_iterations = n;
        self
    }

    /// Whether gradients may flow through the loop (default true).
    pub fn back_prop(mut self, on: bool) -> ScanFn {
        self.options.back_prop = on;
        self
    }

    /// TensorFlow's `swap_memory` (default false); it changes nothing in weir.
    pub fn swap_memory(mut self, on: bool) -> ScanFn {
        self.options.swap_memory = on;
        self
    }

    /// Whether every accumulator must keep one shape (default true).
    pub fn infer_shape(mut self, on: bool) -> ScanFn {
        self.infer_shape = on;
        self
    }

    /// Whether to scan from the last element to the first (default false).
    pub fn reverse(mut self, on: bool) -> ScanFn {
        self.reverse = on;
        self
    }

    /// The name scope of the ops (default `scan`).
    pub fn name(mut self, name: &str) -> ScanFn {
        self.name = Some(name.to_string());
        self
    }

    /// Builds the scan; see [`scan`].
    pub fn build(
        &self,
        f: impl FnOnce(&[Output], &[Output]) -> Result<Vec<Output>>,
        elems: &[Output],
    ) -> Result<Vec<Output>> {
        let g = elems_graph(elems)?;
        let _scope = g.name_scope(self.name.as_deref().unwrap_or("scan"));
        if elems[0].shape().rank() == Some(0) {
            // What static_len says of it, before Python's scan fails on `shape[0]`.
            static_len(&elems[..1])?;
        }
        let n = Len::of(&elems[0], false)?;
        let elems_tas = elems
            .iter()
            .map(|e| {
                let rows = match e.shape().dims() {
                    Some(d) => Shape::new(d.get(1..).unwrap_or(&[]).to_vec()),
                    None => Shape::unknown(),
                };
                TensorArray::new(e.dtype())
                    .size(n.arg())
                    .element_shape(rows)
                    .build(&g)?
                    .unstack(e)
            })
            .collect::<Result<Vec<_>>>()?;
        let first_index = || -> Result<Int32Arg> {
            if self.reverse {
                n.minus(&g, 1)
            } else {
                Ok(Int32Arg::Value(0))
            }
        };
        let (a_flat, i) = match &self.initializer {
            None => {
                let reads = elems_tas
                    .iter()
                    .map(|ta| ta.read(first_index()?))
                    .collect::<Result<Vec<_>>>()?;
                (reads, 1)
            }
            Some(init) => (init.clone(), 0),
        };
        let mut accs_tas = a_flat
            .iter()
            .map(|a| {
                let shape = if self.infer_shape {
                    a.shape()
                } else {
                    Shape::unknown()
                };
                TensorArray::new(a.dtype())
                    .size(n.arg())
                    .element_shape(shape)
                    .infer_shape(self.infer_shape)
                    .build(&g)
            })
            .collect::<Result<Vec<_>>>()?;
        if self.initializer.is_none() {
            accs_tas = accs_tas
                .iter()
                .zip(&a_flat)
                .map(|(ta, a)| ta.write(first_index()?, a))
                .collect::<Result<Vec<_>>>()?;
        }
        let initial_i = if self.reverse {
            match n.minus(&g, 1)? {
                Int32Arg::Value(v) => constant(&g, v - i)?,
                Int32Arg::Tensor(o) => sub(&o, &constant(&g, i)?)?,
            }
        } else {
            constant(&g, i)?
        };
        let na = a_flat.len();
        let mut vars = vec![initial_i];
        vars.extend(a_flat.iter().cloned());
        vars.extend(accs_tas.iter().map(|t| t.flow().clone()));
        let max = n.tensor(&g, "maximum_iterations")?;
        let reverse = self.reverse;
        let out = self.options.while_loop(&max).build(
            |v| {
                if reverse {
                    greater_equal(&v[0], &constant(&g, 0i32)?)
                } else {
                    less(&v[0], &n.tensor(&g, "Less/y")?)
                }
            },
            |v| {
                let reads = elems_tas
                    .iter()
                    .map(|ta| ta.read(&v[0]))
                    .collect::<Result<Vec<_>>>()?;
                let a_out = f(&v[1..1 + na], &reads)?;
                check_structure(na, a_out.len())?;
                let one = constant(&g, 1i32)?;
                let mut next = vec![if reverse {
                    sub(&v[0], &one)?
                } else {
                    add(&v[0], &one)?
                }];
                next.extend(a_out.iter().cloned());
                for ((ta, flow), value) in accs_tas.iter().zip(&v[1 + na..]).zip(&a_out) {
                    next.push(ta.with_flow(flow).write(&v[0], value)?.flow().clone());
                }
                Ok(next)
            },
            &vars,
        )?;
        let n_static = static_len(elems)?;
        accs_tas
            .iter()
            .zip(&out[1 + na..])
            .map(|(ta, flow)| ta.with_flow(flow).stack_with_len(n_static))
            .collect()
    }
}

/// `tf.compat.v1.scan(fn, elems, initializer)`: the running accumulation of `f` over the
/// elements of `elems` along their first dimension, every intermediate value stacked.
///
/// `f(acc, elem)` gets the accumulators and one element of each of `elems`, and returns the
/// next accumulators. Without an `initializer` the accumulators start as the first element of
/// each of `elems` (which is also the first output); options such as `reverse` are on
/// [`ScanFn`].
///
/// ```
/// # use weir_graph::{Graph, Shape};
/// # use weir_ops::{array::constant, control_flow::scan, math::mul};
/// let g = Graph::new();
/// let x = constant(&g, [1.0f32, 2.0, 3.0])?;
/// let init = constant(&g, 2.0f32)?;
/// let products = scan(|a, x| Ok(vec![mul(&a[0], &x[0])?]), &[x], Some(&[init]))?;
/// assert_eq!(products[0].shape(), Shape::known(&[3]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn scan(
    f: impl FnOnce(&[Output], &[Output]) -> Result<Vec<Output>>,
    elems: &[Output],
    initializer: Option<&[Output]>,
) -> Result<Vec<Output>> {
    let mut s = ScanFn::new();
    if let Some(init) = initializer {
        s = s.initializer(init);
    }
    s.build(f, elems)
}
