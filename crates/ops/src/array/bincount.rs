//! Counting integers: `Bincount` (TensorFlow 1's kernel) and `DenseBincount` (what
//! `tf.math.bincount` builds in TensorFlow 2.21), and the `tf.math.bincount` builder with its
//! `weights`, `minlength`, `maxlength` and `dtype`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::shape_util::{const_i64s, to_i64s};
use crate::math::Arith;

const WEIGHT_TYPES: &[DType] = &[DType::I32, DType::I64, DType::F32, DType::F64];

/// Options of `tf.math.bincount(arr, weights=None, minlength=None, maxlength=None,
/// dtype=tf.int32)`.
#[derive(Clone, Debug)]
pub struct Bincount {
    weights: Option<Output>,
    minlength: Option<i64>,
    maxlength: Option<i64>,
    dtype: DType,
}

impl Default for Bincount {
    fn default() -> Self {
        Bincount::new()
    }
}

impl Bincount {
    /// TensorFlow's defaults: counts of dtype int32, as long as the largest value needs.
    pub fn new() -> Bincount {
        Bincount {
            weights: None,
            minlength: None,
            maxlength: None,
            dtype: DType::I32,
        }
    }

    /// Sum these (of `arr`'s shape) instead of counting ones; the output takes their dtype.
    pub fn weights(mut self, w: impl Into<Output>) -> Self {
        self.weights = Some(w.into());
        self
    }

    /// The output is at least this long.
    pub fn minlength(mut self, n: i64) -> Self {
        self.minlength = Some(n);
        self
    }

    /// The output is at most this long: larger values are not counted.
    pub fn maxlength(mut self, n: i64) -> Self {
        self.maxlength = Some(n);
        self
    }

    /// The dtype of the counts without weights.
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// Adds TensorFlow's graph: the size `max(arr) + 1` (0 for an empty `arr`) clipped to
    /// `[minlength, maxlength]`, then `DenseBincount` over the flattened `arr` and weights.
    pub fn build(&self, arr: impl Into<Output>) -> Result<Output> {
        use crate::array::{constant, reshape, size};
        use crate::math::{add, cast, greater, maximum, minimum, mul, reduce_max, Axes};
        let arr = arr.into();
        let g = arr.graph().clone();
        let _scope = g.name_scope("bincount");
        let arr = if arr.dtype().is_integer() {
            arr
        } else {
            cast(&arr, DType::I32)?
        };
        let dt = arr.dtype();
        let num = |v: i64| constant(&g, weir_graph::scalar_of(dt, v as f64)?);
        let nonempty = greater(size(&arr)?, constant(&g, 0)?)?;
        let top = add(reduce_max(&arr, Axes::All)?, num(1)?)?;
        let mut out_size = mul(cast(&nonempty, dt)?, top)?;
        if let Some(n) = self.minlength {
            out_size = maximum(num(n)?, out_size)?;
        }
        if let Some(n) = self.maxlength {
            out_size = minimum(num(n)?, out_size)?;
        }
        let weights = match &self.weights {
            Some(w) => reshape(w, [-1])?,
            None => constant(&g, Tensor::zeros(self.dtype, &[0])?)?,
        };
        crate::new_op(&g, "DenseBincount")
            .input(reshape(&arr, [-1])?)
            .input(out_size)
            .input(weights)
            .attr("binary_output", false)
            .build()?
            .output(0)
    }
}

/// `tf.math.bincount(arr)`: how often each value `0..=max(arr)` occurs in the non-negative
/// integers `arr` (see [`Bincount`] for weights, lengths and dtype).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::array::{bincount, constant};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let c = bincount(constant(&g, [1, 1, 2, 5])?)?;
/// assert_eq!(Session::new(&g)?.eval(&c)?.to_vec::<i32>()?, vec![0, 2, 1, 0, 0, 1]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn bincount(arr: impl Into<Output>) -> Result<Output> {
    Bincount::new().build(arr)
}

/// Bins `values` (rows of `width`, or one row) into `out` (rows of `size`).
fn count<T: Arith>(
    values: &[i64],
    weights: Option<&[T]>,
    size: usize,
    width: usize,
    binary: bool,
    out: &mut [T],
) -> Result<()> {
    if values.iter().any(|&v| v < 0) {
        return Err(Error::invalid_argument("Input arr must be non-negative!"));
    }
    for (i, &v) in values.iter().enumerate() {
        let v = v as usize;
        if v >= size {
            continue;
        }
        let slot = &mut out[(i / width.max(1)) * size + v];
        *slot = match (binary, weights) {
            (true, _) => T::one(),
            (false, Some(w)) => T::add(*slot, w[i]),
            (false, None) => T::add(*slot, T::one()),
        };
    }
    Ok(())
}

