//! Binning values: `Bucketize` (the bucket of each value among sorted boundaries) and
//! `HistogramFixedWidth` (`tf.histogram_fixed_width`: counts in equal-width bins).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor, TensorType,
};

use super::shape_util::const_i64s;

const TYPES: &[DType] = &[DType::I32, DType::I64, DType::F32, DType::F64];

/// `tf.raw_ops.Bucketize(input, boundaries)` (`math_ops.bucketize`): for each value, the number
/// of `boundaries` (sorted floats) at or below it, as int32 of `input`'s shape.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::array::{bucketize, constant};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let b = bucketize(constant(&g, [-5, 10000, 150, 10, 5])?, &[0.0, 10.0, 100.0])?;
/// assert_eq!(Session::new(&g)?.eval(&b)?.to_vec::<i32>()?, vec![0, 3, 3, 2, 1]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn bucketize(input: impl Into<Output>, boundaries: &[f32]) -> Result<Output> {
    let x = input.into();
    crate::new_op(&x.graph().clone(), "Bucketize")
        .input(x)
        .attr("boundaries", AttrValue::Floats(boundaries.to_vec()))
        .build()?
        .output(0)
}

/// Options of `tf.histogram_fixed_width(values, value_range, nbins=100, dtype=tf.int32)`.
#[derive(Clone, Debug)]
pub struct HistogramFixedWidth {
    nbins: Option<Output>,
    nbins_value: i32,
    dtype: DType,
}

impl Default for HistogramFixedWidth {
    fn default() -> Self {
        HistogramFixedWidth::new()
    }
}

impl HistogramFixedWidth {
    /// TensorFlow's defaults: 100 bins, int32 counts.
    pub fn new() -> HistogramFixedWidth {
        HistogramFixedWidth {
            nbins: None,
            nbins_value: 100,
            dtype: DType::I32,
        }
    }

    /// The number of bins.
    pub fn nbins(mut self, n: i32) -> Self {
        self.nbins_value = n;
        self.nbins = None;
        self
    }

    /// The number of bins as an int32 scalar tensor.
    pub fn nbins_tensor(mut self, n: impl Into<Output>) -> Self {
        self.nbins = Some(n.into());
        self
    }

    /// The dtype of the counts (int32 or int64).
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// Adds the `HistogramFixedWidth` op.
    pub fn build(
        &self,
        values: impl Into<Output>,
        value_range: impl Into<Output>,
    ) -> Result<Output> {
        let (v, r) = (values.into(), value_range.into());
        let g = crate::util::same_graph(&[&v, &r])?.clone();
        let n = match &self.nbins {
            Some(n) => n.clone(),
            None => crate::array::constant(&g, self.nbins_value)?,
        };
        crate::new_op(&g, "HistogramFixedWidth")
            .input(v)
            .input(r)
            .input(n)
            .attr("dtype", self.dtype)
            .build()?
            .output(0)
    }
}

/// `tf.histogram_fixed_width(values, value_range, nbins)`: how many `values` fall in each of
/// `nbins` equal bins over `value_range = [lo, hi]`; values below `lo` count in the first bin,
/// values at or above `hi` in the last.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::array::{constant, histogram_fixed_width};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let v = constant(&g, [-1.0f32, 0.0, 1.5, 2.0, 5.0, 15.0])?;
/// let h = histogram_fixed_width(&v, constant(&g, [0.0f32, 5.0])?, 5)?;
/// assert_eq!(Session::new(&g)?.eval(&h)?.to_vec::<i32>()?, vec![2, 1, 1, 0, 2]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn histogram_fixed_width(
    values: impl Into<Output>,
    value_range: impl Into<Output>,
    nbins: i32,
) -> Result<Output> {
    HistogramFixedWidth::new()
        .nbins(nbins)
        .build(values, value_range)
}

/// The value types: compared with float boundaries as C++ does, and widened for histograms.
trait Value: TensorType + Copy + PartialOrd + std::fmt::Display {
    fn below(self, boundary: f32) -> bool;
    fn diff(self, lo: Self) -> f64;
}

macro_rules! int_values {
    ($($t:ty),*) => {$(
        impl Value for $t {
            fn below(self, b: f32) -> bool { (self as f32) < b }
            fn diff(self, lo: Self) -> f64 { self.wrapping_sub(lo) as f64 }
        }
    )*};
}
int_values!(i32, i64);

impl Value for f32 {
    fn below(self, b: f32) -> bool {
        self < b
    }
    fn diff(self, lo: Self) -> f64 {
        f64::from(self - lo)
    }
}

impl Value for f64 {
    fn below(self, b: f32) -> bool {
        self < f64::from(b)
    }
    fn diff(self, lo: Self) -> f64 {
        self - lo
    }
}

fn bucketize_typed<T: Value>(x: &Tensor, boundaries: &[f32]) -> Result<Tensor> {
    let out: Vec<i32> = x
        .as_slice::<T>()?
        .iter()
        .map(|&v| boundaries.partition_point(|&b| !v.below(b)) as i32)
        .collect();
    Tensor::from_vec(x.shape(), out)
}

struct BucketizeKernel(Vec<f32>);

