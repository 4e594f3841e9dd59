//! `Fingerprint` (`tf.fingerprint`): a farmhash `Fingerprint64` of each row (the slice along
//! the first dimension) of a tensor of any dtype, as 8 little-endian bytes.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, Bytes, DType, Error, InferenceContext, Kernel, LeBytes, OpContext, OpDef,
    Output, Result, Shape, Tensor,
};

use super::hash::fingerprint64;

/// The only method TensorFlow implements.
const FARMHASH64: &str = "farmhash64";
/// Bytes of one fingerprint.
const SIZE: usize = 8;

/// `tf.fingerprint(data, method="farmhash64")` (op `Fingerprint`): a `[data.shape[0], 8]`
/// uint8 tensor whose row `i` is the little-endian `Fingerprint64` of row `i` of `data`.
/// Numbers are fingerprinted through their little-endian bytes; a row of several strings
/// through the concatenated fingerprints of its strings, as TensorFlow does.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape, Tensor};
/// # use weir_ops::{array::constant, string::fingerprint};
/// let g = Graph::new();
/// let rows = constant(&g, Tensor::from_vec(&[2, 2], vec![1i32, 2, 3, 4])?)?;
/// let fp = fingerprint(&rows, "farmhash64")?;
/// assert_eq!((fp.dtype(), fp.shape()), (DType::U8, Shape::known(&[2, 8])));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn fingerprint(data: impl Into<Output>, method: &str) -> Result<Output> {
    let data = data.into();
    let g = data.graph().clone();
    let method = crate::array::constant(&g, Tensor::scalar(Bytes::from(method.to_string())))?;
    fingerprint_tensor(data, method)
}

/// [`fingerprint`] with `method` given as a scalar string tensor, which the kernel checks.
pub fn fingerprint_tensor(data: impl Into<Output>, method: impl Into<Output>) -> Result<Output> {
    let (data, method) = (data.into(), method.into());
    let g = crate::util::same_graph(&[&data, &method])?.clone();
    crate::new_op(&g, "Fingerprint")
        .input(data)
        .input(method)
        .build()?
        .output(0)
}

/// TensorFlow's shape function: data of rank >= 1, a scalar method (checked when constant),
/// output `[data.shape[0], 8]` (unknown width while the method is unknown).
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let data = ctx.input_shape(0).clone();
    if data.rank() == Some(0) {
        return Err(Error::invalid_argument(
            "Shape must be at least rank 1 but is rank 0 for 'Fingerprint'",
        ));
    }
    ctx.with_rank(1, 0)?;
    let width = match ctx.input_const(1) {
        None => None,
        Some(m) => {
            let m = m.to_scalar::<Bytes>()?;
            if &m[..] != FARMHASH64.as_bytes() {
                return Err(Error::invalid_argument(format!(
                    "Unsupported method: {}",
                    String::from_utf8_lossy(&m)
                )));
            }
            Some(SIZE)
        }
    };
    let batch = if data.rank().is_some() {
        data.dim(0)
    } else {
        None
    };
    ctx.set_output(0, Shape::new(vec![batch, width]));
    Ok(())
}

/// All elements' little-endian bytes, in row-major order, in one buffer.
fn le_bytes<T: LeBytes>(t: &Tensor) -> Result<Vec<u8>> {
    let xs = t.as_slice::<T>()?;
    let mut out = Vec::with_capacity(xs.len() * T::SIZE);
    for &x in xs {
        x.put(&mut out);
    }
    Ok(out)
}

struct FingerprintKernel;

impl Kernel for FingerprintKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let method = ctx.input(1);
        if method.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "`method` should be a scalar string: {}",
                format_dims(method.shape())
            )));
        }
        let method = method.to_scalar::<Bytes>()?;
        if &method[..] != FARMHASH64.as_bytes() {
            return Err(Error::invalid_argument(format!(
                "Unsupported fingerprint method: {}",
                String::from_utf8_lossy(&method)
            )));
        }
        let data = ctx.input(0);
        if data.rank() == 0 {
            return Err(Error::invalid_argument(format!(
                "`data` should have at least one dimension: {}",
                format_dims(data.shape())
            )));
        }
        let rows = data.shape()[0];
        let per_row = data.num_elements().checked_div(rows).unwrap_or(0);
        let mut out = Vec::with_capacity(rows * SIZE);
        if data.dtype() == DType::String {
            let strings = data.as_slice::<Bytes>()?;
            if per_row > 1 {
                // Several strings per row: the row's fingerprint is that of its strings'
                // fingerprints laid end to end, one reused buffer for all rows.
                let mut buf = Vec::with_capacity(per_row * SIZE);
                for row in strings.chunks(per_row) {
                    buf.clear();
                    for s in row {
                        buf.extend_from_slice(&fingerprint64(s).to_le_bytes());
                    }
                    out.extend_from_slice(&fingerprint64(&buf).to_le_bytes());
                }
            } else if per_row == 1 {
                for s in strings {
                    out.extend_from_slice(&fingerprint64(s).to_le_bytes());
                }
            } else {
                // TensorFlow leaves these rows uninitialized; weir gives the fingerprint of
                // an empty row, as for numbers.
                for _ in 0..rows {
                    out.extend_from_slice(&fingerprint64(&[]).to_le_bytes());
                }
            }
        } else {
            let bytes = weir_graph::match_le_dtype!(data.dtype(), T => le_bytes::<T>(data)?,
            _ => return Err(Error::invalid_argument(format!(
                "Data type not supported: {}", data.dtype()
            ))));
            let row_bytes = per_row * (bytes.len() / data.num_elements().max(1));
            for i in 0..rows {
                let row = &bytes[i * row_bytes..(i + 1) * row_bytes];
                out.extend_from_slice(&fingerprint64(row).to_le_bytes());
            }
        }
        ctx.set_output(0, Tensor::from_vec(&[rows, SIZE], out)?);
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("Fingerprint")
            .input("data", ArgType::Attr("T"))
            .input("method", ArgType::Fixed(DType::String))
            .output("fingerprint", ArgType::Fixed(DType::U8))
            .type_attr("T", DType::ALL)
            .shape_fn(shape_fn),
    );
    register_kernel("Fingerprint", |node| {
        let dtype: DType = node.attr("T")?;
        if dtype == DType::Resource {
            return Err(Error::invalid_argument(format!(
                "Data type not supported: {dtype}"
            )));
        }
        Ok(Box::new(FingerprintKernel))
    });
}
