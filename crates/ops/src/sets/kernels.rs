//! The CPU kernels of `SetSize` and the three `*SetOperation` ops, following TensorFlow's
//! `set_kernels.cc`: sets are the last dimension of each group (all but the last index), a
//! sparse input is grouped by runs of equal group indices, and each result set is sorted.

use std::collections::BTreeSet;

use weir_graph::{format_dims, Bytes, DType, Error, Kernel, OpContext, Result, Tensor, TensorType};

/// The set operation of a `*SetOperation` node (its `set_operation` attr, case-insensitive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SetOp {
    AMinusB,
    BMinusA,
    Intersection,
    Union,
}

impl SetOp {
    /// Parses the attr the way TensorFlow's kernel constructor does.
    pub(super) fn parse(s: &str) -> Result<SetOp> {
        match s.to_lowercase().as_str() {
            "a-b" => Ok(SetOp::AMinusB),
            "b-a" => Ok(SetOp::BMinusA),
            "intersection" => Ok(SetOp::Intersection),
            "union" => Ok(SetOp::Union),
            other => Err(Error::invalid_argument(format!(
                "Invalid set_operation {other}."
            ))),
        }
    }

    fn apply<T: Ord + Clone>(self, a: &BTreeSet<T>, b: &BTreeSet<T>) -> BTreeSet<T> {
        match self {
            SetOp::AMinusB => a.difference(b).cloned().collect(),
            SetOp::BMinusA => b.difference(a).cloned().collect(),
            SetOp::Intersection => a.intersection(b).cloned().collect(),
            SetOp::Union => a.union(b).cloned().collect(),
        }
    }
}

/// Which inputs of a set operation are sparse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Inputs {
    DenseDense,
    DenseSparse,
    SparseSparse,
}

const ORDER_HINT: &str = "Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n";

/// A sparse input after TensorFlow's `SparseTensorFromContext` checks.
struct SparseIn<'a> {
    ix: &'a [i64],
    n: usize,
    shape: Vec<i64>,
    values: &'a Tensor,
}

impl SparseIn<'_> {
    fn rank(&self) -> usize {
        self.shape.len()
    }

    fn row(&self, i: usize) -> &[i64] {
        &self.ix[i * self.rank()..(i + 1) * self.rank()]
    }

    /// `(start, end)` of each run of entries sharing their group index (all but the last).
    fn groups(&self) -> Vec<(usize, usize)> {
        let g = self.rank() - 1;
        let mut out = Vec::new();
        let mut start = 0;
        // With no entries the loop is empty: no groups.
        for i in 1..=self.n {
            if i == self.n || self.row(i)[..g] != self.row(start)[..g] {
                out.push((start, i));
                start = i;
            }
        }
        out
    }
}

/// Whether the sparse index `row` lies in the group `group` (kept out of the generic kernels,
/// whose `T: Ord` bound would otherwise steer the comparison).
fn same_group(row: &[i64], group: &[i64]) -> bool {
    row[..group.len()] == *group
}

fn cmp_groups(a: &[i64], b: &[i64]) -> std::cmp::Ordering {
    a.cmp(b)
}

fn show(idx: &[i64]) -> String {
    let parts: Vec<String> = idx.iter().map(|d| d.to_string()).collect();
    parts.join(",")
}

fn sparse_in<'c>(ctx: &'c OpContext<'_>, base: usize, validate: bool) -> Result<SparseIn<'c>> {
    let (indices, values, shape_t) = (ctx.input(base), ctx.input(base + 1), ctx.input(base + 2));
    if shape_t.rank() != 1 {
        return Err(Error::invalid_argument("Shape must be a 1D tensor."));
    }
    let shape = shape_t.to_vec::<i64>()?;
    if let Some(d) = shape.iter().find(|&&d| d < 0) {
        return Err(Error::invalid_argument(format!(
            "Expected shape dimensions to be non-negative, got {d}"
        )));
    }
    if shape.len() < 2 {
        return Err(Error::invalid_argument(format!(
            "Invalid rank {}.",
            shape.len()
        )));
    }
    // `SparseTensor::Create`'s checks, in its order and with its messages.
    if indices.rank() != 2 {
        return Err(Error::invalid_argument(format!(
            "indices must be a matrix, but got: {}",
            format_dims(indices.shape())
        )));
    }
    if values.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "values must be a vector, but got: {}",
            format_dims(values.shape())
        )));
    }
    let (n, rank) = (indices.shape()[0], indices.shape()[1]);
    if values.shape()[0] != n {
        return Err(Error::invalid_argument(format!(
            "indices and values rows (indexing dimension) must match. (indices = {n}, values = {})",
            values.shape()[0]
        )));
    }
    if rank != shape.len() {
        return Err(Error::invalid_argument(
            "Order length must be SparseTensor rank.",
        ));
    }
    let sp = SparseIn {
        ix: indices.as_slice::<i64>()?,
        n,
        shape,
        values,
    };
    if validate {
        indices_valid(&sp)?;
    }
    Ok(sp)
}

