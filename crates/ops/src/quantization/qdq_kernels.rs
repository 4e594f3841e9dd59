//! The CPU kernels of `QuantizeAndDequantizeV2`, `V3`, `V4` and `V4Grad` for float32 and
//! float64, operation for operation as TensorFlow 2.21's (`ComputeQuantizationRange`, then a
//! clamp when the range is given, a scale, a rounding and the inverse scale), with its checks
//! and messages. Half and bfloat16 nodes build but have no kernel, as in TensorFlow.
//!
//! With NaN in an input whose range is computed, TensorFlow's vectorized minimum skips it or
//! not depending on where it lies in memory; weir always skips it.

use std::ops::{Add, Div, Mul};

use weir_graph::{
    format_dims, AttrValue, DType, Error, Kernel, Node, OpContext, Result, Tensor, TensorType,
};

use super::{ftz, six_digits, Flush};

/// The float types TensorFlow's CPU kernels compute in.
trait QFloat:
    TensorType + Flush + PartialOrd + Add<Output = Self> + Mul<Output = Self> + Div<Output = Self>
{
    const MAX: Self;
    const LOWEST: Self;
    const ZERO: Self;
    const HALF: Self;
    fn from_i64(v: i64) -> Self;
    fn floor(self) -> Self;
    fn rint(self) -> Self;
}

macro_rules! qfloat {
    ($($t:ty),*) => {$(
        impl QFloat for $t {
            const MAX: Self = <$t>::MAX;
            const LOWEST: Self = <$t>::MIN;
            const ZERO: Self = 0.0;
            const HALF: Self = 0.5;
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn floor(self) -> Self {
                <$t>::floor(self)
            }
            fn rint(self) -> Self {
                self.round_ties_even()
            }
        }
    )*};
}
qfloat!(f32, f64);

/// What a node quantizes with, after its attributes (and `V3`'s `num_bits`) are checked.
#[derive(Clone, Copy, Debug)]
struct Config {
    signed: bool,
    num_bits: i64,
    narrow: bool,
    half_up: bool,
    range_given: bool,
}

/// One slice's clamping range and scales (TensorFlow's `ComputeQuantizationRange`): the
/// largest scale that maps `[min, max]` into the integer range while 0 stays 0; the end that
/// did not set the scale moves to the integer range's end.
#[derive(Clone, Copy, Debug)]
struct Scaled<T> {
    min: T,
    max: T,
    scale: T,
    inverse: T,
}

impl Config {
    fn quantized_range(&self) -> (i64, i64) {
        let half = 1i64 << (self.num_bits - 1);
        match (self.signed, self.narrow) {
            (true, true) => (1 - half, half - 1),
            (true, false) => (-half, half - 1),
            (false, _) => (0, (1i64 << self.num_bits) - 1),
        }
    }

    /// Every operation flushes subnormals, as TensorFlow's kernels run (see [`ftz`]).
    fn scaled<T: QFloat>(&self, min: T, max: T) -> Scaled<T> {
        let (min, max) = (ftz(min), ftz(max));
        let (lo, hi) = self.quantized_range();
        let (lo, hi) = (T::from_i64(lo), T::from_i64(hi));
        let from_min = if ftz(lo * min) > T::ZERO {
            ftz(lo / min)
        } else {
            T::MAX
        };
        let from_max = if ftz(hi * max) > T::ZERO {
            ftz(hi / max)
        } else {
            T::MAX
        };
        if from_min < from_max {
            let inverse = ftz(min / lo);
            Scaled {
                min,
                max: ftz(hi * inverse),
                scale: from_min,
                inverse,
            }
        } else {
            let inverse = ftz(max / hi);
            Scaled {
                min: ftz(lo * inverse),
                max,
                scale: from_max,
                inverse,
            }
        }
    }

    /// `x` quantized and dequantized with `s`, clamped first when the range was given.
    fn apply<T: QFloat>(&self, s: &Scaled<T>, x: T) -> T {
        let x = ftz(x);
        let x = if self.range_given {
            let c = if s.max < x { s.max } else { x };
            if c < s.min {
                s.min
            } else {
                c
            }
        } else {
            x
        };
        let y = ftz(x * s.scale);
        let r = if self.half_up {
            ftz(y + T::HALF).floor()
        } else {
            y.rint()
        };
        ftz(r * s.inverse)
    }
}

/// The dimensions around `axis` (-1: the whole tensor as one slice): the number of slices
/// and the length of the runs each slice's elements come in.
fn slices(shape: &[usize], axis: i64) -> (usize, usize) {
    if axis < 0 {
        return (1, shape.iter().product::<usize>().max(1));
    }
    let a = axis as usize;
    (shape[a], shape[a + 1..].iter().product::<usize>().max(1))
}

