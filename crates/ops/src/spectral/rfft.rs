//! The real FFT ops `RFFT`, `IRFFT`, `RFFT2D`, `IRFFT2D`, `RFFT3D` and `IRFFT3D`
//! (`tf.signal.rfft`, ...): real signals to their `fft_length / 2 + 1` non-negative
//! frequencies and back, over the innermost 1, 2 or 3 dims, with the FFT lengths as an int32
//! tensor input. The kernels crop the input to the FFT lengths; the Python-level builders
//! zero-pad a shorter input first, as TensorFlow's `_maybe_pad_for_rfft` does.

use rustfft::num_complex::Complex;
use rustfft::{FftDirection, FftNum, FftPlanner};
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output, Result, Shape,
    Tensor, TensorType,
};

use super::engine::{fft_axis, irfft_rows, rfft_rows, row_offsets};
use super::fft::{check_rank, rank_at_least, rank_of};
use crate::array::IndexArg;
use crate::complex::{complex_of, real_of, with_default};

const REAL: &[DType] = DType::FLOAT;
const COMPLEX: &[DType] = DType::COMPLEX;

/// The real FFT ops: (op type, transform rank, forward).
const R_OPS: &[(&str, usize, bool)] = &[
    ("RFFT", 1, true),
    ("IRFFT", 1, false),
    ("RFFT2D", 2, true),
    ("IRFFT2D", 2, false),
    ("RFFT3D", 3, true),
    ("IRFFT3D", 3, false),
];

/// A real FFT node as `tf.signal.rfft*`/`irfft*` builds it, in a name scope `scope` whose
/// name the op takes: `fft_length` defaults to the input's innermost dims (for the inverse,
/// `2 * (n - 1)` for the last), and a known input shorter than a known `fft_length` is
/// zero-padded first.
fn real_fft(op: &str, scope: &str, input: Output, fft_length: Option<IndexArg>) -> Result<Output> {
    let g = input.graph().clone();
    let k = rank_of(op);
    let forward = !op.starts_with('I');
    let dt = input.dtype();
    let tcomplex = if forward {
        complex_of(dt).ok_or_else(|| {
            Error::invalid_argument(format!(
                "RFFT requires tf.float32 or tf.float64 inputs, got: {}",
                dt.python_name()
            ))
        })?
    } else {
        real_of(dt).ok_or_else(|| {
            Error::invalid_argument(format!(
                "IRFFT requires tf.complex64 or tf.complex128 inputs, got: {}",
                dt.python_name()
            ))
        })?;
        dt
    };
    let shape = input.shape();
    if let Some(r) = shape.rank() {
        if r < k {
            return Err(Error::invalid_argument(format!(
                "Shape {shape} must have rank at least {k}"
            )));
        }
    }
    let scope = g.name_scope(scope);
    let inner: Option<Vec<usize>> = shape.dims().and_then(|d| {
        d[d.len() - k..]
            .iter()
            .copied()
            .collect::<Option<Vec<usize>>>()
    });
    let lengths: Option<Vec<i64>> = match &fft_length {
        Some(IndexArg::List(v)) => Some(v.clone()),
        Some(IndexArg::Tensor(_)) => None,
        None => {
            let dims = inner.clone().ok_or_else(|| {
                Error::unimplemented(
                    "weir infers fft_length only from a statically known input shape".to_string(),
                )
            })?;
            let mut v: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
            if !forward {
                let last = v.len() - 1;
                v[last] = 2 * (v[last] - 1);
            }
            Some(v)
        }
    };
    let mut x = input.clone();
    if let (Some(lens), Some(dims)) = (&lengths, &inner) {
        let rank = shape.rank().unwrap_or(0);
        let mut paddings = vec![[0i64, 0]; rank];
        for i in 0..k {
            let want = if !forward && i == k - 1 {
                lens[i] / 2 + 1
            } else {
                lens[i]
            };
            paddings[rank - k + i][1] = (want - dims[i] as i64).max(0);
        }
        if paddings.iter().any(|p| p[1] > 0) {
            x = crate::array::pad(&x, &paddings)?;
        }
    }
    let len_out = match (lengths, fft_length) {
        (Some(v), _) => crate::array::constant(
            &g,
            Tensor::from(v.iter().map(|&d| d as i32).collect::<Vec<i32>>()),
        )?,
        (None, Some(IndexArg::Tensor(t))) => t,
        (None, _) => return Err(Error::internal("fft_length")),
    };
    let b = crate::new_op(&g, op).input(x).input(len_out);
    let b = if forward {
        b.attr("Tcomplex", tcomplex)
    } else {
        b.attr("Treal", real_of(tcomplex).unwrap_or(DType::F32))
    };
    // The op takes the scope's own name, as `name=name` inside TensorFlow's name scope does.
    b.name(scope.prefix().to_string()).build()?.output(0)
}