/// TensorFlow's `SparseTensor::IndicesValid`: in bounds, strictly increasing in row-major order.
fn indices_valid(sp: &SparseIn<'_>) -> Result<()> {
    for i in 0..sp.n {
        let cur = sp.row(i);
        if cur.iter().zip(&sp.shape).any(|(&x, &d)| x < 0 || x >= d) {
            return Err(Error::invalid_argument(format!(
                "indices[{i}] = [{}] is out of bounds: need 0 <= index < [{}]",
                show(cur),
                show(&sp.shape)
            )));
        }
        if i > 0 {
            match sp.row(i - 1).cmp(cur) {
                std::cmp::Ordering::Less => {}
                std::cmp::Ordering::Equal => {
                    return Err(Error::invalid_argument(format!(
                        "indices[{i}] = [{}] is repeated",
                        show(cur)
                    )))
                }
                std::cmp::Ordering::Greater => {
                    return Err(Error::invalid_argument(format!(
                        "indices[{i}] = [{}] is out of order. {ORDER_HINT}",
                        show(cur)
                    )))
                }
            }
        }
    }
    Ok(())
}

/// TensorFlow's `GroupShape`: all but the last dimension of a rank >= 2 shape.
fn group_shape(shape: &[i64]) -> Result<Vec<i64>> {
    if shape.len() < 2 {
        return Err(Error::invalid_argument(format!(
            "Shape [{}] has rank {} < 2",
            show(shape),
            shape.len()
        )));
    }
    Ok(shape[..shape.len() - 1].to_vec())
}

fn group_shape_of(a: &[i64], b: &[i64]) -> Result<Vec<i64>> {
    let (ga, gb) = (group_shape(a)?, group_shape(b)?);
    if ga != gb {
        return Err(Error::invalid_argument(format!(
            "Mismatched shapes [{}] vs [{}]",
            show(&ga),
            show(&gb)
        )));
    }
    Ok(ga)
}

fn dims_i64(t: &Tensor) -> Vec<i64> {
    t.shape().iter().map(|&d| d as i64).collect()
}

/// TensorFlow's `CheckGroup` bounds check, which runs even when indices are not validated.
fn check_group(sp: &SparseIn<'_>, start: usize, end: usize) -> Result<()> {
    for (j, &d) in sp.shape.iter().enumerate() {
        if d <= 0 {
            return Err(Error::internal(format!("Invalid dim_size[{j}] = {d}.")));
        }
        for i in start..end {
            let x = sp.row(i)[j];
            if x >= d {
                return Err(Error::internal(format!(
                    "indices[{}, {j}] expected < {d}, got {x}.",
                    i - start
                )));
            }
        }
    }
    Ok(())
}

fn sparse_set<T: TensorType + Ord + Clone>(
    sp: &SparseIn<'_>,
    (start, end): (usize, usize),
    out: &mut BTreeSet<T>,
) -> Result<()> {
    check_group(sp, start, end)?;
    out.clear();
    out.extend(sp.values.as_slice::<T>()?[start..end].iter().cloned());
    Ok(())
}

fn dense_set<T: TensorType + Ord + Clone>(
    t: &Tensor,
    group: usize,
    out: &mut BTreeSet<T>,
) -> Result<()> {
    let w = t.shape()[t.rank() - 1];
    out.clear();
    out.extend(
        t.as_slice::<T>()?[group * w..(group + 1) * w]
            .iter()
            .cloned(),
    );
    Ok(())
}

