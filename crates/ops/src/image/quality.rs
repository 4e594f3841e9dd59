//! Image quality metrics: `tf.image.psnr` and `tf.image.ssim`, built from the ops TensorFlow's
//! Python builds (`image_ops_impl.py`), on images converted to float32 in `[0, 1]`.

use weir_graph::{scalar_of, DType, Error, Output, Result, Shape, Tensor};

use super::convert::ConvertImageDtype;
use crate::array::{concat, constant, reshape, tile, ArrayExt};
use crate::math::{
    add, cast, log, mul, pow, realdiv, reduce_mean, square, squared_difference, sub,
};
use crate::nn::{depthwise_conv2d, softmax, Padding};
use crate::s;

/// TensorFlow's `_verify_compatible_image_shapes`, the static half: both images of rank at
/// least 3, their last three dimensions compatible, their leading ones broadcastable.
fn check_compatible(a: &Shape, b: &Shape) -> Result<()> {
    for s in [a, b] {
        if s.rank().is_some_and(|r| r < 3) {
            return Err(Error::invalid_argument(format!(
                "Shape {} must have rank at least 3",
                s.python_str()
            )));
        }
    }
    let (Some(da), Some(db)) = (a.dims(), b.dims()) else {
        return Ok(());
    };
    let (ta, tb) = (&da[da.len() - 3..], &db[db.len() - 3..]);
    let compatible = |x: &Option<usize>, y: &Option<usize>| x.is_none() || y.is_none() || x == y;
    if !ta.iter().zip(tb).all(|(x, y)| compatible(x, y)) {
        return Err(Error::invalid_argument(format!(
            "Shapes {} and {} are incompatible",
            Shape::new(ta.to_vec()).python_str(),
            Shape::new(tb.to_vec()).python_str()
        )));
    }
    let (ha, hb) = (&da[..da.len() - 3], &db[..db.len() - 3]);
    for (x, y) in ha.iter().rev().zip(hb.iter().rev()) {
        if !(*x == Some(1) || *y == Some(1) || compatible(x, y)) {
            return Err(Error::invalid_argument(format!(
                "Two images are not compatible: {} and {}",
                a.python_str(),
                b.python_str()
            )));
        }
    }
    Ok(())
}

/// `max_val` as TensorFlow takes it: a number cast to the images' dtype, then converted to
/// float32 like the images.
fn max_val_f32(g: &weir_graph::Graph, dtype: DType, max_val: f64) -> Result<Output> {
    let v = constant(g, scalar_of(dtype, max_val)?)?;
    ConvertImageDtype::new(DType::F32).build(v)
}

/// `tf.image.psnr(a, b, max_val)`: the peak signal-to-noise ratio in decibels between two
/// images or batches (the last three dimensions are an image), `max_val` being the images'
/// dynamic range (255 for uint8, 1.0 for floats in `[0, 1]`).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::psnr};
/// let g = Graph::new();
/// let a = placeholder(&g, DType::U8, Shape::new(vec![None, Some(8), Some(8), Some(3)]))?;
/// let b = placeholder(&g, DType::U8, Shape::new(vec![None, Some(8), Some(8), Some(3)]))?;
/// assert_eq!(psnr(&a, &b, 255.0)?.shape(), Shape::new(vec![None]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn psnr(a: impl Into<Output>, b: impl Into<Output>, max_val: f64) -> Result<Output> {
    let (a, b) = (a.into(), b.into());
    let g = a.graph().clone();
    let _scope = g.name_scope("PSNR");
    let max_val = max_val_f32(&g, a.dtype(), max_val)?;
    let a = ConvertImageDtype::new(DType::F32).build(a)?;
    let b = ConvertImageDtype::new(DType::F32).build(b)?;
    let diff = squared_difference(&a, &b)?;
    // TensorFlow's `Mean` shape function rejects the axes first, in these words (weir's `Mean`
    // words its own check after the kernel's).
    if let Some(r) = diff.shape().rank().filter(|&r| r < 3) {
        return Err(Error::invalid_argument(format!(
            "Invalid reduction dimension -3 for input with {r} dimensions."
        )));
    }
    let mse = reduce_mean(diff, [-3i64, -2, -1])?;
    let db = realdiv(
        &mul(&constant(&g, 20.0f32)?, &log(&max_val)?)?,
        &log(&constant(&g, 10.0f32)?)?,
    )?;
    let k = constant(&g, (10.0 / 10f64.ln()) as f32)?;
    let psnr = sub(&db, &mul(&k, &log(&mse)?)?)?;
    check_compatible(&a.shape(), &b.shape())?;
    Ok(psnr)
}

/// The options of `tf.image.ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5,
/// k1=0.01, k2=0.03)`: the structural similarity of two images or batches, averaged over a
/// Gaussian window's valid positions and over channels (one value per image).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::Ssim};
/// let g = Graph::new();
/// let a = placeholder(&g, DType::F32, Shape::known(&[2, 16, 16, 3]))?;
/// let b = placeholder(&g, DType::F32, Shape::known(&[2, 16, 16, 3]))?;
/// assert_eq!(Ssim::new(1.0).build(&a, &b)?.shape(), Shape::known(&[2]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Ssim {
    max_val: f64,
    filter_size: i32,
    filter_sigma: f32,
    k1: f32,
    k2: f32,
}

