//! `tf.image.extract_patches` with TensorFlow's `ExtractImagePatches` kernel: every
//! `sizes`-window of an NHWC batch (strided, dilated by `rates`, SAME or VALID padded with
//! zeros) flattened into the depth dimension.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor, TensorType,
};

use crate::nn::{conv_output_size, Padding};

/// `tf.image.extract_patches(images, sizes, strides, rates, padding)`: for a `[batch, rows,
/// cols, depth]` batch, output `[batch, out_rows, out_cols, size_rows * size_cols * depth]`
/// whose last dimension holds each window's pixels row by row (zeros where it leaves the image
/// with SAME padding). `sizes`, `strides` and `rates` are `[1, rows, cols, 1]`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::extract_patches, nn::Padding};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::F32, Shape::new(vec![None, Some(10), Some(10), Some(3)]))?;
/// let p = extract_patches(&img, [1, 3, 3, 1], [1, 5, 5, 1], [1, 1, 1, 1], Padding::Valid)?;
/// assert_eq!(p.shape(), Shape::new(vec![None, Some(2), Some(2), Some(27)]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn extract_patches(
    images: impl Into<Output>,
    sizes: [i64; 4],
    strides: [i64; 4],
    rates: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    let images = images.into();
    let g = images.graph().clone();
    crate::new_op(&g, "ExtractImagePatches")
        .input(images)
        .attr("ksizes", sizes.to_vec())
        .attr("strides", strides.to_vec())
        .attr("rates", rates.to_vec())
        .attr("padding", padding.as_str())
        .build()?
        .output(0)
}

/// The window geometry along rows and columns.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    ksize: [usize; 2],
    stride: [usize; 2],
    rate: [usize; 2],
    padding: Padding,
}

impl Geometry {
    /// The attrs as TensorFlow's kernel constructor checks them.
    fn from_node(node: &Node) -> Result<Geometry> {
        let pair = |name: &str, what: &str| -> Result<[usize; 2]> {
            let v: Vec<i64> = node.attr(name)?;
            if v.len() != 4 {
                return Err(Error::invalid_argument(format!(
                    "Sliding window {name} field must specify 4 dimensions"
                )));
            }
            if v[0] != 1 || v[3] != 1 {
                return Err(Error::unimplemented(format!(
                    "Only support {what} across space."
                )));
            }
            if v[1] < 1 || v[2] < 1 {
                return Err(Error::invalid_argument(format!(
                    "{name} must be positive: {v:?}"
                )));
            }
            Ok([v[1] as usize, v[2] as usize])
        };
        let padding: String = node.attr("padding")?;
        Ok(Geometry {
            ksize: pair("ksizes", "ksizes")?,
            stride: pair("strides", "strides")?,
            rate: pair("rates", "rates")?,
            padding: Padding::parse(&padding)?,
        })
    }

    /// The output size and leading padding of axis `a` (0 rows, 1 columns) for `input`.
    fn out(&self, a: usize, input: usize) -> Result<(usize, usize)> {
        let eff = self.ksize[a] + (self.ksize[a] - 1) * (self.rate[a] - 1);
        conv_output_size(input, eff, self.stride[a], self.padding)
    }
}

fn extract<T: TensorType + Clone + Default>(
    src: &[T],
    [batch, rows, cols, depth]: [usize; 4],
    geo: &Geometry,
    (out_r, pad_r): (usize, usize),
    (out_c, pad_c): (usize, usize),
) -> Vec<T> {
    let [kr, kc] = geo.ksize;
    let mut out = Vec::with_capacity(batch * out_r * out_c * kr * kc * depth);
    let zeros = vec![T::default(); depth];
    for b in 0..batch {
        for r in 0..out_r {
            for c in 0..out_c {
                for i in 0..kr {
                    let y = (r * geo.stride[0] + i * geo.rate[0]) as i64 - pad_r as i64;
                    for j in 0..kc {
                        let x = (c * geo.stride[1] + j * geo.rate[1]) as i64 - pad_c as i64;
                        if y < 0 || x < 0 || y >= rows as i64 || x >= cols as i64 {
                            out.extend_from_slice(&zeros);
                        } else {
                            let at = ((b * rows + y as usize) * cols + x as usize) * depth;
                            out.extend_from_slice(&src[at..at + depth]);
                        }
                    }
                }
            }
        }
    }
    out
}

