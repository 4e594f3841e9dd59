//! `DataFormatDimMap` and `DataFormatVecPermute`: the small int ops TensorFlow's layout
//! optimizer puts into optimized graphs to translate an axis index, or a shape-like vector,
//! from one data format (`NHWC`, `NDHWC`, ...) to another (`NCHW`, `NCDHW`, ...).
//!
//! A format is four or five one-byte letters; source and destination must hold the same
//! letters (TensorFlow's security check: the two must determine a permutation). Both kernels
//! check the formats when they are created, as TensorFlow's do, so a bad format is an
//! InvalidArgument at run time, naming the node.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, Kernel, Node, OpContext, OpDef,
    Output, Result, Tensor,
};

use super::same_as_input0;

/// The options of `gen_nn_ops.data_format_dim_map(x, src_format="NHWC", dst_format="NCHW")`
/// and `data_format_vec_permute` (`tf.raw_ops.DataFormatDimMap` / `DataFormatVecPermute`).
#[derive(Clone, Debug)]
pub struct DataFormat {
    src_format: String,
    dst_format: String,
    name: Option<String>,
}

impl Default for DataFormat {
    fn default() -> Self {
        DataFormat {
            src_format: "NHWC".to_string(),
            dst_format: "NCHW".to_string(),
            name: None,
        }
    }
}

impl DataFormat {
    /// TensorFlow's defaults: from `NHWC` to `NCHW`.
    pub fn new() -> DataFormat {
        DataFormat::default()
    }

    /// The source format (`src_format`, default `NHWC`).
    pub fn src_format(mut self, format: &str) -> DataFormat {
        self.src_format = format.to_string();
        self
    }

    /// The destination format (`dst_format`, default `NCHW`).
    pub fn dst_format(mut self, format: &str) -> DataFormat {
        self.dst_format = format.to_string();
        self
    }

    /// The node's name (default: the op type).
    pub fn name(mut self, name: &str) -> DataFormat {
        self.name = Some(name.to_string());
        self
    }

    /// `DataFormatDimMap`: each element of the int32/int64 tensor `x`, an axis index of the
    /// source format (negative ones count from the end), mapped to that axis' index in the
    /// destination format.
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::{array::constant, nn::DataFormat};
    /// # use weir_session::Session;
    /// let g = Graph::new();
    /// // NHWC's axes 0..3 and -1 (C) in NCHW.
    /// let y = DataFormat::new().dim_map(constant(&g, [0, 1, 2, 3, -1])?)?;
    /// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<i32>()?, [0, 2, 3, 1, 1]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn dim_map(&self, x: impl Into<Output>) -> Result<Output> {
        self.op("DataFormatDimMap", x.into())
    }

    /// `DataFormatVecPermute`: the rows of `x` (a vector of the format's length, or a
    /// `[length, 2]` matrix such as paddings) reordered from the source to the destination
    /// format; a vector of the spatial length (2 for 4-letter formats, 3 for 5-letter ones)
    /// or a `[spatial, 2]` matrix reorders only the spatial letters (`D`, `H`, `W`).
    pub fn vec_permute(&self, x: impl Into<Output>) -> Result<Output> {
        self.op("DataFormatVecPermute", x.into())
    }

    fn op(&self, op_type: &str, x: Output) -> Result<Output> {
        crate::new_op(x.graph(), op_type)
            .maybe_name(self.name.as_deref())
            .input(x)
            .attr("src_format", self.src_format.as_str())
            .attr("dst_format", self.dst_format.as_str())
            .build()?
            .output(0)
    }
}

/// `tf.raw_ops.DataFormatDimMap(x, src_format, dst_format)`; see [`DataFormat::dim_map`].
pub fn data_format_dim_map(
    x: impl Into<Output>,
    src_format: &str,
    dst_format: &str,
) -> Result<Output> {
    DataFormat::new()
        .src_format(src_format)
        .dst_format(dst_format)
        .dim_map(x)
}

/// `tf.raw_ops.DataFormatVecPermute(x, src_format, dst_format)`; see
/// [`DataFormat::vec_permute`].
pub fn data_format_vec_permute(
    x: impl Into<Output>,
    src_format: &str,
    dst_format: &str,
) -> Result<Output> {
    DataFormat::new()
        .src_format(src_format)
        .dst_format(dst_format)
        .vec_permute(x)
}