/// The whole quantize-and-dequantize of `x` per slice of `axis`, with the given ranges or
/// each slice's own minimum and maximum (skipping NaN, as a vectorized minimum mostly does).
fn quantize<T: QFloat>(
    cfg: &Config,
    x: &Tensor,
    axis: i64,
    range: Option<(&Tensor, &Tensor)>,
) -> Result<Tensor> {
    let xs = x.as_slice::<T>()?;
    let (depth, inner) = slices(x.shape(), axis);
    let (mins, maxs) = match range {
        Some((lo, hi)) => (lo.to_vec::<T>()?, hi.to_vec::<T>()?),
        None => {
            let (mut lo, mut hi) = (vec![T::MAX; depth], vec![T::LOWEST; depth]);
            for (i, &v) in xs.iter().enumerate() {
                let (c, v) = ((i / inner) % depth, ftz(v));
                if v < lo[c] {
                    lo[c] = v;
                }
                if v > hi[c] {
                    hi[c] = v;
                }
            }
            (lo, hi)
        }
    };
    let scaled: Vec<Scaled<T>> = mins
        .iter()
        .zip(&maxs)
        .map(|(&lo, &hi)| cfg.scaled(lo, hi))
        .collect();
    let out = xs
        .iter()
        .enumerate()
        .map(|(i, &v)| cfg.apply(&scaled[(i / inner) % depth], v))
        .collect();
    Tensor::from_vec(x.shape(), out)
}

/// TensorFlow's error for a node whose `T` has no CPU kernel (half and bfloat16).
fn no_kernel(node: &Node) -> Error {
    let attrs: Vec<String> = node
        .attrs()
        .iter()
        .map(|(k, v)| match v {
            AttrValue::Bool(b) => format!("{k}={b}"),
            AttrValue::Int(i) => format!("{k}={i}"),
            AttrValue::Str(s) => format!("{k}=\"{s}\""),
            AttrValue::Type(t) => format!("{k}={}", t.proto_name()),
            other => format!("{k}={other:?}"),
        })
        .collect();
    Error::invalid_argument(format!(
        "No OpKernel was registered to support Op '{}' used by {{{{node {}}}}} with these attrs: [{}]\nRegistered devices: [CPU]\nRegistered kernels:\n  device='CPU'; T in [DT_DOUBLE]\n  device='CPU'; T in [DT_FLOAT]\n",
        node.op_type(),
        node.name(),
        attrs.join(", ")
    ))
}

/// Whether a node's `T` has a CPU kernel; TensorFlow registers float and double only.
fn check_dtype(node: &Node) -> Result<()> {
    match node.attr::<DType>("T")? {
        DType::F32 | DType::F64 => Ok(()),
        _ => Err(no_kernel(node)),
    }
}

/// `V2`, `V3` and `V4` (`V3` reads `num_bits` from its input when it runs).
struct QdqKernel {
    cfg: Config,
    axis: i64,
    v3: bool,
}

pub(super) fn make_qdq(node: &Node) -> Result<Box<dyn Kernel>> {
    check_dtype(node)?;
    let signed: bool = node.attr("signed_input")?;
    let axis: i64 = node.attr("axis")?;
    let v3 = node.op_type() == "QuantizeAndDequantizeV3";
    let (num_bits, half_up) = if v3 {
        (0, false)
    } else {
        let num_bits: i64 = node.attr("num_bits")?;
        check_num_bits(num_bits, signed, "signed_input_")?;
        let mode: String = node.attr("round_mode")?;
        if mode != "HALF_UP" && mode != "HALF_TO_EVEN" {
            return Err(Error::invalid_argument(format!(
                "Round mode string must be 'HALF_UP' or 'HALF_TO_EVEN', is '{mode}'"
            )));
        }
        (num_bits, mode == "HALF_UP")
    };
    let cfg = Config {
        signed,
        num_bits,
        narrow: node.attr("narrow_range")?,
        half_up,
        range_given: node.attr("range_given")?,
    };
    Ok(Box::new(QdqKernel { cfg, axis, v3 }))
}

/// TensorFlow's bound on `num_bits`, which keeps the integer range within 64 bits.
fn check_num_bits(num_bits: i64, signed: bool, attr: &str) -> Result<()> {
    if num_bits > 0 && num_bits < if signed { 62 } else { 63 } {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "num_bits is out of range: {num_bits} with {attr} {}",
        u8::from(signed)
    )))
}

/// The given range of a whole-tensor node, checked to be in order.
fn ordered_range(min: &Tensor, max: &Tensor) -> Result<()> {
    let (lo, hi) = match min.dtype() {
        DType::F64 => (min.to_vec::<f64>()?[0], max.to_vec::<f64>()?[0]),
        _ => (
            f64::from(min.to_vec::<f32>()?[0]),
            f64::from(max.to_vec::<f32>()?[0]),
        ),
    };
    if ftz(lo) <= ftz(hi) {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "Invalid range: input_min {} > input_max {}",
        six_digits(lo),
        six_digits(hi)
    )))
}

