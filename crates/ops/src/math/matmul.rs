//! `MatMul` (2-D, optional transposes) and `BatchMatMulV2` (stacks of matrices whose batch
//! dims broadcast), on ndarray's optimized `dot` (matrixmultiply) for floats, the kernels of
//! `matmul_narrow` for f32 products with at most 16 columns, `matmul_sparse` for f32 products
//! whose left operand is mostly zeros, and a wrapping row-major loop for integers; half and
//! complex products are in [`super::matmul_wide`].

use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2, Ix2, LinalgScalar};
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor, TensorType,
};

use super::bcast::{broadcast_shapes, broadcast_static};
use super::binary::Arith;
use super::matmul_narrow;
use super::matmul_sparse;
use super::matmul_wide::{wide_product, BATCH_MATMUL_TYPES, MATMUL_TYPES};

/// `tf.matmul(a, b)`: `MatMul` for matrices, `BatchMatMulV2` when either input has rank above 2
/// (or unknown rank), whose leading dims broadcast.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, math::matmul};
/// let g = Graph::new();
/// let a = constant(&g, weir_graph::Tensor::from_vec(&[2, 3], vec![1.0f32; 6])?)?;
/// let b = constant(&g, weir_graph::Tensor::from_vec(&[3, 4], vec![1.0f32; 12])?)?;
/// assert_eq!(matmul(&a, &b)?.shape(), weir_graph::Shape::known(&[2, 4]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn matmul(a: impl Into<Output>, b: impl Into<Output>) -> Result<Output> {
    MatMul::new().build(a, b)
}

/// The options of `tf.matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False,
/// adjoint_b=False, a_is_sparse=False, b_is_sparse=False, name=None)`.
///
/// As TensorFlow's Python builds it: `MatMul` for matrices, `BatchMatMulV2` for stacks of them,
/// and `SparseMatMul` (a float32 product) when a sparse hint is given for float32 or bfloat16
/// operands, or when bfloat16 meets another type; a bfloat16 × bfloat16 `SparseMatMul` is cast
/// back to bfloat16. Adjoints conjugate complex operands.
///
/// ```
/// # use weir_graph::{DType, Graph, Tensor};
/// # use weir_ops::{array::constant, math::MatMul};
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[2, 3], vec![0.0f32, 1.0, 0.0, 0.0, 0.0, 2.0])?)?;
/// let w = constant(&g, Tensor::from_vec(&[3, 4], vec![1.0f32; 12])?)?;
/// let y = MatMul::new().a_is_sparse(true).build(&x, &w)?;
/// assert_eq!(y.op().op_type(), "SparseMatMul");
/// assert_eq!(y.dtype(), DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Default)]
pub struct MatMul {
    transpose_a: bool,
    transpose_b: bool,
    adjoint_a: bool,
    adjoint_b: bool,
    a_is_sparse: bool,
    b_is_sparse: bool,
    name: Option<String>,
}

impl MatMul {
    /// No transposes.
    pub fn new() -> MatMul {
        MatMul::default()
    }

    /// Multiplies by the transpose of `a` (of its last two dims, for batches).
    pub fn transpose_a(mut self, t: bool) -> MatMul {
        self.transpose_a = t;
        self
    }

    /// Multiplies by the transpose of `b` (of its last two dims, for batches).
    pub fn transpose_b(mut self, t: bool) -> MatMul {
        self.transpose_b = t;
        self
    }

    /// Multiplies by the conjugate transpose of `a`.
    pub fn adjoint_a(mut self, t: bool) -> MatMul {
        self.adjoint_a = t;
        self
    }

    /// Multiplies by the conjugate transpose of `b`.
    pub fn adjoint_b(mut self, t: bool) -> MatMul {
        self.adjoint_b = t;
        self
    }

    /// Hints that `a` is mostly zeros (a `SparseMatMul` for float32 and bfloat16 matrices).
    pub fn a_is_sparse(mut self, s: bool) -> MatMul {
        self.a_is_sparse = s;
        self
    }

    /// Hints that `b` is mostly zeros (a `SparseMatMul` for float32 and bfloat16 matrices).
    pub fn b_is_sparse(mut self, s: bool) -> MatMul {
        self.b_is_sparse = s;
        self
    }