macro_rules! real_builders {
    ($($(#[$doc:meta])* $name:ident => ($op:literal, $scope:literal);)*) => {$(
        $(#[$doc])*
        pub fn $name(input: impl Into<Output>, fft_length: Option<IndexArg>) -> Result<Output> {
            real_fft($op, $scope, input.into(), fft_length)
        }
    )*};
}

real_builders! {
    /// `tf.signal.rfft(input_tensor, fft_length=None)` (op `RFFT`): the `fft_length / 2 + 1`
    /// non-negative frequencies of the 1-D DFT of a float32/float64 signal's innermost dim.
    rfft => ("RFFT", "rfft");
    /// `tf.signal.irfft(input_tensor, fft_length=None)` (op `IRFFT`): the real signal of
    /// `fft_length` samples whose half spectrum is the innermost dim.
    irfft => ("IRFFT", "irfft");
    /// `tf.signal.rfft2d(input_tensor, fft_length=None)` (op `RFFT2D`).
    rfft2d => ("RFFT2D", "rfft2d");
    /// `tf.signal.irfft2d(input_tensor, fft_length=None)` (op `IRFFT2D`).
    irfft2d => ("IRFFT2D", "irfft2d");
    /// `tf.signal.rfft3d(input_tensor, fft_length=None)` (op `RFFT3D`).
    rfft3d => ("RFFT3D", "rfft3d");
    /// `tf.signal.irfft3d(input_tensor, fft_length=None)` (op `IRFFT3D`).
    irfft3d => ("IRFFT3D", "irfft3d");
}

fn real_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let k = rank_of(ctx.op_type);
    let forward = !ctx.op_type.starts_with('I');
    rank_at_least(ctx, 0, k)?;
    let len_shape = ctx.input_shape(1).clone();
    if let Some(r) = len_shape.rank() {
        if r != 1 {
            return Err(Error::invalid_argument(format!(
                "Shape must be rank 1 but is rank {r}"
            )));
        }
        if let Some(n) = len_shape.dim(0) {
            if n != k {
                return Err(Error::invalid_argument(format!(
                    "Dimension must be {k} but is {n}"
                )));
            }
        }
    }
    let lens = crate::array::shape_util::const_i64s(ctx, 1)?;
    let out = match ctx.input_shape(0).dims() {
        None => Shape::unknown(),
        Some(d) => {
            let mut d = d.to_vec();
            let r = d.len();
            for i in 0..k {
                d[r - k + i] = match &lens {
                    None => None,
                    Some(v) if forward && i == k - 1 && v[i] != 0 => Some((v[i] / 2 + 1) as usize),
                    Some(v) => usize::try_from(v[i]).ok(),
                };
            }
            Shape::new(d)
        }
    };
    ctx.set_output(0, out);
    Ok(())
}

/// Checks `fft_length` against the input as TensorFlow's kernel does; returns the lengths and
/// the output shape.
fn plan_shapes(
    x: &Tensor,
    fft_length: &Tensor,
    k: usize,
    forward: bool,
) -> Result<(Vec<usize>, Vec<usize>)> {
    check_rank(x, k)?;
    if fft_length.rank() != 1 || fft_length.shape()[0] != k {
        return Err(Error::invalid_argument(format!(
            "fft_length must have shape [{k}]"
        )));
    }
    let lens = fft_length.as_slice::<i32>()?;
    let mut out = x.shape().to_vec();
    let r = out.len();
    let mut result = Vec::with_capacity(k);
    for (i, &l) in lens.iter().enumerate() {
        if l < 0 {
            return Err(Error::invalid_argument(format!(
                "fft_length[{i}] must >= 0, but got: {l}"
            )));
        }
        let l = l as usize;
        let inner_most = i == k - 1;
        let min = if !forward && inner_most { l / 2 + 1 } else { l };
        let idx = r - k + i;
        if x.shape()[idx] != 0 && x.shape()[idx] < min {
            return Err(Error::invalid_argument(format!(
                "Input dimension {idx} must have length of at least {min} but got: {}",
                x.shape()[idx]
            )));
        }
        out[idx] = if forward && inner_most && l != 0 {
            l / 2 + 1
        } else {
            l
        };
        result.push(l);
    }
    Ok((result, out))
}

fn rfft_typed<T>(x: &Tensor, lens: &[usize], out_shape: &[usize]) -> Result<Tensor>
where
    T: FftNum + TensorType,
    Complex<T>: TensorType,
{
    let k = lens.len();
    let r = out_shape.len();
    let n_out: usize = out_shape.iter().product();
    if n_out == 0 || x.num_elements() == 0 {
        return Tensor::from_vec(
            out_shape,
            vec![
                Complex::new(
                    <T as num_traits::Zero>::zero(),
                    <T as num_traits::Zero>::zero()
                );
                n_out
            ],
        );
    }
    let last = lens[k - 1];
    // The input cropped to the FFT lengths, one contiguous row per output row.
    let mut crop_dims = out_shape.to_vec();
    crop_dims[r - 1] = last;
    let src = x.as_slice::<T>()?;
    let offsets = row_offsets(&crop_dims, x.shape());
    let mut rows = Vec::with_capacity(offsets.len() * last);
    for &o in &offsets {
        rows.extend_from_slice(&src[o..o + last]);
    }
    let mut planner = FftPlanner::new();
    let mut data = Vec::with_capacity(n_out);
    rfft_rows(&mut planner, &rows, last, &mut data);
    for axis in (r - k..r - 1).rev() {
        fft_axis(
            &mut planner,
            &mut data,
            out_shape,
            axis,
            FftDirection::Forward,
        );
    }
    Tensor::from_vec(out_shape, data)
}

fn irfft_typed<T>(x: &Tensor, lens: &[usize], out_shape: &[usize]) -> Result<Tensor>
where
    T: FftNum + TensorType,
    Complex<T>: TensorType,
{
    let k = lens.len();
    let r = out_shape.len();
    let n_out: usize = out_shape.iter().product();
    if n_out == 0 || x.num_elements() == 0 {
        return Tensor::from_vec(out_shape, vec![<T as num_traits::Zero>::zero(); n_out]);
    }
    let last = lens[k - 1];
    let half = last / 2 + 1;
    let mut crop_dims = out_shape.to_vec();
    crop_dims[r - 1] = half;
    let src = x.as_slice::<Complex<T>>()?;
    let offsets = row_offsets(&crop_dims, x.shape());
    let mut data = Vec::with_capacity(offsets.len() * half);
    for &o in &offsets {
        data.extend_from_slice(&src[o..o + half]);
    }
    let mut planner = FftPlanner::new();
    for axis in (r - k..r - 1).rev() {
        fft_axis(
            &mut planner,
            &mut data,
            &crop_dims,
            axis,
            FftDirection::Inverse,
        );
    }
    let n: f64 = lens.iter().map(|&d| d as f64).product();
    let scale = T::from_f64(1.0 / n).unwrap_or_else(T::one);
    let mut out = Vec::with_capacity(n_out);
    irfft_rows(&mut planner, &data, last, scale, &mut out);
    Tensor::from_vec(out_shape, out)
}

struct RealFftKernel {
    rank: usize,
    forward: bool,
}

impl Kernel for RealFftKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (x, len) = (ctx.input(0), ctx.input(1));
        let (lens, out_shape) = plan_shapes(x, len, self.rank, self.forward)?;
        let out_dt = ctx.output_dtype(0);
        let out = match (self.forward, x.dtype(), out_dt) {
            (true, DType::F32, DType::C64) => rfft_typed::<f32>(x, &lens, &out_shape)?,
            (true, DType::F64, DType::C128) => rfft_typed::<f64>(x, &lens, &out_shape)?,
            (false, DType::C64, DType::F32) => irfft_typed::<f32>(x, &lens, &out_shape)?,
            (false, DType::C128, DType::F64) => irfft_typed::<f64>(x, &lens, &out_shape)?,
            (fwd, i, o) => {
                return Err(Error::invalid_argument(format!(
                    "Wrong types for {} real FFT: in={} out={}",
                    if fwd { "forward" } else { "backward" },
                    i.proto_number(),
                    o.proto_number()
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let &(_, rank, forward) = R_OPS
        .iter()
        .find(|(n, _, _)| *n == node.op_type())
        .ok_or_else(|| Error::internal(format!("not a real FFT op: {}", node.op_type())))?;
    Ok(Box::new(RealFftKernel { rank, forward }))
}

pub(super) fn register() {
    for &(name, _, forward) in R_OPS {
        let def = if forward {
            OpDef::new(name)
                .input("input", ArgType::Attr("Treal"))
                .input("fft_length", ArgType::Fixed(DType::I32))
                .output("output", ArgType::Attr("Tcomplex"))
        } else {
            OpDef::new(name)
                .input("input", ArgType::Attr("Tcomplex"))
                .input("fft_length", ArgType::Fixed(DType::I32))
                .output("output", ArgType::Attr("Treal"))
        };
        let def = def
            .type_attr("Treal", REAL)
            .type_attr("Tcomplex", COMPLEX)
            .shape_fn(real_shape);
        let def = with_default(
            with_default(def, "Treal", DType::F32),
            "Tcomplex",
            DType::C64,
        );
        register_op(def);
        register_kernel(name, make);
    }
}
