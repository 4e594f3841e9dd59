//! `SparseToDense`: scatters sparse values into a dense tensor filled with a default.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, OpContext,
    OpDef, Output, Result, Tensor, TensorType,
};

use super::{show_index, SparseOutput};

/// `tf.sparse.to_dense(sp_input, default_value=None)`: the dense tensor a [`SparseOutput`]
/// represents; positions without a value hold `default_value` (zero, `false` or `""` when
/// `None`). Indices must be in bounds, sorted and unique.
pub fn sparse_tensor_to_dense(sp: &SparseOutput, default_value: Option<Output>) -> Result<Output> {
    let g = sp.graph().clone();
    let default = match default_value {
        Some(d) => d,
        None => crate::array::constant(&g, Tensor::zeros(sp.dtype(), &[])?)?,
    };
    SparseToDense::new().build(&sp.indices, &sp.dense_shape, &sp.values, default)
}

/// `tf.sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0,
/// validate_indices=True)`. See [`SparseToDense`].
pub fn sparse_to_dense(
    sparse_indices: impl Into<Output>,
    output_shape: impl Into<Output>,
    sparse_values: impl Into<Output>,
    default_value: impl Into<Output>,
) -> Result<Output> {
    SparseToDense::new().build(sparse_indices, output_shape, sparse_values, default_value)
}

/// The options of `tf.sparse_to_dense` (op `SparseToDense`): a dense tensor of
/// `output_shape` filled with the scalar `default_value`, with `sparse_values[i]` (or the
/// scalar `sparse_values`) at `sparse_indices[i]`. Indices are a scalar, a vector (1-D
/// output) or an `[N, rank]` matrix, int32 or int64.
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::{array::constant, sparse::sparse_to_dense};
/// let g = Graph::new();
/// let labels = constant(&g, vec![1i64, 3])?;
/// let shape = constant(&g, vec![5i64])?;
/// let one_hot = sparse_to_dense(&labels, &shape, constant(&g, 1.0f32)?, constant(&g, 0.0f32)?)?;
/// assert_eq!(one_hot.shape(), Shape::known(&[5]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SparseToDense {
    validate_indices: bool,
}

impl Default for SparseToDense {
    fn default() -> Self {
        SparseToDense {
            validate_indices: true,
        }
    }
}

impl SparseToDense {
    /// Validating indices.
    pub fn new() -> SparseToDense {
        SparseToDense::default()
    }

    /// Whether indices must be sorted and unique (bounds are always checked; with repeats the
    /// last value wins).
    pub fn validate_indices(mut self, v: bool) -> Self {
        self.validate_indices = v;
        self
    }

    /// Adds the node.
    pub fn build(
        self,
        sparse_indices: impl Into<Output>,
        output_shape: impl Into<Output>,
        sparse_values: impl Into<Output>,
        default_value: impl Into<Output>,
    ) -> Result<Output> {
        let (i, s, v, d) = (
            sparse_indices.into(),
            output_shape.into(),
            sparse_values.into(),
            default_value.into(),
        );
        let g = crate::util::same_graph(&[&i, &s, &v, &d])?.clone();
        crate::new_op(&g, "SparseToDense")
            .input(i)
            .input(s)
            .input(v)
            .input(d)
            .attr("validate_indices", self.validate_indices)
            .build()?
            .output(0)
    }
}

fn int_vec(t: &Tensor) -> Result<Vec<i64>> {
    Ok(match t.dtype() {
        DType::I32 => t.as_slice::<i32>()?.iter().map(|&x| x as i64).collect(),
        _ => t.to_vec::<i64>()?,
    })
}

struct ToDenseKernel {
    validate: bool,
}

const ORDER_HINT: &str = "Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n";

