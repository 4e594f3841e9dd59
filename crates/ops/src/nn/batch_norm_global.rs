//! `BatchNormWithGlobalNormalization` and its backward op
//! `BatchNormWithGlobalNormalizationGrad`: the fused batch normalization of TensorFlow's
//! first releases, deprecated since GraphDef version 9 but still in the Inception-era graphs
//! (the 2015 Inception v3 GraphDef) that weir imports. TensorFlow 2.21's Python no longer
//! builds them (`tf.compat.v1.nn.batch_norm_with_global_normalization` composes
//! `tf.nn.batch_normalization` instead, as [`batch_norm_with_global_normalization`] does);
//! [`BatchNormWithGlobalNormalization`] builds the ops themselves.
//!
//! The kernels (half, float, double, as TensorFlow's CPU kernels) compute in the input type in
//! the order TensorFlow's Eigen expressions do, which depends on Eigen's packet width for the
//! type in TensorFlow's x86 build (AVX: 8 floats, 4 doubles, 8 halves): the channels of the
//! first whole packets take Eigen's packet paths, the rest its scalar ones. That decides how
//! `rsqrt` rounds for half (once from float on the packet path, twice in half on the scalar
//! one) and how the backward op's column sums add (four interleaved partial sums over 16 rows
//! or more on the packet path, one running sum otherwise). Results are bit for bit
//! TensorFlow's except float's packet-path `rsqrt`, which TensorFlow estimates in hardware
//! and refines by one Newton step (within 4 ulp of `1 / sqrt`, which weir computes).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor,
};

use super::NnFloat;

/// `tf.compat.v1.nn.batch_norm_with_global_normalization(t, m, v, beta, gamma,
/// variance_epsilon, scale_after_normalization)` as TensorFlow 2.21's Python builds it:
/// [`batch_normalization`](super::batch_normalization)`(t, m, v, beta, gamma if
/// scale_after_normalization else None, variance_epsilon)`, in the name scope `batchnorm`.
pub fn batch_norm_with_global_normalization(
    t: impl Into<Output>,
    m: impl Into<Output>,
    v: impl Into<Output>,
    beta: impl Into<Output>,
    gamma: impl Into<Output>,
    variance_epsilon: f64,
    scale_after_normalization: bool,
) -> Result<Output> {
    let gamma = gamma.into();
    super::batch_normalization(
        t,
        m,
        v,
        Some(beta.into()),
        scale_after_normalization.then_some(gamma),
        variance_epsilon,
    )
}

