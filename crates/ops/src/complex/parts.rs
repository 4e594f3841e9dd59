//! The elementwise complex ops: `Complex` (`tf.complex`), `Real`, `Imag`, `Conj`, `Angle` and
//! `ComplexAbs` (what `tf.abs` runs on a complex tensor).
//!
//! `Real`, `Imag`, `Angle` and `ComplexAbs` take complex64/complex128 and return the matching
//! real type through their `Tout` attr; TensorFlow registers kernels only for the matching pairs
//! (complex64 -> float32, complex128 -> float64), so another `Tout` fails with NotFound when the
//! kernel is made, as TensorFlow's kernel lookup does.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrValue, Complex, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor, TensorType,
};

use crate::math::broadcast_shapes;

const REAL: &[DType] = DType::FLOAT;
const COMPLEX: &[DType] = DType::COMPLEX;

/// The complex dtype whose parts are `dt` (float32 -> complex64, float64 -> complex128).
pub(crate) fn complex_of(dt: DType) -> Option<DType> {
    match dt {
        DType::F32 => Some(DType::C64),
        DType::F64 => Some(DType::C128),
        _ => None,
    }
}

/// The real dtype of `dt`'s parts (complex64 -> float32, complex128 -> float64).
pub(crate) fn real_of(dt: DType) -> Option<DType> {
    match dt {
        DType::C64 => Some(DType::F32),
        DType::C128 => Some(DType::F64),
        _ => None,
    }
}

/// `tf.complex(real, imag)` (op `Complex`): `real + imag * 1j` elementwise with broadcasting;
/// float32 parts give complex64 and float64 parts complex128.
///
/// ```
/// use weir_graph::{DType, Graph, Shape};
/// use weir_ops::{array::constant, complex::complex};
///
/// let g = Graph::new();
/// let re = constant(&g, [1.0f32, 2.0])?;
/// let im = constant(&g, 3.0f32)?;
/// let z = complex(&re, &im)?;
/// assert_eq!((z.dtype(), z.shape()), (DType::C64, Shape::known(&[2])));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn complex(real: impl Into<Output>, imag: impl Into<Output>) -> Result<Output> {
    let (re, im) = (real.into(), imag.into());
    let tout = match (re.dtype(), im.dtype()) {
        (a, b) if a == b && complex_of(a).is_some() => complex_of(a),
        _ => None,
    }
    .ok_or_else(|| {
        Error::invalid_argument(format!(
            "The `real` and `imag` components have incorrect types: {} {}. They must be consistent, and one of [tf.float32, tf.float64]",
            re.dtype().python_name(),
            im.dtype().python_name()
        ))
    })?;
    crate::new_op(&re.graph().clone(), "Complex")
        .input(re)
        .input(im)
        .attr("Tout", tout)
        .build()?
        .output(0)
}

/// One `op` node on complex `x` with `Tout` its real type.
fn part(op: &str, x: Output) -> Result<Output> {
    let tout = real_of(x.dtype()).ok_or_else(|| Error::internal("not a complex tensor"))?;
    crate::new_op(&x.graph().clone(), op)
        .input(x)
        .attr("Tout", tout)
        .build()?
        .output(0)
}

/// The TypeError of `tf.math.real`/`imag`/`conj` for a non-numeric input.
fn not_numeric(x: &Output) -> Error {
    Error::invalid_argument(format!(
        "Expected numeric or variant tensor, got dtype tf.{}.",
        x.dtype().python_name()
    ))
}

/// `tf.math.real(input)`: the real part (op `Real`) of a complex tensor; a real numeric tensor
/// is returned as it is.
pub fn real(input: impl Into<Output>) -> Result<Output> {
    let x = input.into();
    if x.dtype().is_complex() {
        part("Real", x)
    } else if x.dtype().is_numeric() {
        Ok(x)
    } else {
        Err(not_numeric(&x))
    }
}

/// `tf.math.imag(input)`: the imaginary part (op `Imag`) of a complex tensor; zeros
/// (`tf.zeros_like`) for a real numeric one.
pub fn imag(input: impl Into<Output>) -> Result<Output> {
    let x = input.into();
    if x.dtype().is_complex() {
        part("Imag", x)
    } else if x.dtype().is_numeric() {
        crate::array::zeros_like(&x)
    } else {
        Err(not_numeric(&x))
    }
}

/// `tf.math.angle(input)` of a complex tensor (op `Angle`): `atan2(imag, real)` elementwise.
pub fn angle(input: impl Into<Output>) -> Result<Output> {
    let x = input.into();
    if !x.dtype().is_complex() {
        return Err(Error::invalid_argument(format!(
            "Value passed to parameter 'input' has DataType {} not in list of allowed values: complex64, complex128",
            x.dtype().name()
        )));
    }
    part("Angle", x)
}

/// `tf.abs(x)` of a complex tensor (op `ComplexAbs`): `sqrt(re^2 + im^2)` without overflow.
pub fn complex_abs(x: impl Into<Output>) -> Result<Output> {
    let x = x.into();
    if !x.dtype().is_complex() {
        return Err(Error::invalid_argument(format!(
            "Value passed to parameter 'x' has DataType {} not in list of allowed values: complex64, complex128",
            x.dtype().name()
        )));
    }
    part("ComplexAbs", x)
}

