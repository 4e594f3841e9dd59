//! `tf.edit_distance` (op `EditDistance`): the Levenshtein distance between the sequences of
//! two sparse tensors, grouped by all dimensions but the last.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor, TensorType,
};

use super::SparseOutput;

/// `tf.edit_distance(hypothesis, truth, normalize=True)`: for each position of all dimensions
/// but the last, the Levenshtein distance between the hypothesis' and the truth's sequences
/// there (float32), divided by the truth's length when `normalize` (infinite where the truth is
/// empty and the hypothesis not). Both must be in row-major order, of one rank (at least 2).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{edit_distance, SparseOutput}};
/// let g = Graph::new();
/// let sp = |ix: Vec<i64>, v: Vec<i32>| -> weir_graph::Result<SparseOutput> {
///     let n = v.len();
///     SparseOutput::new(
///         constant(&g, Tensor::from_vec(&[n, 2], ix)?)?,
///         constant(&g, v)?,
///         constant(&g, vec![1i64, 3])?,
///     )
/// };
/// let hyp = sp(vec![0, 0, 0, 1], vec![1, 2])?;
/// let truth = sp(vec![0, 0, 0, 1, 0, 2], vec![1, 3, 2])?;
/// let d = edit_distance(&hyp, &truth, false)?;
/// assert_eq!(weir_session::Session::new(&g)?.eval(&d)?.to_vec::<f32>()?, [1.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn edit_distance(
    hypothesis: &SparseOutput,
    truth: &SparseOutput,
    normalize: bool,
) -> Result<Output> {
    let g = crate::util::same_graph(&[&hypothesis.indices, &truth.indices])?.clone();
    crate::new_op(&g, "EditDistance")
        .name("edit_distance")
        .input(&hypothesis.indices)
        .input(&hypothesis.values)
        .input(&hypothesis.dense_shape)
        .input(&truth.indices)
        .input(&truth.values)
        .input(&truth.dense_shape)
        .attr("normalize", normalize)
        .build()?
        .output(0)
}

