//! Checks shared by the structural sparse kernels, with TensorFlow's messages
//! (`sparse_utils::ValidateSparseTensor` and `SparseTensor::Create`).

use weir_graph::{format_dims, Error, Result, Tensor};

/// The most entries (or dense rows) a structural sparse kernel allocates for; a larger request,
/// which could only come from a corrupt input, is ResourceExhausted instead of an abort.
pub(super) const MAX_OUTPUT: usize = 1 << 31;

/// `indices` `[N, rank]`, `values` `[N]` and `shape` `[rank]`; returns `(N, rank)`.
pub(super) fn sparse_shapes(
    indices: &Tensor,
    values: &Tensor,
    shape: &Tensor,
) -> Result<(usize, usize)> {
    if indices.rank() != 2 {
        return Err(Error::invalid_argument(format!(
            "Sparse indices must be rank 2 but is rank {}",
            indices.rank()
        )));
    }
    if values.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "Sparse values must be rank 1 but is rank {}",
            values.rank()
        )));
    }
    if shape.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "Sparse shape must be rank 1 but is rank {}",
            shape.rank()
        )));
    }
    let (n, rank) = (indices.shape()[0], indices.shape()[1]);
    if values.shape()[0] != n {
        return Err(Error::invalid_argument(format!(
            "Number of elements in indices ({n}) and values ({}) do not match",
            values.shape()[0]
        )));
    }
    if shape.num_elements() != rank {
        return Err(Error::invalid_argument(format!(
            "Index rank ({rank}) and shape rank ({}) do not match",
            shape.num_elements()
        )));
    }
    Ok((n, rank))
}

/// `indices[i, :] = [a, b]`, the way TensorFlow's sparse validation names an entry.
pub(super) fn index_tuple(i: usize, row: &[i64]) -> String {
    let parts: Vec<String> = row.iter().map(|d| d.to_string()).collect();
    format!("indices[{i}, :] = [{}]", parts.join(", "))
}

/// Every index within `shape` (TensorFlow's unordered index validation).
pub(super) fn indices_in_bounds(ix: &[i64], rank: usize, shape: &[i64]) -> Result<()> {
    for (i, row) in ix
        .chunks_exact(rank.max(1))
        .enumerate()
        .take(ix.len() / rank.max(1))
    {
        if row.iter().zip(shape).any(|(&x, &d)| x < 0 || x >= d) {
            return Err(Error::invalid_argument(format!(
                "Sparse index tuple {} is out of bounds",
                index_tuple(i, row)
            )));
        }
    }
    Ok(())
}

/// A tensor's shape as TensorFlow's `DebugString` prints it (`[2,3]`).
pub(super) fn dims_of(t: &Tensor) -> String {
    format_dims(t.shape())
}

/// Up to `max` elements of an int64 vector separated by spaces (TensorFlow's `SummarizeValue`).
pub(super) fn summarize(v: &[i64], max: usize) -> String {
    let mut parts: Vec<String> = v.iter().take(max).map(|d| d.to_string()).collect();
    if v.len() > max {
        parts.push("...".to_string());
    }
    parts.join(" ")
}

/// `n` checked against [`MAX_OUTPUT`].
pub(super) fn bounded(n: usize, what: &str) -> Result<usize> {
    if n > MAX_OUTPUT {
        return Err(Error::resource_exhausted(format!(
            "{what}: {n} output entries are more than the {MAX_OUTPUT} allowed"
        )));
    }
    Ok(n)
}

/// A static shape as Python's `TensorShape` prints it: `(1, 2)`, `(3,)`, `(None, 2)`.
pub(super) fn py_shape(s: &weir_graph::Shape) -> String {
    match s.dims() {
        None => "<unknown>".to_string(),
        Some(d) => {
            let parts: Vec<String> = d
                .iter()
                .map(|x| x.map_or_else(|| "None".to_string(), |v| v.to_string()))
                .collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
    }
}

/// Python's `TensorShape.assert_has_rank(rank)`.
pub(super) fn assert_has_rank(s: &weir_graph::Shape, rank: usize) -> Result<()> {
    match s.rank() {
        Some(r) if r != rank => Err(Error::invalid_argument(format!(
            "Shape {} must have rank {rank}",
            py_shape(s)
        ))),
        _ => Ok(()),
    }
}

/// The static checks of Python's `SparseTensor(indices, values, dense_shape)` constructor.
pub(super) fn sparse_tensor_checks(sp: &super::SparseOutput) -> Result<()> {
    let (ix, v, s) = (
        sp.indices.shape(),
        sp.values.shape(),
        sp.dense_shape.shape(),
    );
    for (shape, rank) in [(&ix, 2), (&v, 1), (&s, 1)] {
        if shape.rank().is_some_and(|r| r != rank) {
            return Err(Error::invalid_argument(format!(
                "Shape {} must have rank {rank}",
                py_shape(shape)
            )));
        }
    }
    assert_compatible(ix.dim(0), v.dim(0))?;
    assert_compatible(ix.dim(1), s.dim(0))
}

/// Python's `Dimension.assert_is_compatible_with`: two known sizes must agree.
pub(super) fn assert_compatible(a: Option<usize>, b: Option<usize>) -> Result<()> {
    match (a, b) {
        (Some(x), Some(y)) if x != y => Err(Error::invalid_argument(format!(
            "Dimensions {x} and {y} are not compatible"
        ))),
        _ => Ok(()),
    }
}

/// The value of `o` when it is a constant int vector (TensorFlow's `constant_value`, which also
/// sees through a `Cast`).
pub(super) fn const_ints(o: &weir_graph::Output) -> Option<Vec<i64>> {
    let op = o.op();
    match op.op_type().as_str() {
        "Const" => {
            let t = op.attr::<Tensor>("value").ok()?;
            match t.dtype() {
                weir_graph::DType::I64 => t.to_vec::<i64>().ok(),
                weir_graph::DType::I32 => t
                    .to_vec::<i32>()
                    .ok()
                    .map(|v| v.into_iter().map(i64::from).collect()),
                _ => None,
            }
        }
        "Cast" | "Identity" => const_ints(op.inputs().first()?),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_print_like_tensorflow() {
        assert_eq!(index_tuple(3, &[0, 9]), "indices[3, :] = [0, 9]");
        assert_eq!(summarize(&[2, 2, 2], 10), "2 2 2");
        assert_eq!(py_shape(&weir_graph::Shape::known(&[3])), "(3,)");
        assert_eq!(
            py_shape(&weir_graph::Shape::new(vec![None, Some(2)])),
            "(None, 2)"
        );
        let e = indices_in_bounds(&[0, 1, 2, 0], 2, &[2, 2]).unwrap_err();
        assert_eq!(
            e.message(),
            "Sparse index tuple indices[1, :] = [2, 0] is out of bounds"
        );
        assert!(bounded(MAX_OUTPUT + 1, "x")
            .unwrap_err()
            .is_resource_exhausted());
    }
}
