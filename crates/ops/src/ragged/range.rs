//! `RaggedRange`: one arithmetic sequence per row, as `tf.ragged.range` builds them.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, Graph, InferenceContext, Kernel, Node, OpContext, OpDef, Output, Result,
    Shape, Tensor,
};

use super::checks::{bounded, set_type_default, MAX_ELEMENTS};
use super::RaggedOutput;

const RANGE_TYPES: &[DType] = &[DType::BF16, DType::F32, DType::F64, DType::I32, DType::I64];
const SPLITS_TYPES: &[DType] = &[DType::I32, DType::I64];

/// Options of `tf.ragged.range(starts, limits=None, deltas=1, dtype=None,
/// row_splits_dtype=tf.int64)` (op `RaggedRange`).
#[derive(Clone, Debug)]
pub struct RaggedRange {
    deltas: Option<Output>,
    dtype: Option<DType>,
    row_splits_dtype: DType,
}

impl Default for RaggedRange {
    fn default() -> Self {
        RaggedRange::new()
    }
}

impl RaggedRange {
    /// TensorFlow's defaults: steps of 1, the dtype the inputs share, int64 row splits.
    pub fn new() -> RaggedRange {
        RaggedRange {
            deltas: None,
            dtype: None,
            row_splits_dtype: DType::I64,
        }
    }

    /// The step of each row (a scalar or a vector); 1 by default.
    pub fn deltas(mut self, deltas: impl Into<Output>) -> Self {
        self.deltas = Some(deltas.into());
        self
    }

    /// The dtype every input must have; by default the widest of the inputs' dtypes (in the
    /// order int32, int64, float32, float64), the others cast to it.
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = Some(dtype);
        self
    }

    /// The dtype of the row splits (int32 or int64).
    pub fn row_splits_dtype(mut self, dtype: DType) -> Self {
        self.row_splits_dtype = dtype;
        self
    }

    /// Adds the range of `[starts, limits)` per row; with `limits` `None`, `starts` is the
    /// limits and the starts are 0 (as Python's `range(n)`).
    pub fn build(&self, starts: impl Into<Output>, limits: Option<Output>) -> Result<RaggedOutput> {
        let first = starts.into();
        let g = first.graph().clone();
        let _scope = g.name_scope("RaggedRange");
        let scalar = |v: f64, dt: DType| crate::array::constant(&g, weir_graph::scalar_of(dt, v)?);
        let (starts, limits) = match limits {
            Some(l) => (first, l),
            None => (scalar(0.0, first.dtype())?, first),
        };
        let deltas = match &self.deltas {
            Some(d) => d.clone(),
            None => scalar(1.0, starts.dtype())?,
        };
        let mut ins = [starts, limits, deltas];
        match self.dtype {
            Some(dt) => {
                if let Some(o) = ins.iter().find(|o| o.dtype() != dt) {
                    return Err(Error::invalid_argument(format!(
                        "Tensor conversion requested dtype {} for Tensor with dtype {}: {}",
                        dt.python_name(),
                        o.dtype().python_name(),
                        o.name()
                    )));
                }
            }
            None => {
                let order = [DType::I32, DType::I64, DType::F32, DType::F64];
                let rank = |d: DType| order.iter().position(|&x| x == d);
                let widest = ins.iter().filter_map(|o| rank(o.dtype())).max();
                if let Some(w) = widest {
                    for o in ins.iter_mut() {
                        *o = crate::math::cast(o.clone(), order[w])?;
                    }
                }
            }
        }
        let [s, l, d] = ins;
        ragged_range_op(&g, s, l, d, self.row_splits_dtype)
    }
}

