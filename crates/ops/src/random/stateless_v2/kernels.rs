//! The kernels and op defs of the V2 stateless ops: the key/counter ops, the four distributions
//! (`StatelessRandomUniformV2`, `StatelessRandomNormalV2`, `StatelessTruncatedNormalV2`,
//! `StatelessRandomUniformIntV2`, `StatelessRandomUniformFullIntV2`) and `StatelessShuffle`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Result, Shape, Tensor,
};

use super::super::kernels::{fill_dist, int_bounds, uniform_int_i32, uniform_int_i64, Dist};
use super::super::philox::{fill_blocks, Philox, Single};
use super::super::shuffle::{gather_rows, permutation};
use super::super::stateless::philox_from_seed;
use super::super::{shape_from_input, shape_from_tensor, type_attr_default};
use super::{check_vector_len, key_counter_of, KeyCounterAlg};

/// TensorFlow's `RNG_ALG_PHILOX`.
pub(crate) const ALG_PHILOX: i32 = 1;
/// TensorFlow's `RNG_ALG_THREEFRY`.
pub(crate) const ALG_THREEFRY: i32 = 2;
/// TensorFlow's `RNG_ALG_AUTO_SELECT`.
pub(crate) const ALG_AUTO_SELECT: i32 = 3;

/// `StatelessRandomGetKeyCounter` and `StatelessRandomGetKeyCounterAlg`: the seed scrambled
/// as the V1 stateless ops scramble it, written out as a key and a counter.
struct GetKeyCounterKernel {
    with_alg: bool,
}

impl Kernel for GetKeyCounterKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let gen = philox_from_seed(ctx.input(0))?;
        let (key, counter) = key_counter_of(&gen);
        ctx.set_output(0, Tensor::from(vec![key]));
        ctx.set_output(1, Tensor::from(counter.to_vec()));
        if self.with_alg {
            ctx.set_output(2, Tensor::scalar(ALG_PHILOX));
        }
        Ok(())
    }
}

/// `StatelessRandomGetAlg`: the algorithm auto-select picks on this device (Philox on CPU).
struct GetAlgKernel;

impl Kernel for GetAlgKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        ctx.set_output(0, Tensor::scalar(ALG_PHILOX));
        Ok(())
    }
}

/// What a V2 kernel draws.
#[derive(Clone, Copy)]
enum Kind {
    Float(Dist),
    /// Ints in `[minval, maxval)` (inputs 4 and 5).
    Int,
    FullInt,
}

struct StatelessV2Kernel {
    kind: Kind,
    dtype: DType,
}