/// `tf.math.conj(x)`: the complex conjugate (op `Conj`) of a complex tensor; a real numeric
/// tensor is returned as it is.
pub fn conj(x: impl Into<Output>) -> Result<Output> {
    let x = x.into();
    if x.dtype().is_complex() {
        crate::new_op(&x.graph().clone(), "Conj")
            .input(x)
            .build()?
            .output(0)
    } else if x.dtype().is_numeric() {
        Ok(x)
    } else {
        Err(not_numeric(&x))
    }
}

// ---------------------------------------------------------------------------------------------
// Shape functions and kernels.

fn complex_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let (a, b) = (ctx.input_shape(0).clone(), ctx.input_shape(1).clone());
    let out = broadcast_static(&a, &b, ctx.op_type)?;
    ctx.set_output(0, out);
    Ok(())
}

/// TensorFlow's `BroadcastBinaryOpShapeFn` on two partial shapes (the math family keeps its
/// own copy private).
fn broadcast_static(a: &Shape, b: &Shape, op: &str) -> Result<Shape> {
    let (Some(da), Some(db)) = (a.dims(), b.dims()) else {
        return Ok(Shape::unknown());
    };
    let n = da.len().max(db.len());
    let dim = |d: &[Option<usize>], i: usize| {
        if i + d.len() >= n {
            d[i + d.len() - n]
        } else {
            Some(1)
        }
    };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        out.push(match (dim(da, i), dim(db, i)) {
            (Some(p), Some(q)) if p == q => Some(p),
            (Some(1), q) => q,
            (p, Some(1)) => p,
            (Some(p), Some(q)) => {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {p} and {q} for '{op}' with input shapes: {a}, {b}."
                )))
            }
            (Some(p), None) | (None, Some(p)) => Some(p),
            (None, None) => None,
        });
    }
    Ok(Shape::new(out))
}

fn same_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

/// The element offsets of `shape` broadcast to `out`, in `out`'s row-major order.
fn broadcast_offsets(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let pad = out.len() - shape.len();
    let mut strides = vec![0usize; out.len()];
    let mut s = 1;
    for i in (0..shape.len()).rev() {
        strides[pad + i] = if shape[i] == 1 { 0 } else { s };
        s *= shape[i];
    }
    let n: usize = out.iter().product();
    let mut offsets = Vec::with_capacity(n);
    let mut idx = vec![0usize; out.len()];
    let mut off = 0usize;
    for _ in 0..n {
        offsets.push(off);
        for ax in (0..out.len()).rev() {
            idx[ax] += 1;
            off += strides[ax];
            if idx[ax] < out[ax] {
                break;
            }
            off -= strides[ax] * out[ax];
            idx[ax] = 0;
        }
    }
    offsets
}

fn make_complex<T>(re: &Tensor, im: &Tensor) -> Result<Tensor>
where
    T: TensorType + Copy + num_traits::Zero,
    Complex<T>: TensorType,
{
    let (a, b) = (re.as_slice::<T>()?, im.as_slice::<T>()?);
    if re.shape() == im.shape() {
        let out: Vec<Complex<T>> = a.iter().zip(b).map(|(&r, &i)| Complex::new(r, i)).collect();
        return Tensor::from_vec(re.shape(), out);
    }
    let shape = broadcast_shapes(re.shape(), im.shape()).map_err(|_| {
        Error::invalid_argument(format!(
            "Incompatible shapes: {} vs. {}",
            weir_graph::format_dims(re.shape()),
            weir_graph::format_dims(im.shape())
        ))
    })?;
    let (oa, ob) = (
        broadcast_offsets(re.shape(), &shape),
        broadcast_offsets(im.shape(), &shape),
    );
    let out: Vec<Complex<T>> = oa
        .iter()
        .zip(&ob)
        .map(|(&i, &j)| Complex::new(a[i], b[j]))
        .collect();
    Tensor::from_vec(&shape, out)
}

struct ComplexKernel;