impl Kernel for BucketizeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let out = match x.dtype() {
            DType::I32 => bucketize_typed::<i32>(x, &self.0)?,
            DType::I64 => bucketize_typed::<i64>(x, &self.0)?,
            DType::F32 => bucketize_typed::<f32>(x, &self.0)?,
            _ => bucketize_typed::<f64>(x, &self.0)?,
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make_bucketize(node: &Node) -> Result<Box<dyn Kernel>> {
    let b: Vec<f32> = node.attr("boundaries")?;
    if b.windows(2).any(|w| w[0] > w[1]) {
        return Err(Error::invalid_argument("Expected sorted boundaries"));
    }
    Ok(Box::new(BucketizeKernel(b)))
}

fn histogram_typed<T: Value>(v: &Tensor, range: &Tensor, nbins: i64) -> Result<Vec<i64>> {
    let r = range.as_slice::<T>()?;
    let (lo, hi) = (r[0], r[1]);
    if lo.partial_cmp(&hi) != Some(std::cmp::Ordering::Less) {
        return Err(Error::invalid_argument(format!(
            "value_range should satisfy value_range[0] < value_range[1], but got '[{lo}, {hi}]'"
        )));
    }
    if nbins <= 0 {
        return Err(Error::invalid_argument(format!(
            "nbins should be a positive number, but got '{nbins}'"
        )));
    }
    let step = hi.diff(lo) / nbins as f64;
    let last = (nbins - 1) as f64;
    let n = nbins as usize;
    let mut counts = crate::array::alloc_filled(&[n], n, 0i64, DType::I64)?;
    for &x in v.as_slice::<T>()? {
        let x = if x < lo { lo } else { x };
        let bin = (x.diff(lo) / step).min(last);
        counts[bin as usize] += 1;
    }
    Ok(counts)
}

struct HistogramKernel(DType);

impl Kernel for HistogramKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (v, r, n) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if r.rank() != 1 {
            return Err(Error::invalid_argument("value_range should be a vector."));
        }
        if r.num_elements() != 2 {
            return Err(Error::invalid_argument(
                "value_range should be a vector of 2 elements.",
            ));
        }
        if n.rank() != 0 {
            return Err(Error::invalid_argument("nbins should be a scalar."));
        }
        let nbins = i64::from(n.to_scalar::<i32>()?);
        let counts = match v.dtype() {
            DType::I32 => histogram_typed::<i32>(v, r, nbins)?,
            DType::I64 => histogram_typed::<i64>(v, r, nbins)?,
            DType::F32 => histogram_typed::<f32>(v, r, nbins)?,
            _ => histogram_typed::<f64>(v, r, nbins)?,
        };
        let out = if self.0 == DType::I64 {
            Tensor::from(counts)
        } else {
            Tensor::from(counts.into_iter().map(|c| c as i32).collect::<Vec<_>>())
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn histogram_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(1, 1)?;
    ctx.with_rank(2, 0)?;
    let n = match const_i64s(ctx, 2)? {
        Some(v) if v[0] <= 0 => {
            return Err(Error::invalid_argument(format!(
                "Requires nbins > 0: {}",
                v[0]
            )))
        }
        Some(v) => Some(v[0] as usize),
        None => None,
    };
    ctx.set_output(0, Shape::new(vec![n]));
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("Bucketize")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Fixed(DType::I32))
            .type_attr("T", TYPES)
            .attr("boundaries", AttrKind::Floats, None)
            .shape_fn(|ctx| {
                let s = ctx.input_shape(0).clone();
                ctx.set_output(0, s);
                Ok(())
            }),
    );
    register_kernel("Bucketize", make_bucketize);
    let mut def = OpDef::new("HistogramFixedWidth")
        .input("values", ArgType::Attr("T"))
        .input("value_range", ArgType::Attr("T"))
        .input("nbins", ArgType::Fixed(DType::I32))
        .output("out", ArgType::Attr("dtype"))
        .type_attr("T", TYPES)
        .type_attr("dtype", &[DType::I32, DType::I64])
        .shape_fn(histogram_shape_fn);
    // `dtype: {int32, int64} = DT_INT32`.
    if let Some(a) = def.attrs.iter_mut().find(|a| a.name == "dtype") {
        a.default = Some(AttrValue::Type(DType::I32));
    }
    register_op(def);
    register_kernel("HistogramFixedWidth", |node| {
        Ok(Box::new(HistogramKernel(node.attr("dtype")?)))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_and_bins_like_tensorflow() {
        let b = bucketize_typed::<f32>(
            &Tensor::from(vec![-5.0f32, 0.0, 10.0, 99.0]),
            &[0.0, 10.0, 100.0],
        )
        .unwrap();
        assert_eq!(b.to_vec::<i32>().unwrap(), vec![0, 1, 2, 2]);
        let h = histogram_typed::<i32>(
            &Tensor::from(vec![1, 2, 3, 4, 9, -3]),
            &Tensor::from(vec![0, 10]),
            3,
        )
        .unwrap();
        assert_eq!(h, vec![4, 1, 1]);
        let e = histogram_typed::<f32>(
            &Tensor::from(vec![1.0f32]),
            &Tensor::from(vec![5.0f32, 0.0]),
            5,
        )
        .unwrap_err();
        assert_eq!(
            e.message(),
            "value_range should satisfy value_range[0] < value_range[1], but got '[5, 0]'"
        );
        let e = histogram_typed::<f32>(
            &Tensor::from(vec![1.0f32]),
            &Tensor::from(vec![0.0f32, 5.0]),
            0,
        )
        .unwrap_err();
        assert_eq!(
            e.message(),
            "nbins should be a positive number, but got '0'"
        );
    }
}