struct BincountKernel {
    dense: bool,
    binary: bool,
}

impl Kernel for BincountKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (arr, size_t, w) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if size_t.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "Shape must be rank 0 but is rank {}",
                size_t.rank()
            )));
        }
        let size = to_i64s(size_t)?[0];
        if size < 0 {
            return Err(Error::invalid_argument(format!(
                "size ({size}) must be non-negative"
            )));
        }
        if arr.rank() > 2 && self.dense {
            return Err(Error::invalid_argument(format!(
                "Shape must be at most rank 2 but is rank {}",
                arr.rank()
            )));
        }
        if w.num_elements() != 0 && w.shape() != arr.shape() {
            return Err(Error::invalid_argument(format!(
                "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case \
                 it acts as all weights equal to 1. Received {}",
                format_dims(w.shape())
            )));
        }
        let size = size as usize;
        let (rows, width) = if self.dense && arr.rank() == 2 {
            (arr.shape()[0], arr.shape()[1])
        } else {
            (1, arr.num_elements())
        };
        let mut shape = if self.dense && arr.rank() == 2 {
            vec![rows]
        } else {
            vec![]
        };
        shape.push(size);
        let values = to_i64s(arr)?;
        let dt = w.dtype();
        let out = weir_graph::match_real_dtype!(dt, T => {
            let n = rows.checked_mul(size).ok_or_else(|| {
                Error::invalid_argument(format!("size ({size}) is too large"))
            })?;
            let mut out = crate::array::alloc_filled(&shape, n, T::default(), dt)?;
            let weights = if w.num_elements() == 0 { None } else { Some(w.as_slice::<T>()?) };
            count::<T>(&values, weights, size, width, self.binary, &mut out)?;
            Tensor::from_vec(&shape, out)?
        }, _ => return Err(Error::invalid_argument(format!("Bincount does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let dense = node.op_type() == "DenseBincount";
    Ok(Box::new(BincountKernel {
        dense,
        binary: dense && node.attr::<bool>("binary_output")?,
    }))
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(1, 0)?;
    let n = match const_i64s(ctx, 1)? {
        Some(v) if v[0] < 0 => {
            return Err(Error::invalid_argument(format!(
                "size ({}) must be non-negative",
                v[0]
            )))
        }
        Some(v) => Some(v[0] as usize),
        None => None,
    };
    let s = ctx.input_shape(0).clone();
    let out = match s.dims() {
        Some(d) if d.len() == 2 && ctx.op_type == "DenseBincount" => Shape::new(vec![d[0], n]),
        Some(d) if d.len() > 2 && ctx.op_type == "DenseBincount" => {
            return Err(Error::invalid_argument(format!(
                "Shape must be at most rank 2 but is rank {}",
                d.len()
            )))
        }
        _ => Shape::new(vec![n]),
    };
    ctx.set_output(0, out);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("Bincount")
            .input("arr", ArgType::Fixed(DType::I32))
            .input("size", ArgType::Fixed(DType::I32))
            .input("weights", ArgType::Attr("T"))
            .output("bins", ArgType::Attr("T"))
            .type_attr("T", WEIGHT_TYPES)
            .shape_fn(shape_fn),
    );
    register_kernel("Bincount", make);
    register_op(
        OpDef::new("DenseBincount")
            .input("input", ArgType::Attr("Tidx"))
            .input("size", ArgType::Attr("Tidx"))
            .input("weights", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("Tidx", &[DType::I32, DType::I64])
            .type_attr("T", WEIGHT_TYPES)
            .attr(
                "binary_output",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .shape_fn(shape_fn),
    );
    register_kernel("DenseBincount", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_weights_rows_and_rejects_negatives() {
        let mut out = vec![0i32; 4];
        count::<i32>(&[1, 1, 3, 7], None, 4, 4, false, &mut out).unwrap();
        assert_eq!(out, vec![0, 2, 0, 1]);
        let mut out = vec![0.0f64; 4];
        count(
            &[1, 3, 3, 0],
            Some(&[1.0, 2.0, 3.0, 4.0]),
            2,
            2,
            false,
            &mut out,
        )
        .unwrap();
        assert_eq!(out, vec![0.0, 1.0, 4.0, 0.0]);
        let e = count::<i32>(&[1, -1], None, 4, 2, false, &mut [0; 4]).unwrap_err();
        assert_eq!(e.message(), "Input arr must be non-negative!");
    }
}