    /// The op's name (default `MatMul`); helper ops go in a scope of that name.
    pub fn name(mut self, name: impl Into<String>) -> MatMul {
        self.name = Some(name.into());
        self
    }

    /// Adds the node.
    pub fn build(self, a: impl Into<Output>, b: impl Into<Output>) -> Result<Output> {
        let (mut a, mut b) = (a.into(), b.into());
        let g = crate::util::same_graph(&[&a, &b])?.clone();
        for (x, t, adj) in [
            ("a", self.transpose_a, self.adjoint_a),
            ("b", self.transpose_b, self.adjoint_b),
        ] {
            if t && adj {
                return Err(Error::invalid_argument(format!(
                    "Only one of `transpose_{x}` and `adjoint_{x}` can be True. Received \
                     `transpose_{x}`=True, `adjoint_{x}`=True."
                )));
            }
        }
        let scope = g.name_scope(self.name.as_deref().unwrap_or("MatMul"));
        let conj = |x: Output| {
            if x.dtype().is_complex() {
                crate::complex::conj(x)
            } else {
                Ok(x)
            }
        };
        let batched = |s: &Shape| s.rank().is_none_or(|r| r > 2);
        let sparse_hint = self.a_is_sparse || self.b_is_sparse;
        if !sparse_hint && (batched(&a.shape()) || batched(&b.shape())) {
            // BatchMatMulV2 has adjoints only: a transpose is the adjoint of the conjugate.
            let (mut adj_a, mut adj_b) = (self.adjoint_a, self.adjoint_b);
            if self.transpose_a {
                a = conj(a)?;
                adj_a = true;
            }
            if self.transpose_b {
                b = conj(b)?;
                adj_b = true;
            }
            return crate::new_op(&g, "BatchMatMulV2")
                .name(scope.prefix())
                .input(a)
                .input(b)
                .attr("adj_x", adj_a)
                .attr("adj_y", adj_b)
                .build()?
                .output(0);
        }
        // MatMul and SparseMatMul have transposes only: an adjoint is the transpose of the
        // conjugate.
        let (mut ta, mut tb) = (self.transpose_a, self.transpose_b);
        if self.adjoint_a {
            a = conj(a)?;
            ta = true;
        }
        if self.adjoint_b {
            b = conj(b)?;
            tb = true;
        }
        let (da, db) = (a.dtype(), b.dtype());
        let narrow = |d: DType| matches!(d, DType::I8 | DType::U8);
        let sparse_types = |d: DType| matches!(d, DType::F32 | DType::BF16);
        let mixed_bf16 =
            da != db && ((da == DType::BF16 && !narrow(db)) || (db == DType::BF16 && !narrow(da)));
        if (sparse_hint && sparse_types(da) && sparse_types(db)) || mixed_bf16 {
            let product = crate::new_op(&g, "SparseMatMul")
                .name(scope.prefix())
                .input(a)
                .input(b)
                .attr("transpose_a", ta)
                .attr("transpose_b", tb)
                .attr("a_is_sparse", self.a_is_sparse)
                .attr("b_is_sparse", self.b_is_sparse)
                .build()?
                .output(0)?;
            return if da == DType::BF16 && db == DType::BF16 {
                super::cast(product, DType::BF16)
            } else {
                Ok(product)
            };
        }
        crate::new_op(&g, "MatMul")
            .name(scope.prefix())
            .input(a)
            .input(b)
            .attr("transpose_a", ta)
            .attr("transpose_b", tb)
            .build()?
            .output(0)
    }
}

fn matrix_dims(s: &Shape, t: bool) -> (Option<usize>, Option<usize>) {
    let (r, c) = (s.dim(-2), s.dim(-1));
    if t {
        (c, r)
    } else {
        (r, c)
    }
}

fn check_inner(op: &str, ka: Option<usize>, kb: Option<usize>, a: &Shape, b: &Shape) -> Result<()> {
    if let (Some(x), Some(y)) = (ka, kb) {
        if x != y {
            return Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {x} and {y} for '{op}' with input shapes: {a}, {b}."
            )));
        }
    }
    Ok(())
}

