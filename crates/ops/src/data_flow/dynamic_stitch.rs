//! `tf.dynamic_stitch` (ops `DynamicStitch`, `ParallelDynamicStitch`): interleaves the slices of
//! several tensors into one, each slice going to the row its index names.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, Graph, InferenceContext, Kernel, OpContext, OpDef, Output,
    Result, Shape, Tensor, TensorType,
};

/// `tf.dynamic_stitch(indices, data)`: `merged[indices[m][i, ..., j], ...] = data[m][i, ...,
/// j, ...]`, with as many rows as the largest index plus one; where an index repeats, the later
/// slice (higher `m`, then higher position) wins, as in TensorFlow. Rows no index names are
/// zero.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, data_flow::dynamic_stitch};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let merged = dynamic_stitch(
///     &[constant(&g, vec![0i32, 2])?, constant(&g, vec![1i32])?],
///     &[constant(&g, vec![10.0f32, 30.0])?, constant(&g, vec![20.0f32])?],
/// )?;
/// assert_eq!(Session::new(&g)?.eval(&merged)?.to_vec::<f32>()?, [10.0, 20.0, 30.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn dynamic_stitch(indices: &[Output], data: &[Output]) -> Result<Output> {
    stitch("DynamicStitch", indices, data)
}

/// `tf.raw_ops.ParallelDynamicStitch`: as [`dynamic_stitch`]; TensorFlow leaves the winner of
/// a repeated index unspecified, weir's is the same as `DynamicStitch`'s.
pub fn parallel_dynamic_stitch(indices: &[Output], data: &[Output]) -> Result<Output> {
    stitch("ParallelDynamicStitch", indices, data)
}

fn stitch(op: &str, indices: &[Output], data: &[Output]) -> Result<Output> {
    if indices.is_empty() || indices.len() != data.len() {
        return Err(Error::invalid_argument(format!(
            "{op} needs as many data tensors as index tensors, and at least one: got {} and {}",
            indices.len(),
            data.len()
        )));
    }
    let all: Vec<&Output> = indices.iter().chain(data).collect();
    let g: Graph = crate::util::same_graph(&all)?.clone();
    crate::new_op(&g, op)
        .inputs(indices)
        .inputs(data)
        .attr("N", indices.len() as i64)
        .build()?
        .output(0)
}

/// `[?] + constant`: the row count depends on the indices' values, unless they are constant.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let n: i64 = ctx.attr("N")?;
    let n = n as usize;
    let mut rows: Option<usize> = Some(0);
    let mut extra: Option<Shape> = None;
    for m in 0..n {
        match ctx.input_const(m) {
            Some(t) => {
                // A negative index fails at run time; it adds no row here.
                let max = t.as_slice::<i32>()?.iter().copied().max().unwrap_or(-1);
                rows = rows.map(|r| r.max((i64::from(max) + 1).max(0) as usize));
            }
            None => rows = None,
        }
        let (ind, dat) = (ctx.input_shape(m).clone(), ctx.input_shape(n + m).clone());
        if let (Some(ir), Some(dd)) = (ind.rank(), dat.dims()) {
            if dd.len() < ir {
                return Err(Error::invalid_argument(format!(
                    "Shape must be at least rank {ir} but is rank {} for data[{m}]",
                    dd.len()
                )));
            }
            let suffix = Shape::new(dd[ir..].to_vec());
            extra = Some(match extra {
                None => suffix,
                Some(e) => e.merge_with(&suffix)?,
            });
        }
    }
    let out = Shape::new(vec![rows]).concatenate(&extra.unwrap_or_else(Shape::unknown));
    ctx.set_output(0, out);
    Ok(())
}

struct StitchKernel;

fn merge<T: TensorType>(
    indices: &[Tensor],
    data: &[Tensor],
    rows: usize,
    slice: usize,
    extra: &[usize],
) -> Result<Tensor> {
    let mut out: Vec<T> = vec![T::zero(); rows * slice];
    for (ind, dat) in indices.iter().zip(data) {
        let src = dat.as_slice::<T>()?;
        for (i, &r) in ind.as_slice::<i32>()?.iter().enumerate() {
            let r = r as usize;
            out[r * slice..(r + 1) * slice].clone_from_slice(&src[i * slice..(i + 1) * slice]);
        }
    }
    let mut shape = vec![rows];
    shape.extend_from_slice(extra);
    Tensor::from_vec(&shape, out)
}

impl Kernel for StitchKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs = ctx.inputs();
        let n = inputs.len() / 2;
        let (indices, data) = inputs.split_at(n);
        // The checks and their words are TensorFlow's.
        let extra0 = &data[0].shape()[indices[0].rank().min(data[0].rank())..];
        let mut max: i64 = -1;
        for m in 0..n {
            let (ind, dat) = (&indices[m], &data[m]);
            if !dat.shape().starts_with(ind.shape()) {
                return Err(Error::invalid_argument(format!(
                    "data[{m}].shape = {} does not start with indices[{m}].shape = {}",
                    format_dims(dat.shape()),
                    format_dims(ind.shape())
                )));
            }
            if m > 0 && &dat.shape()[ind.rank()..] != extra0 {
                return Err(Error::invalid_argument(format!(
                    "Need data[0].shape[{r0}:] = data[{m}].shape[{r}:], got data[0].shape = {}, \
                     data[{m}].shape = {}, indices[0].shape = {}, indices[{m}].shape = {}",
                    format_dims(data[0].shape()),
                    format_dims(dat.shape()),
                    format_dims(indices[0].shape()),
                    format_dims(ind.shape()),
                    r0 = indices[0].rank(),
                    r = ind.rank(),
                )));
            }
            for (i, &v) in ind.as_slice::<i32>()?.iter().enumerate() {
                if v < 0 {
                    return Err(Error::invalid_argument(format!(
                        "indices[{i}] is out of range"
                    )));
                }
                max = max.max(i64::from(v));
            }
        }
        let rows = (max + 1) as usize;
        let slice: usize = extra0.iter().product();
        let extra = extra0.to_vec();
        let dt = data[0].dtype();
        let out = weir_graph::match_data_dtype!(dt, T => merge::<T>(indices, data, rows, slice, &extra),
            _ => Err(Error::invalid_argument(format!("Cannot stitch {dt} tensors"))))?;
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(super) fn register() {
    for op in ["DynamicStitch", "ParallelDynamicStitch"] {
        register_op(
            OpDef::new(op)
                .input(
                    "indices",
                    ArgType::RepeatedFixed {
                        count: "N",
                        dtype: DType::I32,
                    },
                )
                .input(
                    "data",
                    ArgType::Repeated {
                        count: "N",
                        ty: "T",
                    },
                )
                .output("merged", ArgType::Attr("T"))
                .int_attr_min("N", 1)
                .type_attr("T", DType::ALL_DATA)
                .shape_fn(shape_fn),
        );
        register_kernel(op, |_| Ok(Box::new(StitchKernel)));
    }
}
