//! Batched diagonals: `MatrixDiagV3` (`tf.linalg.diag`), `MatrixDiagPartV3`
//! (`tf.linalg.diag_part`) and `MatrixSetDiagV3` (`tf.linalg.set_diag`), with a band of
//! diagonals `k = (lower, upper)` and TensorFlow's alignments of the shorter diagonals.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, OpDef, Output, Result, Shape,
    Tensor,
};

use super::matrix_diag_kernels::{align_of, DiagKernel, DiagPartKernel, SetDiagKernel};
use crate::array::shape_util::const_i64s;

/// Where the shorter diagonals of a band sit in their rows of the packed `diagonal` tensor
/// (TensorFlow's `align` attr): superdiagonals first, then subdiagonals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Align {
    /// `"RIGHT_LEFT"` (TensorFlow's default): superdiagonals right, subdiagonals left.
    #[default]
    RightLeft,
    /// `"LEFT_RIGHT"`: superdiagonals left, subdiagonals right.
    LeftRight,
    /// `"LEFT_LEFT"`.
    LeftLeft,
    /// `"RIGHT_RIGHT"`.
    RightRight,
}

impl Align {
    /// TensorFlow's name of the alignment.
    pub fn as_str(self) -> &'static str {
        match self {
            Align::RightLeft => "RIGHT_LEFT",
            Align::LeftRight => "LEFT_RIGHT",
            Align::LeftLeft => "LEFT_LEFT",
            Align::RightRight => "RIGHT_RIGHT",
        }
    }

    pub(super) fn parse(s: &str) -> Result<(bool, bool)> {
        match s {
            "RIGHT_LEFT" => Ok((false, true)),
            "LEFT_RIGHT" => Ok((true, false)),
            "LEFT_LEFT" => Ok((true, true)),
            "RIGHT_RIGHT" => Ok((false, false)),
            _ => Err(Error::invalid_argument(format!(
                "Value for attr 'align' of \"{s}\" is not in the list of allowed values: \
                 \"LEFT_RIGHT\", \"RIGHT_LEFT\", \"LEFT_LEFT\", \"RIGHT_RIGHT\""
            ))),
        }
    }
}

/// Options of `tf.linalg.diag`, `diag_part` and `set_diag`: the diagonals `k`, the output's
/// rows and columns, the padding value and the alignment, with TensorFlow's defaults
/// (`k=0`, `num_rows=num_cols=-1`, `padding_value=0`, `align="RIGHT_LEFT"`).
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::{array::constant, linalg::{Align, MatrixDiag}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[3, 3], (1..=9).collect::<Vec<i32>>())?)?;
/// // The diagonal and the one above it; the shorter one padded with 0 on the left.
/// let d = MatrixDiag::new().k_range(0, 1).align(Align::RightLeft).diag_part(&x)?;
/// assert_eq!(d.shape(), Shape::known(&[2, 3]));
/// assert_eq!(Session::new(&g)?.eval(&d)?.to_vec::<i32>()?, vec![0, 2, 6, 1, 5, 9]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct MatrixDiag {
    k: Option<Output>,
    k_range: (i64, i64),
    num_rows: i64,
    num_cols: i64,
    padding_value: f64,
    align: Align,
}

impl MatrixDiag {
    /// TensorFlow's defaults.
    pub fn new() -> MatrixDiag {
        MatrixDiag {
            num_rows: -1,
            num_cols: -1,
            ..MatrixDiag::default()
        }
    }

    /// One diagonal: 0 is the main one, positive ones are above it (`k=d`).
    pub fn k(self, d: i64) -> MatrixDiag {
        self.k_range(d, d)
    }

    /// The band of diagonals `lower..=upper` (`k=(lower, upper)`).
    pub fn k_range(mut self, lower: i64, upper: i64) -> MatrixDiag {
        self.k_range = (lower, upper);
        self.k = None;
        self
    }

    /// `k` as an int32 tensor (a scalar or a pair).
    pub fn k_tensor(mut self, k: impl Into<Output>) -> MatrixDiag {
        self.k = Some(k.into());
        self
    }

    /// The output's number of rows (`-1`: the smallest that fits).
    pub fn num_rows(mut self, n: i64) -> MatrixDiag {
        self.num_rows = n;
        self
    }

    /// The output's number of columns (`-1`: the smallest that fits).
    pub fn num_cols(mut self, n: i64) -> MatrixDiag {
        self.num_cols = n;
        self
    }

    /// The value outside the band (`diag`) or past a short diagonal (`diag_part`).
    pub fn padding_value(mut self, v: f64) -> MatrixDiag {
        self.padding_value = v;
        self
    }

    /// The alignment of the shorter diagonals.
    pub fn align(mut self, align: Align) -> MatrixDiag {
        self.align = align;
        self
    }

