//! `tf.dynamic_partition` (op `DynamicPartition`): deals the slices of a tensor out to several
//! outputs, each slice to the output its partition index names.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    Result, Shape, Tensor, TensorType,
};

/// `tf.dynamic_partition(data, partitions, num_partitions)`: output `k` holds, in order, the
/// slices `data[i, ...]` whose `partitions[i]` is `k`, where `partitions` (int32) has a prefix
/// of `data`'s shape. An index outside `[0, num_partitions)` is InvalidArgument.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, data_flow::dynamic_partition};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let parts = dynamic_partition(
///     constant(&g, vec![10i32, 20, 30, 40])?,
///     constant(&g, vec![1i32, 0, 1, 1])?,
///     2,
/// )?;
/// let s = Session::new(&g)?;
/// assert_eq!(s.eval(&parts[0])?.to_vec::<i32>()?, [20]);
/// assert_eq!(s.eval(&parts[1])?.to_vec::<i32>()?, [10, 30, 40]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn dynamic_partition(
    data: impl Into<Output>,
    partitions: impl Into<Output>,
    num_partitions: usize,
) -> Result<Vec<Output>> {
    let (data, partitions) = (data.into(), partitions.into());
    if num_partitions == 0 {
        return Err(Error::invalid_argument(
            "num_partitions must be at least 1, got 0",
        ));
    }
    let g = crate::util::same_graph(&[&data, &partitions])?.clone();
    Ok(crate::new_op(&g, "DynamicPartition")
        .input(data)
        .input(partitions)
        .attr("num_partitions", num_partitions as i64)
        .build()?
        .outputs())
}

/// Each output: `[?] + data.shape[rank(partitions)..]`.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let n: i64 = ctx.attr("num_partitions")?;
    let (data, parts) = (ctx.input_shape(0).clone(), ctx.input_shape(1).clone());
    let out = match (data.dims(), parts.rank()) {
        (Some(d), Some(r)) if d.len() >= r => {
            Shape::new(vec![None]).concatenate(&Shape::new(d[r..].to_vec()))
        }
        (Some(d), Some(r)) => {
            return Err(Error::invalid_argument(format!(
                "Shape must be at least rank {r} but is rank {}",
                d.len()
            )))
        }
        _ => Shape::unknown(),
    };
    for k in 0..n as usize {
        ctx.set_output(k, out.clone());
    }
    Ok(())
}

/// The multi-index of flat position `i` in `shape`, as TensorFlow's SliceDebugString writes it.
fn position(shape: &[usize], mut i: usize) -> String {
    let mut idx = vec![0; shape.len()];
    for (d, &n) in shape.iter().enumerate().rev() {
        if n > 0 {
            idx[d] = i % n;
            i /= n;
        }
    }
    let idx: Vec<String> = idx.iter().map(usize::to_string).collect();
    format!("[{}]", idx.join(","))
}

fn partition<T: TensorType + Clone>(
    data: &Tensor,
    parts: &[i32],
    num: usize,
    slice: usize,
    suffix: &[usize],
) -> Result<Vec<Tensor>> {
    let src = data.as_slice::<T>()?;
    let mut counts = vec![0usize; num];
    for &p in parts {
        counts[p as usize] += 1;
    }
    let mut outs: Vec<Vec<T>> = counts
        .iter()
        .map(|&c| Vec::with_capacity(c * slice))
        .collect();
    for (i, &p) in parts.iter().enumerate() {
        outs[p as usize].extend_from_slice(&src[i * slice..(i + 1) * slice]);
    }
    outs.into_iter()
        .zip(counts)
        .map(|(v, c)| {
            let mut shape = vec![c];
            shape.extend_from_slice(suffix);
            Tensor::from_vec(&shape, v)
        })
        .collect()
}

struct PartitionKernel {
    num: usize,
}

impl Kernel for PartitionKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (data, parts_t) = (ctx.input(0), ctx.input(1));
        let (ds, ps) = (data.shape(), parts_t.shape());
        if ds.len() < ps.len() || ds[..ps.len()] != *ps {
            return Err(Error::invalid_argument(format!(
                "data.shape must start with partitions.shape, got data.shape = {}, \
                 partitions.shape = {}",
                format_dims(ds),
                format_dims(ps)
            )));
        }
        let parts = parts_t.as_slice::<i32>()?;
        for (i, &p) in parts.iter().enumerate() {
            if p < 0 || p as usize >= self.num {
                return Err(Error::invalid_argument(format!(
                    "partitions{} = {p} is not in [0, {})",
                    position(ps, i),
                    self.num
                )));
            }
        }
        let suffix = &ds[ps.len()..];
        let slice: usize = suffix.iter().product();
        let dt = data.dtype();
        let outs = weir_graph::match_data_dtype!(dt, T => partition::<T>(data, parts, self.num, slice, suffix)?,
            _ => return Err(Error::invalid_argument(format!("Cannot partition {dt} tensors"))));
        for (k, t) in outs.into_iter().enumerate() {
            ctx.set_output(k, t);
        }
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let num: i64 = node.attr("num_partitions")?;
    Ok(Box::new(PartitionKernel { num: num as usize }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("DynamicPartition")
            .input("data", ArgType::Attr("T"))
            .input("partitions", ArgType::Fixed(DType::I32))
            .output(
                "outputs",
                ArgType::Repeated {
                    count: "num_partitions",
                    ty: "T",
                },
            )
            .int_attr_min("num_partitions", 1)
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(shape_fn),
    );
    register_kernel("DynamicPartition", make);
}

#[cfg(test)]
mod tests {
    use super::position;

    #[test]
    fn positions_read_as_tensorflows_slice_debug_strings() {
        assert_eq!(position(&[4], 2), "[2]");
        assert_eq!(position(&[2, 3], 5), "[1,2]");
        assert_eq!(position(&[], 0), "[]");
    }
}