/// The `BatchNormWithGlobalNormalization` op (`tf.raw_ops.BatchNormWithGlobalNormalization`,
/// `gen_nn_ops.batch_norm_with_global_normalization` of TensorFlow 0.x): `(t - m) *
/// rsqrt(v + variance_epsilon) * gamma + beta` over the last dimension of the 4-D `t`, `gamma`
/// left out unless `scale_after_normalization`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::BatchNormWithGlobalNormalization};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let t = constant(&g, Tensor::from_vec(&[1, 1, 2, 1], vec![1.0f32, 5.0])?)?;
/// let c = |x: f32| constant(&g, Tensor::from(vec![x]));
/// let y = BatchNormWithGlobalNormalization::new(0.0, true)
///     .build(&t, c(3.0)?, c(4.0)?, c(10.0)?, c(2.0)?)?;
/// // (t - 3) / sqrt(4) * 2 + 10.
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<f32>()?, [8.0, 12.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BatchNormWithGlobalNormalization {
    variance_epsilon: f32,
    scale_after_normalization: bool,
    name: Option<String>,
}

impl BatchNormWithGlobalNormalization {
    /// The op's two required attrs.
    pub fn new(variance_epsilon: f32, scale_after_normalization: bool) -> Self {
        BatchNormWithGlobalNormalization {
            variance_epsilon,
            scale_after_normalization,
            name: None,
        }
    }

    /// The node's name (default: the op type).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// The normalized `t`; `m`, `v`, `beta` and `gamma` are vectors of `t`'s depth.
    pub fn build(
        &self,
        t: impl Into<Output>,
        m: impl Into<Output>,
        v: impl Into<Output>,
        beta: impl Into<Output>,
        gamma: impl Into<Output>,
    ) -> Result<Output> {
        let ins = [t.into(), m.into(), v.into(), beta.into(), gamma.into()];
        self.node("BatchNormWithGlobalNormalization", &ins)?
            .output(0)
    }

    /// `BatchNormWithGlobalNormalizationGrad(t, m, v, gamma, backprop)`: the gradients `[dx,
    /// dm, dv, db, dg]` of the op's inputs for the gradient `backprop` of its output (`dg` is
    /// zero unless `scale_after_normalization`).
    pub fn grad(
        &self,
        t: impl Into<Output>,
        m: impl Into<Output>,
        v: impl Into<Output>,
        gamma: impl Into<Output>,
        backprop: impl Into<Output>,
    ) -> Result<Vec<Output>> {
        let ins = [t.into(), m.into(), v.into(), gamma.into(), backprop.into()];
        let op = self.node("BatchNormWithGlobalNormalizationGrad", &ins)?;
        (0..5).map(|k| op.output(k)).collect()
    }

    fn node(&self, op_type: &str, ins: &[Output]) -> Result<weir_graph::Operation> {
        let refs: Vec<&Output> = ins.iter().collect();
        let g = crate::util::same_graph(&refs)?.clone();
        crate::new_op(&g, op_type)
            .maybe_name(self.name.as_deref())
            .inputs(ins.iter().cloned())
            .attr("variance_epsilon", self.variance_epsilon)
            .attr("scale_after_normalization", self.scale_after_normalization)
            .build()
    }
}

/// A type TensorFlow registers these kernels for, with Eigen's packet width and `rsqrt`s.
trait BnFloat: NnFloat {
    /// Eigen's packet width for the type in TensorFlow 2.21's x86 (AVX) build.
    const PACKET: usize;
    /// `rsqrt` on Eigen's scalar path.
    fn scalar_rsqrt(self) -> Self {
        Self::ONE / self.sqrt()
    }
    /// `rsqrt` on Eigen's packet path.
    fn packet_rsqrt(self) -> Self {
        self.scalar_rsqrt()
    }
}

impl BnFloat for f32 {
    const PACKET: usize = 8;
}
impl BnFloat for f64 {
    const PACKET: usize = 4;
}
impl BnFloat for weir_graph::f16 {
    const PACKET: usize = 8;
    // Packet8h widens to float, takes float's rsqrt and rounds once.
    fn packet_rsqrt(self) -> Self {
        NnFloat::rsqrt(self)
    }
}

/// How many of `depth` channels Eigen evaluates in whole packets.
fn packet_channels<T: BnFloat>(depth: usize) -> usize {
    depth / T::PACKET * T::PACKET
}

/// `rsqrt(v + eps)` per channel, as Eigen evaluates the vector expression.
fn rsqrt_vec<T: BnFloat>(v: &[T], eps: T) -> Vec<T> {
    let packed = packet_channels::<T>(v.len());
    v.iter()
        .enumerate()
        .map(|(k, &x)| {
            let a = x + eps;
            if k < packed {
                a.packet_rsqrt()
            } else {
                a.scalar_rsqrt()
            }
        })
        .collect()
}

/// The sum over `rows` of `elem(row, channel)` per channel, in the order of Eigen's reduction
/// over the first dimension of a `[rows, depth]` tensor.
fn column_sums<T: BnFloat>(rows: usize, depth: usize, elem: impl Fn(usize, usize) -> T) -> Vec<T> {
    let packed = packet_channels::<T>(depth);
    (0..depth)
        .map(|k| {
            if k < packed && rows >= 16 {
                let mut acc = [T::ZERO; 4];
                let whole = rows / 4 * 4;
                for r in (0..whole).step_by(4) {
                    for (q, a) in acc.iter_mut().enumerate() {
                        *a = *a + elem(r + q, k);
                    }
                }
                let s = acc[1..].iter().fold(acc[0], |s, &a| s + a);
                (whole..rows).fold(s, |s, r| s + elem(r, k))
            } else {
                (0..rows).fold(T::ZERO, |s, r| s + elem(r, k))
            }
        })
        .collect()
}

#[derive(Clone, Copy)]
struct Attrs {
    epsilon: f32,
    scale: bool,
}

fn check_rank(t: &Tensor, rank: usize, what: &str) -> Result<()> {
    if t.rank() != rank {
        return Err(Error::invalid_argument(format!(
            "{what} must be {rank}-dimensional{}",
            format_dims(t.shape())
        )));
    }
    Ok(())
}

/// The depth of the 4-D `t`, which weir requires the vectors to have (TensorFlow's kernels
/// read past a shorter vector).
fn depth_of(t: &Tensor, vectors: &[(&Tensor, &str)]) -> Result<usize> {
    let depth = t.shape()[3];
    for (v, what) in vectors {
        if v.shape()[0] != depth {
            return Err(Error::invalid_argument(format!(
                "{what} must have the input's depth {depth}, got shape {}",
                format_dims(v.shape())
            )));
        }
    }
    Ok(depth)
}

fn forward<T: BnFloat>(ins: &[Tensor], a: Attrs) -> Result<Tensor> {
    let [t, m, v, beta, gamma] = [0, 1, 2, 3, 4].map(|k| ins[k].as_slice::<T>());
    let (t, m, v, beta, gamma) = (t?, m?, v?, beta?, gamma?);
    let eps = T::from(a.epsilon).unwrap_or_else(T::nan);
    let mut scale = rsqrt_vec(v, eps);
    if a.scale {
        scale.iter_mut().zip(gamma).for_each(|(s, &g)| *s = *s * g);
    }
    let depth = m.len().max(1);
    let out = t
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let k = i % depth;
            (x - m[k]) * scale[k] + beta[k]
        })
        .collect();
    Tensor::from_vec(ins[0].shape(), out)
}