struct PatchesKernel {
    geo: Geometry,
}

impl Kernel for PatchesKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0);
        if input.rank() != 4 {
            return Err(Error::invalid_argument(format!(
                "input must be 4-dimensional{}",
                format_dims(input.shape())
            )));
        }
        let s = input.shape();
        let dims = [s[0], s[1], s[2], s[3]];
        let rows = self.geo.out(0, dims[1])?;
        let cols = self.geo.out(1, dims[2])?;
        let shape = [
            dims[0],
            rows.0,
            cols.0,
            self.geo.ksize[0] * self.geo.ksize[1] * dims[3],
        ];
        let dt = input.dtype();
        let out = weir_graph::match_data_dtype!(dt, T => Tensor::from_vec(&shape, extract(input.as_slice::<T>()?, dims, &self.geo, rows, cols))?,
            _ => return Err(Error::invalid_argument(format!("Cannot extract patches of a {dt} image"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

/// TensorFlow's shape function: a rank-4 input; known spatial sizes give the output's.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let input = ctx.with_rank(0, 4)?;
    let list = |name: &str| -> Result<Vec<i64>> {
        let v: Vec<i64> = ctx.attr(name)?;
        if v.len() != 4 {
            return Err(Error::invalid_argument(format!(
                "ExtractImagePatches requires the {name} attribute to contain 4 values, but got: {}",
                v.len()
            )));
        }
        Ok(v)
    };
    let (k, st, r) = (list("ksizes")?, list("strides")?, list("rates")?);
    let padding = Padding::parse(&ctx.attr::<String>("padding")?)?;
    let axis = |a: usize| -> Result<Option<usize>> {
        let (k, st, r) = (
            k[a + 1].max(1) as usize,
            st[a + 1].max(1) as usize,
            r[a + 1].max(1),
        );
        let eff = k + (k - 1) * (r as usize - 1);
        input
            .dim(a as isize + 1)
            .map(|n| conv_output_size(n, eff, st, padding).map(|o| o.0))
            .transpose()
    };
    let depth = input
        .dim(3)
        .map(|d| d * (k[1].max(0) * k[2].max(0)) as usize);
    // TensorFlow infers neither spatial size unless both input sizes are known.
    let (rows, cols) = match (input.dim(1), input.dim(2)) {
        (Some(_), Some(_)) => (axis(0)?, axis(1)?),
        _ => (None, None),
    };
    ctx.set_output(0, Shape::new(vec![input.dim(0), rows, cols, depth]));
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("ExtractImagePatches")
            .input("images", ArgType::Attr("T"))
            .output("patches", ArgType::Attr("T"))
            .type_attr("T", DType::NUMBER_AND_BOOL)
            .attr("ksizes", AttrKind::Ints, None)
            .attr("strides", AttrKind::Ints, None)
            .attr("rates", AttrKind::Ints, None)
            .attr("padding", AttrKind::Str, None)
            .shape_fn(shape_fn),
    );
    register_kernel("ExtractImagePatches", |node| {
        Ok(Box::new(PatchesKernel {
            geo: Geometry::from_node(node)?,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_padding_fills_zeros() {
        let img: Vec<i32> = (1..=4).collect(); // [1, 2, 2, 1]
        let geo = Geometry {
            ksize: [2, 2],
            stride: [1, 1],
            rate: [1, 1],
            padding: Padding::Same,
        };
        let rows = geo.out(0, 2).unwrap();
        assert_eq!(rows, (2, 0));
        let out = extract(&img, [1, 2, 2, 1], &geo, rows, rows);
        assert_eq!(out, [1, 2, 3, 4, 2, 0, 4, 0, 3, 4, 0, 0, 4, 0, 0, 0]);
    }
}