    fn k_output(&self, g: &weir_graph::Graph) -> Result<Output> {
        match &self.k {
            Some(k) => Ok(k.clone()),
            None if self.k_range.0 == self.k_range.1 => {
                crate::array::constant(g, Tensor::scalar(self.k_range.0 as i32))
            }
            None => crate::array::constant(
                g,
                Tensor::from(vec![self.k_range.0 as i32, self.k_range.1 as i32]),
            ),
        }
    }

    fn padding(&self, g: &weir_graph::Graph, dtype: DType) -> Result<Output> {
        let t = match dtype {
            DType::Bool => Tensor::scalar(self.padding_value != 0.0),
            DType::String => Tensor::from(""),
            dt => weir_graph::scalar_of(dt, self.padding_value)?,
        };
        crate::array::constant(g, t)
    }

    /// `tf.linalg.diag(diagonal, k, num_rows, num_cols, padding_value, align)`: a batch of
    /// matrices with the given diagonals and `padding_value` elsewhere.
    pub fn diag(&self, diagonal: impl Into<Output>) -> Result<Output> {
        let d = diagonal.into();
        let g = d.graph().clone();
        let int = |v: i64| crate::array::constant(&g, Tensor::scalar(v as i32));
        crate::new_op(&g, "MatrixDiagV3")
            .input(&d)
            .input(self.k_output(&g)?)
            .input(int(self.num_rows)?)
            .input(int(self.num_cols)?)
            .input(self.padding(&g, d.dtype())?)
            .attr("align", self.align.as_str())
            .build()?
            .output(0)
    }

    /// `tf.linalg.diag_part(input, k, padding_value, align)`: the diagonals of each matrix.
    pub fn diag_part(&self, input: impl Into<Output>) -> Result<Output> {
        let x = input.into();
        let g = x.graph().clone();
        crate::new_op(&g, "MatrixDiagPartV3")
            .input(&x)
            .input(self.k_output(&g)?)
            .input(self.padding(&g, x.dtype())?)
            .attr("align", self.align.as_str())
            .build()?
            .output(0)
    }

    /// `tf.linalg.set_diag(input, diagonal, k, align)`: `input` with its diagonals replaced.
    pub fn set_diag(
        &self,
        input: impl Into<Output>,
        diagonal: impl Into<Output>,
    ) -> Result<Output> {
        let (x, d) = (input.into(), diagonal.into());
        let g = crate::util::same_graph(&[&x, &d])?.clone();
        crate::new_op(&g, "MatrixSetDiagV3")
            .input(&x)
            .input(&d)
            .input(self.k_output(&g)?)
            .attr("align", self.align.as_str())
            .build()?
            .output(0)
    }
}

/// `tf.linalg.diag(diagonal)`: square matrices with `diagonal`'s last dimension on their main
/// diagonal and zeros elsewhere (see [`MatrixDiag`] for `k`, sizes, padding and alignment).
///
/// ```
/// # use weir_graph::{Graph, Shape};
/// # use weir_ops::{array::constant, linalg::matrix_diag};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let m = matrix_diag(constant(&g, [1, 2])?)?;
/// assert_eq!(m.shape(), Shape::known(&[2, 2]));
/// assert_eq!(Session::new(&g)?.eval(&m)?.to_vec::<i32>()?, vec![1, 0, 0, 2]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn matrix_diag(diagonal: impl Into<Output>) -> Result<Output> {
    MatrixDiag::new().diag(diagonal)
}

/// `tf.linalg.diag_part(input)`: the main diagonal of each matrix in `input`.
pub fn matrix_diag_part(input: impl Into<Output>) -> Result<Output> {
    MatrixDiag::new().diag_part(input)
}

/// `tf.linalg.set_diag(input, diagonal)`: `input` with the main diagonal of each matrix set
/// to `diagonal`.
pub fn matrix_set_diag(input: impl Into<Output>, diagonal: impl Into<Output>) -> Result<Output> {
    MatrixDiag::new().set_diag(input, diagonal)
}

/// `k` of a node being built, when it is a constant.
fn const_k(ctx: &InferenceContext<'_>, i: usize) -> Result<Option<(i64, i64)>> {
    Ok(const_i64s(ctx, i)?.and_then(|v| match v.len() {
        1 | 2 => Some((v[0], v[v.len() - 1])),
        _ => None,
    }))
}

