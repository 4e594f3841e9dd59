//! `tf.extract_volume_patches` with TensorFlow's `ExtractVolumePatches` kernel: every
//! `ksizes`-window of an NDHWC batch (strided, SAME or VALID padded with zeros) flattened into
//! the depth dimension, planes then rows then columns then channels. The SAME padding before
//! the first window is Eigen's (`TensorVolumePatch.h`), which truncates a negative total
//! padding toward zero instead of clamping it as TensorFlow's shape function does.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor, TensorType,
};

use crate::nn::Padding;

/// `tf.extract_volume_patches(input, ksizes, strides, padding)`: for a `[batch, planes, rows,
/// cols, depth]` input, output `[batch, out_planes, out_rows, out_cols, kp * kr * kc * depth]`
/// whose last dimension holds each window's voxels (zeros where it leaves the volume with SAME
/// padding). `ksizes` and `strides` are `[1, planes, rows, cols, 1]`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::extract_volume_patches, nn::Padding};
/// let g = Graph::new();
/// let v = placeholder(&g, DType::F32, Shape::new(vec![None, Some(4), Some(6), Some(6), Some(2)]))?;
/// let p = extract_volume_patches(&v, [1, 2, 3, 3, 1], [1, 2, 3, 3, 1], Padding::Valid)?;
/// assert_eq!(p.shape(), Shape::new(vec![None, Some(2), Some(2), Some(2), Some(36)]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn extract_volume_patches(
    input: impl Into<Output>,
    ksizes: [i64; 5],
    strides: [i64; 5],
    padding: Padding,
) -> Result<Output> {
    let input = input.into();
    let g = input.graph().clone();
    crate::new_op(&g, "ExtractVolumePatches")
        .input(input)
        .attr("ksizes", ksizes.to_vec())
        .attr("strides", strides.to_vec())
        .attr("padding", padding.as_str())
        .build()?
        .output(0)
}

/// TensorFlow's `GetWindowedOutputSizeVerbose` with dilation 1: the output size and the
/// padding before the first window.
pub(super) fn windowed_size(
    input: i64,
    k: i64,
    stride: i64,
    padding: Padding,
) -> Result<(i64, i64)> {
    if stride <= 0 {
        return Err(Error::invalid_argument(format!(
            "Stride must be > 0, but got {stride}"
        )));
    }
    let (out, before) = match padding {
        Padding::Valid => ((input - k + stride) / stride, 0),
        Padding::Same => {
            let out = (input + stride - 1) / stride;
            (out, 0.max((out - 1) * stride + k - input) / 2)
        }
    };
    if out < 0 {
        return Err(Error::invalid_argument(format!(
            "Computed output size would be negative: {out} [input_size: {input}, effective_filter_size: {k}, stride: {stride}]"
        )));
    }
    Ok((out, before))
}

/// The window geometry along planes, rows and columns.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    ksize: [i64; 3],
    stride: [i64; 3],
    padding: Padding,
}

impl Geometry {
    /// The attrs as TensorFlow's kernel constructor checks them.
    fn from_node(node: &Node) -> Result<Geometry> {
        let triple = |name: &str| -> Result<[i64; 3]> {
            let v: Vec<i64> = node.attr(name)?;
            if v.len() < 5 {
                return Err(Error::invalid_argument(format!(
                    "{name} must have at least 5 values"
                )));
            }
            if v[0] != 1 || v[4] != 1 {
                return Err(Error::unimplemented(format!(
                    "Only support {name} across space."
                )));
            }
            if v[1] < 1 || v[2] < 1 || v[3] < 1 {
                return Err(Error::out_of_range(format!("{name} is out of range.")));
            }
            Ok([v[1], v[2], v[3]])
        };
        let padding: String = node.attr("padding")?;
        Ok(Geometry {
            ksize: triple("ksizes")?,
            stride: triple("strides")?,
            padding: Padding::parse(&padding)?,
        })
    }

    /// Axis `a`'s output size (TensorFlow's) and Eigen's leading padding, which may be negative.
    fn out(&self, a: usize, input: i64) -> Result<(usize, i64)> {
        let (k, s) = (self.ksize[a], self.stride[a]);
        let (out, _) = windowed_size(input, k, s, self.padding)?;
        let before = match self.padding {
            Padding::Valid => 0,
            Padding::Same => ((out - 1) * s + k - input) / 2,
        };
        Ok((out as usize, before))
    }
}

