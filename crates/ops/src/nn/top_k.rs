//! `TopKV2`: the `k` largest entries along the last dimension and their indices.
//!
//! The kernel follows TensorFlow's CPU kernel step for step rather than any correct top-k,
//! because its choices are observable: `sorted=False` returns `gtl::TopN`'s heap order, a NaN
//! (greater than nothing, less than nothing) lands wherever libstdc++'s heap and introsort
//! leave it, and `k = 1` goes through Eigen's max reduction. Without NaN, sorted results are
//! the k largest in descending order with ties in index order, however they are computed.

use weir_graph::registry::{register_kernel, register_op};

use crate::libstdcxx::{make_heap, pop_heap, push_heap, sort, sort_heap};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor, TensorType,
};

/// `tf.math.top_k(input, k, sorted)` (also `tf.nn.top_k`): the `k` largest entries of each
/// row of the last dimension, as `(values, indices)`; equal values keep the lower index first.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::top_k};
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[2, 3], vec![1.0f32, 3.0, 2.0, 5.0, 4.0, 6.0])?)?;
/// let (values, indices) = top_k(&x, 2, true)?;
/// let sess = weir_session::Session::new(&g)?;
/// assert_eq!(sess.eval(&values)?.to_vec::<f32>()?, vec![3.0, 2.0, 6.0, 5.0]);
/// assert_eq!(sess.eval(&indices)?.to_vec::<i32>()?, vec![1, 2, 2, 0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn top_k(input: impl Into<Output>, k: i32, sorted: bool) -> Result<(Output, Output)> {
    let x = input.into();
    let k = crate::array::constant_named(&x.graph().clone(), k, "k")?;
    top_k_v2(x, k, sorted)
}