fn diag_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let ds = ctx.input_shape(0).clone();
    if ds.rank() == Some(0) {
        return Err(Error::invalid_argument(
            "Shape must be at least rank 1 but is rank 0",
        ));
    }
    let (Some(dims), Some((lo, hi))) = (ds.dims(), const_k(ctx, 1)?) else {
        return Ok(());
    };
    let nr = const_i64s(ctx, 2)?.map(|v| v[0]);
    let nc = const_i64s(ctx, 3)?.map(|v| v[0]);
    if lo > hi {
        return Err(Error::invalid_argument(
            "lower_diag_index is greater than upper_diag_index",
        ));
    }
    let r = dims.len();
    if lo != hi && (r < 2 || dims[r - 2].is_some_and(|d| d as i64 != hi - lo + 1)) {
        return Err(Error::invalid_argument(format!(
            "The number of rows of `diagonal` doesn't match the number of diagonals implied \
             from `d_lower` and `d_upper`.\nnum_diags = {}, d_lower = {lo}, d_upper = {hi} {}",
            hi - lo + 1,
            ds
        )));
    }
    let keep = if lo == hi { r - 1 } else { r - 2 };
    let mut out: Vec<Option<usize>> = dims[..keep].to_vec();
    let (rows, cols) = match (dims[r - 1], nr, nc) {
        (Some(len), Some(nr), Some(nc)) => {
            let len = len as i64;
            let (min_r, min_c) = (len - hi.min(0), len + lo.max(0));
            if nr != -1 && nr < min_r {
                return Err(Error::invalid_argument("num_rows is too small"));
            }
            if nc != -1 && nc < min_c {
                return Err(Error::invalid_argument("num_cols is too small"));
            }
            let (r, c) = match (nr, nc) {
                (-1, -1) => (min_r.max(min_c), min_r.max(min_c)),
                (-1, c) => (min_r, c),
                (r, -1) => (r, min_c),
                rc => rc,
            };
            (Some(r as usize), Some(c as usize))
        }
        _ => (None, None),
    };
    out.extend([rows, cols]);
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

fn part_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let xs = ctx.input_shape(0).clone();
    if xs.rank().is_some_and(|r| r < 2) {
        return Err(Error::invalid_argument(format!(
            "Shape must be at least rank 2 but is rank {}",
            xs.rank().unwrap_or(0)
        )));
    }
    let (Some(dims), Some((lo, hi))) = (xs.dims(), const_k(ctx, 1)?) else {
        return Ok(());
    };
    if lo > hi {
        return Err(Error::invalid_argument(
            "lower_diag_index is greater than upper_diag_index",
        ));
    }
    let r = dims.len();
    let mut out: Vec<Option<usize>> = dims[..r - 2].to_vec();
    if hi > lo {
        out.push(Some((hi - lo + 1) as usize));
    }
    let len = match (dims[r - 2], dims[r - 1]) {
        (Some(rows), Some(cols)) => {
            let (rows, cols) = (rows as i64, cols as i64);
            for (name, v) in [("lower", lo), ("upper", hi)] {
                if !((-rows < v && v < cols) || v == 0) {
                    return Err(Error::invalid_argument(format!(
                        "{name}_diag_index is out of bound."
                    )));
                }
            }
            Some((rows + hi.min(0)).min(cols - lo.max(0)).max(0) as usize)
        }
        _ => None,
    };
    out.push(len);
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

fn set_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let xs = ctx.input_shape(0).clone();
    if xs.rank().is_some_and(|r| r < 2) {
        return Err(Error::invalid_argument("Shape must be at least rank 2"));
    }
    if ctx.input_shape(1).rank() == Some(0) {
        return Err(Error::invalid_argument(
            "Shape must be at least rank 1 but is rank 0",
        ));
    }
    ctx.set_output(0, xs);
    Ok(())
}

pub(super) fn register() {
    let align = || Some(AttrValue::Str("RIGHT_LEFT".into()));
    register_op(
        OpDef::new("MatrixDiagV3")
            .input("diagonal", ArgType::Attr("T"))
            .input("k", ArgType::Fixed(DType::I32))
            .input("num_rows", ArgType::Fixed(DType::I32))
            .input("num_cols", ArgType::Fixed(DType::I32))
            .input("padding_value", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .attr("align", AttrKind::Str, align())
            .shape_fn(diag_shape_fn),
    );
    register_kernel("MatrixDiagV3", |n| {
        Ok(Box::new(DiagKernel {
            align: align_of(n)?,
        }))
    });
    register_op(
        OpDef::new("MatrixDiagPartV3")
            .input("input", ArgType::Attr("T"))
            .input("k", ArgType::Fixed(DType::I32))
            .input("padding_value", ArgType::Attr("T"))
            .output("diagonal", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .attr("align", AttrKind::Str, align())
            .shape_fn(part_shape_fn),
    );
    register_kernel("MatrixDiagPartV3", |n| {
        Ok(Box::new(DiagPartKernel {
            align: align_of(n)?,
        }))
    });
    register_op(
        OpDef::new("MatrixSetDiagV3")
            .input("input", ArgType::Attr("T"))
            .input("diagonal", ArgType::Attr("T"))
            .input("k", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .attr("align", AttrKind::Str, align())
            .shape_fn(set_shape_fn),
    );
    register_kernel("MatrixSetDiagV3", |n| {
        Ok(Box::new(SetDiagKernel {
            align: align_of(n)?,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_parse_tensorflows_names() {
        for a in [
            Align::RightLeft,
            Align::LeftRight,
            Align::LeftLeft,
            Align::RightRight,
        ] {
            assert!(Align::parse(a.as_str()).is_ok());
        }
        assert!(Align::parse("UP_DOWN").unwrap_err().is_invalid_argument());
    }
}