/// TensorFlow's check that a per-slice range input is a vector.
fn rank1_range(t: &Tensor, name: &str) -> Result<()> {
    if t.rank() == 1 {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "Shape must be rank 1 for {name} when the axis is specified"
    )))
}

impl QdqKernel {
    /// `V2`/`V4`'s checks. TensorFlow 2.21 wants scalar ranges when one is given and a
    /// vector when `axis` is set, so a given per-slice range always fails.
    fn check_v2(&self, x: &Tensor, min: &Tensor, max: &Tensor) -> Result<()> {
        if self.axis < -1 {
            return Err(Error::invalid_argument(format!(
                "Axis must be at least -1. Found {}",
                self.axis
            )));
        }
        if self.axis != -1 && self.axis >= x.rank() as i64 {
            return Err(Error::invalid_argument(format!(
                "Shape must be at least rank {} but is rank {}",
                self.axis + 1,
                x.rank()
            )));
        }
        if !self.cfg.range_given {
            return Ok(());
        }
        for (t, name) in [(min, "input_min"), (max, "input_max")] {
            if t.rank() != 0 {
                return Err(Error::invalid_argument(format!("{name} must be a scalar.")));
            }
        }
        if self.axis == -1 {
            ordered_range(min, max)
        } else {
            rank1_range(min, "input_min_tensor")
        }
    }

    /// `V3`'s checks; returns the bit width from its `num_bits` input.
    fn check_v3(&self, x: &Tensor, min: &Tensor, max: &Tensor, bits: &Tensor) -> Result<i64> {
        let rank = x.rank() as i64;
        if !(-rank <= self.axis && self.axis < rank) {
            return Err(Error::invalid_argument(format!(
                "Axis requested is larger than input dimensions. Axis: {} Input Dimensions: {rank}",
                self.axis
            )));
        }
        if self.axis < -1 {
            return Err(Error::invalid_argument(format!(
                "axis should be at least -1, got {}",
                self.axis
            )));
        }
        if bits.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "Invalid shape. The `num_bits` tensor should be a scalar. Got dimensions: {}",
                bits.rank()
            )));
        }
        let num_bits = i64::from(bits.to_scalar::<i32>()?);
        check_num_bits(num_bits, self.cfg.signed, "`signed_input_`")?;
        if !self.cfg.range_given {
            return Ok(num_bits);
        }
        if self.axis == -1 {
            // TensorFlow reads one element as the scalar (and aborts on more).
            for (t, name) in [(min, "input_min"), (max, "input_max")] {
                if t.num_elements() != 1 {
                    return Err(Error::invalid_argument(format!("{name} must be a scalar.")));
                }
            }
            ordered_range(min, max)?;
            return Ok(num_bits);
        }
        rank1_range(min, "input_min_tensor")?;
        rank1_range(max, "input_max_tensor")?;
        let depth = x.shape()[self.axis as usize];
        for (t, name) in [(min, "input_min_tensor"), (max, "input_max_tensor")] {
            if t.shape()[0] != depth {
                return Err(Error::invalid_argument(format!(
                    "{name} has incorrect size, was {} expected {depth} to match dim {} of the input {}",
                    t.shape()[0],
                    self.axis,
                    format_dims(t.shape())
                )));
            }
        }
        Ok(num_bits)
    }
}

