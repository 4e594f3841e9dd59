//! Static (partially known) shapes, mirroring TensorFlow's `tf.TensorShape`.

use std::fmt;

use crate::{Error, Result};

/// One dimension of a static shape: `None` is unknown (`?`, Python's `None`).
pub type Dim = Option<usize>;

/// A static shape that may be partly or wholly unknown: TensorFlow's `tf.TensorShape`.
///
/// `Shape::unknown()` has unknown rank; otherwise each dimension is known or unknown. Run-time
/// shapes of tensors are plain `&[usize]`.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Shape(Option<Vec<Dim>>);

impl Shape {
    /// A shape of unknown rank.
    pub fn unknown() -> Shape {
        Shape(None)
    }

    /// The shape of a scalar (rank 0).
    pub fn scalar() -> Shape {
        Shape(Some(Vec::new()))
    }

    /// A shape of known rank whose dimensions are all unknown.
    pub fn unknown_of_rank(rank: usize) -> Shape {
        Shape(Some(vec![None; rank]))
    }

    /// A fully known shape.
    pub fn known(dims: &[usize]) -> Shape {
        Shape(Some(dims.iter().map(|&d| Some(d)).collect()))
    }

    /// A shape of known rank, each dimension known or not.
    pub fn new(dims: impl Into<Vec<Dim>>) -> Shape {
        Shape(Some(dims.into()))
    }

    /// A shape from TensorFlow's integer convention: `-1` is an unknown dimension.
    pub fn from_i64(dims: &[i64]) -> Shape {
        Shape(Some(
            dims.iter()
                .map(|&d| if d < 0 { None } else { Some(d as usize) })
                .collect(),
        ))
    }

    /// The rank, if known.
    pub fn rank(&self) -> Option<usize> {
        self.0.as_ref().map(Vec::len)
    }

    /// The dimensions, if the rank is known.
    pub fn dims(&self) -> Option<&[Dim]> {
        self.0.as_deref()
    }

    /// Dimension `i` (negative counts from the end); unknown if the rank is unknown.
    pub fn dim(&self, i: isize) -> Dim {
        let dims = self.0.as_ref()?;
        let idx = if i < 0 { dims.len() as isize + i } else { i };
        if idx < 0 {
            return None;
        }
        dims.get(idx as usize).copied().flatten()
    }

    /// Whether the rank and every dimension are known.
    pub fn is_fully_defined(&self) -> bool {
        self.0
            .as_ref()
            .is_some_and(|d| d.iter().all(Option::is_some))
    }

    /// The dimensions when fully defined.
    pub fn to_known(&self) -> Option<Vec<usize>> {
        self.0.as_ref()?.iter().copied().collect()
    }

    /// The number of elements when fully defined.
    pub fn num_elements(&self) -> Option<usize> {
        self.to_known().map(|d| d.iter().product())
    }

    /// Whether a tensor of shape `other` could have this static shape (TensorFlow's
    /// `is_compatible_with`).
    pub fn is_compatible_with(&self, other: &Shape) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(x, y)| x.is_none() || y.is_none() || x == y)
            }
            _ => true,
        }
    }

    /// Whether a run-time shape `dims` fits this static shape.
    pub fn is_compatible_with_dims(&self, dims: &[usize]) -> bool {
        match &self.0 {
            None => true,
            Some(a) => {
                a.len() == dims.len() && a.iter().zip(dims).all(|(x, y)| x.is_none_or(|x| x == *y))
            }
        }
    }

    /// The most specific shape compatible with both (TensorFlow's `merge_with`); an error when
    /// they are incompatible.
    pub fn merge_with(&self, other: &Shape) -> Result<Shape> {
        match (&self.0, &other.0) {
            (None, _) => Ok(other.clone()),
            (_, None) => Ok(self.clone()),
            (Some(a), Some(b)) => {
                if !self.is_compatible_with(other) {
                    return Err(Error::invalid_argument(format!(
                        "Shapes {self} and {other} are incompatible"
                    )));
                }
                Ok(Shape(Some(
                    a.iter().zip(b).map(|(x, y)| x.or(*y)).collect(),
                )))
            }
        }
    }

    /// This shape followed by `other`'s dimensions (unknown if either rank is unknown).
    pub fn concatenate(&self, other: &Shape) -> Shape {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Shape(Some(a.iter().chain(b).copied().collect())),
            _ => Shape(None),
        }
    }

    /// A shape with `dim` put in front (e.g. a batch dimension).
    pub fn with_leading(&self, dim: Dim) -> Shape {
        Shape::new(vec![dim]).concatenate(self)
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            None => f.write_str("<unknown>"),
            Some(dims) => {
                f.write_str("[")?;
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    match d {
                        Some(d) => write!(f, "{d}")?,
                        None => f.write_str("?")?,
                    }
                }
                f.write_str("]")
            }
        }
    }
}

