//! The Python-level functions of `tf.sets`: dtype checks, the dense/sparse dispatch, and the
//! swap of a sparse `a` with a dense `b`.

use weir_graph::{DType, Error, Output, Result};

use crate::sparse::SparseOutput;

use super::SET_DTYPES;

/// An argument of the `tf.sets` functions: a dense tensor or a [`SparseOutput`], as TensorFlow's
/// Python accepts either.
#[derive(Clone, Debug)]
pub enum SetInput {
    /// A dense tensor; its last dimension holds the sets.
    Dense(Output),
    /// A sparse tensor; entries sharing all but their last index form a set.
    Sparse(SparseOutput),
}

impl SetInput {
    fn dtype(&self) -> DType {
        match self {
            SetInput::Dense(o) => o.dtype(),
            SetInput::Sparse(s) => s.dtype(),
        }
    }
}

impl From<Output> for SetInput {
    fn from(o: Output) -> Self {
        SetInput::Dense(o)
    }
}

impl From<&Output> for SetInput {
    fn from(o: &Output) -> Self {
        SetInput::Dense(o.clone())
    }
}

impl From<SparseOutput> for SetInput {
    fn from(s: SparseOutput) -> Self {
        SetInput::Sparse(s)
    }
}

impl From<&SparseOutput> for SetInput {
    fn from(s: &SparseOutput) -> Self {
        SetInput::Sparse(s.clone())
    }
}

/// Python's dtype check; `what` prefixes the message (`'a' has invalid` in the binary functions,
/// `Invalid` in `set_size`). Python prints its dtype set in hash order, so the list here is
/// sorted instead.
fn check_dtype(dt: DType, what: &str) -> Result<()> {
    if SET_DTYPES.contains(&dt) {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "{what} dtype `<dtype: '{dt}'>` not in supported dtypes: int8, int16, int32, int64, uint8, uint16, \
         string."
    )))
}

/// Python's `_convert_to_tensors_or_sparse_tensors`: a supported dtype, the same for both.
fn check_pair(a: &SetInput, b: &SetInput) -> Result<()> {
    check_dtype(a.dtype(), "'a' has invalid")?;
    if a.dtype() != b.dtype() {
        return Err(Error::invalid_argument(format!(
            "Types don't match, <dtype: '{}'> vs <dtype: '{}'>.",
            a.dtype(),
            b.dtype()
        )));
    }
    Ok(())
}

/// `tf.sets.size(a, validate_indices)` (op `SetSize`): the number of unique values in each set
/// of the sparse `a`, an int32 tensor of `a`'s dense shape without its last dimension.
pub fn size(a: &SparseOutput, validate_indices: bool) -> Result<Output> {
    check_dtype(a.dtype(), "Invalid")?;
    crate::new_op(a.graph(), "SetSize")
        .input(&a.indices)
        .input(&a.values)
        .input(&a.dense_shape)
        .attr("validate_indices", validate_indices)
        .build()?
        .output(0)
}

/// Python's `_set_operation`: picks the op for the input kinds.
fn set_operation(
    a: SetInput,
    b: SetInput,
    op: &str,
    validate_indices: bool,
) -> Result<SparseOutput> {
    let built = match (a, b) {
        (SetInput::Dense(a), SetInput::Dense(b)) => {
            let g = crate::util::same_graph(&[&a, &b])?.clone();
            crate::new_op(&g, "DenseToDenseSetOperation")
                .input(a)
                .input(b)
        }
        (SetInput::Dense(a), SetInput::Sparse(b)) => {
            let g = crate::util::same_graph(&[&a, &b.indices])?.clone();
            crate::new_op(&g, "DenseToSparseSetOperation")
                .input(a)
                .input(b.indices)
                .input(b.values)
                .input(b.dense_shape)
        }
        (SetInput::Sparse(a), SetInput::Sparse(b)) => {
            let g = crate::util::same_graph(&[&a.indices, &b.indices])?.clone();
            crate::new_op(&g, "SparseToSparseSetOperation")
                .input(a.indices)
                .input(a.values)
                .input(a.dense_shape)
                .input(b.indices)
                .input(b.values)
                .input(b.dense_shape)
        }
        (SetInput::Sparse(_), SetInput::Dense(_)) => {
            return Err(Error::invalid_argument(
                "Sparse,Dense is not supported, but Dense,Sparse is. Please flip the order of \
                 your inputs.",
            ))
        }
    };
    let op = built
        .attr("set_operation", op)
        .attr("validate_indices", validate_indices)
        .build()?;
    SparseOutput::from_op(&op)
}

/// Puts a dense `b` first when `a` is sparse (the kernels take only dense-then-sparse); true
/// when swapped.
fn dense_first(a: SetInput, b: SetInput) -> (SetInput, SetInput, bool) {
    match (a, b) {
        (SetInput::Sparse(a), SetInput::Dense(b)) => {
            (SetInput::Dense(b), SetInput::Sparse(a), true)
        }
        (a, b) => (a, b, false),
    }
}

/// `tf.sets.intersection(a, b, validate_indices)`: per group, the values in both `a` and `b`,
/// as a sparse tensor whose last dimension is the largest result set.
pub fn intersection(
    a: impl Into<SetInput>,
    b: impl Into<SetInput>,
    validate_indices: bool,
) -> Result<SparseOutput> {
    let (a, b) = (a.into(), b.into());
    check_pair(&a, &b)?;
    let (a, b, _) = dense_first(a, b);
    set_operation(a, b, "intersection", validate_indices)
}

/// `tf.sets.union(a, b, validate_indices)`: per group, the values in `a` or `b`.
pub fn union(
    a: impl Into<SetInput>,
    b: impl Into<SetInput>,
    validate_indices: bool,
) -> Result<SparseOutput> {
    let (a, b) = (a.into(), b.into());
    check_pair(&a, &b)?;
    let (a, b, _) = dense_first(a, b);
    set_operation(a, b, "union", validate_indices)
}

/// `tf.sets.difference(a, b, aminusb, validate_indices)`: per group, the values of `a` not in
/// `b` (or of `b` not in `a` when `aminusb` is false). A sparse `a` with a dense `b` is swapped
/// and the direction flipped, as TensorFlow's Python does.
pub fn difference(
    a: impl Into<SetInput>,
    b: impl Into<SetInput>,
    aminusb: bool,
    validate_indices: bool,
) -> Result<SparseOutput> {
    let (a, b) = (a.into(), b.into());
    check_pair(&a, &b)?;
    let (a, b, swapped) = dense_first(a, b);
    let op = if aminusb != swapped { "a-b" } else { "b-a" };
    set_operation(a, b, op, validate_indices)
}
