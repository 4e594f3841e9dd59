//! The complex FFT ops `FFT`, `IFFT`, `FFT2D`, `IFFT2D`, `FFT3D` and `IFFT3D`
//! (`tf.signal.fft`, ...): the discrete Fourier transform over the innermost 1, 2 or 3 dims of a
//! complex64 or complex128 tensor, the inverse scaled by `1 / n`.

use rustfft::num_complex::Complex;
use rustfft::{FftDirection, FftNum, FftPlanner};
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output, Result,
    Tensor, TensorType,
};

use super::engine::fft_axis;
use crate::complex::with_default;

const COMPLEX: &[DType] = DType::COMPLEX;

/// The complex FFT ops: (op type, transform rank, inverse).
pub(crate) const C2C_OPS: &[(&str, usize, bool)] = &[
    ("FFT", 1, false),
    ("IFFT", 1, true),
    ("FFT2D", 2, false),
    ("IFFT2D", 2, true),
    ("FFT3D", 3, false),
    ("IFFT3D", 3, true),
];

fn c2c(op: &str, input: Output) -> Result<Output> {
    let g = input.graph().clone();
    let dt = input.dtype();
    if !dt.is_complex() {
        // TensorFlow's Python converts the input to complex64 first; a real tensor fails there.
        return Err(Error::invalid_argument(format!(
            "Value passed to parameter 'input' has DataType {} not in list of allowed values: complex64, complex128",
            dt.name()
        )));
    }
    crate::new_op(&g, op).input(input).build()?.output(0)
}

macro_rules! c2c_builders {
    ($($(#[$doc:meta])* $name:ident => $op:literal;)*) => {$(
        $(#[$doc])*
        pub fn $name(input: impl Into<Output>) -> Result<Output> {
            c2c($op, input.into())
        }
    )*};
}

c2c_builders! {
    /// `tf.signal.fft(input)` (op `FFT`): the 1-D DFT of the innermost dim.
    fft => "FFT";
    /// `tf.signal.ifft(input)` (op `IFFT`): the inverse 1-D DFT of the innermost dim, scaled by
    /// `1 / n`.
    ifft => "IFFT";
    /// `tf.signal.fft2d(input)` (op `FFT2D`): the 2-D DFT of the two innermost dims.
    fft2d => "FFT2D";
    /// `tf.signal.ifft2d(input)` (op `IFFT2D`): the inverse 2-D DFT of the two innermost dims.
    ifft2d => "IFFT2D";
    /// `tf.signal.fft3d(input)` (op `FFT3D`): the 3-D DFT of the three innermost dims.
    fft3d => "FFT3D";
    /// `tf.signal.ifft3d(input)` (op `IFFT3D`): the inverse 3-D DFT of the three innermost dims.
    ifft3d => "IFFT3D";
}

/// The transform rank of a spectral op type.
pub(crate) fn rank_of(op: &str) -> usize {
    if op.ends_with("3D") {
        3
    } else if op.ends_with("2D") {
        2
    } else {
        1
    }
}

/// TensorFlow's `WithRankAtLeast` message.
pub(crate) fn rank_at_least(ctx: &InferenceContext<'_>, i: usize, k: usize) -> Result<()> {
    match ctx.input_shape(i).rank() {
        Some(r) if r < k => Err(Error::invalid_argument(format!(
            "Shape must be at least rank {k} but is rank {r}"
        ))),
        _ => Ok(()),
    }
}

fn c2c_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    rank_at_least(ctx, 0, rank_of(ctx.op_type))?;
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

/// The kernel's check that the input has at least `k` dims.
pub(crate) fn check_rank(x: &Tensor, k: usize) -> Result<()> {
    if x.rank() < k {
        return Err(Error::invalid_argument(format!(
            "Input must have rank of at least {k} but got: {}",
            weir_graph::format_dims(x.shape())
        )));
    }
    Ok(())
}

/// Transforms the innermost `k` dims of `data` (of `shape`) in place; the inverse is scaled
/// by one over the product of their sizes, computed in double as TensorFlow does.
pub(crate) fn fft_inner<T: FftNum>(
    data: &mut [Complex<T>],
    shape: &[usize],
    k: usize,
    inverse: bool,
) {
    let mut planner = FftPlanner::new();
    let direction = if inverse {
        FftDirection::Inverse
    } else {
        FftDirection::Forward
    };
    let rank = shape.len();
    for axis in (rank - k..rank).rev() {
        fft_axis(&mut planner, data, shape, axis, direction);
    }
    if inverse {
        let n: f64 = shape[rank - k..].iter().map(|&d| d as f64).product();
        let scale = T::from_f64(1.0 / n).unwrap_or_else(T::one);
        for z in data.iter_mut() {
            *z = *z * scale;
        }
    }
}

fn c2c_typed<T>(x: Tensor, k: usize, inverse: bool) -> Result<Tensor>
where
    T: FftNum,
    Complex<T>: TensorType,
{
    let shape = x.shape().to_vec();
    let mut x = if x.is_unique() { x } else { x.deep_copy() };
    fft_inner(x.as_slice_mut::<Complex<T>>()?, &shape, k, inverse);
    Ok(x)
}

struct C2cKernel {
    rank: usize,
    inverse: bool,
}

impl Kernel for C2cKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        check_rank(&x, self.rank)?;
        let out = match x.dtype() {
            DType::C64 => c2c_typed::<f32>(x, self.rank, self.inverse)?,
            DType::C128 => c2c_typed::<f64>(x, self.rank, self.inverse)?,
            dt => return Err(Error::invalid_argument(format!("FFT of {dt}"))),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let &(_, rank, inverse) = C2C_OPS
        .iter()
        .find(|(n, _, _)| *n == node.op_type())
        .ok_or_else(|| Error::internal(format!("not an FFT op: {}", node.op_type())))?;
    Ok(Box::new(C2cKernel { rank, inverse }))
}

pub(super) fn register() {
    for &(name, _, _) in C2C_OPS {
        register_op(with_default(
            OpDef::new(name)
                .input("input", ArgType::Attr("Tcomplex"))
                .output("output", ArgType::Attr("Tcomplex"))
                .type_attr("Tcomplex", COMPLEX)
                .shape_fn(c2c_shape),
            "Tcomplex",
            DType::C64,
        ));
        register_kernel(name, make);
    }
}