fn matmul_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let a = ctx.with_rank(0, 2)?;
    let b = ctx.with_rank(1, 2)?;
    let (ta, tb): (bool, bool) = (ctx.attr("transpose_a")?, ctx.attr("transpose_b")?);
    let (m, ka) = matrix_dims(&a, ta);
    let (kb, n) = matrix_dims(&b, tb);
    check_inner("MatMul", ka, kb, &a, &b)?;
    ctx.set_output(0, Shape::new(vec![m, n]));
    Ok(())
}

fn batch_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let (a, b) = (ctx.input_shape(0).clone(), ctx.input_shape(1).clone());
    for (i, s) in [(0, &a), (1, &b)] {
        if let Some(r) = s.rank() {
            if r < 2 {
                return Err(Error::invalid_argument(format!(
                    "Shape must be at least rank 2 but is rank {r} for 'BatchMatMulV2' (input {i} has shape {s})"
                )));
            }
        }
    }
    let (Some(da), Some(db)) = (a.dims(), b.dims()) else {
        ctx.set_output(0, Shape::unknown());
        return Ok(());
    };
    let (ta, tb): (bool, bool) = (ctx.attr("adj_x")?, ctx.attr("adj_y")?);
    let (m, ka) = matrix_dims(&a, ta);
    let (kb, n) = matrix_dims(&b, tb);
    check_inner("BatchMatMulV2", ka, kb, &a, &b)?;
    let batch = broadcast_static(
        &Shape::new(da[..da.len() - 2].to_vec()),
        &Shape::new(db[..db.len() - 2].to_vec()),
        "BatchMatMulV2",
    )?;
    ctx.set_output(0, batch.concatenate(&Shape::new(vec![m, n])));
    Ok(())
}

/// `c = a . b` for integers, wrapping on overflow like TensorFlow's Eigen kernels.
fn int_gemm<T: Arith>(a: ArrayView2<'_, T>, b: ArrayView2<'_, T>, c: &mut ArrayViewMut2<'_, T>) {
    let zero = T::default();
    c.fill(zero);
    for (a_row, mut c_row) in a.rows().into_iter().zip(c.rows_mut()) {
        for (&x, b_row) in a_row.iter().zip(b.rows()) {
            if x == zero {
                continue;
            }
            for (cv, &bv) in c_row.iter_mut().zip(b_row.iter()) {
                *cv = T::add(*cv, T::mul(x, bv));
            }
        }
    }
}