/// The Levenshtein distance between `a` and `b` (one row of the table at a time).
fn levenshtein<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    if a.is_empty() {
        return b.len();
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for x in a {
        let mut diag = row[0];
        row[0] += 1;
        for (j, y) in b.iter().enumerate() {
            let sub = diag + usize::from(x != y);
            diag = row[j + 1];
            row[j + 1] = sub.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// The runs of entries whose indices share all but the last coordinate: `(group, start, end)`.
fn groups(ix: &[i64], rank: usize) -> Vec<(&[i64], usize, usize)> {
    let n = ix.len() / rank;
    let key = |i: usize| &ix[i * rank..i * rank + rank - 1];
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=n {
        if i == n || key(i) != key(start) {
            out.push((key(start), start, i));
            start = i;
        }
    }
    out
}

/// TensorFlow's `ValidateShapes` of the edit-distance kernel.
fn validate(t: [&Tensor; 6]) -> Result<()> {
    let [hi, hv, hs, ti, tv, ts] = t;
    let fail = |m: String| Err(Error::invalid_argument(m));
    for (what, x, rank) in [
        ("hypothesis_indices", hi, 2),
        ("truth_indices", ti, 2),
        ("hypothesis_values", hv, 1),
        ("truth_values", tv, 1),
        ("hypothesis_shape", hs, 1),
        ("truth_shape", ts, 1),
    ] {
        if x.rank() != rank {
            let kind = if rank == 2 { "a matrix" } else { "a vector" };
            return fail(format!(
                "{what} should be {kind}, but got shape: {}",
                format_dims(x.shape())
            ));
        }
    }
    if hs.num_elements() != hi.shape()[1] {
        return fail(format!(
            "Expected hypothesis_shape.NumElements == #cols(hypothesis_indices), their shapes \
             are: {} and {}",
            format_dims(hs.shape()),
            format_dims(hi.shape())
        ));
    }
    if ts.num_elements() < 2 {
        return fail(format!(
            "Input SparseTensors must have rank at least 2, but truth_shape rank is: {}",
            ts.num_elements()
        ));
    }
    if ts.num_elements() != ti.shape()[1] {
        return fail(format!(
            "Expected truth_shape.NumElements == #cols(truth_indices), their shapes are: {} and \
             {}",
            format_dims(ts.shape()),
            format_dims(ti.shape())
        ));
    }
    if ts.num_elements() != hs.num_elements() {
        return fail(format!(
            "Expected truth and hypothesis to have matching ranks, but their shapes are: {} \
             and {}",
            format_dims(ts.shape()),
            format_dims(hs.shape())
        ));
    }
    for (what, ix, v) in [("hypothesis", hi, hv), ("truth", ti, tv)] {
        if ix.shape()[0] != v.shape()[0] {
            return fail(format!(
                "Expected {what}_values.NumElements == #rows({what}_indices), their shapes are: \
                 {} and {}",
                format_dims(v.shape()),
                format_dims(ix.shape())
            ));
        }
    }
    Ok(())
}

/// The distances of every group, walking both sparse tensors' groups in order (as
/// TensorFlow's kernel does, which assumes row-major order).
fn distances<T: TensorType + PartialEq>(
    hyp: (&[i64], &Tensor),
    truth: (&[i64], &Tensor),
    rank: usize,
    strides: &[usize],
    out: &mut [f32],
    normalize: bool,
) -> Result<()> {
    let (hv, tv) = (hyp.1.as_slice::<T>()?, truth.1.as_slice::<T>()?);
    let (hg, tg) = (groups(hyp.0, rank), groups(truth.0, rank));
    let total = out.len();
    let mut put = |g: &[i64], v: f32| -> Result<()> {
        let loc: i64 = g.iter().zip(strides).map(|(&i, &s)| i * s as i64).sum();
        if loc < 0 || loc as usize >= total {
            return Err(Error::internal(format!(
                "Got an inner product {loc} which would require writing to outside of the \
                 buffer for the output tensor (max elements {total})"
            )));
        }
        out[loc as usize] = v;
        Ok(())
    };
    let (mut i, mut j) = (0, 0);
    while i < hg.len() || j < tg.len() {
        let order = match (hg.get(i), tg.get(j)) {
            (Some(h), Some(t)) => t.0.cmp(h.0),
            (Some(_), None) => std::cmp::Ordering::Greater,
            _ => std::cmp::Ordering::Less,
        };
        match order {
            std::cmp::Ordering::Equal => {
                let (h, t) = (hg[i], tg[j]);
                let d = levenshtein(&tv[t.1..t.2], &hv[h.1..h.2]) as f32;
                let len = (t.2 - t.1) as f32;
                put(t.0, if normalize { d / len } else { d })?;
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Greater => {
                // A hypothesis without a truth: its length, over a zero length when normalized.
                let h = hg[i];
                let d = (h.2 - h.1) as f32;
                put(h.0, if normalize { d / 0.0 } else { d })?;
                i += 1;
            }
            std::cmp::Ordering::Less => {
                let t = tg[j];
                put(t.0, if normalize { 1.0 } else { (t.2 - t.1) as f32 })?;
                j += 1;
            }
        }
    }
    Ok(())
}

struct EditDistanceKernel {
    normalize: bool,
}

impl Kernel for EditDistanceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t: [&Tensor; 6] = std::array::from_fn(|i| ctx.input(i));
        validate(t)?;
        let [hi, hv, hs, ti, tv, ts] = t;
        let (h_shape, t_shape) = (hs.as_slice::<i64>()?, ts.as_slice::<i64>()?);
        for &d in h_shape.iter().chain(t_shape) {
            if d < 0 {
                return Err(Error::invalid_argument(format!(
                    "Dimension {d} must be >= 0"
                )));
            }
        }
        let rank = t_shape.len();
        let out_dims: Vec<usize> = (0..rank - 1)
            .map(|d| h_shape[d].max(t_shape[d]) as usize)
            .collect();
        let mut strides = vec![1usize; rank - 1];
        for d in (0..rank.saturating_sub(2)).rev() {
            strides[d] = strides[d + 1] * out_dims[d + 1];
        }
        let mut out = vec![0f32; out_dims.iter().product()];
        let hyp = (hi.as_slice::<i64>()?, hv);
        let truth = (ti.as_slice::<i64>()?, tv);
        let dt = hv.dtype();
        weir_graph::match_data_dtype!(dt, T => distances::<T>(hyp, truth, rank, &strides, &mut out, self.normalize)?,
            _ => return Err(Error::invalid_argument(format!("EditDistance does not take {dt}"))));
        ctx.set_output(0, Tensor::from_vec(&out_dims, out)?);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(EditDistanceKernel {
        normalize: node.attr("normalize")?,
    }))
}

/// TensorFlow's shape function: both sparse tensors' parts of consistent shapes, and the output
/// shape when both dense shapes are constants (the larger of each dimension but the last).
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    for base in [0, 3] {
        let ix = ctx.with_rank(base, 2)?;
        let v = ctx.with_rank(base + 1, 1)?;
        let s = ctx.with_rank(base + 2, 1)?;
        let check = |a: Option<usize>, b: Option<usize>| match (a, b) {
            (Some(x), Some(y)) if x != y => Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {x} and {y} for 'EditDistance'"
            ))),
            _ => Ok(()),
        };
        check(ix.dim(0), v.dim(0))?;
        check(ix.dim(1), s.dim(0))?;
    }
    let (Some(h), Some(t)) = (ctx.input_const(2).cloned(), ctx.input_const(5).cloned()) else {
        ctx.set_output(0, Shape::unknown());
        return Ok(());
    };
    let (h, t) = (h.to_vec::<i64>()?, t.to_vec::<i64>()?);
    if h.len() != t.len() {
        return Err(Error::invalid_argument(format!(
            "Num elements of hypothesis_shape does not match truth_shape: {} vs. {} for \
             'EditDistance'",
            h.len(),
            t.len()
        )));
    }
    let dims: Vec<Option<usize>> = (0..h.len().saturating_sub(1))
        .map(|d| usize::try_from(h[d].max(t[d])).ok())
        .collect();
    ctx.set_output(0, Shape::new(dims));
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("EditDistance")
            .input("hypothesis_indices", ArgType::Fixed(DType::I64))
            .input("hypothesis_values", ArgType::Attr("T"))
            .input("hypothesis_shape", ArgType::Fixed(DType::I64))
            .input("truth_indices", ArgType::Fixed(DType::I64))
            .input("truth_values", ArgType::Attr("T"))
            .input("truth_shape", ArgType::Fixed(DType::I64))
            .output("output", ArgType::Fixed(DType::F32))
            .attr("normalize", AttrKind::Bool, Some(AttrValue::Bool(true)))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(shape_fn),
    );
    register_kernel("EditDistance", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levenshtein_counts_edits() {
        assert_eq!(levenshtein(b"kitten", b"sitting"), 3);
        assert_eq!(levenshtein(b"", b"abc"), 3);
        assert_eq!(levenshtein(b"abc", b""), 3);
        assert_eq!(levenshtein(b"flaw", b"lawn"), 2);
    }

    #[test]
    fn groups_split_on_leading_coordinates() {
        let ix = [0i64, 0, 0, 1, 1, 0, 3, 2];
        let g = groups(&ix, 2);
        assert_eq!(g.len(), 3);
        assert_eq!((g[0].1, g[0].2, g[2].0), (0, 2, &[3i64][..]));
    }
}