/// `tf.ragged.range(starts, limits, deltas)` (op `RaggedRange`): row `i` holds `starts[i],
/// starts[i] + deltas[i], ...` up to but excluding `limits[i]`; scalars broadcast to every row.
/// The three inputs share a dtype (int32, int64, float32, float64); the row splits are int64.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, ragged::ragged_range};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let rt = ragged_range(constant(&g, [3, 5])?, constant(&g, [6, 4])?, constant(&g, [1, -1])?)?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&rt.flat_values)?.to_vec::<i32>()?, [3, 4, 5, 5]);
/// assert_eq!(sess.eval(&rt.nested_row_splits[0])?.to_vec::<i64>()?, [0, 3, 4]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn ragged_range(
    starts: impl Into<Output>,
    limits: impl Into<Output>,
    deltas: impl Into<Output>,
) -> Result<RaggedOutput> {
    let (s, l, d) = (starts.into(), limits.into(), deltas.into());
    let g = crate::util::same_graph(&[&s, &l, &d])?.clone();
    ragged_range_op(&g, s, l, d, DType::I64)
}

fn ragged_range_op(
    g: &Graph,
    starts: Output,
    limits: Output,
    deltas: Output,
    splits: DType,
) -> Result<RaggedOutput> {
    let op = crate::new_op(g, "RaggedRange")
        .input(starts)
        .input(limits)
        .input(deltas)
        .attr("Tsplits", splits)
        .build()?;
    Ok(RaggedOutput {
        flat_values: op.output(1)?,
        nested_row_splits: vec![op.output(0)?],
    })
}

/// A number type `RaggedRange` counts in.
trait RangeValue: Copy + PartialOrd + weir_graph::TensorType {
    fn nil() -> Self;
    /// The number of values of the range, or TensorFlow's error for a float range too long.
    fn size(start: Self, limit: Self, delta: Self) -> Result<i64>;
    fn step(self, delta: Self) -> Self;
}

macro_rules! int_range {
    ($t:ty, $wide:ty) => {
        impl RangeValue for $t {
            fn nil() -> Self {
                0
            }
            fn size(start: Self, limit: Self, delta: Self) -> Result<i64> {
                let span = (limit as $wide - start as $wide).unsigned_abs();
                let step = (delta as $wide).unsigned_abs();
                Ok(span.div_ceil(step).min(i64::MAX as _) as i64)
            }
            fn step(self, delta: Self) -> Self {
                self.wrapping_add(delta)
            }
        }
    };
}
int_range!(i32, i64);
int_range!(i64, i128);

macro_rules! float_range {
    ($t:ty) => {
        impl RangeValue for $t {
            fn nil() -> Self {
                0.0
            }
            fn size(start: Self, limit: Self, delta: Self) -> Result<i64> {
                let n = ((limit - start) / delta).abs().ceil();
                if n.is_nan() || n > i64::MAX as $t {
                    return Err(Error::invalid_argument(format!(
                        "Requires ((limit - start) / delta) <= {}",
                        i64::MAX
                    )));
                }
                Ok(n as i64)
            }
            fn step(self, delta: Self) -> Self {
                self + delta
            }
        }
    };
}
float_range!(f32);
float_range!(f64);