/// The product kernel for one element type: matrixmultiply for floats, the wrapping loop for
/// integers.
pub(super) trait Gemm: TensorType + Copy {
    fn gemm(a: ArrayView2<'_, Self>, b: ArrayView2<'_, Self>, c: &mut ArrayViewMut2<'_, Self>);
    /// The complex conjugate (the identity for real types), for adjoints.
    fn conj(x: Self) -> Self {
        x
    }
    /// Whether [`Gemm::conj`] changes values.
    const COMPLEX: bool = false;
}

macro_rules! float_gemm {
    ($($t:ty),*) => {$(
        impl Gemm for $t {
            fn gemm(a: ArrayView2<'_, Self>, b: ArrayView2<'_, Self>, c: &mut ArrayViewMut2<'_, Self>) {
                general_mat_mul(1.0, &a, &b, 0.0, c);
            }
        }
    )*};
}
float_gemm!(f32, f64);

macro_rules! integer_gemm {
    ($($t:ty),*) => {$(
        impl Gemm for $t {
            fn gemm(a: ArrayView2<'_, Self>, b: ArrayView2<'_, Self>, c: &mut ArrayViewMut2<'_, Self>) {
                int_gemm(a, b, c);
            }
        }
    )*};
}
integer_gemm!(i8, i16, i32, i64, u8, u16);

/// The 2-D product, with ndarray's `dot` for floats (it allocates the output uninitialized).
pub(super) fn product2<T: Gemm + LinalgScalar>(
    ta: bool,
    tb: bool,
    a: &Tensor,
    b: &Tensor,
) -> Result<Tensor> {
    let av = a
        .view::<T>()?
        .into_dimensionality::<Ix2>()
        .map_err(|_| not_matrix(a.shape()))?;
    let bv = b
        .view::<T>()?
        .into_dimensionality::<Ix2>()
        .map_err(|_| not_matrix(b.shape()))?;
    let av = if ta { av.reversed_axes() } else { av };
    let bv = if tb { bv.reversed_axes() } else { bv };
    if av.ncols() != bv.nrows() {
        return Err(Error::invalid_argument(format!(
            "Matrix size-incompatible: In[0]: [{},{}], In[1]: [{},{}]",
            a.shape()[0],
            a.shape()[1],
            b.shape()[0],
            b.shape()[1]
        )));
    }
    if T::DTYPE.is_floating() {
        let (m, k, n) = (av.nrows(), av.ncols(), bv.ncols());
        if T::DTYPE == DType::F32 {
            if matmul_narrow::applies(m, k, n) {
                return matmul_narrow::product(ta, tb, a, b);
            }
            if let Some(out) = matmul_sparse::product(ta, tb, a, b)? {
                return Ok(out);
            }
        }
        if m.saturating_mul(k).saturating_mul(n) >= DENSE_SPLIT_WORK && m >= 2 * SPLIT_ROWS {
            return Ok(Tensor::from_array(shared_product(av, bv)));
        }
        return Ok(Tensor::from_array(av.dot(&bv)));
    }
    let mut out =
        ndarray::Array2::<T>::from_elem((av.nrows(), bv.ncols()), <T as TensorType>::zero());
    T::gemm(av, bv, &mut out.view_mut());
    Ok(Tensor::from_array(out))
}

/// The multiply-adds from which a dense float product is shared with the intra-op pool by
/// rows of its output: about 100 us on one core.
const DENSE_SPLIT_WORK: usize = 1 << 22;

/// The multiply-adds from which a shared product wakes sleeping helpers: a few milliseconds,
/// against tens of microseconds for a wake-up.
const WAKE_WORK: usize = 1 << 25;

/// The fewest output rows per part of a shared product (a few of matrixmultiply's row panels).
const SPLIT_ROWS: usize = 32;

/// `a . b` with the output's rows shared between the intra-op pool's threads (on the caller
/// alone while they sleep). Each output row is the same product of its row of `a` with `b`
/// however the rows are shared.
fn shared_product<T: Gemm + Sync>(
    a: ArrayView2<'_, T>,
    b: ArrayView2<'_, T>,
) -> ndarray::Array2<T> {
    let (m, n) = (a.nrows(), b.ncols());
    let mut out = ndarray::Array2::<T>::from_elem((m, n), <T as TensorType>::zero());
    let rows_per_part = m.div_ceil(8).max(SPLIT_ROWS);
    let wake = m.saturating_mul(a.ncols()).saturating_mul(n) >= WAKE_WORK;
    let parts = out
        .axis_chunks_iter_mut(ndarray::Axis(0), rows_per_part)
        .enumerate();
    crate::intra_op::for_each_task(parts, wake, |(p, mut part)| {
        let first = p * rows_per_part;
        T::gemm(
            a.slice(ndarray::s![first..first + part.nrows(), ..]),
            b,
            &mut part,
        );
    });
    out
}

fn not_matrix(shape: &[usize]) -> Error {
    Error::invalid_argument(format!(
        "In[0] and In[1] must be matrices, got shape {}",
        format_dims(shape)
    ))
}

/// Batched product: each output matrix from the (broadcast) batch entries of `a` and `b`.
///
/// `adj_a`/`adj_b` transpose, and conjugate too when `conjugate` (`BatchMatMulV2`'s adjoints;
/// `MatMul`'s transposes do not conjugate).
pub(super) fn batch_product<T: Gemm>(
    adj_a: bool,
    adj_b: bool,
    conjugate: bool,
    a: &Tensor,
    b: &Tensor,
) -> Result<Tensor> {
    let (sa, sb) = (a.shape(), b.shape());
    for (i, s) in [(0, sa), (1, sb)] {
        if s.len() < 2 {
            return Err(Error::invalid_argument(format!(
                "In[{i}] ndims must be >= 2: {}",
                s.len()
            )));
        }
    }
    let (ba, bb) = (&sa[..sa.len() - 2], &sb[..sb.len() - 2]);
    let batch = broadcast_shapes(ba, bb).map_err(|_| {
        Error::invalid_argument(format!(
            "In[0] and In[1] must have compatible batch dimensions: {} vs. {}",
            format_dims(sa),
            format_dims(sb)
        ))
    })?;
    let (ar, ac) = (sa[sa.len() - 2], sa[sa.len() - 1]);
    let (br, bc) = (sb[sb.len() - 2], sb[sb.len() - 1]);
    let (m, k) = if adj_a { (ac, ar) } else { (ar, ac) };
    let (k2, n) = if adj_b { (bc, br) } else { (br, bc) };
    if k != k2 {
        return Err(Error::invalid_argument(format!(
            "Matrix size-incompatible: In[0]: {}, In[1]: {}",
            format_dims(sa),
            format_dims(sb)
        )));
    }
    let nb: usize = batch.iter().product();
    let mut out = vec![T::zero(); nb * m * n];
    let (xs, ys) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
    let mut idx = vec![0usize; batch.len()];
    for (bi, chunk) in out.chunks_exact_mut((m * n).max(1)).enumerate().take(nb) {
        // The batch entry of each operand, with size-1 dims broadcast.
        let mut rem = bi;
        for j in (0..batch.len()).rev() {
            idx[j] = rem % batch[j];
            rem /= batch[j];
        }
        let flat = |dims: &[usize]| {
            let off = batch.len() - dims.len();
            dims.iter().enumerate().fold(0usize, |acc, (j, &d)| {
                acc * d + if d == 1 { 0 } else { idx[off + j] }
            })
        };
        let (ia, ib) = (flat(ba), flat(bb));
        let am = ArrayView2::from_shape((ar, ac), &xs[ia * ar * ac..(ia + 1) * ar * ac])
            .map_err(|e| Error::internal(e.to_string()))?;
        let bm = ArrayView2::from_shape((br, bc), &ys[ib * br * bc..(ib + 1) * br * bc])
            .map_err(|e| Error::internal(e.to_string()))?;
        let am = if adj_a { am.reversed_axes() } else { am };
        let bm = if adj_b { bm.reversed_axes() } else { bm };
        let (ca, cb);
        let (am, bm) = if conjugate && T::COMPLEX {
            ca = if adj_a {
                am.mapv(T::conj)
            } else {
                am.to_owned()
            };
            cb = if adj_b {
                bm.mapv(T::conj)
            } else {
                bm.to_owned()
            };
            (ca.view(), cb.view())
        } else {
            (am, bm)
        };
        let mut cm =
            ArrayViewMut2::from_shape((m, n), chunk).map_err(|e| Error::internal(e.to_string()))?;
        T::gemm(am, bm, &mut cm);
    }
    let mut shape = batch;
    shape.extend([m, n]);
    Tensor::from_vec(&shape, out)
}

struct MatMulKernel {
    transpose_a: bool,
    transpose_b: bool,
    batched: bool,
}

impl Kernel for MatMulKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        let (ta, tb) = (self.transpose_a, self.transpose_b);
        let dt = a.dtype();
        // A BatchMatMulV2 built on inputs of unknown rank that turn out to be matrices takes
        // the 2-D kernels (sparse, narrow, shared); their errors are worded alike.
        let plain_2d = a.rank() == 2
            && b.rank() == 2
            && matches!(dt, DType::F32 | DType::F64 | DType::I32 | DType::I64);
        let out = if self.batched && !plain_2d {
            match dt {
                DType::F32 => batch_product::<f32>(ta, tb, true, a, b)?,
                DType::F64 => batch_product::<f64>(ta, tb, true, a, b)?,
                DType::I8 => batch_product::<i8>(ta, tb, true, a, b)?,
                DType::I16 => batch_product::<i16>(ta, tb, true, a, b)?,
                DType::I32 => batch_product::<i32>(ta, tb, true, a, b)?,
                DType::I64 => batch_product::<i64>(ta, tb, true, a, b)?,
                DType::U8 => batch_product::<u8>(ta, tb, true, a, b)?,
                DType::U16 => batch_product::<u16>(ta, tb, true, a, b)?,
                dt @ (DType::F16 | DType::BF16 | DType::C64 | DType::C128) => {
                    wide_product(dt, ta, tb, true, a, b)?
                }
                dt => {
                    return Err(Error::invalid_argument(format!(
                        "BatchMatMulV2 does not support {dt}"
                    )))
                }
            }
        } else {
            match dt {
                DType::F32 => product2::<f32>(ta, tb, a, b)?,
                DType::F64 => product2::<f64>(ta, tb, a, b)?,
                DType::I32 => product2::<i32>(ta, tb, a, b)?,
                DType::I64 => product2::<i64>(ta, tb, a, b)?,
                dt @ (DType::F16 | DType::BF16 | DType::C64 | DType::C128) if a.rank() == 2 => {
                    wide_product(dt, ta, tb, false, a, b)?
                }
                dt => {
                    return Err(Error::invalid_argument(format!(
                        "MatMul does not support {dt}"
                    )))
                }
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }

    fn work_estimate(&self, inputs: &[Shape]) -> Option<u64> {
        let (a, b) = (inputs.first()?, inputs.get(1)?);
        let (m, k) = matrix_dims(a, self.transpose_a);
        let (_, n) = matrix_dims(b, self.transpose_b);
        // Batch dims broadcast: the larger operand's batch count is the product's.
        let batch = |s: &Shape| -> Option<usize> {
            let d = s.dims()?;
            d[..d.len().checked_sub(2)?].iter().copied().product()
        };
        let batch = batch(a)?.max(batch(b)?);
        Some([batch, m?, k?, n?].iter().map(|&d| d as u64).product())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let batched = node.op_type() == "BatchMatMulV2";
    let (ta, tb) = if batched {
        (node.attr("adj_x")?, node.attr("adj_y")?)
    } else {
        (node.attr("transpose_a")?, node.attr("transpose_b")?)
    };
    Ok(Box::new(MatMulKernel {
        transpose_a: ta,
        transpose_b: tb,
        batched,
    }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("MatMul")
            .input("a", ArgType::Attr("T"))
            .input("b", ArgType::Attr("T"))
            .output("product", ArgType::Attr("T"))
            .type_attr("T", MATMUL_TYPES)
            .attr("transpose_a", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .attr("transpose_b", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .shape_fn(matmul_shape_fn),
    );
    register_kernel("MatMul", make);
    register_op(
        OpDef::new("BatchMatMulV2")
            .input("x", ArgType::Attr("T"))
            .input("y", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", BATCH_MATMUL_TYPES)
            .attr("adj_x", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .attr("adj_y", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .shape_fn(batch_shape_fn),
    );
    register_kernel("BatchMatMulV2", make);
}

#[cfg(test)]
mod tests {
    use super::*;
    use weir_graph::Complex;

    #[test]
    fn work_estimates_follow_the_transposes_and_batches() {
        let k = |ta, tb, batched| MatMulKernel {
            transpose_a: ta,
            transpose_b: tb,
            batched,
        };
        let s = |d: &[usize]| Shape::known(d);
        // x[128,784] . W[784,128]
        assert_eq!(
            k(false, false, false).work_estimate(&[s(&[128, 784]), s(&[784, 128])]),
            Some(128 * 784 * 128)
        );
        // x^T . d: x[128,784] transposed, d[128,10]
        assert_eq!(
            k(true, false, false).work_estimate(&[s(&[128, 784]), s(&[128, 10])]),
            Some(784 * 128 * 10)
        );
        // d . W^T: d[128,10], W[128,10] transposed
        assert_eq!(
            k(false, true, false).work_estimate(&[s(&[128, 10]), s(&[128, 10])]),
            Some(128 * 10 * 128)
        );
        // A batch of 6 broadcast against one matrix.
        assert_eq!(
            k(false, false, true).work_estimate(&[s(&[2, 3, 4, 5]), s(&[5, 7])]),
            Some(6 * 4 * 5 * 7)
        );
        assert_eq!(
            k(false, false, false).work_estimate(&[Shape::new(vec![None, Some(5)]), s(&[5, 7])]),
            None
        );
    }

    #[test]
    fn integer_products_wrap() {
        let a = Tensor::from_vec(&[1, 2], vec![i32::MAX, 1]).unwrap();
        let b = Tensor::from_vec(&[2, 1], vec![2, 3]).unwrap();
        let c = product2::<i32>(false, false, &a, &b).unwrap();
        assert_eq!(
            c.to_vec::<i32>().unwrap(),
            vec![i32::MAX.wrapping_mul(2).wrapping_add(3)]
        );
    }

    #[test]
    fn transposes_and_batches() {
        // a = [[1,2,3],[4,5,6]], b = a^T -> a.a^T = [[14,32],[32,77]]
        let a = Tensor::from_vec(&[2, 3], vec![1.0f32, 2., 3., 4., 5., 6.]).unwrap();
        let c = product2::<f32>(false, true, &a, &a).unwrap();
        assert_eq!(c.to_vec::<f32>().unwrap(), vec![14., 32., 32., 77.]);
        let c = product2::<f32>(true, false, &a, &a).unwrap();
        assert_eq!(c.shape(), &[3, 3]);
        // Batch [2,2,3] x broadcast [3,1] (rank 2 operand broadcasts over the batch).
        let x = Tensor::from_vec(&[2, 2, 3], (1..=12).map(|v| v as f64).collect()).unwrap();
        let y = Tensor::from_vec(&[3, 1], vec![1.0f64, 1., 1.]).unwrap();
        let c = batch_product::<f64>(false, false, true, &x, &y).unwrap();
        assert_eq!(c.shape(), &[2, 2, 1]);
        assert_eq!(c.to_vec::<f64>().unwrap(), vec![6., 15., 24., 33.]);
        let yi = Tensor::from_vec(&[1, 3, 1], vec![1i64, 0, 2]).unwrap();
        let xi = Tensor::from_vec(&[2, 2, 3], (1..=12).collect::<Vec<i64>>()).unwrap();
        let c = batch_product::<i64>(false, false, true, &xi, &yi).unwrap();
        assert_eq!(c.to_vec::<i64>().unwrap(), vec![7, 16, 25, 34]);
        let bad = Tensor::from_vec(&[3, 2, 3], vec![0.0f64; 18]).unwrap();
        assert!(batch_product::<f64>(false, true, true, &x, &bad).is_err());
    }

    #[test]
    fn complex_adjoints_conjugate_and_transposes_do_not() {
        // [1+i] . [1+i]: adjoint gives |1+i|^2 = 2, transpose (1+i)^2 = 2i.
        let a = Tensor::from_vec(&[1, 1], vec![Complex::new(1.0f32, 1.0)]).unwrap();
        let adj = batch_product::<Complex<f32>>(true, false, true, &a, &a).unwrap();
        assert_eq!(
            adj.to_vec::<Complex<f32>>().unwrap(),
            [Complex::new(2.0, 0.0)]
        );
        let tr = batch_product::<Complex<f32>>(true, false, false, &a, &a).unwrap();
        assert_eq!(
            tr.to_vec::<Complex<f32>>().unwrap(),
            [Complex::new(0.0, 2.0)]
        );
    }

    #[test]
    fn shared_dense_products_equal_the_whole_one_bit_for_bit() {
        let (m, k, n) = (301, 97, 150);
        let val = |i: usize| ((i * 7919 % 1000) as f32 - 500.0) / 97.0;
        let a = ndarray::Array2::from_shape_fn((m, k), |(i, j)| val(i * k + j));
        let b = ndarray::Array2::from_shape_fn((k, n), |(i, j)| val(i * n + j + 5));
        let whole = a.dot(&b);
        // Later rounds find the intra-op pool's helpers awake and share the rows.
        for round in 0..5 {
            let shared = shared_product(a.view(), b.view());
            for (idx, (x, y)) in shared.iter().zip(whole.iter()).enumerate() {
                assert_eq!(x.to_bits(), y.to_bits(), "round {round} at {idx}");
            }
        }
        let t = a.t();
        let whole_t = t.dot(&a);
        let shared_t = shared_product(t, a.view());
        assert_eq!(shared_t, whole_t);
    }
}
