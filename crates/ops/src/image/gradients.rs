//! `tf.image.total_variation`, `image_gradients` and `sobel_edges`: TensorFlow's Python
//! compositions of slices, reductions and a depthwise convolution, so values and gradients are
//! those of the ops TensorFlow builds.

use weir_graph::{scalar_of, DType, Error, Output, Result, Shape, Tensor};

use crate::array::{concat, constant, fill, reshape, stack, tile, unstack, ArrayExt, Pad, PadMode};
use crate::math::{abs, add, reduce_sum, sub, Axes};
use crate::nn::{depthwise_conv2d, Padding};
use crate::s;

/// `tf.image.total_variation(images)`: the sum of absolute differences between neighbouring
/// pixels (down and right), a scalar for a `[h, w, c]` image and one per image for a batch.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::total_variation};
/// let g = Graph::new();
/// let batch = placeholder(&g, DType::F32, Shape::new(vec![None, Some(8), Some(8), Some(3)]))?;
/// assert_eq!(total_variation(&batch)?.shape(), Shape::new(vec![None]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn total_variation(images: impl Into<Output>) -> Result<Output> {
    let images = images.into();
    let g = images.graph().clone();
    let _scope = g.name_scope("total_variation");
    let (d1, d2, axes): (Output, Output, Axes) = match images.shape().rank() {
        Some(3) => (
            sub(&images.at(s![1.., .., ..])?, &images.at(s![..-1, .., ..])?)?,
            sub(&images.at(s![.., 1.., ..])?, &images.at(s![.., ..-1, ..])?)?,
            Axes::All,
        ),
        Some(4) => (
            sub(
                &images.at(s![.., 1.., .., ..])?,
                &images.at(s![.., ..-1, .., ..])?,
            )?,
            sub(
                &images.at(s![.., .., 1.., ..])?,
                &images.at(s![.., .., ..-1, ..])?,
            )?,
            Axes::List(vec![1, 2, 3]),
        ),
        _ => {
            return Err(Error::invalid_argument(
                "'images' must be either 3 or 4-dimensional.",
            ))
        }
    };
    let sum = |d: &Output| -> Result<Output> { reduce_sum(abs(d)?, axes.clone()) };
    add(&sum(&d1)?, &sum(&d2)?)
}

/// `tf.image.image_gradients(image)`: for a `[batch, h, w, d]` batch, the differences to the
/// pixel below (`dy`) and to the right (`dx`), zero in the last row and column, as `(dy, dx)`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::image_gradients};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::F32, Shape::known(&[1, 4, 4, 1]))?;
/// let (dy, dx) = image_gradients(&img)?;
/// assert_eq!((dy.shape(), dx.shape()), (img.shape(), img.shape()));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn image_gradients(image: impl Into<Output>) -> Result<(Output, Output)> {
    let image = image.into();
    if image.shape().rank() != Some(4) {
        return Err(Error::invalid_argument(format!(
            "image_gradients expects a 4D tensor [batch_size, h, w, d], not {}.",
            image.shape().python_str()
        )));
    }
    let g = image.graph().clone();
    let image_shape = crate::array::shape(&image)?;
    let dims = unstack(&image_shape, Some(4), 0)?;
    let (batch, height, width, depth) = (&dims[0], &dims[1], &dims[2], &dims[3]);
    let dy = sub(
        &image.at(s![.., 1.., .., ..])?,
        &image.at(s![.., ..-1, .., ..])?,
    )?;
    let dx = sub(
        &image.at(s![.., .., 1.., ..])?,
        &image.at(s![.., .., ..-1, ..])?,
    )?;
    let zero = constant(&g, scalar_of(image.dtype(), 0.0)?)?;
    let one = constant(&g, 1i32)?;
    let zeros_y = fill(
        stack(
            &[batch.clone(), one.clone(), width.clone(), depth.clone()],
            0,
        )?,
        &zero,
    )?;
    let dy = reshape(&concat(&[dy, zeros_y], 1)?, &image_shape)?;
    let zeros_x = fill(
        stack(&[batch.clone(), height.clone(), one, depth.clone()], 0)?,
        &zero,
    )?;
    let dx = reshape(&concat(&[dx, zeros_x], 2)?, &image_shape)?;
    Ok((dy, dx))
}