/// The `src_format`/`dst_format` attrs of `node`, checked as TensorFlow's kernel constructors
/// check them.
fn formats(node: &Node) -> Result<(Vec<u8>, Vec<u8>)> {
    let src: String = node.attr("src_format")?;
    let dst: String = node.attr("dst_format")?;
    if !matches!(src.len(), 4 | 5) {
        return Err(Error::invalid_argument(format!(
            "Source format must be of length 4 or 5, received src_format = {src}"
        )));
    }
    if !matches!(dst.len(), 4 | 5) {
        return Err(Error::invalid_argument(format!(
            "Destination format must be of length 4 or 5, received dst_format = {dst}"
        )));
    }
    if !is_permutation(src.as_bytes(), dst.as_bytes()) {
        return Err(Error::invalid_argument(format!(
            "Destination and source format must determine a permutation, got {src} and {dst}"
        )));
    }
    Ok((src.into_bytes(), dst.into_bytes()))
}

/// Whether `dst` holds each letter of `src` exactly once, and `src` no letter twice.
fn is_permutation(src: &[u8], dst: &[u8]) -> bool {
    let mut seen = [false; 256];
    for &c in src {
        if std::mem::replace(&mut seen[c as usize], true) {
            return false;
        }
    }
    src.len() == dst.len()
        && dst
            .iter()
            .all(|&c| std::mem::replace(&mut seen[c as usize], false))
}

/// Where each letter of `src` stands in `dst` (the formats are a permutation of each other).
fn positions(src: &[u8], dst: &[u8]) -> Vec<usize> {
    src.iter()
        .map(|c| dst.iter().position(|d| d == c).unwrap_or(0))
        .collect()
}

/// An int32 or int64 element, with TensorFlow's wrapping arithmetic.
trait FormatInt: weir_graph::TensorType + Copy {
    fn to_i64(self) -> i64;
    fn from_usize(v: usize) -> Self;
    fn wrapping_plus(self, n: usize) -> Self;
}

macro_rules! format_int {
    ($($t:ty),*) => {$(
        impl FormatInt for $t {
            fn to_i64(self) -> i64 {
                self as i64
            }
            fn from_usize(v: usize) -> Self {
                v as $t
            }
            fn wrapping_plus(self, n: usize) -> Self {
                self.wrapping_add(n as $t)
            }
        }
    )*};
}
format_int!(i32, i64);

struct DimMapKernel {
    /// The destination index of each source axis.
    dst: Vec<usize>,
}

impl DimMapKernel {
    /// TensorFlow's functor: `(x + n) % n` (wrapping, remainder truncated toward zero) selects
    /// axes 0 to n - 2; anything else, a remainder out of range included, maps as axis n - 1.
    fn map<T: FormatInt>(&self, x: &Tensor) -> Result<Tensor> {
        let n = self.dst.len();
        let last = self.dst[n - 1];
        let out = x
            .as_slice::<T>()?
            .iter()
            .map(|&v| {
                let m = v.wrapping_plus(n).to_i64() % n as i64;
                T::from_usize(match usize::try_from(m) {
                    Ok(k) if k < n - 1 => self.dst[k],
                    _ => last,
                })
            })
            .collect();
        Tensor::from_vec(x.shape(), out)
    }
}

impl Kernel for DimMapKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let y = match x.dtype() {
            DType::I32 => self.map::<i32>(x)?,
            _ => self.map::<i64>(x)?,
        };
        ctx.set_output(0, y);
        Ok(())
    }
}

struct VecPermuteKernel {
    src: Vec<u8>,
    dst: Vec<u8>,
}

impl VecPermuteKernel {
    /// The destination row of each source row of `x`, TensorFlow's checks of `x`'s shape
    /// first.
    fn rows(&self, x: &Tensor) -> Result<Vec<usize>> {
        let full = self.src.len();
        let spatial = full - 2;
        let shape = x.shape();
        let fits = |n: usize| n == spatial || n == full;
        match shape {
            [n] if !fits(*n) => {
                return Err(Error::invalid_argument(format!(
                    "1D input must be of size {spatial} or {full}, but got shape {}",
                    format_dims(shape)
                )))
            }
            [n, _] if !fits(*n) => {
                return Err(Error::invalid_argument(format!(
                    "First dimension of 2D input must be of size {spatial} or {full}, but got \
                     shape {}",
                    format_dims(shape)
                )))
            }
            [_, c] if *c != 2 => {
                return Err(Error::invalid_argument(format!(
                    "Second dimension of 2D input must be of size 2, but got shape {}",
                    format_dims(shape)
                )))
            }
            [_] | [_, _] => {}
            _ => {
                return Err(Error::invalid_argument(format!(
                    "input must be a vector or 2D tensor, but got shape {}",
                    format_dims(shape)
                )))
            }
        }
        if shape[0] == full {
            return Ok(positions(&self.src, &self.dst));
        }
        // Only the spatial letters: H and W, and D in 5-letter formats.
        let keep = |f: &[u8]| -> Vec<u8> {
            f.iter()
                .copied()
                .filter(|&c| c == b'H' || c == b'W' || (spatial == 3 && c == b'D'))
                .collect()
        };
        let (src, dst) = (keep(&self.src), keep(&self.dst));
        if src.len() != spatial || dst.len() != spatial {
            let letters = if spatial == 3 {
                "D, H and W"
            } else {
                "H and W"
            };
            return Err(Error::invalid_argument(format!(
                "Format specifier must contain {letters} for 2D case"
            )));
        }
        Ok(positions(&src, &dst))
    }