/// The row-major index of `flat` within `shape`.
fn unflatten(mut flat: i64, shape: &[i64], out: &mut Vec<i64>) {
    out.clear();
    out.resize(shape.len(), 0);
    for (o, &d) in out.iter_mut().zip(shape).rev() {
        *o = flat % d;
        flat /= d;
    }
}

/// The result sets, in group order, as the three tensors of a sparse output.
struct Collector<T> {
    indices: Vec<i64>,
    values: Vec<T>,
    max_size: usize,
}

impl<T: TensorType> Collector<T> {
    fn new() -> Self {
        Collector {
            indices: Vec::new(),
            values: Vec::new(),
            max_size: 0,
        }
    }

    fn push(&mut self, group: &[i64], set: BTreeSet<T>) {
        self.max_size = self.max_size.max(set.len());
        for (k, v) in set.into_iter().enumerate() {
            self.indices.extend_from_slice(group);
            self.indices.push(k as i64);
            self.values.push(v);
        }
    }

    fn finish(self, ctx: &mut OpContext<'_>, group_shape: &[i64]) -> Result<()> {
        let rank = group_shape.len() + 1;
        let n = self.values.len();
        let mut shape = group_shape.to_vec();
        shape.push(self.max_size as i64);
        ctx.set_output(0, Tensor::from_vec(&[n, rank], self.indices)?);
        ctx.set_output(1, Tensor::from_vec(&[n], self.values)?);
        ctx.set_output(2, Tensor::from_vec(&[rank], shape)?);
        Ok(())
    }
}

fn set_operation<T: TensorType + Ord + Clone>(
    ctx: &mut OpContext<'_>,
    op: SetOp,
    inputs: Inputs,
    validate: bool,
) -> Result<()> {
    let mut out = Collector::<T>::new();
    let (mut s1, mut s2) = (BTreeSet::new(), BTreeSet::new());
    let gshape = match inputs {
        Inputs::DenseDense => {
            let (a, b) = (ctx.input(0), ctx.input(1));
            let gshape = group_shape_of(&dims_i64(a), &dims_i64(b))?;
            let groups: i64 = gshape.iter().product();
            let mut gi = Vec::new();
            for flat in 0..groups {
                unflatten(flat, &gshape, &mut gi);
                dense_set(a, flat as usize, &mut s1)?;
                dense_set(b, flat as usize, &mut s2)?;
                let r = op.apply(&s1, &s2);
                if !r.is_empty() {
                    out.push(&gi, r);
                }
            }
            gshape
        }
        Inputs::DenseSparse => {
            let a = ctx.input(0);
            let b = sparse_in(ctx, 1, validate)?;
            let gshape = group_shape_of(&dims_i64(a), &b.shape)?;
            let groups: i64 = gshape.iter().product();
            let b_groups = b.groups();
            let mut next = 0;
            let mut gi = Vec::new();
            for flat in 0..groups {
                unflatten(flat, &gshape, &mut gi);
                dense_set(a, flat as usize, &mut s1)?;
                s2.clear();
                // A sparse group that does not come up in row-major order is never consumed,
                // as in TensorFlow's kernel.
                if let Some(&(start, end)) = b_groups.get(next) {
                    if same_group(b.row(start), &gi) {
                        sparse_set(&b, (start, end), &mut s2)?;
                        next += 1;
                    }
                }
                let r = op.apply(&s1, &s2);
                if !r.is_empty() {
                    out.push(&gi, r);
                }
            }
            gshape
        }
        Inputs::SparseSparse => {
            let a = sparse_in(ctx, 0, validate)?;
            let b = sparse_in(ctx, 3, validate)?;
            let gshape = group_shape_of(&a.shape, &b.shape)?;
            let (ga, gb) = (a.groups(), b.groups());
            let (mut i, mut j) = (0, 0);
            let g = gshape.len();
            while i < ga.len() || j < gb.len() {
                let ord = match (ga.get(i), gb.get(j)) {
                    (Some(x), Some(y)) => cmp_groups(&a.row(x.0)[..g], &b.row(y.0)[..g]),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    _ => std::cmp::Ordering::Greater,
                };
                s1.clear();
                s2.clear();
                let mut gi: &[i64] = &[];
                if ord.is_le() {
                    sparse_set(&a, ga[i], &mut s1)?;
                    gi = &a.row(ga[i].0)[..g];
                    i += 1;
                }
                if ord.is_ge() {
                    sparse_set(&b, gb[j], &mut s2)?;
                    gi = &b.row(gb[j].0)[..g];
                    j += 1;
                }
                let r = op.apply(&s1, &s2);
                if !r.is_empty() {
                    out.push(gi, r);
                }
            }
            gshape
        }
    };
    out.finish(ctx, &gshape)
}