impl Kernel for QdqKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (x, min, max) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let mut cfg = self.cfg;
        if self.v3 {
            cfg.num_bits = self.check_v3(x, min, max, ctx.input(3))?;
        } else {
            self.check_v2(x, min, max)?;
        }
        let range = cfg.range_given.then_some((min, max));
        let out = match x.dtype() {
            DType::F64 => quantize::<f64>(&cfg, x, self.axis, range)?,
            _ => quantize::<f32>(&cfg, x, self.axis, range)?,
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

struct V4GradKernel {
    axis: i64,
}

pub(super) fn make_v4_grad(node: &Node) -> Result<Box<dyn Kernel>> {
    check_dtype(node)?;
    Ok(Box::new(V4GradKernel {
        axis: node.attr("axis")?,
    }))
}

impl V4GradKernel {
    fn check(&self, g: &Tensor, x: &Tensor, min: &Tensor, max: &Tensor) -> Result<()> {
        if self.axis < -1 {
            return Err(Error::invalid_argument(format!(
                "Axis must be at least -1. Found {}",
                self.axis
            )));
        }
        if self.axis != -1 && self.axis >= x.rank() as i64 {
            return Err(Error::invalid_argument(format!(
                "Axis should be -1 or 0 or a positive value less than {}but given axis value was {}",
                x.rank(),
                self.axis
            )));
        }
        if g.shape() != x.shape() {
            return Err(Error::invalid_argument(
                "gradient and input must be the same size",
            ));
        }
        for (t, name) in [(min, "min"), (max, "max")] {
            if t.rank() > 1 {
                return Err(Error::invalid_argument(format!(
                    "Input {name} tensor must have dimension 0 or 1. Received {}.",
                    t.rank()
                )));
            }
        }
        if self.axis == -1 {
            for (t, name) in [(min, "input_min"), (max, "input_max")] {
                if t.rank() != 0 {
                    return Err(Error::invalid_argument(format!(
                        "{name} must be a scalar if axis is unspecified"
                    )));
                }
            }
            return Ok(());
        }
        rank1_range(min, "input_min_tensor")?;
        rank1_range(max, "input_max_tensor")?;
        let depth = x.shape()[self.axis as usize];
        for (t, name) in [(min, "min"), (max, "max")] {
            if t.shape()[0] != depth {
                return Err(Error::invalid_argument(format!(
                    "{name} has incorrect size, expected {depth} was {}",
                    t.shape()[0]
                )));
            }
        }
        Ok(())
    }

    /// `g` times 1 where `x` is within its slice's given range and 0 elsewhere.
    fn backprop<T: QFloat>(
        &self,
        g: &Tensor,
        x: &Tensor,
        min: &Tensor,
        max: &Tensor,
    ) -> Result<Tensor> {
        let (gs, xs) = (g.as_slice::<T>()?, x.as_slice::<T>()?);
        let (lo, hi) = (min.as_slice::<T>()?, max.as_slice::<T>()?);
        let (depth, inner) = slices(x.shape(), self.axis);
        let one = T::from_i64(1);
        let out = gs
            .iter()
            .zip(xs)
            .enumerate()
            .map(|(i, (&g, &v))| {
                let c = (i / inner) % depth;
                let (v, inside) = (ftz(v), (ftz(lo[c]), ftz(hi[c])));
                ftz(ftz(g)
                    * if v >= inside.0 && v <= inside.1 {
                        one
                    } else {
                        T::ZERO
                    })
            })
            .collect();
        Tensor::from_vec(x.shape(), out)
    }
}

impl Kernel for V4GradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (g, x, min, max) = (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        self.check(g, x, min, max)?;
        let dx = match x.dtype() {
            DType::F64 => self.backprop::<f64>(g, x, min, max)?,
            _ => self.backprop::<f32>(g, x, min, max)?,
        };
        // Both range gradients take `input_min`'s shape, as in TensorFlow.
        let zeros = Tensor::zeros(x.dtype(), min.shape())?;
        ctx.set_output(0, dx);
        ctx.set_output(1, zeros.clone());
        ctx.set_output(2, zeros);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(signed: bool, num_bits: i64, narrow: bool) -> Config {
        Config {
            signed,
            num_bits,
            narrow,
            half_up: false,
            range_given: true,
        }
    }

    #[test]
    fn the_side_with_the_smaller_scale_sets_it() {
        // Signed 8 bits over [-1, 2]: 127 / 2 < 128 / 1, so max sets the scale and min moves.
        let s = cfg(true, 8, false).scaled(-1.0f64, 2.0);
        assert_eq!(s.scale, 127.0 / 2.0);
        assert_eq!(s.min, -128.0 * (2.0 / 127.0));
        // Narrow: -127..=127, symmetric.
        assert_eq!(cfg(true, 8, true).quantized_range(), (-127, 127));
        assert_eq!(cfg(false, 62, false).quantized_range(), (0, (1 << 62) - 1));
        // An all-negative range with an unsigned grid leaves no usable side.
        let s = cfg(false, 8, false).scaled(-3.0f32, -1.0);
        assert_eq!(s.scale, f32::MAX);
    }

    #[test]
    fn rounding_modes_differ_on_ties() {
        let s = Scaled {
            min: -10.0f32,
            max: 10.0,
            scale: 1.0,
            inverse: 1.0,
        };
        let even = cfg(true, 8, false);
        let up = Config {
            half_up: true,
            ..even
        };
        assert_eq!(even.apply(&s, 2.5), 2.0);
        assert_eq!(up.apply(&s, 2.5), 3.0);
        assert_eq!(up.apply(&s, -2.5), -2.0);
        assert_eq!(even.apply(&s, 30.0), 10.0);
    }

    #[test]
    fn slices_follow_the_axis() {
        assert_eq!(slices(&[2, 3, 4], 1), (3, 4));
        assert_eq!(slices(&[2, 3, 4], -1), (1, 24));
        assert_eq!(slices(&[0, 3], -1), (1, 1));
    }
}