fn compute<T: RangeValue>(ctx: &mut OpContext<'_>, splits: DType) -> Result<()> {
    for (i, what) in ["starts", "limits", "deltas"].iter().enumerate() {
        if ctx.input(i).rank() > 1 {
            return Err(Error::invalid_argument(format!(
                "{what} must be a scalar or vector"
            )));
        }
    }
    let ins: Vec<&[T]> = (0..3)
        .map(|i| ctx.input(i).as_slice::<T>())
        .collect::<Result<_>>()?;
    let sizes: Vec<usize> = (0..3)
        .filter(|&i| ctx.input(i).rank() == 1)
        .map(|i| ins[i].len())
        .collect();
    if sizes.windows(2).any(|w| w[0] != w[1]) {
        return Err(Error::invalid_argument(
            "starts, limits, and deltas must have the same shape",
        ));
    }
    let nrows = sizes.first().copied().unwrap_or(1);
    // A scalar input has one element, which every row reads.
    let at = |k: usize, row: usize| -> T {
        ins[k][if ins[k].len() == 1 && ctx.input(k).rank() == 0 {
            0
        } else {
            row
        }]
    };
    let mut row_splits = Vec::with_capacity(nrows + 1);
    row_splits.push(0i64);
    let mut total = 0i64;
    for row in 0..nrows {
        let (start, limit, delta) = (at(0, row), at(1, row), at(2, row));
        if delta == T::nil() {
            return Err(Error::invalid_argument("Requires delta != 0"));
        }
        let empty = (delta > T::nil() && limit < start) || (delta < T::nil() && limit > start);
        let size = if empty {
            0
        } else {
            T::size(start, limit, delta)?
        };
        total = total.saturating_add(size);
        if total as u64 > MAX_ELEMENTS as u64 {
            bounded(total, ctx.input(0).dtype(), &[])?;
        }
        row_splits.push(total);
    }
    let nvals = total as usize;
    let mut values = Vec::with_capacity(nvals);
    for row in 0..nrows {
        let (mut v, delta) = (at(0, row), at(2, row));
        for _ in row_splits[row]..row_splits[row + 1] {
            values.push(v);
            v = v.step(delta);
        }
    }
    let splits_t = match splits {
        DType::I32 => {
            if total > i32::MAX as i64 {
                return Err(Error::invalid_argument(
                    "RaggedRange: the row splits overflow int32",
                ));
            }
            Tensor::from_vec(&[nrows + 1], row_splits.iter().map(|&s| s as i32).collect())?
        }
        _ => Tensor::from_vec(&[nrows + 1], row_splits)?,
    };
    ctx.set_output(0, splits_t);
    ctx.set_output(1, Tensor::from_vec(&[nvals], values)?);
    Ok(())
}

struct RaggedRangeKernel {
    dtype: DType,
    splits: DType,
}

impl Kernel for RaggedRangeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        match self.dtype {
            DType::I32 => compute::<i32>(ctx, self.splits),
            DType::I64 => compute::<i64>(ctx, self.splits),
            DType::F32 => compute::<f32>(ctx, self.splits),
            DType::F64 => compute::<f64>(ctx, self.splits),
            dt => Err(Error::unimplemented(format!(
                "RaggedRange has no CPU kernel for {dt}"
            ))),
        }
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(RaggedRangeKernel {
        dtype: node.attr("T")?,
        splits: node.attr("Tsplits")?,
    }))
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    // `None`: no input is a vector yet; `Some(None)`: one is, of unknown length.
    let mut rows: Option<Option<usize>> = None;
    let mut unknown_rank = false;
    for i in 0..3 {
        match ctx.input_shape(i).dims() {
            Some(d) if d.len() > 1 => {
                return Err(Error::invalid_argument(format!(
                    "Shape must be at most rank 1 but is rank {}",
                    d.len()
                )))
            }
            Some(d) if d.len() == 1 => {
                if let (Some(Some(a)), Some(b)) = (rows, d[0]) {
                    if a != b {
                        return Err(Error::invalid_argument(format!(
                            "Dimensions must be equal, but are {a} and {b}"
                        )));
                    }
                }
                rows = Some(rows.flatten().or(d[0]));
            }
            Some(_) => {}
            None => unknown_rank = true,
        }
    }
    let rows = match rows {
        Some(r) => r,
        None if unknown_rank => None,
        None => Some(1),
    };
    ctx.set_output(0, Shape::new(vec![rows.map(|r| r + 1)]));
    ctx.set_output(1, Shape::new(vec![None]));
    Ok(())
}

pub(super) fn register() {
    let mut def = OpDef::new("RaggedRange")
        .input("starts", ArgType::Attr("T"))
        .input("limits", ArgType::Attr("T"))
        .input("deltas", ArgType::Attr("T"))
        .output("rt_nested_splits", ArgType::Attr("Tsplits"))
        .output("rt_dense_values", ArgType::Attr("T"))
        .type_attr("T", RANGE_TYPES)
        .type_attr("Tsplits", SPLITS_TYPES)
        .shape_fn(shape_fn);
    set_type_default(&mut def, "T", DType::I32);
    set_type_default(&mut def, "Tsplits", DType::I64);
    register_op(def);
    register_kernel("RaggedRange", make);
}
