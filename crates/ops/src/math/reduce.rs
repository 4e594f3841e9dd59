//! Reductions: `Sum`, `Mean`, `Prod`, `Max`, `Min` (numbers) and `Any`, `All` (bools), over the
//! axes given as an int32/int64 input tensor, with `keep_dims` (TensorFlow's `tf.reduce_*`).
//!
//! Empty reductions give the identity (0, 1, `-inf`/`+inf` or the integer min/max, `false`,
//! `true`); the mean of nothing is NaN for floats and 0 for integers, as in TensorFlow. Max and
//! min propagate NaN.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor,
};

use super::binary::Arith;
use super::reduce_eigen::{reduce_bf16, reduce_complex, reduce_f16, Arithmetic};
use super::reduce_engine::{Fold, Plan};
use crate::array::shape_util::{const_i64s, index_const, to_i64s};

/// The axes a reduction folds: TensorFlow's `axis` argument.
#[derive(Clone, Debug)]
pub enum Axes {
    /// Every axis (`axis=None`).
    All,
    /// These axes; negative ones count from the end. An empty list reduces nothing.
    List(Vec<i64>),
    /// Axes computed by the graph: an int32 or int64 scalar or vector.
    Tensor(Output),
}

macro_rules! axes_from_ints {
    ($($t:ty),*) => {$(
        impl From<$t> for Axes {
            fn from(a: $t) -> Axes { Axes::List(vec![a as i64]) }
        }
        impl From<Vec<$t>> for Axes {
            fn from(a: Vec<$t>) -> Axes { Axes::List(a.into_iter().map(|v| v as i64).collect()) }
        }
        impl From<&[$t]> for Axes {
            fn from(a: &[$t]) -> Axes { Axes::List(a.iter().map(|&v| v as i64).collect()) }
        }
        impl<const N: usize> From<[$t; N]> for Axes {
            fn from(a: [$t; N]) -> Axes { Axes::List(a.iter().map(|&v| v as i64).collect()) }
        }
        impl<const N: usize> From<&[$t; N]> for Axes {
            fn from(a: &[$t; N]) -> Axes { Axes::List(a.iter().map(|&v| v as i64).collect()) }
        }
    )*};
}
axes_from_ints!(i32, i64, usize);

impl From<Output> for Axes {
    fn from(o: Output) -> Axes {
        Axes::Tensor(o)
    }
}

impl From<&Output> for Axes {
    fn from(o: &Output) -> Axes {
        Axes::Tensor(o.clone())
    }
}

impl Axes {
    /// The axes as an index tensor of `x`'s graph: a constant, or `range(0, rank(x))` when all
    /// axes of a tensor of unknown rank are meant (TensorFlow's `_ReductionDims`).
    pub(crate) fn to_output(&self, x: &Output) -> Result<Output> {
        let g = x.graph();
        match self {
            Axes::List(v) => index_const(g, v),
            Axes::Tensor(o) => Ok(o.clone()),
            Axes::All => match x.shape().rank() {
                Some(r) => index_const(g, &(0..r as i64).collect::<Vec<_>>()),
                None => {
                    let zero = crate::array::constant(g, 0i32)?;
                    let one = crate::array::constant(g, 1i32)?;
                    super::range_from(&zero, &crate::array::rank(x)?, &one)
                }
            },
        }
    }
}

/// The options of `tf.reduce_*(input_tensor, axis=None, keepdims=False, name=None)`.
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::{array::constant, math::Reduce};
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[2, 3], vec![1.0f32; 6])?)?;
/// let s = Reduce::sum().axis(-1).keep_dims(true).build(&x)?;
/// assert_eq!(s.shape(), Shape::known(&[2, 1]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Reduce {
    op: &'static str,
    axis: Axes,
    keep_dims: bool,
    name: Option<String>,
}

impl Reduce {
    fn new(op: &'static str) -> Reduce {
        Reduce {
            op,
            axis: Axes::All,
            keep_dims: false,
            name: None,
        }
    }

    /// `tf.reduce_sum` (op `Sum`); integers wrap.
    pub fn sum() -> Reduce {
        Reduce::new("Sum")
    }

    /// `tf.reduce_mean` (op `Mean`); integer means truncate.
    pub fn mean() -> Reduce {
        Reduce::new("Mean")
    }