/// Row-major offsets of each index, after TensorFlow's checks.
fn offsets(idx: &[i64], n: usize, dims: &[usize], validate: bool) -> Result<Vec<usize>> {
    let rank = dims.len();
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let cur = &idx[i * rank..(i + 1) * rank];
        if cur
            .iter()
            .zip(dims)
            .any(|(&x, &d)| x < 0 || x as usize >= d)
        {
            if !validate {
                // Unvalidated, TensorFlow only notices while scattering.
                return Err(Error::invalid_argument(format!(
                    "Indices are not valid (out of bounds).  Shape: {}",
                    format_dims(dims)
                )));
            }
            return Err(Error::invalid_argument(format!(
                "indices[{i}] = [{}] is out of bounds: need 0 <= index < {}",
                show_index(cur),
                format_dims(dims)
            )));
        }
        if validate && i > 0 {
            let prev = &idx[(i - 1) * rank..i * rank];
            match prev.cmp(cur) {
                std::cmp::Ordering::Equal => {
                    return Err(Error::invalid_argument(format!(
                        "indices[{i}] = [{}] is repeated",
                        show_index(cur)
                    )))
                }
                std::cmp::Ordering::Greater => {
                    return Err(Error::invalid_argument(format!(
                        "indices[{i}] = [{}] is out of order. {ORDER_HINT}",
                        show_index(cur)
                    )))
                }
                std::cmp::Ordering::Less => {}
            }
        }
        out.push(
            cur.iter()
                .zip(dims)
                .fold(0usize, |acc, (&x, &d)| acc * d + x as usize),
        );
    }
    Ok(out)
}

fn scatter<T: TensorType>(
    dims: &[usize],
    offs: &[usize],
    values: &Tensor,
    default: &Tensor,
) -> Result<Tensor> {
    // The size was checked against overflow; a size the allocator refuses is an error.
    let total = dims.iter().product();
    let mut out =
        crate::array::alloc_filled(dims, total, default.to_scalar::<T>()?, values.dtype())?;
    let vals = values.as_slice::<T>()?;
    for (k, &o) in offs.iter().enumerate() {
        out[o] = if values.rank() == 0 {
            vals[0].clone()
        } else {
            vals[k].clone()
        };
    }
    Tensor::from_vec(dims, out)
}

impl Kernel for ToDenseKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (indices, shape, values, default) =
            (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        if indices.rank() > 2 {
            return Err(Error::invalid_argument(format!(
                "sparse_indices should be a scalar, vector, or matrix, got shape {}",
                format_dims(indices.shape())
            )));
        }
        let n = if indices.rank() > 0 {
            indices.shape()[0]
        } else {
            1
        };
        let rank = if indices.rank() > 1 {
            indices.shape()[1]
        } else {
            1
        };
        if shape.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "output_shape must be rank 1, got shape {}",
                format_dims(shape.shape())
            )));
        }
        if shape.num_elements() != rank {
            return Err(Error::invalid_argument(format!(
                "output_shape has incorrect number of elements: {} should be: {rank}",
                shape.num_elements()
            )));
        }
        if !(values.rank() == 0 || (values.rank() == 1 && values.shape()[0] == n)) {
            return Err(Error::invalid_argument(format!(
                "sparse_values has incorrect shape {}, should be [] or [{n}]",
                format_dims(values.shape())
            )));
        }
        if default.rank() != 0 {
            return Err(Error::invalid_argument("default_value should be a scalar."));
        }
        let dims = int_vec(shape)?
            .into_iter()
            .map(|d| {
                usize::try_from(d)
                    .map_err(|_| Error::invalid_argument(format!("Dimension {d} must be >= 0")))
            })
            .collect::<Result<Vec<usize>>>()?;
        if dims
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .is_none()
        {
            return Err(Error::invalid_argument(format!(
                "Shape {} has too many elements",
                format_dims(&dims)
            )));
        }
        let offs = offsets(&int_vec(indices)?, n, &dims, self.validate)?;
        let dt = values.dtype();
        let out = weir_graph::match_data_dtype!(dt, T => scatter::<T>(&dims, &offs, values, default)?,
            _ => return Err(Error::invalid_argument(format!("SparseToDense does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = crate::random::shape_from_input(ctx, 1)?;
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("SparseToDense")
            .input("sparse_indices", ArgType::Attr("Tindices"))
            .input("output_shape", ArgType::Attr("Tindices"))
            .input("sparse_values", ArgType::Attr("T"))
            .input("default_value", ArgType::Attr("T"))
            .output("dense", ArgType::Attr("T"))
            .attr(
                "validate_indices",
                AttrKind::Bool,
                Some(AttrValue::Bool(true)),
            )
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Tindices", &[DType::I32, DType::I64])
            .shape_fn(shape_fn),
    );
    register_kernel("SparseToDense", |node| {
        Ok(Box::new(ToDenseKernel {
            validate: node.attr("validate_indices")?,
        }))
    });
}