impl Kernel for StatelessV2Kernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let kca = KeyCounterAlg::from_inputs(ctx.input(1), ctx.input(2), ctx.input(3), 3)?;
        let shape = shape_from_tensor(ctx.input(0))?;
        let n: usize = shape.iter().product();
        // TensorFlow returns before drawing for an empty output: neither the algorithm nor the
        // int bounds are checked then.
        let out = if n == 0 {
            empty(self.dtype, &shape)?
        } else {
            match self.kind {
                Kind::Float(dist) => fill_dist(dist, self.dtype, &shape, kca.philox()?)?,
                Kind::Int => {
                    let (minval, maxval) = (ctx.input(4), ctx.input(5));
                    let (lo, hi) = int_bounds(minval, maxval)?;
                    let gen = kca.philox()?;
                    match self.dtype {
                        DType::I32 => uniform_int_i32(&shape, gen, lo as i32, hi as i32)?,
                        _ => uniform_int_i64(&shape, gen, lo, hi)?,
                    }
                }
                Kind::FullInt => full_int(self.dtype, &shape, kca.philox()?)?,
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn empty(dtype: DType, shape: &[usize]) -> Result<Tensor> {
    weir_graph::match_data_dtype!(dtype, T => Tensor::from_vec(shape, Vec::<T>::new()),
        _ => Err(Error::internal(format!("random values of {dtype}"))))
}

/// TensorFlow's `UniformFullIntDistribution`: the raw bits, one word per 32-bit int and two
/// (low word first) per 64-bit int.
pub(crate) fn full_int(dtype: DType, shape: &[usize], gen: Philox) -> Result<Tensor> {
    fn words64(b: [u32; 4]) -> [u64; 2] {
        [
            b[0] as u64 | (b[1] as u64) << 32,
            b[2] as u64 | (b[3] as u64) << 32,
        ]
    }
    let n: usize = shape.iter().product();
    match dtype {
        DType::U32 => {
            let mut v = vec![0u32; n];
            fill_blocks(gen, &mut v, |b| b);
            Tensor::from_vec(shape, v)
        }
        DType::I32 => {
            let mut v = vec![0i32; n];
            fill_blocks(gen, &mut v, |b| b.map(|x| x as i32));
            Tensor::from_vec(shape, v)
        }
        DType::U64 => {
            let mut v = vec![0u64; n];
            fill_blocks(gen, &mut v, words64);
            Tensor::from_vec(shape, v)
        }
        DType::I64 => {
            let mut v = vec![0i64; n];
            fill_blocks(gen, &mut v, |b| words64(b).map(|x| x as i64));
            Tensor::from_vec(shape, v)
        }
        dt => Err(Error::internal(format!("full-range ints of {dt}"))),
    }
}

/// `StatelessShuffle`: TensorFlow's `RandomShuffle` drawing from the given key and counter.
struct ShuffleKernel;

impl Kernel for ShuffleKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let kca = KeyCounterAlg::from_inputs(ctx.input(1), ctx.input(2), ctx.input(3), 3)?;
        let mut gen = kca.philox()?;
        let input = ctx.input(0);
        if input.num_elements() <= 1 || input.shape()[0] <= 1 {
            let t = ctx.take_input(0);
            ctx.set_output(0, t);
            return Ok(());
        }
        let perm = permutation(input.shape()[0], &mut Single::new(&mut gen));
        let dt = input.dtype();
        let out = weir_graph::match_data_dtype!(dt, T => gather_rows::<T>(input, &perm)?,
            _ => return Err(Error::invalid_argument(format!("StatelessShuffle does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

/// The `No OpKernel` error of a dtype TensorFlow's op def allows but no CPU kernel serves.
fn no_kernel(node: &Node, attrs: &str) -> Error {
    Error::not_found(format!(
        "No OpKernel was registered to support Op '{}' used by {{{{node {}}}}} with these \
         attrs: [{attrs}]",
        node.op_type(),
        node.name()
    ))
}

fn make_v2(node: &Node) -> Result<Box<dyn Kernel>> {
    let dtype: DType = node.attr("dtype")?;
    let kind = match node.op_type() {
        "StatelessRandomUniformV2" => Kind::Float(Dist::Uniform),
        "StatelessRandomNormalV2" => Kind::Float(Dist::Normal),
        "StatelessTruncatedNormalV2" => Kind::Float(Dist::Truncated),
        "StatelessRandomUniformIntV2" => Kind::Int,
        "StatelessRandomUniformFullIntV2" => Kind::FullInt,
        other => return Err(Error::internal(format!("not a V2 stateless op: {other}"))),
    };
    if matches!(kind, Kind::Int) && !matches!(dtype, DType::I32 | DType::I64) {
        let tshape: DType = node.attr("Tshape")?;
        return Err(no_kernel(
            node,
            &format!(
                "Tshape={}, dtype={}",
                tshape.proto_name(),
                dtype.proto_name()
            ),
        ));
    }
    Ok(Box::new(StatelessV2Kernel { kind, dtype }))
}

/// TensorFlow's `StatelessShapeV2`-style checks: a key of one word, a vector counter, a scalar
/// algorithm, and the output shape from the shape input.
fn v2_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_vector_len(ctx, 1, 1)?;
    ctx.with_rank(2, 1)?;
    ctx.with_rank(3, 0)?;
    let s = shape_from_input(ctx, 0)?;
    ctx.set_output(0, s);
    Ok(())
}

fn uniform_int_v2_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    v2_shape_fn(ctx)?;
    for (i, name) in [(4, "minval"), (5, "maxval")] {
        if ctx.with_rank(i, 0).is_err() {
            return Err(Error::invalid_argument(format!(
                "{name} must be a scalar; got a tensor of shape {}",
                ctx.input_shape(i)
            )));
        }
    }
    Ok(())
}

fn key_counter_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_vector_len(ctx, 0, 2)?;
    ctx.set_output(0, Shape::known(&[1]));
    ctx.set_output(1, Shape::known(&[2]));
    if ctx.num_outputs() == 3 {
        ctx.set_output(2, Shape::scalar());
    }
    Ok(())
}

const INT_TYPES: &[DType] = &[DType::I32, DType::I64];
const ALL_INTS: &[DType] = &[DType::I32, DType::I64, DType::U32, DType::U64];

/// `shape`, `key`, `counter`, `alg`: the inputs every V2 distribution op starts with.
fn v2_def(name: &str) -> OpDef {
    let def = OpDef::new(name)
        .input("shape", ArgType::Attr("Tshape"))
        .input("key", ArgType::Fixed(DType::U64))
        .input("counter", ArgType::Fixed(DType::U64))
        .input("alg", ArgType::Fixed(DType::I32));
    type_attr_default(def, "Tshape", INT_TYPES, DType::I32)
}

pub(super) fn register() {
    let seed_def = |name: &str| {
        type_attr_default(
            OpDef::new(name)
                .input("seed", ArgType::Attr("Tseed"))
                .output("key", ArgType::Fixed(DType::U64))
                .output("counter", ArgType::Fixed(DType::U64)),
            "Tseed",
            INT_TYPES,
            DType::I64,
        )
    };
    register_op(seed_def("StatelessRandomGetKeyCounter").shape_fn(key_counter_shape_fn));
    register_kernel("StatelessRandomGetKeyCounter", |_| {
        Ok(Box::new(GetKeyCounterKernel { with_alg: false }))
    });
    register_op(
        seed_def("StatelessRandomGetKeyCounterAlg")
            .output("alg", ArgType::Fixed(DType::I32))
            .shape_fn(key_counter_shape_fn),
    );
    register_kernel("StatelessRandomGetKeyCounterAlg", |_| {
        Ok(Box::new(GetKeyCounterKernel { with_alg: true }))
    });
    // Stateful in TensorFlow, so that it is not constant-folded on a host of another kind.
    register_op(
        OpDef::new("StatelessRandomGetAlg")
            .output("alg", ArgType::Fixed(DType::I32))
            .stateful()
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::scalar());
                Ok(())
            }),
    );
    register_kernel("StatelessRandomGetAlg", |_| Ok(Box::new(GetAlgKernel)));

    for name in [
        "StatelessRandomUniformV2",
        "StatelessRandomNormalV2",
        "StatelessTruncatedNormalV2",
    ] {
        register_op(type_attr_default(
            v2_def(name)
                .output("output", ArgType::Attr("dtype"))
                .shape_fn(v2_shape_fn),
            "dtype",
            super::super::kernels::RANDOM_FLOATS,
            DType::F32,
        ));
        register_kernel(name, make_v2);
    }
    register_op(
        v2_def("StatelessRandomUniformIntV2")
            .input("minval", ArgType::Attr("dtype"))
            .input("maxval", ArgType::Attr("dtype"))
            .output("output", ArgType::Attr("dtype"))
            .type_attr("dtype", ALL_INTS)
            .shape_fn(uniform_int_v2_shape_fn),
    );
    register_kernel("StatelessRandomUniformIntV2", make_v2);
    register_op(type_attr_default(
        v2_def("StatelessRandomUniformFullIntV2")
            .output("output", ArgType::Attr("dtype"))
            .shape_fn(v2_shape_fn),
        "dtype",
        ALL_INTS,
        DType::U64,
    ));
    register_kernel("StatelessRandomUniformFullIntV2", make_v2);

    register_op(
        OpDef::new("StatelessShuffle")
            .input("value", ArgType::Attr("T"))
            .input("key", ArgType::Fixed(DType::U64))
            .input("counter", ArgType::Fixed(DType::U64))
            .input("alg", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(|ctx| {
                let s = ctx.input_shape(0).clone();
                ctx.set_output(0, s);
                Ok(())
            }),
    );
    register_kernel("StatelessShuffle", |_| Ok(Box::new(ShuffleKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_range_ints_are_the_raw_words_low_word_first() {
        let gen = Philox::new(3, 4);
        let w = {
            let mut g = gen;
            g.next_block()
        };
        let t = full_int(DType::U32, &[2], gen).unwrap();
        assert_eq!(t.to_vec::<u32>().unwrap(), [w[0], w[1]]);
        let t = full_int(DType::U64, &[1], gen).unwrap();
        assert_eq!(
            t.to_vec::<u64>().unwrap(),
            [w[0] as u64 | (w[1] as u64) << 32]
        );
        assert_eq!(empty(DType::U64, &[0, 2]).unwrap().shape(), &[0, 2]);
    }
}
