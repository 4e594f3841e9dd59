//! TensorFlow's `InferenceContext` checks these shape functions use, with its messages.

use weir_graph::{Dim, Error, Result, Shape};

/// `WithRankAtLeast`: the dims of a shape of known rank at least `rank`; None when the rank
/// is unknown.
pub(crate) fn at_least(s: &Shape, rank: usize) -> Result<Option<Vec<Dim>>> {
    match s.dims() {
        None => Ok(None),
        Some(d) if d.len() < rank => Err(Error::invalid_argument(format!(
            "Shape must be at least rank {rank} but is rank {}",
            d.len()
        ))),
        Some(d) => Ok(Some(d.to_vec())),
    }
}

/// `Merge` of two dimensions.
pub(crate) fn merge_dim(a: Dim, b: Dim) -> Result<Dim> {
    match (a, b) {
        (Some(x), Some(y)) if x != y => Err(Error::invalid_argument(format!(
            "Dimensions must be equal, but are {x} and {y}"
        ))),
        _ => Ok(a.or(b)),
    }
}

/// `WithValue`: a dimension known to be `v` (or unknown).
pub(crate) fn with_value(d: Dim, v: usize) -> Result<()> {
    match d {
        Some(x) if x != v => Err(Error::invalid_argument(format!(
            "Dimension must be {v} but is {x}"
        ))),
        _ => Ok(()),
    }
}

/// `Merge` of two shapes (unknown ranks merge with anything).
pub(crate) fn merge(a: &Shape, b: &Shape) -> Result<Shape> {
    let (Some(x), Some(y)) = (a.dims(), b.dims()) else {
        return Ok(if a.dims().is_some() {
            a.clone()
        } else {
            b.clone()
        });
    };
    if x.len() != y.len() {
        return Err(Error::invalid_argument(format!(
            "Shapes must be equal rank, but are {} and {}",
            x.len(),
            y.len()
        )));
    }
    let mut out = Vec::with_capacity(x.len());
    for (i, (&p, &q)) in x.iter().zip(y).enumerate() {
        match (p, q) {
            (Some(m), Some(n)) if m != n => {
                return Err(Error::invalid_argument(format!(
                    "Dimension {i} in both shapes must be equal, but are {m} and {n}. Shapes \
                     are {a} and {b}."
                )))
            }
            _ => out.push(p.or(q)),
        }
    }
    Ok(Shape::new(out))
}

/// The batch part (all but the last two dimensions) of a shape of rank >= 2 or unknown rank.
pub(crate) fn batch(d: &Option<Vec<Dim>>) -> Shape {
    match d {
        Some(d) => Shape::new(d[..d.len() - 2].to_vec()),
        None => Shape::unknown(),
    }
}

/// Dimension `-k` of a shape known to have rank >= k (unknown otherwise).
pub(crate) fn dim_back(d: &Option<Vec<Dim>>, k: usize) -> Dim {
    d.as_ref().and_then(|d| d[d.len() - k])
}