impl Kernel for ComplexKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (re, im) = (ctx.input(0), ctx.input(1));
        let out = match re.dtype() {
            DType::F32 => make_complex::<f32>(re, im)?,
            DType::F64 => make_complex::<f64>(re, im)?,
            dt => return Err(Error::invalid_argument(format!("Complex of {dt}"))),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

#[derive(Clone, Copy, Debug)]
enum PartOp {
    Real,
    Imag,
    Angle,
    Abs,
}

fn part_of<T>(x: &Tensor, op: PartOp) -> Result<Tensor>
where
    T: TensorType + Copy + num_traits::Float,
    Complex<T>: TensorType,
{
    let xs = x.as_slice::<Complex<T>>()?;
    let out: Vec<T> = match op {
        PartOp::Real => xs.iter().map(|z| z.re).collect(),
        PartOp::Imag => xs.iter().map(|z| z.im).collect(),
        PartOp::Angle => xs.iter().map(|z| z.im.atan2(z.re)).collect(),
        PartOp::Abs => xs.iter().map(|z| z.re.hypot(z.im)).collect(),
    };
    Tensor::from_vec(x.shape(), out)
}

struct PartKernel(PartOp);

impl Kernel for PartKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let out = match x.dtype() {
            DType::C64 => part_of::<f32>(x, self.0)?,
            DType::C128 => part_of::<f64>(x, self.0)?,
            dt => return Err(Error::invalid_argument(format!("{:?} of {dt}", self.0))),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// Conjugates every element, in place when no one else holds the buffer.
pub(crate) fn conj_tensor(x: Tensor) -> Result<Tensor> {
    fn go<T>(mut x: Tensor) -> Result<Tensor>
    where
        T: TensorType + Copy + num_traits::Float,
        Complex<T>: TensorType,
    {
        if x.is_unique() {
            for z in x.as_slice_mut::<Complex<T>>()? {
                z.im = -z.im;
            }
            Ok(x)
        } else {
            let out: Vec<Complex<T>> = x
                .as_slice::<Complex<T>>()?
                .iter()
                .map(|z| z.conj())
                .collect();
            Tensor::from_vec(x.shape(), out)
        }
    }
    match x.dtype() {
        DType::C64 => go::<f32>(x),
        DType::C128 => go::<f64>(x),
        dt => Err(Error::invalid_argument(format!("Conj of {dt}"))),
    }
}

struct ConjKernel;

impl Kernel for ConjKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        ctx.set_output(0, conj_tensor(x)?);
        Ok(())
    }
}

/// TensorFlow's NotFound when no kernel is registered for a node's dtypes.
fn no_kernel(node: &Node, want: &[(&str, DType)]) -> Error {
    let attrs: Vec<String> = want
        .iter()
        .map(|(k, v)| format!("{k}={}", v.proto_name()))
        .collect();
    Error::not_found(format!(
        "No registered '{}' OpKernel for CPU devices compatible with node {{{{node {}}}}}: {}",
        node.op_type(),
        node.name(),
        attrs.join(", ")
    ))
}

fn make_complex_kernel(node: &Node) -> Result<Box<dyn Kernel>> {
    let (t, tout): (DType, DType) = (node.attr("T")?, node.attr("Tout")?);
    if complex_of(t) != Some(tout) {
        return Err(no_kernel(node, &[("T", t), ("Tout", tout)]));
    }
    Ok(Box::new(ComplexKernel))
}

fn make_part_kernel(node: &Node) -> Result<Box<dyn Kernel>> {
    let (t, tout): (DType, DType) = (node.attr("T")?, node.attr("Tout")?);
    if real_of(t) != Some(tout) {
        return Err(no_kernel(node, &[("T", t), ("Tout", tout)]));
    }
    let op = match node.op_type() {
        "Real" => PartOp::Real,
        "Imag" => PartOp::Imag,
        "Angle" => PartOp::Angle,
        _ => PartOp::Abs,
    };
    Ok(Box::new(PartKernel(op)))
}

/// Gives the type attr `name` (the last one added) a default, as TensorFlow's `Tout: type =
/// DT_COMPLEX64` declarations do.
pub(crate) fn with_default(mut def: OpDef, name: &str, dt: DType) -> OpDef {
    if let Some(a) = def.attrs.iter_mut().find(|a| a.name == name) {
        a.default = Some(AttrValue::Type(dt));
    }
    def
}

pub(super) fn register() {
    register_op(with_default(
        OpDef::new("Complex")
            .input("real", ArgType::Attr("T"))
            .input("imag", ArgType::Attr("T"))
            .output("out", ArgType::Attr("Tout"))
            .type_attr("T", REAL)
            .type_attr("Tout", COMPLEX)
            .shape_fn(complex_shape),
        "Tout",
        DType::C64,
    ));
    register_kernel("Complex", make_complex_kernel);
    for (name, input, output) in [
        ("Real", "input", "output"),
        ("Imag", "input", "output"),
        ("Angle", "input", "output"),
        ("ComplexAbs", "x", "y"),
    ] {
        let def = OpDef::new(name)
            .input(input, ArgType::Attr("T"))
            .output(output, ArgType::Attr("Tout"))
            .type_attr("T", COMPLEX)
            .type_attr("Tout", REAL)
            .shape_fn(same_shape);
        register_op(with_default(
            with_default(def, "T", DType::C64),
            "Tout",
            DType::F32,
        ));
        register_kernel(name, make_part_kernel);
    }
    // TensorFlow's Conj also takes variant; weir has no variant tensors.
    register_op(with_default(
        OpDef::new("Conj")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", COMPLEX)
            .shape_fn(same_shape),
        "T",
        DType::C64,
    ));
    register_kernel("Conj", |_| Ok(Box::new(ConjKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_broadcast_size_one_dims() {
        assert_eq!(broadcast_offsets(&[3, 1], &[3, 2]), vec![0, 0, 1, 1, 2, 2]);
        assert_eq!(broadcast_offsets(&[2], &[3, 2]), vec![0, 1, 0, 1, 0, 1]);
        assert_eq!(broadcast_offsets(&[], &[2]), vec![0, 0]);
    }
}