fn extract<T: TensorType + Clone + Default>(
    src: &[T],
    [batch, planes, rows, cols, depth]: [usize; 5],
    geo: &Geometry,
    axes: [(usize, i64); 3],
) -> Vec<T> {
    let [kp, kr, kc] = geo.ksize.map(|k| k as usize);
    let [(op, pp), (or, pr), (oc, pc)] = axes;
    let mut out = Vec::with_capacity(batch * op * or * oc * kp * kr * kc * depth);
    let zeros = vec![T::default(); depth];
    let inside = |v: i64, n: usize| v >= 0 && v < n as i64;
    for b in 0..batch {
        for p in 0..op as i64 {
            for r in 0..or as i64 {
                for c in 0..oc as i64 {
                    for i in 0..kp as i64 {
                        let z = p * geo.stride[0] + i - pp;
                        for j in 0..kr as i64 {
                            let y = r * geo.stride[1] + j - pr;
                            for l in 0..kc as i64 {
                                let x = c * geo.stride[2] + l - pc;
                                if inside(z, planes) && inside(y, rows) && inside(x, cols) {
                                    let at = (((b * planes + z as usize) * rows + y as usize)
                                        * cols
                                        + x as usize)
                                        * depth;
                                    out.extend_from_slice(&src[at..at + depth]);
                                } else {
                                    out.extend_from_slice(&zeros);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

struct VolumePatchesKernel {
    geo: Geometry,
}

impl Kernel for VolumePatchesKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0);
        if input.rank() != 5 {
            return Err(Error::invalid_argument(format!(
                "input must be 5-dimensional{}",
                format_dims(input.shape())
            )));
        }
        let s = input.shape();
        let dims = [s[0], s[1], s[2], s[3], s[4]];
        let axes = [
            self.geo.out(0, dims[1] as i64)?,
            self.geo.out(1, dims[2] as i64)?,
            self.geo.out(2, dims[3] as i64)?,
        ];
        let k: i64 = self.geo.ksize.iter().product();
        let shape = [
            dims[0],
            axes[0].0,
            axes[1].0,
            axes[2].0,
            k as usize * dims[4],
        ];
        let dt = input.dtype();
        let out = weir_graph::match_data_dtype!(dt, T => Tensor::from_vec(&shape, extract(input.as_slice::<T>()?, dims, &self.geo, axes))?,
            _ => return Err(Error::invalid_argument(format!("Cannot extract patches of a {dt} volume"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

/// TensorFlow's shape function: a rank-5 input; known spatial sizes give the output's.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let input = ctx.with_rank(0, 5)?;
    let list = |name: &str, what: &str| -> Result<Vec<i64>> {
        let v: Vec<i64> = ctx.attr(name)?;
        if v.len() < 5 {
            // The OpDef's `list(int) >= 5`, checked by TensorFlow before the shape function.
            return Err(Error::invalid_argument(format!(
                "Attr '{name}' of 'ExtractVolumePatches' Op passed list of length {} less than minimum 5.",
                v.len()
            )));
        }
        if v.len() != 5 {
            return Err(Error::invalid_argument(format!(
                "ExtractVolumePatches requires the {what} attribute to contain 5 values, but got: {}",
                v.len()
            )));
        }
        Ok(v)
    };
    let k = list("ksizes", "ksizes")?;
    let st = list("strides", "stride")?;
    let kprod = k[1] * k[2] * k[3];
    // TensorFlow's `Multiply`: by 0 gives 0 even for an unknown depth.
    let depth = match kprod {
        0 => Some(0),
        _ => input.dim(4).map(|d| d * kprod.max(0) as usize),
    };
    let [p, r, c] = [input.dim(1), input.dim(2), input.dim(3)];
    let (Some(p), Some(r), Some(c)) = (p, r, c) else {
        // TensorFlow's shape function leaves out the planes dimension here: the static shape
        // has rank 4 although the output has rank 5.
        ctx.set_output(0, Shape::new(vec![input.dim(0), None, None, depth]));
        return Ok(());
    };
    let padding = Padding::parse(&ctx.attr::<String>("padding")?)?;
    let o = |n: usize, a: usize| -> Result<Option<usize>> {
        Ok(Some(
            windowed_size(n as i64, k[a + 1], st[a + 1], padding)?.0 as usize,
        ))
    };
    let out = vec![input.dim(0), o(p, 0)?, o(r, 1)?, o(c, 2)?, depth];
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("ExtractVolumePatches")
            .input("input", ArgType::Attr("T"))
            .output("patches", ArgType::Attr("T"))
            .attr("ksizes", AttrKind::Ints, None)
            .attr("strides", AttrKind::Ints, None)
            .type_attr("T", DType::REAL_AND_HALF)
            .attr("padding", AttrKind::Str, None)
            .shape_fn(shape_fn),
    );
    register_kernel("ExtractVolumePatches", |node| {
        Ok(Box::new(VolumePatchesKernel {
            geo: Geometry::from_node(node)?,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eigen_same_padding_may_be_negative() {
        let geo = Geometry {
            ksize: [1, 1, 1],
            stride: [5, 5, 5],
            padding: Padding::Same,
        };
        // 9 planes, stride 5: 2 outputs, total padding 5 + 1 - 9 = -3, truncated to -1.
        assert_eq!(geo.out(0, 9).unwrap(), (2, -1));
        let v: Vec<i32> = (0..9).collect();
        let out = extract(&v, [1, 9, 1, 1, 1], &geo, [(2, -1), (1, 0), (1, 0)]);
        assert_eq!(out, [1, 6]);
    }
}