/// `tf.image.sobel_edges(image)`: the vertical and horizontal Sobel responses of each channel
/// of a `[batch, h, w, d]` float batch, as `[batch, h, w, d, 2]`, with the image mirrored
/// (`REFLECT`) one pixel beyond its border.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::sobel_edges};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::F32, Shape::known(&[2, 5, 5, 3]))?;
/// assert_eq!(sobel_edges(&img)?.shape(), Shape::known(&[2, 5, 5, 3, 2]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sobel_edges(image: impl Into<Output>) -> Result<Output> {
    let image = image.into();
    let g = image.graph().clone();
    let static_shape = image.shape();
    let image_shape = crate::array::shape(&image)?;
    // kernels[y][x][0][k]: k = 0 is the vertical gradient, k = 1 the horizontal one.
    const KERNELS: [[[f64; 3]; 3]; 2] = [
        [[-1.0, -2.0, -1.0], [0.0, 0.0, 0.0], [1.0, 2.0, 1.0]],
        [[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]],
    ];
    let mut values = Vec::with_capacity(18);
    for y in 0..3 {
        for x in 0..3 {
            for k in KERNELS {
                values.push(k[y][x]);
            }
        }
    }
    let kernels = match image.dtype() {
        DType::F32 => Tensor::from_vec(&[3, 3, 1, 2], values.iter().map(|&v| v as f32).collect())?,
        DType::F64 => Tensor::from_vec(&[3, 3, 1, 2], values)?,
        dt => {
            return Err(Error::invalid_argument(format!(
                "sobel_edges needs a float32 or float64 image, got {}",
                dt.python_name()
            )))
        }
    };
    let kernels = constant(&g, kernels)?;
    let channels = image_shape.at(s![-1])?;
    let one = constant(&g, 1i32)?;
    let multiples = stack(&[one.clone(), one.clone(), channels, one], 0)?;
    let kernels = {
        let _s = g.name_scope("sobel_filters");
        tile(&kernels, multiples)?
    };
    let padded = Pad::new()
        .mode(PadMode::Reflect)
        .build(&image, &[[0, 0], [1, 1], [1, 1], [0, 0]])?;
    let out = depthwise_conv2d(&padded, &kernels, [1, 1, 1, 1], Padding::Valid, None)?;
    let shape = concat(&[image_shape, constant(&g, Tensor::from(vec![2i32]))?], 0)?;
    let out_shape = match static_shape.dims() {
        Some(d) => {
            let mut d = d.to_vec();
            d.push(Some(2));
            Shape::new(d)
        }
        None => Shape::unknown(),
    };
    crate::new_op(&g, "Reshape")
        .input(out)
        .input(shape)
        .output_shape(0, out_shape)
        .build()?
        .output(0)
}

#[cfg(test)]
mod tests {
    use weir_graph::{DType, Graph, Shape};

    use super::*;
    use crate::array::placeholder;

    #[test]
    fn static_shapes_and_checks_follow_tensorflow() {
        let g = Graph::new();
        let img = placeholder(&g, DType::F32, Shape::known(&[3, 4, 3])).unwrap();
        assert_eq!(total_variation(&img).unwrap().shape(), Shape::scalar());
        assert_eq!(
            image_gradients(&img).unwrap_err().message(),
            "image_gradients expects a 4D tensor [batch_size, h, w, d], not (3, 4, 3)."
        );
        let batch = placeholder(&g, DType::F32, Shape::new(vec![None, None, None, Some(2)]));
        let s = sobel_edges(batch.unwrap()).unwrap();
        assert_eq!(
            s.shape(),
            Shape::new(vec![None, None, None, Some(2), Some(2)])
        );
        let ints = placeholder(&g, DType::U8, Shape::known(&[1, 3, 3, 1])).unwrap();
        assert!(sobel_edges(&ints).is_err());
    }
}
