//! The stateless kernels of float and int values: `StatelessRandomUniform`,
//! `StatelessRandomNormal`, `StatelessTruncatedNormal`, `StatelessRandomUniformInt` and
//! `StatelessRandomUniformFullInt`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Result, Tensor,
};

use super::super::kernels::{fill_dist, uniform_int_i32, uniform_int_i64, Dist};
use super::super::philox::{fill_blocks, Philox};
use super::super::{shape_from_input, shape_from_tensor, type_attr_default};
use super::{check_seed_shape, philox_from_seed};

/// What a stateless kernel draws.
#[derive(Clone, Copy)]
enum Kind {
    /// A float distribution.
    Float(Dist),
    /// Ints in `[minval, maxval)` (inputs 2 and 3).
    Int,
    /// Ints over the dtype's whole range.
    FullInt,
}

struct StatelessKernel {
    kind: Kind,
    dtype: DType,
}

impl Kernel for StatelessKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let shape = shape_from_tensor(ctx.input(0))?;
        let gen = philox_from_seed(ctx.input(1))?;
        let n: usize = shape.iter().product();
        // TensorFlow returns before anything else for an empty output: not even an int
        // range with minval >= maxval fails then.
        let out = match self.kind {
            _ if n == 0 => empty(self.dtype, &shape)?,
            Kind::Float(dist) => fill_dist(dist, self.dtype, &shape, gen)?,
            Kind::Int => uniform_int(ctx.input(2), ctx.input(3), &shape, gen)?,
            Kind::FullInt => full_int(self.dtype, &shape, gen)?,
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn empty(dtype: DType, shape: &[usize]) -> Result<Tensor> {
    match dtype {
        DType::F32 => Tensor::from_vec(shape, Vec::<f32>::new()),
        DType::F64 => Tensor::from_vec(shape, Vec::<f64>::new()),
        DType::I32 => Tensor::from_vec(shape, Vec::<i32>::new()),
        DType::I64 => Tensor::from_vec(shape, Vec::<i64>::new()),
        dt => Err(Error::internal(format!("stateless random values of {dt}"))),
    }
}

/// TensorFlow's `StatelessRandomUniformIntOp::Fill`: scalar bounds with `minval < maxval`.
fn uniform_int(minval: &Tensor, maxval: &Tensor, shape: &[usize], gen: Philox) -> Result<Tensor> {
    let (lo, hi) = super::super::kernels::int_bounds(minval, maxval)?;
    match minval.dtype() {
        DType::I32 => uniform_int_i32(shape, gen, lo as i32, hi as i32),
        _ => uniform_int_i64(shape, gen, lo, hi),
    }
}

/// TensorFlow's `UniformFullIntDistribution`: the raw bits, one word per int32 and two per
/// int64.
fn full_int(dtype: DType, shape: &[usize], gen: Philox) -> Result<Tensor> {
    let n: usize = shape.iter().product();
    match dtype {
        DType::I32 => {
            let mut v = vec![0i32; n];
            fill_blocks(gen, &mut v, |b| b.map(|x| x as i32));
            Tensor::from_vec(shape, v)
        }
        DType::I64 => {
            let mut v = vec![0i64; n];
            fill_blocks(gen, &mut v, |b| {
                [
                    (b[0] as u64 | (b[1] as u64) << 32) as i64,
                    (b[2] as u64 | (b[3] as u64) << 32) as i64,
                ]
            });
            Tensor::from_vec(shape, v)
        }
        dt => Err(Error::internal(format!("full-range ints of {dt}"))),
    }
}

/// TensorFlow's `StatelessShape`: a seed of shape `[2]`, the output shape from the shape input.
fn stateless_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_seed_shape(ctx, 1)?;
    let s = shape_from_input(ctx, 0)?;
    ctx.set_output(0, s);
    Ok(())
}

fn uniform_int_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    for (i, name) in [(2, "minval"), (3, "maxval")] {
        if ctx.with_rank(i, 0).is_err() {
            return Err(Error::invalid_argument(format!(
                "{name} must be a scalar; got a tensor of shape {}",
                ctx.input_shape(i)
            )));
        }
    }
    stateless_shape_fn(ctx)
}