fn backward<T: BnFloat>(ins: &[Tensor], a: Attrs) -> Result<Vec<Tensor>> {
    let [t, m, v, gamma, bp] = [0, 1, 2, 3, 4].map(|k| ins[k].as_slice::<T>());
    let (t, m, v, gamma, bp) = (t?, m?, v?, gamma?, bp?);
    let eps = T::from(a.epsilon).unwrap_or_else(T::nan);
    let depth = m.len();
    let rows = t.len().checked_div(depth).unwrap_or(0);
    let at = |r: usize, k: usize| r * depth + k;
    let db = column_sums(rows, depth, |r, k| bp[at(r, k)]);
    let s1 = rsqrt_vec(v, eps);
    let s2 = column_sums(rows, depth, |r, k| bp[at(r, k)] * (t[at(r, k)] - m[k]));
    let scale: Vec<T> = if a.scale {
        s1.iter().zip(gamma).map(|(&s, &g)| s * g).collect()
    } else {
        s1.clone()
    };
    let dx: Vec<T> = bp
        .iter()
        .enumerate()
        .map(|(i, &b)| b * scale[i % depth.max(1)])
        .collect();
    let dm: Vec<T> = db.iter().zip(&scale).map(|(&d, &s)| -d * s).collect();
    let dg: Vec<T> = if a.scale {
        s2.iter().zip(&s1).map(|(&p, &s)| p * s).collect()
    } else {
        vec![T::ZERO; depth]
    };
    let half = T::from(-0.5f32).unwrap_or_else(T::nan);
    let dv: Vec<T> = (0..depth)
        .map(|k| {
            let s = s1[k] * half / (v[k] + eps);
            s2[k] * if a.scale { s * gamma[k] } else { s }
        })
        .collect();
    let vec_shape = [depth];
    Ok(vec![
        Tensor::from_vec(ins[0].shape(), dx)?,
        Tensor::from_vec(&vec_shape, dm)?,
        Tensor::from_vec(&vec_shape, dv)?,
        Tensor::from_vec(&vec_shape, db)?,
        Tensor::from_vec(&vec_shape, dg)?,
    ])
}