/// [`top_k`] with `k` an int32 scalar tensor, known only when the graph runs.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, nn::top_k_v2};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(10)]))?;
/// let k = placeholder(&g, DType::I32, Shape::scalar())?;
/// let (values, _) = top_k_v2(&x, &k, true)?;
/// assert_eq!(values.shape(), Shape::new(vec![None, None]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn top_k_v2(
    input: impl Into<Output>,
    k: impl Into<Output>,
    sorted: bool,
) -> Result<(Output, Output)> {
    let (x, k) = (input.into(), k.into());
    let g = crate::util::same_graph(&[&x, &k])?.clone();
    let op = crate::new_op(&g, "TopKV2")
        .input(x)
        .input(k)
        .attr("sorted", sorted)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// An element type of `TopKV2`, with the value Eigen's max reduction starts from.
trait Elem: TensorType + PartialOrd + Copy {
    /// `-inf` for floats, the minimum for integers (Eigen's `MaxReducer::initialize`).
    const FLOOR: Self;
    /// Lanes in one of Eigen's packets of this type (TensorFlow's AVX build): 32 bytes, but 8
    /// for the half types (`Packet8h`, `Packet8bf`).
    const LANES: usize = 32 / std::mem::size_of::<Self>();
}

macro_rules! elem {
    ($($t:ty => $floor:expr),*) => {
        $(impl Elem for $t {
            const FLOOR: $t = $floor;
        })*
    };
}
elem!(f32 => f32::NEG_INFINITY, f64 => f64::NEG_INFINITY, i8 => i8::MIN, i16 => i16::MIN,
    i32 => i32::MIN, i64 => i64::MIN, u8 => u8::MIN, u16 => u16::MIN, u32 => u32::MIN,
    u64 => u64::MIN);

impl Elem for weir_graph::f16 {
    const FLOOR: Self = weir_graph::f16::NEG_INFINITY;
    const LANES: usize = 8;
}

impl Elem for weir_graph::bf16 {
    const FLOOR: Self = weir_graph::bf16::NEG_INFINITY;
    const LANES: usize = 8;
}

/// `k = 1`: TensorFlow takes Eigen's max of the row, then the first column equal to it.
///
/// Eigen (TensorFlow's AVX build) reduces the whole packets at the front with a max that drops
/// NaN, and folds the remaining elements as `if v < acc { acc } else { v }`, which keeps a NaN
/// only when it is the last element. A NaN maximum equals no column: column 0.
fn top1<T: Elem>(row: &[T]) -> usize {
    let width = T::LANES.max(1);
    let split = row.len() / width * width;
    let mut packed = T::FLOOR;
    for &v in &row[..split] {
        if packed < v {
            packed = v;
        }
    }
    let mut tail = T::FLOOR;
    for &v in &row[split..] {
        tail = if v < tail { tail } else { v };
    }
    let max = if tail < packed { packed } else { tail };
    row.iter().position(|&v| v == max).unwrap_or(0)
}

/// `k == cols`: TensorFlow sorts all indices by value (`std::sort`, not stable), then puts each
/// run of equal values back in index order. NaN equals nothing, so it never joins a run.
fn sort_all<T: Elem>(row: &[T], out: &mut [i32]) {
    for (i, o) in out.iter_mut().enumerate() {
        *o = i as i32;
    }
    sort(out, &|a, b| row[b as usize] < row[a as usize]);
    let mut start = 0;
    while start < out.len() {
        let v = row[out[start] as usize];
        let mut end = start + 1;
        while end < out.len() && row[out[end] as usize] == v {
            end += 1;
        }
        out[start..end].sort_unstable();
        start = end;
    }
}

/// `1 < k < cols`: TensorFlow's `gtl::TopN` heap of `k` indices, "greater" meaning the larger
/// value or, between values neither larger nor smaller, the lower index. The first `k + 1`
/// columns are heaped and the smallest dropped; a later column replaces the smallest kept one
/// when it is greater. `heap` holds `k + 1` slots of scratch.
fn select<T: Elem>(row: &[T], heap: &mut [i32], sorted: bool, out: &mut [i32]) {
    let greater = |a: i32, b: i32| {
        let (x, y) = (row[a as usize], row[b as usize]);
        if y < x {
            true
        } else if y > x {
            false
        } else {
            a < b
        }
    };
    let k = out.len();
    for (i, h) in heap.iter_mut().enumerate() {
        *h = i as i32;
    }
    make_heap(heap, &greater);
    pop_heap(heap, &greater);
    let heap = &mut heap[..k];
    for c in (k + 1)..row.len() {
        let c = c as i32;
        if greater(c, heap[0]) {
            pop_heap(heap, &greater);
            heap[k - 1] = c;
            push_heap(heap, &greater);
        }
    }
    if sorted {
        sort_heap(heap, &greater);
    }
    out.copy_from_slice(heap);
}

/// The top `k` of each `cols`-long row of `x`: values and indices, `rows * k` each.
fn top_k_rows<T: Elem>(x: &[T], cols: usize, k: usize, sorted: bool) -> (Vec<T>, Vec<i32>) {
    let rows = x.len().checked_div(cols).unwrap_or(0);
    let mut indices = vec![0i32; rows * k];
    let mut heap = vec![0i32; if k < cols { k + 1 } else { 0 }];
    if k > 0 {
        for (row, out) in x.chunks_exact(cols).zip(indices.chunks_exact_mut(k)) {
            if k == 1 {
                out[0] = top1(row) as i32;
            } else if k == cols {
                sort_all(row, out);
            } else {
                select(row, &mut heap, sorted, out);
            }
        }
    }
    let values = if k == 0 {
        Vec::new()
    } else {
        x.chunks_exact(cols)
            .zip(indices.chunks_exact(k))
            .flat_map(|(row, idx)| idx.iter().map(move |&i| row[i as usize]))
            .collect()
    };
    (values, indices)
}

struct TopKKernel {
    sorted: bool,
}

impl Kernel for TopKKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let k = ctx.input(1);
        if k.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "k must be scalar, got shape {}",
                format_dims(k.shape())
            )));
        }
        let k = k.to_scalar::<i32>()?;
        if k < 0 {
            return Err(Error::invalid_argument(format!("Need k >= 0, got {k}")));
        }
        let k = k as usize;
        let x = ctx.input(0);
        let Some((&cols, lead)) = x.shape().split_last() else {
            return Err(Error::invalid_argument(format!(
                "input must be >= 1-D, got shape {}",
                format_dims(x.shape())
            )));
        };
        if cols < k {
            return Err(Error::invalid_argument(format!(
                "input must have at least k columns. Had {cols}, needed {k}"
            )));
        }
        let rows: usize = lead.iter().product();
        for (what, n) in [("First", rows), ("Second", cols)] {
            if n > i32::MAX as usize {
                return Err(Error::invalid_argument(format!(
                    "{what} dimension of flattened input must be <= {}, got {n}",
                    i32::MAX
                )));
            }
        }
        let mut out_shape = x.shape().to_vec();
        out_shape[lead.len()] = k;
        let dt = x.dtype();
        let (values, indices) = super::match_real_or_half!(dt, T => {
            let (v, i) = top_k_rows::<T>(x.as_slice::<T>()?, cols, k, self.sorted);
            (Tensor::from_vec(&out_shape, v)?, Tensor::from_vec(&out_shape, i)?)
        });
        ctx.set_output(0, values);
        ctx.set_output(1, indices);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }

    fn work_estimate(&self, inputs: &[Shape]) -> Option<u64> {
        // A few comparisons per element for the heap's usual early rejection.
        Some(inputs.first()?.num_elements()? as u64 * 4)
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(TopKKernel {
        sorted: node.attr("sorted")?,
    }))
}

