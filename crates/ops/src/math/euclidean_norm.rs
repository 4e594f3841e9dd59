//! `EuclideanNorm`: `sqrt(sum(x * conj(x)))` over the axes given as an int32/int64 input
//! (TensorFlow's `tf.math.reduce_euclidean_norm`); the builder is [`Reduce::euclidean_norm`].
//!
//! A reduction that folds nothing (no axes, or only size-1 axes) still gives `|x|`; integers
//! square, sum and wrap in their own type and the root truncates, as Eigen's `sqrt` of an
//! integer does.
//!
//! [`Reduce::euclidean_norm`]: super::Reduce::euclidean_norm

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    bf16, f16, ArgType, AttrKind, AttrValue, Complex, DType, Error, Kernel, Node, OpContext, OpDef,
    Result, Tensor,
};

use super::arith_ext::ComplexArith;
use super::binary::Arith;
use super::reduce::reduction_flags;
use super::reduce_eigen::{reduce_complex, reduce_f16, tree, Arithmetic, EigenReducer};
use super::reduce_engine::{Fold, Plan};
use crate::array::shape_util::to_i64s;

/// The square root TensorFlow applies to a sum of squares of type `Self`.
trait NormRoot: Arith {
    fn root(self) -> Self;
}

macro_rules! int_roots {
    ($($t:ty),*) => {$(
        impl NormRoot for $t {
            // Eigen's integer sqrt goes through double and truncates back.
            fn root(self) -> Self { (self as f64).sqrt() as $t }
        }
    )*};
}
int_roots!(i8, i16, i32, i64, u8, u16, u32, u64);

impl NormRoot for f32 {
    fn root(self) -> Self {
        self.sqrt()
    }
}

impl NormRoot for f64 {
    fn root(self) -> Self {
        self.sqrt()
    }
}

fn real<T: NormRoot>(x: &Tensor, plan: &Plan) -> Result<Vec<T>> {
    let sq: Vec<T> = x.as_slice::<T>()?.iter().map(|&v| T::mul(v, v)).collect();
    let fold = Fold {
        identity: T::default(),
        f: T::add,
    };
    Ok(plan.run(&sq, &fold).into_iter().map(T::root).collect())
}

/// float16 squares and sums in half (Eigen's order), then roots in half.
fn half(x: &[f16], plan: &Plan) -> Vec<f16> {
    let sq: Vec<f16> = x.iter().map(|&v| f16::mul(v, v)).collect();
    reduce_f16(Arithmetic::Sum, &sq, plan)
        .into_iter()
        .map(|s| f16::from_f32(s.to_f32().sqrt()))
        .collect()
}

/// bfloat16 works in float throughout (TensorFlow's specialization) and rounds once.
fn brain(x: &[bf16], plan: &Plan) -> Vec<bf16> {
    let sq: Vec<f32> = x
        .iter()
        .map(|v| {
            let w = v.to_f32();
            w * w
        })
        .collect();
    let r = EigenReducer {
        identity: 0f32,
        f: |a: f32, b: f32| a + b,
        predux: |lanes: &[f32]| tree(lanes, |a, b| a + b),
        packet: 8,
        leaf: 1024,
    };
    r.run(&sq, plan)
        .into_iter()
        .map(|s| bf16::from_f32(s.sqrt()))
        .collect()
}

fn complex<T: ComplexArith>(x: &[T], plan: &Plan, root: impl Fn(T) -> T) -> Vec<T> {
    let sq: Vec<T> = x.iter().map(|&v| T::mul(v, T::conj(v))).collect();
    reduce_complex(Arithmetic::Sum, &sq, plan)
        .into_iter()
        .map(root)
        .collect()
}

struct EuclideanNormKernel {
    keep_dims: bool,
}

impl Kernel for EuclideanNormKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        // TensorFlow reads the axes flat, whatever their rank.
        let axes = to_i64s(ctx.input(1))?;
        let x = ctx.take_input(0);
        let flags = reduction_flags(&axes, x.rank())?;
        let out_shape: Vec<usize> = x
            .shape()
            .iter()
            .zip(&flags)
            .filter_map(|(&d, &r)| match (r, self.keep_dims) {
                (false, _) => Some(d),
                (true, true) => Some(1),
                (true, false) => None,
            })
            .collect();
        let plan = Plan::new(x.shape(), &flags);
        // Unlike Sum, a reduction of nothing still squares and roots (TensorFlow's
        // `IsScalarIdentity` is false for this reducer), so it gives |x|.
        let dt = x.dtype();
        let out = match dt {
            DType::F16 => Tensor::from_vec(&out_shape, half(x.as_slice()?, &plan))?,
            DType::BF16 => Tensor::from_vec(&out_shape, brain(x.as_slice()?, &plan))?,
            DType::C64 => Tensor::from_vec(
                &out_shape,
                complex::<Complex<f32>>(x.as_slice()?, &plan, |s| s.sqrt()),
            )?,
            DType::C128 => Tensor::from_vec(
                &out_shape,
                complex::<Complex<f64>>(x.as_slice()?, &plan, |s| s.sqrt()),
            )?,
            _ => weir_graph::match_real_dtype!(dt,
                T => Tensor::from_vec(&out_shape, real::<T>(&x, &plan)?)?,
                _ => return Err(Error::invalid_argument(format!(
                    "Cannot reduce {dt} tensors")))),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(EuclideanNormKernel {
        keep_dims: node.attr("keep_dims")?,
    }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("EuclideanNorm")
            .input("input", ArgType::Attr("T"))
            .input("reduction_indices", ArgType::Attr("Tidx"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", super::arith_ext::ALL_NUMBERS)
            .type_attr("Tidx", &[DType::I32, DType::I64])
            .attr("keep_dims", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .shape_fn(super::reduce::shape_fn),
    );
    register_kernel("EuclideanNorm", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_roots_truncate() {
        assert_eq!(
            real::<i32>(&Tensor::from(vec![3i32, 4, 1]), &Plan::new(&[3], &[true])).unwrap(),
            vec![5]
        );
        assert_eq!(10i32.root(), 3);
        assert_eq!(0u8.root(), 0);
    }
}
