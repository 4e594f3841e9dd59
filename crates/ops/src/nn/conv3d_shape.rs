//! The static side of the 3-D convolutions and pools: TensorFlow's 5-D data formats and the
//! shape functions `Conv3DShape` and the backprops' sizes-input shapes, with TensorFlow's
//! checks and messages.

use weir_graph::{DType, Dim, Error, InferenceContext, Result, Shape};

use super::padding::Padding;

/// TensorFlow's 5-D tensor formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Format {
    Ndhwc,
    Ncdhw,
}

impl Format {
    pub(super) fn parse(s: &str) -> Result<Format> {
        match s {
            "NDHWC" => Ok(Format::Ndhwc),
            "NCDHW" => Ok(Format::Ncdhw),
            _ => Err(Error::invalid_argument("Invalid data format")),
        }
    }

    /// The index of the channel dimension.
    pub(super) fn channel(self) -> usize {
        match self {
            Format::Ndhwc => 4,
            Format::Ncdhw => 1,
        }
    }

    /// The index of spatial dimension `i` (0: depth, 1: height, 2: width).
    pub(super) fn spatial(self, i: usize) -> usize {
        match self {
            Format::Ndhwc => 1 + i,
            Format::Ncdhw => 2 + i,
        }
    }

    /// `[batch, spatial..., channels]` laid out in this format.
    pub(super) fn dims<T: Copy>(self, batch: T, spatial: [T; 3], c: T) -> Vec<T> {
        match self {
            Format::Ndhwc => vec![batch, spatial[0], spatial[1], spatial[2], c],
            Format::Ncdhw => vec![batch, c, spatial[0], spatial[1], spatial[2]],
        }
    }
}

/// TensorFlow's `list(int) >= 5` check of the op definition.
pub(super) fn check_min5(list: &[i64], name: &str) -> Result<()> {
    if list.len() < 5 {
        return Err(Error::invalid_argument(format!(
            "Length for attr '{name}' of {} must be at least minimum 5",
            list.len()
        )));
    }
    Ok(())
}

/// TensorFlow's static `GetWindowedOutputSizeFromDimsV2`: the output size of a known input
/// dimension, erring where a VALID window is longer than the input.
pub(super) fn static_out_dim(
    input: Dim,
    k: Dim,
    dilation: i64,
    stride: i64,
    padding: Padding,
) -> Result<Dim> {
    if stride <= 0 {
        return Err(Error::invalid_argument(format!(
            "Stride must be > 0, but got {stride}"
        )));
    }
    if dilation < 1 {
        return Err(Error::invalid_argument(format!(
            "Dilation rate must be >= 1, but got {dilation}"
        )));
    }
    let Some(input) = input else { return Ok(None) };
    let input = input as i64;
    Ok(match padding {
        Padding::Same => Some(((input + stride - 1) / stride) as usize),
        Padding::Valid => {
            let Some(k) = k else { return Ok(None) };
            let eff = (k as i64 - 1) * dilation + 1;
            if input < eff {
                return Err(Error::invalid_argument(format!(
                    "Negative dimension size caused by subtracting {eff} from {input}"
                )));
            }
            Some(((input - eff + stride) / stride) as usize)
        }
    })
}

/// TensorFlow's `Conv3DShape`.
pub(super) fn conv3d_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let x = ctx.with_rank(0, 5)?;
    let f = ctx.with_rank(1, 5)?;
    let strides = ctx.attr::<Vec<i64>>("strides")?;
    let dilations = ctx.attr::<Vec<i64>>("dilations")?;
    check_min5(&strides, "strides")?;
    let fm = Format::parse(&ctx.attr::<String>("data_format")?)?;
    if strides.len() != 5 {
        return Err(Error::invalid_argument(format!(
            "Conv3D requires the stride attribute to contain 5 values, but got: {}",
            strides.len()
        )));
    }
    if dilations.len() != 5 {
        return Err(Error::invalid_argument(format!(
            "Conv3D requires the dilations attribute to contain 5 values, but got: {}",
            dilations.len()
        )));
    }
    let padding = Padding::parse(&ctx.attr::<String>("padding")?)?;
    let (in_c, f_c, out_c) = (x.dim(fm.channel() as isize), f.dim(3), f.dim(4));
    if let (Some(c), Some(fc)) = (in_c, f_c) {
        if fc == 0 || c % fc != 0 {
            return Err(Error::invalid_argument(format!(
                "Depth of input ({c}) is not a multiple of input depth of filter ({fc})"
            )));
        }
        if let Some(oc) = out_c {
            let groups = c / fc;
            if groups == 0 || oc % groups != 0 {
                return Err(Error::invalid_argument(format!(
                    "Depth of output ({oc}) is not a multiple of the number of groups ({groups})"
                )));
            }
        }
    }
    let mut out = [None; 3];
    for (i, o) in out.iter_mut().enumerate() {
        let a = fm.spatial(i);
        *o = static_out_dim(
            x.dim(a as isize),
            f.dim(i as isize),
            dilations[a],
            strides[a],
            padding,
        )?;
    }
    ctx.set_output(0, Shape::new(fm.dims(x.dim(0), out, out_c)));
    Ok(())
}

/// The shape of a backprop: the value of its sizes input `i`, of rank 5 (TensorFlow's
/// `MakeShapeFromShapeTensor` then `WithRank(5)`).
pub(super) fn sizes_shape(ctx: &mut InferenceContext<'_>, i: usize) -> Result<()> {
    check_min5(&ctx.attr::<Vec<i64>>("strides")?, "strides")?;
    let s = ctx.with_rank(i, 1)?;
    let dims: Option<Vec<Dim>> = match ctx.input_const(i) {
        Some(t) => {
            let v: Vec<i64> = match t.dtype() {
                DType::I32 => t.as_slice::<i32>()?.iter().map(|&v| v as i64).collect(),
                _ => t.to_vec::<i64>()?,
            };
            Some(
                v.into_iter()
                    .map(|d| match d {
                        -1 => Ok(None),
                        d if d < -1 => Err(Error::invalid_argument(format!(
                            "Invalid value in tensor used for shape: {d}"
                        ))),
                        d => Ok(Some(d as usize)),
                    })
                    .collect::<Result<_>>()?,
            )
        }
        None => s.dim(0).map(|n| vec![None; n]),
    };
    let shape = match dims {
        Some(d) if d.len() != 5 => {
            return Err(Error::invalid_argument(format!(
                "Shape must be rank 5 but is rank {}",
                d.len()
            )))
        }
        Some(d) => Shape::new(d),
        None => Shape::unknown_of_rank(5),
    };
    ctx.set_output(0, shape);
    Ok(())
}