impl Ssim {
    /// SSIM for images of dynamic range `max_val`, with TensorFlow's defaults.
    pub fn new(max_val: f64) -> Ssim {
        Ssim {
            max_val,
            filter_size: 11,
            filter_sigma: 1.5,
            k1: 0.01,
            k2: 0.03,
        }
    }

    /// The Gaussian window's size (images must be at least this high and wide).
    pub fn filter_size(mut self, n: i32) -> Self {
        self.filter_size = n;
        self
    }

    /// The Gaussian window's standard deviation.
    pub fn filter_sigma(mut self, s: f32) -> Self {
        self.filter_sigma = s;
        self
    }

    /// The luminance and contrast constants.
    pub fn k(mut self, k1: f32, k2: f32) -> Self {
        self.k1 = k1;
        self.k2 = k2;
        self
    }

    /// Adds the ops; the result has the images' leading (batch) dimensions.
    pub fn build(&self, img1: impl Into<Output>, img2: impl Into<Output>) -> Result<Output> {
        let (img1, img2) = (img1.into(), img2.into());
        let g = img1.graph().clone();
        let _scope = g.name_scope("SSIM");
        check_compatible(&img1.shape(), &img2.shape())?;
        let max_val = max_val_f32(&g, img1.dtype(), self.max_val)?;
        let x = ConvertImageDtype::new(DType::F32).build(img1)?;
        let y = ConvertImageDtype::new(DType::F32).build(img2)?;
        let kernel = self.gauss_kernel(&g)?;
        let channels = crate::array::shape(&x)?.at(s![-1])?;
        let one = constant(&g, 1i32)?;
        let multiples = crate::array::stack(&[one.clone(), one.clone(), channels, one], 0)?;
        let kernel = tile(&kernel, multiples)?;
        let reducer = |v: &Output| -> Result<Output> {
            let shape = crate::array::shape(v)?;
            let flat_shape = concat(
                &[
                    constant(&g, Tensor::from(vec![-1i32]))?,
                    shape.at(s![-3..])?,
                ],
                0,
            )?;
            let flat = reshape(v, &flat_shape)?;
            let conv = depthwise_conv2d(&flat, &kernel, [1, 1, 1, 1], Padding::Valid, None)?;
            let out_shape = concat(
                &[
                    shape.at(s![..-3])?,
                    crate::array::shape(&conv)?.at(s![1..])?,
                ],
                0,
            )?;
            reshape(&conv, &out_shape)
        };
        let two = constant(&g, 2.0f32)?;
        let sq = |k: f32| -> Result<Output> { pow(&mul(&constant(&g, k)?, &max_val)?, &two) };
        let (c1, c2) = (sq(self.k1)?, sq(self.k2)?);
        let mean0 = reducer(&x)?;
        let mean1 = reducer(&y)?;
        let num0 = mul(&mul(&mean0, &mean1)?, &two)?;
        let den0 = add(&square(&mean0)?, &square(&mean1)?)?;
        let luminance = realdiv(&add(&num0, &c1)?, &add(&den0, &c1)?)?;
        let num1 = mul(&reducer(&mul(&x, &y)?)?, &two)?;
        let den1 = reducer(&add(&square(&x)?, &square(&y)?)?)?;
        let c2 = mul(&c2, &constant(&g, 1.0f32)?)?;
        let cs = realdiv(
            &add(&sub(&num1, &num0)?, &c2)?,
            &add(&sub(&den1, &den0)?, &c2)?,
        )?;
        let axes = constant(&g, Tensor::from(vec![-3i32, -2]))?;
        let per_channel = reduce_mean(mul(&luminance, &cs)?, axes)?;
        reduce_mean(per_channel, [-1i64])
    }

    /// TensorFlow's `_fspecial_gauss`: a normalized `[size, size, 1, 1]` Gaussian, computed in
    /// the graph with a softmax.
    fn gauss_kernel(&self, g: &weir_graph::Graph) -> Result<Output> {
        let size = self.filter_size;
        let sigma = constant(g, self.filter_sigma)?;
        let coords = cast(&crate::math::range(g, 0i32, size, 1)?, DType::F32)?;
        let center = realdiv(
            &cast(&constant(g, size - 1)?, DType::F32)?,
            &constant(g, 2.0f32)?,
        )?;
        let coords = sub(&coords, &center)?;
        let sq = square(&coords)?;
        let scale = realdiv(&constant(g, -0.5f32)?, &square(&sigma)?)?;
        let gk = mul(&sq, &scale)?;
        let gk = add(&reshape(&gk, [1i64, -1])?, &reshape(&gk, [-1i64, 1])?)?;
        let gk = softmax(&reshape(&gk, [1i64, -1])?)?;
        reshape(&gk, [size as i64, size as i64, 1, 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_checks_use_tensorflow_words() {
        let s = |d: &[Option<usize>]| Shape::new(d.to_vec());
        assert!(check_compatible(
            &s(&[None, Some(8), Some(8), Some(3)]),
            &s(&[Some(8), None, Some(3)])
        )
        .is_ok());
        assert_eq!(
            check_compatible(&s(&[Some(8), Some(3)]), &s(&[Some(8), Some(3)]))
                .unwrap_err()
                .message(),
            "Shape (8, 3) must have rank at least 3"
        );
        assert_eq!(
            check_compatible(
                &s(&[Some(2), Some(8), Some(8), Some(3)]),
                &s(&[Some(3), Some(8), Some(8), Some(3)])
            )
            .unwrap_err()
            .message(),
            "Two images are not compatible: (2, 8, 8, 3) and (3, 8, 8, 3)"
        );
    }
}