impl fmt::Debug for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl<const N: usize> From<[usize; N]> for Shape {
    fn from(d: [usize; N]) -> Shape {
        Shape::known(&d)
    }
}

impl<const N: usize> From<[Dim; N]> for Shape {
    fn from(d: [Dim; N]) -> Shape {
        Shape::new(d.to_vec())
    }
}

impl From<&[usize]> for Shape {
    fn from(d: &[usize]) -> Shape {
        Shape::known(d)
    }
}

impl From<Vec<usize>> for Shape {
    fn from(d: Vec<usize>) -> Shape {
        Shape::known(&d)
    }
}

impl From<Vec<Dim>> for Shape {
    fn from(d: Vec<Dim>) -> Shape {
        Shape::new(d)
    }
}

impl Shape {
    /// `str(tf.TensorShape)` in Python, as TensorFlow's Python-side errors print a static shape:
    /// `(None, 2)`, `(2,)`, `()`, or `<unknown>`.
    pub fn python_str(&self) -> String {
        match self.dims() {
            None => "<unknown>".to_string(),
            Some(dims) => python_tuple(dims.iter().map(|d| match d {
                Some(n) => n.to_string(),
                None => "None".to_string(),
            })),
        }
    }

    /// `repr(tf.TensorShape)` in TensorFlow 1.x's Python:
    /// `TensorShape([Dimension(None), Dimension(2)])`, `TensorShape(None)` for an unknown rank.
    pub fn python_repr(&self) -> String {
        match self.dims() {
            None => "TensorShape(None)".to_string(),
            Some(dims) => {
                let dims: Vec<String> = dims
                    .iter()
                    .map(|d| match d {
                        Some(n) => format!("Dimension({n})"),
                        None => "Dimension(None)".to_string(),
                    })
                    .collect();
                format!("TensorShape([{}])", dims.join(", "))
            }
        }
    }
}

/// A run-time shape as a Python tuple, as TensorFlow's Python-side errors print a numpy shape:
/// `(1, 3)`, `(2,)`, `()`.
pub fn format_dims_python(dims: &[usize]) -> String {
    python_tuple(dims.iter().map(|d| d.to_string()))
}

fn python_tuple(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    match items.len() {
        1 => format!("({},)", items[0]),
        _ => format!("({})", items.join(", ")),
    }
}

/// Formats a run-time shape the way TensorFlow's messages do: `[2,3]`.
pub fn format_dims(dims: &[usize]) -> String {
    let parts: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_forms_match_tensorflows() {
        assert_eq!(Shape::new(vec![None, Some(2)]).python_str(), "(None, 2)");
        assert_eq!(Shape::known(&[2]).python_str(), "(2,)");
        assert_eq!(Shape::scalar().python_str(), "()");
        assert_eq!(Shape::unknown().python_str(), "<unknown>");
        assert_eq!(format_dims_python(&[1, 3]), "(1, 3)");
        assert_eq!(
            Shape::new(vec![None]).python_repr(),
            "TensorShape([Dimension(None)])"
        );
        assert_eq!(Shape::unknown().python_repr(), "TensorShape(None)");
    }

    #[test]
    fn display_marks_unknown_dims() {
        assert_eq!(Shape::new(vec![None, Some(2)]).to_string(), "[?,2]");
        assert_eq!(Shape::unknown().to_string(), "<unknown>");
        assert_eq!(Shape::scalar().to_string(), "[]");
    }

    #[test]
    fn compatibility() {
        let s = Shape::new(vec![None, Some(2)]);
        assert!(s.is_compatible_with_dims(&[5, 2]));
        assert!(!s.is_compatible_with_dims(&[2]));
        assert!(!s.is_compatible_with_dims(&[1, 3]));
        assert!(Shape::unknown().is_compatible_with_dims(&[1, 2, 3]));
        assert!(s.is_compatible_with(&Shape::known(&[3, 2])));
        assert!(!s.is_compatible_with(&Shape::known(&[3, 3])));
    }

    #[test]
    fn merge_fills_unknowns_and_rejects_conflicts() {
        let a = Shape::new(vec![None, Some(2)]);
        let b = Shape::new(vec![Some(4), None]);
        assert_eq!(a.merge_with(&b).unwrap(), Shape::known(&[4, 2]));
        assert!(a.merge_with(&Shape::known(&[4, 3])).is_err());
        assert_eq!(Shape::unknown().merge_with(&a).unwrap(), a);
    }

    #[test]
    fn negative_dim_index() {
        let s = Shape::known(&[2, 3, 4]);
        assert_eq!(s.dim(-1), Some(4));
        assert_eq!(s.dim(-4), None);
        assert_eq!(Shape::from_i64(&[-1, 3]), Shape::new(vec![None, Some(3)]));
    }
}
