//! Helpers shared by the array and math families: reading index tensors (TensorFlow's `int32`
//! or `int64` "Tidx" inputs), canonicalizing axes, and building small index constants.

use weir_graph::{
    format_dims, DType, Error, Graph, InferenceContext, Output, Result, Shape, Tensor,
};

/// The elements of an int32 or int64 tensor as `i64`s (any shape, row-major).
pub(crate) fn to_i64s(t: &Tensor) -> Result<Vec<i64>> {
    match t.dtype() {
        DType::I32 => Ok(t.as_slice::<i32>()?.iter().map(|&v| v as i64).collect()),
        DType::I64 => Ok(t.as_slice::<i64>()?.to_vec()),
        dt => Err(Error::invalid_argument(format!(
            "Expected an int32 or int64 tensor, got {dt}"
        ))),
    }
}

/// The single element of an int32 or int64 tensor that must be a scalar; `what` names the
/// argument in the error.
pub(crate) fn scalar_i64(t: &Tensor, what: &str) -> Result<i64> {
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "{what} must be a scalar, but got shape {}",
            format_dims(t.shape())
        )));
    }
    Ok(to_i64s(t)?[0])
}

/// Input `i` of a node being added, as `i64`s, when it is a build-time constant.
pub(crate) fn const_i64s(ctx: &InferenceContext<'_>, i: usize) -> Result<Option<Vec<i64>>> {
    ctx.input_const(i).map(to_i64s).transpose()
}

/// `axis` in `[-rank, rank)` as a non-negative index; otherwise InvalidArgument in TensorFlow's
/// words ("Expected dimension in the range [-2, 2), but got 2").
pub(crate) fn canonical_axis(axis: i64, rank: usize) -> Result<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(Error::invalid_argument(format!(
            "Expected dimension in the range [{}, {r}), but got {axis}",
            -r
        )));
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}

/// An int32 constant vector (int64 when a value needs it), the way TensorFlow's Python layer
/// turns a list of ints into the index input of an op.
pub(crate) fn index_const(g: &Graph, v: &[i64]) -> Result<Output> {
    if v.iter().all(|&x| i32::try_from(x).is_ok()) {
        crate::array::constant(
            g,
            Tensor::from(v.iter().map(|&x| x as i32).collect::<Vec<_>>()),
        )
    } else {
        crate::array::constant(g, Tensor::from(v.to_vec()))
    }
}

/// The static shape of a node's input `i` as dims, or `None` when the rank is unknown.
pub(crate) fn input_dims(ctx: &InferenceContext<'_>, i: usize) -> Option<Vec<Option<usize>>> {
    ctx.input_shape(i).dims().map(<[_]>::to_vec)
}

/// The product of static dims: known only when every dim is.
pub(crate) fn known_product(dims: &[Option<usize>]) -> Option<usize> {
    dims.iter().try_fold(1usize, |acc, d| d.map(|d| acc * d))
}

/// A static shape of `rank` unknown dims, or an unknown rank.
pub(crate) fn unknown_dims(rank: Option<usize>) -> Shape {
    match rank {
        Some(r) => Shape::unknown_of_rank(r),
        None => Shape::unknown(),
    }
}

/// TensorFlow's shape-function `Merge` of two shapes: the most specific shape compatible with
/// both, or InvalidArgument in the words its shape functions use ("Shapes must be equal rank,
/// ...", "Dimension 1 in both shapes must be equal, ...").
pub(crate) fn merge_shapes(a: &Shape, b: &Shape) -> Result<Shape> {
    if let (Some(x), Some(y)) = (a.dims(), b.dims()) {
        if x.len() != y.len() {
            return Err(Error::invalid_argument(format!(
                "Shapes must be equal rank, but are {} and {}",
                x.len(),
                y.len()
            )));
        }
        for (k, (p, q)) in x.iter().zip(y).enumerate() {
            if let (Some(p), Some(q)) = (p, q) {
                if p != q {
                    return Err(Error::invalid_argument(format!(
                        "Dimension {k} in both shapes must be equal, but are {p} and {q}. \
                         Shapes are {a} and {b}."
                    )));
                }
            }
        }
    }
    a.merge_with(b)
}

/// An int vector argument of an array op (a shape, multiples, a permutation, begin/size...):
/// a Rust list, which becomes an int32 constant as in TensorFlow's Python layer, or a tensor
/// computed by the graph (int32 or int64).
#[derive(Clone, Debug)]
pub enum IndexArg {
    /// Known values.
    List(Vec<i64>),
    /// A 1-D int32/int64 tensor.
    Tensor(Output),
}

macro_rules! index_arg_from_ints {
    ($($t:ty),*) => {$(
        impl From<Vec<$t>> for IndexArg {
            fn from(a: Vec<$t>) -> IndexArg { IndexArg::List(a.into_iter().map(|v| v as i64).collect()) }
        }
        impl From<&[$t]> for IndexArg {
            fn from(a: &[$t]) -> IndexArg { IndexArg::List(a.iter().map(|&v| v as i64).collect()) }
        }
        impl<const N: usize> From<[$t; N]> for IndexArg {
            fn from(a: [$t; N]) -> IndexArg { IndexArg::List(a.iter().map(|&v| v as i64).collect()) }
        }
        impl<const N: usize> From<&[$t; N]> for IndexArg {
            fn from(a: &[$t; N]) -> IndexArg { IndexArg::List(a.iter().map(|&v| v as i64).collect()) }
        }
    )*};
}
index_arg_from_ints!(i32, i64, usize);

impl From<Output> for IndexArg {
    fn from(o: Output) -> IndexArg {
        IndexArg::Tensor(o)
    }
}

impl From<&Output> for IndexArg {
    fn from(o: &Output) -> IndexArg {
        IndexArg::Tensor(o.clone())
    }
}

impl IndexArg {
    /// The argument as a tensor of `g`.
    pub(crate) fn to_output(&self, g: &Graph) -> Result<Output> {
        match self {
            IndexArg::List(v) => index_const(g, v),
            IndexArg::Tensor(o) => Ok(o.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_and_index_tensors() {
        assert_eq!(canonical_axis(-1, 3).unwrap(), 2);
        assert_eq!(canonical_axis(0, 1).unwrap(), 0);
        let e = canonical_axis(2, 2).unwrap_err();
        assert_eq!(
            e.message(),
            "Expected dimension in the range [-2, 2), but got 2"
        );
        assert!(canonical_axis(0, 0).is_err());
        assert_eq!(to_i64s(&Tensor::from(vec![1i32, -2])).unwrap(), vec![1, -2]);
        assert_eq!(to_i64s(&Tensor::from(vec![7i64])).unwrap(), vec![7]);
        assert!(to_i64s(&Tensor::from(vec![1.0f32])).is_err());
        assert!(scalar_i64(&Tensor::from(vec![1i32]), "axis").is_err());
        assert_eq!(scalar_i64(&Tensor::from(3i64), "axis").unwrap(), 3);
        assert_eq!(known_product(&[Some(2), Some(3)]), Some(6));
        assert_eq!(known_product(&[Some(2), None]), None);
    }
}