struct BatchNormKernel(Attrs);

impl Kernel for BatchNormKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let ins = ctx.inputs();
        check_rank(&ins[0], 4, "input")?;
        for (k, what) in [(1, "mean"), (2, "var"), (3, "beta"), (4, "gamma")] {
            check_rank(&ins[k], 1, what)?;
        }
        depth_of(
            &ins[0],
            &[
                (&ins[1], "mean"),
                (&ins[2], "var"),
                (&ins[3], "beta"),
                (&ins[4], "gamma"),
            ],
        )?;
        let y = match ins[0].dtype() {
            DType::F16 => forward::<weir_graph::f16>(ins, self.0)?,
            DType::F32 => forward::<f32>(ins, self.0)?,
            _ => forward::<f64>(ins, self.0)?,
        };
        ctx.set_output(0, y);
        Ok(())
    }
}

struct BatchNormGradKernel(Attrs);

impl Kernel for BatchNormGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let ins = ctx.inputs();
        check_rank(&ins[0], 4, "input")?;
        for (k, what) in [(1, "mean"), (2, "var"), (3, "gamma")] {
            check_rank(&ins[k], 1, what)?;
        }
        check_rank(&ins[4], 4, "out_backprop")?;
        depth_of(
            &ins[0],
            &[(&ins[1], "mean"), (&ins[2], "var"), (&ins[3], "gamma")],
        )?;
        if ins[4].shape() != ins[0].shape() {
            return Err(Error::invalid_argument(format!(
                "out_backprop must have the input's shape {}, got {}",
                format_dims(ins[0].shape()),
                format_dims(ins[4].shape())
            )));
        }
        let outs = match ins[0].dtype() {
            DType::F16 => backward::<weir_graph::f16>(ins, self.0)?,
            DType::F32 => backward::<f32>(ins, self.0)?,
            _ => backward::<f64>(ins, self.0)?,
        };
        for (k, o) in outs.into_iter().enumerate() {
            ctx.set_output(k, o);
        }
        Ok(())
    }
}

/// The types TensorFlow 2.21 registers CPU kernels for, in the order its message lists them.
const KERNEL_TYPES: &[DType] = &[DType::F64, DType::F32, DType::F16];

/// The attrs of `node`, or TensorFlow's error for a number type without a CPU kernel.
fn kernel_attrs(node: &Node) -> Result<Attrs> {
    let a = Attrs {
        epsilon: node.attr("variance_epsilon")?,
        scale: node.attr("scale_after_normalization")?,
    };
    let dt: DType = node.attr("T")?;
    if KERNEL_TYPES.contains(&dt) {
        return Ok(a);
    }
    let list: Vec<String> = KERNEL_TYPES
        .iter()
        .map(|k| format!("  device='CPU'; T in [{}]", k.proto_name()))
        .collect();
    Err(Error::invalid_argument(format!(
        "No OpKernel was registered to support Op '{}' used by {{{{node {}}}}} with these attrs: \
         [T={}, scale_after_normalization={}, variance_epsilon={}]\nRegistered devices: \
         [CPU]\nRegistered kernels:\n{}\n",
        node.op_type(),
        node.name(),
        dt.proto_name(),
        a.scale,
        a.epsilon,
        list.join("\n")
    )))
}

/// `c->Merge` of two dimensions, with TensorFlow's message.
fn merge_dim(a: Option<usize>, b: Option<usize>) -> Result<Option<usize>> {
    match (a, b) {
        (Some(x), Some(y)) if x != y => Err(Error::invalid_argument(format!(
            "Dimensions must be equal, but are {x} and {y}"
        ))),
        _ => Ok(a.or(b)),
    }
}