fn set_size<T: TensorType + Ord + Clone>(ctx: &mut OpContext<'_>, validate: bool) -> Result<()> {
    let sp = sparse_in(ctx, 0, validate)?;
    let gshape = group_shape(&sp.shape)?;
    // The dense shape is data, so a corrupt one must fail rather than abort the allocation.
    let total = gshape
        .iter()
        .try_fold(1i64, |acc, &d| acc.checked_mul(d))
        .filter(|&t| t <= i64::from(i32::MAX))
        .ok_or_else(|| {
            Error::resource_exhausted(format!(
                "SetSize output shape [{}] is too large",
                show(&gshape)
            ))
        })?;
    let mut sizes = vec![0i32; total as usize];
    let mut set = BTreeSet::<T>::new();
    let g = gshape.len();
    for (start, end) in sp.groups() {
        sparse_set(&sp, (start, end), &mut set)?;
        let key = &sp.row(start)[..g];
        let mut flat = 0i64;
        for (&k, &d) in key.iter().zip(&gshape) {
            flat = flat * d + k;
        }
        if flat < 0 || flat >= total {
            return Err(Error::invalid_argument(format!(
                "Index out of range, [{}] vs [{}]",
                show(key),
                show(&gshape)
            )));
        }
        sizes[flat as usize] = set.len() as i32;
    }
    let dims: Vec<usize> = gshape.iter().map(|&d| d as usize).collect();
    ctx.set_output(0, Tensor::from_vec(&dims, sizes)?);
    Ok(())
}

/// Runs `$body` with `$T` bound to the element type of a set dtype.
macro_rules! match_set_dtype {
    ($dt:expr, $T:ident => $body:expr) => {
        match $dt {
            DType::I8 => {
                type $T = i8;
                $body
            }
            DType::I16 => {
                type $T = i16;
                $body
            }
            DType::I32 => {
                type $T = i32;
                $body
            }
            DType::I64 => {
                type $T = i64;
                $body
            }
            DType::U8 => {
                type $T = u8;
                $body
            }
            DType::U16 => {
                type $T = u16;
                $body
            }
            DType::String => {
                type $T = Bytes;
                $body
            }
            other => Err(Error::invalid_argument(format!(
                "Invalid dtype {other} for a set op"
            ))),
        }
    };
}

/// `SetSize`.
pub(super) struct SetSizeKernel {
    pub(super) validate: bool,
}

impl Kernel for SetSizeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dt = ctx.input(1).dtype();
        match_set_dtype!(dt, T => set_size::<T>(ctx, self.validate))
    }
}

/// `DenseToDenseSetOperation`, `DenseToSparseSetOperation` and `SparseToSparseSetOperation`.
pub(super) struct SetOperationKernel {
    pub(super) op: SetOp,
    pub(super) inputs: Inputs,
    pub(super) validate: bool,
}

impl Kernel for SetOperationKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let values = if self.inputs == Inputs::SparseSparse {
            1
        } else {
            0
        };
        let dt = ctx.input(values).dtype();
        match_set_dtype!(dt, T => set_operation::<T>(ctx, self.op, self.inputs, self.validate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unflatten_is_row_major() {
        let mut v = Vec::new();
        unflatten(5, &[2, 3], &mut v);
        assert_eq!(v, [1, 2]);
        assert_eq!(SetOp::parse("A-B").unwrap(), SetOp::AMinusB);
        assert_eq!(
            SetOp::parse("xor").unwrap_err().message(),
            "Invalid set_operation xor."
        );
    }
}