/// A static shape as TensorFlow's shape-function errors print it (`?` for an unknown rank).
fn tf_shape(s: &Shape) -> String {
    match s.rank() {
        Some(_) => s.to_string(),
        None => "?".to_string(),
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let input = ctx.input_shape(0).clone();
    let k_const = ctx.input_const(1).cloned();
    // TensorFlow lists k's value once the shape function has read it, i.e. after the rank check.
    let fail = |msg: String, k_read: bool| {
        let mut m = format!(
            "{msg} for 'TopKV2' with input shapes: {}, {}",
            tf_shape(&input),
            tf_shape(ctx.input_shape(1))
        );
        let k_value = k_const.as_ref().filter(|_| k_read);
        if let Some(v) = k_value.and_then(|t| t.as_slice::<i32>().ok()) {
            let shown: Vec<String> = v.iter().take(10).map(i32::to_string).collect();
            let more = if v.len() > 10 { "..." } else { "" };
            m += &format!(
                " and with computed input tensors: input[1] = <{}{more}>",
                shown.join(" ")
            );
        }
        Error::invalid_argument(m + ".")
    };
    if input.rank() == Some(0) {
        return Err(fail(
            "Shape must be at least rank 1 but is rank 0".into(),
            false,
        ));
    }
    let k = match &k_const {
        None => None,
        Some(t) if t.rank() != 0 => {
            let rank = t.rank();
            return Err(fail(
                format!("Input must be scalar but has rank {rank}"),
                true,
            ));
        }
        Some(t) => {
            let k = t.to_scalar::<i32>()?;
            if k < 0 {
                return Err(fail(
                    format!(
                        "Dimension size, given by scalar input 1, must be non-negative but is {k}"
                    ),
                    true,
                ));
            }
            Some(k as usize)
        }
    };
    let out = match input.dims() {
        Some(d) => {
            let mut d = d.to_vec();
            let last = d.len() - 1;
            if let (Some(cols), Some(k)) = (d[last], k) {
                if cols < k {
                    return Err(fail(
                        format!("input must have last dimension >= k = {k} but is {cols}"),
                        true,
                    ));
                }
            }
            d[last] = k;
            Shape::new(d)
        }
        None => Shape::unknown(),
    };
    ctx.set_output(0, out.clone());
    ctx.set_output(1, out);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("TopKV2")
            .input("input", ArgType::Attr("T"))
            .input("k", ArgType::Fixed(DType::I32))
            .output("values", ArgType::Attr("T"))
            .output("indices", ArgType::Fixed(DType::I32))
            .attr("sorted", AttrKind::Bool, Some(AttrValue::Bool(true)))
            .type_attr("T", DType::REAL_AND_HALF)
            .shape_fn(shape_fn),
    );
    register_kernel("TopKV2", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_and_sort_paths_agree_with_a_stable_descending_order() {
        // Pseudo-random rows with many ties: without NaN every path must give the stable order.
        let mut s = 7u32;
        for n in [2usize, 5, 16, 17, 40, 300] {
            let row: Vec<i32> = (0..n)
                .map(|_| {
                    s = s.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    ((s >> 16) % 7) as i32
                })
                .collect();
            let mut want: Vec<i32> = (0..n as i32).collect();
            want.sort_by(|&a, &b| row[b as usize].cmp(&row[a as usize]).then(a.cmp(&b)));
            for k in [1, 2, n / 2, n - 1, n] {
                let (_, idx) = top_k_rows(&row, n, k.max(1), true);
                assert_eq!(idx, want[..k.max(1)], "n={n} k={k}");
            }
        }
    }
}