/// The shape of the 4-D input `t` with its depth merged with that of the vectors `vectors`.
fn merged_input(ctx: &InferenceContext<'_>, t: Shape, vectors: &[usize]) -> Result<Shape> {
    let mut last = t.dim(3);
    for &i in vectors {
        let vec = ctx.with_rank(i, 1)?;
        last = merge_dim(last, vec.dim(0))?;
    }
    let mut dims = t.dims().map(<[_]>::to_vec).unwrap_or_else(|| vec![None; 4]);
    dims[3] = last;
    Ok(Shape::new(dims))
}

fn forward_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let t = ctx.with_rank(0, 4)?;
    let out = merged_input(ctx, t, &[1, 2, 3, 4])?;
    ctx.set_output(0, out);
    Ok(())
}

fn grad_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let t = ctx
        .with_rank(0, 4)?
        .merge_with(ctx.input_shape(4))
        .map_err(|e| Error::invalid_argument(e.message().to_string()))?;
    let dx = merged_input(ctx, t, &[1, 2, 3])?;
    let depth = Shape::new(vec![dx.dim(3)]);
    ctx.set_output(0, dx);
    for k in 1..5 {
        ctx.set_output(k, depth.clone());
    }
    Ok(())
}

fn op_def(name: &str, inputs: &[&'static str], outputs: &[&'static str]) -> OpDef {
    let def = inputs
        .iter()
        .fold(OpDef::new(name), |d, &i| d.input(i, ArgType::Attr("T")));
    outputs
        .iter()
        .fold(def, |d, &o| d.output(o, ArgType::Attr("T")))
        .type_attr("T", DType::NUMBER)
        .attr("variance_epsilon", AttrKind::Float, None)
        .attr("scale_after_normalization", AttrKind::Bool, None)
}

pub(super) fn register() {
    register_op(
        op_def(
            "BatchNormWithGlobalNormalization",
            &["t", "m", "v", "beta", "gamma"],
            &["result"],
        )
        .shape_fn(forward_shape),
    );
    register_op(
        op_def(
            "BatchNormWithGlobalNormalizationGrad",
            &["t", "m", "v", "gamma", "backprop"],
            &["dx", "dm", "dv", "db", "dg"],
        )
        .shape_fn(grad_shape),
    );
    register_kernel("BatchNormWithGlobalNormalization", |node| {
        Ok(Box::new(BatchNormKernel(kernel_attrs(node)?)))
    });
    register_kernel("BatchNormWithGlobalNormalizationGrad", |node| {
        Ok(Box::new(BatchNormGradKernel(kernel_attrs(node)?)))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use weir_graph::f16;

    #[test]
    fn packet_columns_sum_in_four_lanes() {
        // 1e8 and then 3s: one running f32 sum (ulp 8 at 1e8) rounds every 3 away, while
        // three of the four lanes of the packet path sum their 3s first.
        let col = |r: usize, _k: usize| if r == 0 { 1e8f32 } else { 3.0 };
        let packed = column_sums(16, 8, col);
        let mut lanes = [0f32; 4];
        for r in 0..16 {
            lanes[r % 4] += col(r, 0);
        }
        assert_eq!(packed[0], ((lanes[0] + lanes[1]) + lanes[2]) + lanes[3]);
        // Channels past the whole packets, and fewer than 16 rows, sum serially.
        let serial = column_sums(16, 7, col);
        assert_eq!(serial[0], 1e8);
        assert_eq!(column_sums(15, 8, col)[0], 1e8);
        assert_ne!(packed[0], serial[0]);
    }

    #[test]
    fn half_rsqrt_rounds_by_path() {
        let v = vec![f16::from_f32(3.0); 9];
        let r = rsqrt_vec(&v, f16::ZERO);
        assert_eq!(r[0], f16::from_f32(1.0 / 3f32.sqrt()));
        assert_eq!(r[8], f16::ONE / f16::from_f32(3f32.sqrt()));
    }
}