    fn permute<T: FormatInt>(x: &Tensor, rows: &[usize]) -> Result<Tensor> {
        let xs = x.as_slice::<T>()?;
        let width = x.shape().get(1).copied().unwrap_or(1);
        let mut out = xs.to_vec();
        for (i, &j) in rows.iter().enumerate() {
            out[j * width..(j + 1) * width].copy_from_slice(&xs[i * width..(i + 1) * width]);
        }
        Tensor::from_vec(x.shape(), out)
    }
}

impl Kernel for VecPermuteKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let rows = self.rows(x)?;
        let y = match x.dtype() {
            DType::I32 => Self::permute::<i32>(x, &rows)?,
            _ => Self::permute::<i64>(x, &rows)?,
        };
        ctx.set_output(0, y);
        Ok(())
    }
}

const INDEX_TYPES: &[DType] = &[DType::I32, DType::I64];

fn op_def(name: &str) -> OpDef {
    let mut def = OpDef::new(name)
        .input("x", ArgType::Attr("T"))
        .output("y", ArgType::Attr("T"))
        .type_attr("T", INDEX_TYPES)
        .attr(
            "src_format",
            AttrKind::Str,
            Some(AttrValue::Str("NHWC".into())),
        )
        .attr(
            "dst_format",
            AttrKind::Str,
            Some(AttrValue::Str("NCHW".into())),
        )
        .shape_fn(same_as_input0);
    // `T: {int32, int64} = DT_INT32`: an allowed list with a default.
    if let Some(t) = def.attrs.iter_mut().find(|a| a.name == "T") {
        t.default = Some(AttrValue::Type(DType::I32));
    }
    def
}

pub(super) fn register() {
    register_op(op_def("DataFormatDimMap"));
    register_op(op_def("DataFormatVecPermute"));
    register_kernel("DataFormatDimMap", |node| {
        let (src, dst) = formats(node)?;
        Ok(Box::new(DimMapKernel {
            dst: positions(&src, &dst),
        }))
    });
    register_kernel("DataFormatVecPermute", |node| {
        let (src, dst) = formats(node)?;
        Ok(Box::new(VecPermuteKernel { src, dst }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_need_the_same_letters_once() {
        assert!(is_permutation(b"NHWC", b"NCHW"));
        assert!(!is_permutation(b"NHWC", b"NHWW"));
        assert!(!is_permutation(b"NNWC", b"NNWC"));
        assert!(!is_permutation(b"NHWC", b"NCHWD"));
        assert_eq!(positions(b"NHWC", b"NCHW"), [0, 2, 3, 1]);
    }

    #[test]
    fn dim_map_wraps_like_tensorflow() {
        let k = DimMapKernel {
            dst: positions(b"NHWC", b"NCHW"),
        };
        let x = Tensor::from(vec![-4i32, -1, 0, 3, 4, 7, i32::MAX, i32::MIN]);
        let y = k.map::<i32>(&x).unwrap().to_vec::<i32>().unwrap();
        // -4 -> 0 -> N; 4 -> 8 % 4 = 0 -> N; 7 -> 11 % 4 = 3 -> C; MAX wraps to a negative
        // remainder -> C; MIN + 4 is a multiple of 4 -> N.
        assert_eq!(y, [0, 1, 0, 1, 0, 1, 1, 0]);
    }

    #[test]
    fn vec_permute_spatial_rows() {
        let k = VecPermuteKernel {
            src: b"NHWC".to_vec(),
            dst: b"NWHC".to_vec(),
        };
        let x = Tensor::from_vec(&[2, 2], vec![1i64, 2, 3, 4]).unwrap();
        let rows = k.rows(&x).unwrap();
        let y = VecPermuteKernel::permute::<i64>(&x, &rows).unwrap();
        assert_eq!(y.to_vec::<i64>().unwrap(), [3, 4, 1, 2]);
        let e = k.rows(&Tensor::from(vec![1i32, 2, 3])).unwrap_err();
        assert_eq!(
            e.message(),
            "1D input must be of size 2 or 4, but got shape [3]"
        );
    }
}