    /// `tf.reduce_prod` (op `Prod`).
    pub fn prod() -> Reduce {
        Reduce::new("Prod")
    }

    /// `tf.reduce_max` (op `Max`).
    pub fn max() -> Reduce {
        Reduce::new("Max")
    }

    /// `tf.reduce_min` (op `Min`).
    pub fn min() -> Reduce {
        Reduce::new("Min")
    }

    /// `tf.math.reduce_euclidean_norm` (op `EuclideanNorm`): `sqrt(sum(x * conj(x)))`.
    pub fn euclidean_norm() -> Reduce {
        Reduce::new("EuclideanNorm")
    }

    /// `tf.reduce_any` (op `Any`) of a bool tensor.
    pub fn any() -> Reduce {
        Reduce::new("Any")
    }

    /// `tf.reduce_all` (op `All`) of a bool tensor.
    pub fn all() -> Reduce {
        Reduce::new("All")
    }

    /// The axes to reduce (default: all).
    pub fn axis(mut self, axis: impl Into<Axes>) -> Reduce {
        self.axis = axis.into();
        self
    }

    /// Keeps reduced axes with size 1 (`keepdims=True`).
    pub fn keep_dims(mut self, keep: bool) -> Reduce {
        self.keep_dims = keep;
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> Reduce {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the reduction of `x`.
    pub fn build(self, x: impl Into<Output>) -> Result<Output> {
        let x = x.into();
        let axes = self.axis.to_output(&x)?;
        crate::new_op(&x.graph().clone(), self.op)
            .maybe_name(self.name.as_deref())
            .input(x)
            .input(axes)
            .attr("keep_dims", self.keep_dims)
            .build()?
            .output(0)
    }
}

macro_rules! reduce_fns {
    ($($(#[$doc:meta])* $name:ident => $ctor:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(x: impl Into<Output>, axis: impl Into<Axes>) -> Result<Output> {
            Reduce::$ctor().axis(axis).build(x)
        }
    )*};
}

reduce_fns! {
    /// `tf.reduce_sum(x, axis)`; use [`Axes::All`] for every axis, [`Reduce`] for `keepdims`.
    reduce_sum => sum;
    /// `tf.reduce_mean(x, axis)`.
    reduce_mean => mean;
    /// `tf.reduce_prod(x, axis)`.
    reduce_prod => prod;
    /// `tf.reduce_max(x, axis)`.
    reduce_max => max;
    /// `tf.reduce_min(x, axis)`.
    reduce_min => min;
    /// `tf.math.reduce_euclidean_norm(x, axis)`.
    reduce_euclidean_norm => euclidean_norm;
    /// `tf.reduce_any(x, axis)` for bool tensors.
    reduce_any => any;
    /// `tf.reduce_all(x, axis)` for bool tensors.
    reduce_all => all;
}

/// Which dims of a rank-`rank` tensor `axes` reduces; TensorFlow's errors otherwise.
pub(crate) fn reduction_flags(axes: &[i64], rank: usize) -> Result<Vec<bool>> {
    let r = rank as i64;
    let mut flags = vec![false; rank];
    for &a in axes {
        if a < -r || a >= r {
            return Err(Error::invalid_argument(format!(
                "Invalid reduction dimension ({a} for input with {rank} dimension(s)"
            )));
        }
        let i = ((a + r) % r.max(1)) as usize;
        if flags[i] {
            return Err(Error::invalid_argument(format!(
                "Invalid reduction arguments: Axes contains duplicate dimension: {i}"
            )));
        }
        flags[i] = true;
    }
    Ok(flags)
}

/// TensorFlow's `ReductionShape`: constant axes must be in range (with the shape function's own
/// message); repeated axes are left for the kernel to reject, as TensorFlow leaves them.
pub(crate) fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let keep: bool = ctx.attr("keep_dims")?;
    let input = ctx.input_shape(0).clone();
    let out = match (input.dims(), const_i64s(ctx, 1)?) {
        (Some(dims), Some(axes)) => {
            let r = dims.len() as i64;
            let mut reduced = vec![false; dims.len()];
            for a in axes {
                if a < -r || a >= r {
                    return Err(Error::invalid_argument(format!(
                        "Invalid reduction dimension {a} for input with {r} dimensions."
                    )));
                }
                reduced[((a + r) % r) as usize] = true;
            }
            let d: Vec<_> = dims
                .iter()
                .zip(&reduced)
                .filter_map(|(&d, &red)| match (red, keep) {
                    (false, _) => Some(d),
                    (true, true) => Some(Some(1)),
                    (true, false) => None,
                })
                .collect();
            Shape::new(d)
        }
        (Some(dims), None) if keep => Shape::unknown_of_rank(dims.len()),
        _ => Shape::unknown(),
    };
    ctx.set_output(0, out);
    Ok(())
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum RedOp {
    Sum,
    Mean,
    Prod,
    Max,
    Min,
    Any,
    All,
}

fn numeric<T: Arith>(op: RedOp, x: &Tensor, plan: &Plan) -> Result<Vec<T>> {
    let xs = x.as_slice::<T>()?;
    Ok(match op {
        RedOp::Sum => plan.run(
            xs,
            &Fold {
                identity: T::default(),
                f: T::add,
            },
        ),
        RedOp::Mean => {
            let mut v = plan.run(
                xs,
                &Fold {
                    identity: T::default(),
                    f: T::add,
                },
            );
            for s in &mut v {
                *s = T::div_count(*s, plan.count);
            }
            v
        }
        RedOp::Prod => plan.run(
            xs,
            &Fold {
                identity: T::one(),
                f: T::mul,
            },
        ),
        RedOp::Max => plan.run(
            xs,
            &Fold {
                identity: T::lowest(),
                f: T::max,
            },
        ),
        RedOp::Min => plan.run(
            xs,
            &Fold {
                identity: T::highest(),
                f: T::min,
            },
        ),
        RedOp::Any | RedOp::All => return Err(Error::internal("bool reduction on numbers")),
    })
}

/// Reductions of the half and complex types, in TensorFlow's order of combination.
fn reduce_wide(op: RedOp, x: &Tensor, plan: &Plan, out_shape: &[usize]) -> Result<Tensor> {
    let dt = x.dtype();
    let arith = match op {
        RedOp::Sum => Arithmetic::Sum,
        RedOp::Mean => Arithmetic::Mean,
        RedOp::Prod => Arithmetic::Prod,
        // Exact in any order.
        RedOp::Max | RedOp::Min => {
            return weir_graph::match_half_dtype!(dt,
                T => Tensor::from_vec(out_shape, numeric::<T>(op, x, plan)?),
                _ => Err(Error::invalid_argument(format!("Cannot reduce {dt} tensors"))))
        }
        RedOp::Any | RedOp::All => return Err(Error::internal("bool reduction on numbers")),
    };
    match dt {
        DType::F16 => Tensor::from_vec(out_shape, reduce_f16(arith, x.as_slice()?, plan)),
        DType::BF16 => Tensor::from_vec(out_shape, reduce_bf16(arith, x.as_slice()?, plan)),
        _ => weir_graph::match_complex_dtype!(dt,
            T => Tensor::from_vec(out_shape, reduce_complex::<T>(arith, x.as_slice()?, plan)),
            _ => Err(Error::invalid_argument(format!("Cannot reduce {dt} tensors")))),
    }
}

struct ReduceKernel {
    op: RedOp,
    keep_dims: bool,
}

impl Kernel for ReduceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let axes = to_i64s(ctx.input(1))?;
        if ctx.input(1).rank() > 1 {
            return Err(Error::invalid_argument(
                "reduction_indices must be a scalar or vector",
            ));
        }
        let x = ctx.take_input(0);
        let flags = reduction_flags(&axes, x.rank())?;
        let out_shape: Vec<usize> = x
            .shape()
            .iter()
            .zip(&flags)
            .filter_map(|(&d, &r)| match (r, self.keep_dims) {
                (false, _) => Some(d),
                (true, true) => Some(1),
                (true, false) => None,
            })
            .collect();
        let plan = Plan::new(x.shape(), &flags);
        let out = if plan.is_identity() {
            x.reshape(&out_shape)?
        } else {
            let dt = x.dtype();
            match self.op {
                RedOp::Any | RedOp::All => {
                    let xs = x.as_slice::<bool>()?;
                    let v = if self.op == RedOp::Any {
                        plan.run(
                            xs,
                            &Fold {
                                identity: false,
                                f: |a: bool, b: bool| a | b,
                            },
                        )
                    } else {
                        plan.run(
                            xs,
                            &Fold {
                                identity: true,
                                f: |a: bool, b: bool| a & b,
                            },
                        )
                    };
                    Tensor::from_vec(&out_shape, v)?
                }
                op => weir_graph::match_real_dtype!(dt,
                    T => Tensor::from_vec(&out_shape, numeric::<T>(op, &x, &plan)?)?,
                    _ => reduce_wide(op, &x, &plan, &out_shape)?),
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

const OPS: &[(&str, RedOp)] = &[
    ("Sum", RedOp::Sum),
    ("Mean", RedOp::Mean),
    ("Prod", RedOp::Prod),
    ("Max", RedOp::Max),
    ("Min", RedOp::Min),
    ("Any", RedOp::Any),
    ("All", RedOp::All),
];

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let op = OPS
        .iter()
        .find(|(name, _)| *name == node.op_type())
        .map(|&(_, op)| op)
        .ok_or_else(|| Error::internal(format!("not a reduction: {}", node.op_type())))?;
    Ok(Box::new(ReduceKernel {
        op,
        keep_dims: node.attr("keep_dims")?,
    }))
}

pub(super) fn register() {
    for &(name, op) in OPS {
        let def = OpDef::new(name);
        let def = if matches!(op, RedOp::Any | RedOp::All) {
            def.input("input", ArgType::Fixed(DType::Bool))
                .output("output", ArgType::Fixed(DType::Bool))
        } else {
            let types = if matches!(op, RedOp::Max | RedOp::Min) {
                super::arith_ext::REAL_AND_HALF
            } else {
                super::arith_ext::ALL_NUMBERS
            };
            def.input("input", ArgType::Attr("T"))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", types)
        };
        register_op(
            def.input("reduction_indices", ArgType::Attr("Tidx"))
                .type_attr("Tidx", &[DType::I32, DType::I64])
                .attr("keep_dims", AttrKind::Bool, Some(AttrValue::Bool(false)))
                .shape_fn(shape_fn),
        );
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_check_range_and_duplicates() {
        assert_eq!(reduction_flags(&[-1], 2).unwrap(), vec![false, true]);
        assert_eq!(reduction_flags(&[], 2).unwrap(), vec![false, false]);
        let e = reduction_flags(&[2], 2).unwrap_err();
        assert_eq!(
            e.message(),
            "Invalid reduction dimension (2 for input with 2 dimension(s)"
        );
        let e = reduction_flags(&[0, -2], 2).unwrap_err();
        assert_eq!(
            e.message(),
            "Invalid reduction arguments: Axes contains duplicate dimension: 0"
        );
        assert!(reduction_flags(&[0], 0).is_err());
    }

    #[test]
    fn numeric_identities_and_nan() {
        let empty = Tensor::from(Vec::<f32>::new());
        let plan = Plan::new(&[0], &[true]);
        assert_eq!(
            numeric::<f32>(RedOp::Max, &empty, &plan).unwrap(),
            vec![f32::NEG_INFINITY]
        );
        assert_eq!(
            numeric::<f32>(RedOp::Prod, &empty, &plan).unwrap(),
            vec![1.0]
        );
        assert!(numeric::<f32>(RedOp::Mean, &empty, &plan).unwrap()[0].is_nan());
        let ints = Tensor::from(Vec::<i32>::new());
        assert_eq!(numeric::<i32>(RedOp::Mean, &ints, &plan).unwrap(), vec![0]);
        assert_eq!(
            numeric::<i32>(RedOp::Min, &ints, &plan).unwrap(),
            vec![i32::MAX]
        );
        let x = Tensor::from(vec![1.0f32, f32::NAN, 3.0]);
        let plan = Plan::new(&[3], &[true]);
        assert!(numeric::<f32>(RedOp::Max, &x, &plan).unwrap()[0].is_nan());
        assert!(numeric::<f32>(RedOp::Min, &x, &plan).unwrap()[0].is_nan());
        let x = Tensor::from(vec![7i32, -2, 4]);
        assert_eq!(numeric::<i32>(RedOp::Mean, &x, &plan).unwrap(), vec![3]);
        let x = Tensor::from(vec![-7i32, 2]);
        assert_eq!(
            numeric::<i32>(RedOp::Mean, &x, &Plan::new(&[2], &[true])).unwrap(),
            vec![-2]
        );
    }
}