const INT_TYPES: &[DType] = &[DType::I32, DType::I64];

/// The inputs and attrs every stateless op shares: `shape` of type `T` (int32 by default) and
/// `seed` of type `Tseed` (int64 by default).
fn stateless_def(name: &str) -> OpDef {
    let def = OpDef::new(name)
        .input("shape", ArgType::Attr("T"))
        .input("seed", ArgType::Attr("Tseed"));
    let def = type_attr_default(def, "T", INT_TYPES, DType::I32);
    type_attr_default(def, "Tseed", INT_TYPES, DType::I64)
}

fn make_kernel(node: &Node) -> Result<Box<dyn Kernel>> {
    let kind = match node.op_type() {
        "StatelessRandomUniform" => Kind::Float(Dist::Uniform),
        "StatelessRandomNormal" => Kind::Float(Dist::Normal),
        "StatelessTruncatedNormal" => Kind::Float(Dist::Truncated),
        "StatelessRandomUniformInt" => Kind::Int,
        "StatelessRandomUniformFullInt" => Kind::FullInt,
        other => return Err(Error::internal(format!("not a stateless op: {other}"))),
    };
    Ok(Box::new(StatelessKernel {
        kind,
        dtype: node.attr("dtype")?,
    }))
}

pub(super) fn register() {
    for name in [
        "StatelessRandomUniform",
        "StatelessRandomNormal",
        "StatelessTruncatedNormal",
    ] {
        register_op(type_attr_default(
            stateless_def(name)
                .output("output", ArgType::Attr("dtype"))
                .shape_fn(stateless_shape_fn),
            "dtype",
            super::super::kernels::RANDOM_FLOATS,
            DType::F32,
        ));
        register_kernel(name, make_kernel);
    }
    register_op(
        stateless_def("StatelessRandomUniformInt")
            .input("minval", ArgType::Attr("dtype"))
            .input("maxval", ArgType::Attr("dtype"))
            .output("output", ArgType::Attr("dtype"))
            .type_attr("dtype", INT_TYPES)
            .shape_fn(uniform_int_shape_fn),
    );
    register_kernel("StatelessRandomUniformInt", make_kernel);
    // TensorFlow's default dtype is uint64, which weir does not have: the builder always sets it.
    register_op(
        stateless_def("StatelessRandomUniformFullInt")
            .output("output", ArgType::Attr("dtype"))
            .type_attr("dtype", INT_TYPES)
            .shape_fn(stateless_shape_fn),
    );
    register_kernel("StatelessRandomUniformFullInt", make_kernel);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_bounds_are_checked_as_tensorflow_checks_them() {
        let gen = Philox::new(1, 2);
        let e = uniform_int(&Tensor::from(vec![1i32]), &Tensor::from(3i32), &[2], gen);
        assert_eq!(
            e.unwrap_err().message(),
            "minval must be 0-D, got shape [1]"
        );
        let e = uniform_int(&Tensor::from(3i64), &Tensor::from(3i64), &[2], gen);
        assert_eq!(e.unwrap_err().message(), "Need minval < maxval, got 3 >= 3");
        let t = uniform_int(&Tensor::from(-2i64), &Tensor::from(2i64), &[3], gen).unwrap();
        assert!(t
            .to_vec::<i64>()
            .unwrap()
            .iter()
            .all(|v| (-2..2).contains(v)));
    }

    #[test]
    fn full_range_ints_are_the_raw_words() {
        let gen = Philox::new(1, 2);
        let w = {
            let mut g = gen;
            g.next_block()
        };
        let t = full_int(DType::I32, &[3], gen).unwrap();
        assert_eq!(
            t.to_vec::<i32>().unwrap(),
            [w[0] as i32, w[1] as i32, w[2] as i32]
        );
        let t = full_int(DType::I64, &[1], gen).unwrap();
        assert_eq!(
            t.to_vec::<i64>().unwrap(),
            [(w[0] as u64 | (w[1] as u64) << 32) as i64]
        );
        assert_eq!(empty(DType::F64, &[0, 3]).unwrap().shape(), &[0, 3]);
    }
}
