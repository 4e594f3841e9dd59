//! `tf.nn.atrous_conv2d`: a dilated 2-D convolution built as TensorFlow's `convolution` builds
//! one on CPU (`_WithSpaceToBatch`): `SpaceToBatchND` by the rate, a plain `VALID` `Conv2D`,
//! and `BatchToSpaceND` back, with the paddings of `required_space_to_batch_paddings`.

use weir_graph::{Error, Output, Result, Tensor};

use super::conv::Conv2D;
use super::padding::Padding;
use crate::array::{
    batch_to_space_nd, constant, shape, space_to_batch_nd, stack, strided_slice_items, SliceItem,
};
use crate::math::{add, floormod, sub};

/// `tf.nn.atrous_conv2d(value, filters, rate, padding)`: `value` (`[batch, height, width,
/// in_channels]`) convolved with `filters` (`[filter_height, filter_width, in_channels,
/// out_channels]`) sampling every `rate`-th input element (a filter upsampled by inserting
/// `rate - 1` zeros). `rate = 1` is a plain [`conv2d`](crate::nn::conv2d).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, nn::{atrous_conv2d, Padding}};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::known(&[1, 9, 9, 2]))?;
/// let w = placeholder(&g, DType::F32, Shape::known(&[3, 3, 2, 4]))?;
/// assert_eq!(atrous_conv2d(&x, &w, 2, Padding::Same)?.shape(), Shape::known(&[1, 9, 9, 4]));
/// assert_eq!(atrous_conv2d(&x, &w, 2, Padding::Valid)?.shape(), Shape::known(&[1, 5, 5, 4]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn atrous_conv2d(
    value: impl Into<Output>,
    filters: impl Into<Output>,
    rate: i64,
    padding: Padding,
) -> Result<Output> {
    let (x, f) = (value.into(), filters.into());
    let g = crate::util::same_graph(&[&x, &f])?.clone();
    if rate < 1 {
        return Err(Error::invalid_argument(format!(
            "dilation_rate must be positive, got [{rate}, {rate}]"
        )));
    }
    let _scope = g.name_scope("convolution");
    let conv = Conv2D::new([1, 1, 1, 1], Padding::Valid);
    if rate == 1 {
        return Conv2D::new([1, 1, 1, 1], padding).build(&x, &f);
    }
    // The padding SAME needs around the dilated filter, split with the extra at the end.
    let base: [[i64; 2]; 2] = match padding {
        Padding::Valid => [[0, 0]; 2],
        Padding::Same => {
            let dims = f.shape();
            let mut b = [[0i64; 2]; 2];
            for (i, p) in b.iter_mut().enumerate() {
                let k = dims.dim(i as isize).ok_or_else(|| {
                    Error::invalid_argument("atrous_conv2d with SAME needs a filter of known size")
                })? as i64;
                let extra = (k - 1) * rate;
                *p = [extra / 2, extra - extra / 2];
            }
            b
        }
    };
    let spatial = [x.shape().dim(1), x.shape().dim(2)];
    let (paddings, crops) = if let [Some(h), Some(w)] = spatial {
        let mut p = Vec::with_capacity(4);
        let mut c = Vec::with_capacity(4);
        for (size, [start, end]) in [h as i64, w as i64].into_iter().zip(base) {
            let full = size + start + end;
            let extra = (rate - full % rate) % rate;
            p.extend([start, end + extra]);
            c.extend([0, extra]);
        }
        (
            constant(&g, Tensor::from_vec(&[2, 2], p)?)?,
            constant(&g, Tensor::from_vec(&[2, 2], c)?)?,
        )
    } else {
        // required_space_to_batch_paddings with the input's run-time spatial shape.
        let s = shape(&x)?;
        let size = strided_slice_items(
            &s,
            &[SliceItem::Range {
                begin: Some(1),
                end: Some(3),
                step: 1,
            }],
        )?;
        let start = constant(&g, [base[0][0] as i32, base[1][0] as i32])?;
        let end = constant(&g, [base[0][1] as i32, base[1][1] as i32])?;
        let block = constant(&g, [rate as i32, rate as i32])?;
        let full = add(add(&size, &start)?, &end)?;
        let extra = floormod(sub(&block, floormod(&full, &block)?)?, &block)?;
        let paddings = stack(&[start, add(&end, &extra)?], 1)?;
        let zeros = constant(&g, [0i32, 0])?;
        let crops = stack(&[zeros, extra], 1)?;
        (paddings, crops)
    };
    let block = [rate, rate];
    let converted = space_to_batch_nd(&x, block, &paddings)?;
    let y = conv.build(&converted, &f)?;
    batch_to_space_nd(&y, block, &crops)
}
