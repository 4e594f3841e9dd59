//! Window geometry shared by conv2d and max_pool: TensorFlow's `GetWindowedOutputSize` for
//! SAME, VALID and EXPLICIT padding, and the NHWC attribute checks.

use weir_graph::{Error, Result};

/// TensorFlow's `padding` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    /// `"SAME"`: output size `ceil(in / stride)`, zero padding split with the extra on the end.
    Same,
    /// `"VALID"`: only windows that fit, output size `ceil((in - k + 1) / stride)`.
    Valid,
}

impl Padding {
    /// The attribute string (`"SAME"`, `"VALID"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Padding::Same => "SAME",
            Padding::Valid => "VALID",
        }
    }

    /// The padding named by an attribute string.
    pub fn parse(s: &str) -> Result<Padding> {
        match s {
            "SAME" => Ok(Padding::Same),
            "VALID" => Ok(Padding::Valid),
            other => Err(Error::invalid_argument(format!(
                "Unknown padding '{other}': expected SAME or VALID"
            ))),
        }
    }
}

/// The output size and the padding before the first element along one dimension, exactly as
/// TensorFlow computes them; InvalidArgument when the output would be empty or negative.
pub fn conv_output_size(
    input: usize,
    k: usize,
    stride: usize,
    padding: Padding,
) -> Result<(usize, usize)> {
    if stride == 0 {
        return Err(Error::invalid_argument("Stride must be > 0, but got 0"));
    }
    match padding {
        Padding::Valid => {
            // C++ integer division: truncates toward zero, so only in + s < k is an error.
            let out = (input as i64 - k as i64 + stride as i64) / stride as i64;
            if out < 0 {
                return Err(Error::invalid_argument(format!(
                    "Computed output size would be negative: {out} [input_size: {input}, effective_filter_size: {k}, stride: {stride}]"
                )));
            }
            Ok((out as usize, 0))
        }
        Padding::Same => {
            let out = input.div_ceil(stride);
            let needed = ((out.saturating_sub(1)) * stride + k).saturating_sub(input);
            Ok((out, needed / 2))
        }
    }
}

/// The `explicit_paddings` of an NHWC op with `padding="EXPLICIT"`, in TensorFlow's form: a
/// `[before, after]` pair per dimension (batch, height, width, depth), as `tf.nn.conv2d` and
/// `tf.nn.max_pool2d` take a list of pairs for `padding`. Only height and width may be padded.
pub type ExplicitPaddings = [[i64; 2]; 4];

/// A windowed op's padding, read from its `padding` and `explicit_paddings` attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WindowPadding {
    /// SAME or VALID.
    Named(Padding),
    /// EXPLICIT: rows before and after, then columns before and after.
    Explicit([usize; 4]),
}

impl From<Padding> for WindowPadding {
    fn from(p: Padding) -> WindowPadding {
        WindowPadding::Named(p)
    }
}

/// The `padding` attribute value and the flat `explicit_paddings` list for `explicit`, or
/// `padding`'s own name and no list.
pub(crate) fn padding_attrs(
    padding: Padding,
    explicit: Option<&ExplicitPaddings>,
) -> (&'static str, Vec<i64>) {
    match explicit {
        Some(e) => ("EXPLICIT", e.iter().flatten().copied().collect()),
        None => (padding.as_str(), vec![]),
    }
}

/// Reads `padding` and `explicit_paddings` of an NHWC op, with TensorFlow's checks
/// (`CheckValidPadding`): EXPLICIT takes 8 non-negative values, none on the batch or depth.
pub(crate) fn read_padding(padding: &str, explicit: &[i64]) -> Result<WindowPadding> {
    if padding != "EXPLICIT" {
        if !explicit.is_empty() {
            return Err(Error::invalid_argument(
                "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT",
            ));
        }
        return Padding::parse(padding).map(WindowPadding::Named);
    }
    if explicit.len() != 8 {
        return Err(Error::invalid_argument(format!(
            "explicit_paddings attribute must contain 8 values, but got: {}",
            explicit.len()
        )));
    }
    if explicit.iter().any(|&v| v < 0) {
        return Err(Error::invalid_argument(
            "All elements of explicit_paddings must be nonnegative",
        ));
    }
    if explicit[..2].iter().chain(&explicit[6..]).any(|&v| v != 0) {
        return Err(Error::invalid_argument(
            "Nonzero explicit padding in the batch or depth dimensions is not supported",
        ));
    }
    let at = |i: usize| usize::try_from(explicit[i]).unwrap_or(usize::MAX);
    Ok(WindowPadding::Explicit([at(2), at(3), at(4), at(5)]))
}

/// [`conv_output_size`] for any [`WindowPadding`] along dimension `dim` (0 for the height, 1
/// for the width): the output size and the padding before the first element.
pub(crate) fn windowed_output_size(
    input: usize,
    k: usize,
    stride: usize,
    padding: WindowPadding,
    dim: usize,
) -> Result<(usize, usize)> {
    let [before, after] = match padding {
        WindowPadding::Named(p) => return conv_output_size(input, k, stride, p),
        WindowPadding::Explicit(p) => [p[2 * dim], p[2 * dim + 1]],
    };
    if stride == 0 {
        return Err(Error::invalid_argument("Stride must be > 0, but got 0"));
    }
    let padded = input as i64 + before as i64 + after as i64;
    // C++ integer division, as for VALID.
    let out = (padded - k as i64 + stride as i64) / stride as i64;
    if out < 0 {
        return Err(Error::invalid_argument(format!(
            "Computed output size would be negative: {out} [input_size: {input}, effective_filter_size: {k}, stride: {stride}]"
        )));
    }
    Ok((out as usize, before))
}

/// The output size along `axis` (0 height, 1 width; read only for explicit paddings) as
/// TensorFlow's shape functions compute it for Conv2D, MaxPool and their kin: `ceil(input / stride)` for SAME; otherwise the padded input must
/// hold the window ("Negative dimension size ..." if not) and the output is
/// `(padded - k) / stride + 1`.
pub(crate) fn static_output_size(
    input: usize,
    k: usize,
    stride: usize,
    padding: WindowPadding,
    axis: usize,
) -> Result<usize> {
    if stride == 0 {
        return Err(Error::invalid_argument("Stride must be > 0, but got 0"));
    }
    let padded = match padding {
        WindowPadding::Named(Padding::Same) => return Ok(input.div_ceil(stride)),
        WindowPadding::Named(Padding::Valid) => input,
        WindowPadding::Explicit(p) => input + p[2 * axis] + p[2 * axis + 1],
    };
    if padded < k {
        return Err(Error::invalid_argument(format!(
            "Negative dimension size caused by subtracting {k} from {padded}"
        )));
    }
    Ok((padded - k) / stride + 1)
}

/// [`static_output_size`] of a dimension that may be unknown, with a window size that may be
/// unknown too (SAME needs none): the output size, when known.
pub(crate) fn static_dim(
    input: Option<usize>,
    k: Option<usize>,
    stride: usize,
    padding: WindowPadding,
    axis: usize,
) -> Result<Option<usize>> {
    let k = match (k, padding) {
        (_, WindowPadding::Named(Padding::Same)) => 1,
        (Some(k), _) => k,
        (None, _) => return Ok(None),
    };
    input
        .map(|d| static_output_size(d, k, stride, padding, axis))
        .transpose()
}

/// Checks a 4-element NHWC `strides` or `ksize` list with 1 in the batch and depth slots and
/// returns the (height, width) entries.
pub(crate) fn spatial_pair(list: &[i64], what: &str) -> Result<(usize, usize)> {
    if list.len() != 4 {
        return Err(Error::invalid_argument(format!(
            "Sliding window {what} field must specify 4 dimensions"
        )));
    }
    if list[0] != 1 || list[3] != 1 {
        return Err(Error::unimplemented(format!(
            "Current implementation does not yet support {what} in the batch and depth dimensions."
        )));
    }
    if list[1] < 1 || list[2] < 1 {
        return Err(Error::invalid_argument(format!(
            "Sliding window {what} must be positive, got {list:?}"
        )));
    }
    Ok((list[1] as usize, list[2] as usize))
}

/// Rejects a data format other than NHWC.
pub(crate) fn check_nhwc(format: &str) -> Result<()> {
    if format != "NHWC" {
        return Err(Error::unimplemented(format!(
            "Only data_format NHWC is supported, got {format}"
        )));
    }
    Ok(())
}

/// The geometry of one windowed op over an NHWC input.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    pub n: usize,
    pub h: usize,
    pub w: usize,
    pub c: usize,
    pub kh: usize,
    pub kw: usize,
    pub sh: usize,
    pub sw: usize,
    pub oh: usize,
    pub ow: usize,
    pub pad_top: usize,
    pub pad_left: usize,
}

impl Window {
    /// The geometry for input dims `[n, h, w, c]` and a `kh x kw` window.
    pub(crate) fn new(
        input: &[usize],
        k: (usize, usize),
        s: (usize, usize),
        padding: Padding,
    ) -> Result<Window> {
        Window::padded(input, k, s, padding.into())
    }

    /// [`Window::new`] for any [`WindowPadding`].
    pub(crate) fn padded(
        input: &[usize],
        (kh, kw): (usize, usize),
        (sh, sw): (usize, usize),
        padding: WindowPadding,
    ) -> Result<Window> {
        if input.len() != 4 {
            return Err(Error::invalid_argument(format!(
                "input must be 4-dimensional{}",
                weir_graph::format_dims(input)
            )));
        }
        let (oh, pad_top) = windowed_output_size(input[1], kh, sh, padding, 0)?;
        let (ow, pad_left) = windowed_output_size(input[2], kw, sw, padding, 1)?;
        Ok(Window {
            n: input[0],
            h: input[1],
            w: input[2],
            c: input[3],
            kh,
            kw,
            sh,
            sw,
            oh,
            ow,
            pad_top,
            pad_left,
        })
    }

    /// The input row of output row `o` and window row `k`, if inside the image.
    #[inline]
    pub(crate) fn in_row(&self, o: usize, k: usize) -> Option<usize> {
        (o * self.sh + k)
            .checked_sub(self.pad_top)
            .filter(|&i| i < self.h)
    }

    /// The input column of output column `o` and window column `k`, if inside the image.
    #[inline]
    pub(crate) fn in_col(&self, o: usize, k: usize) -> Option<usize> {
        (o * self.sw + k)
            .checked_sub(self.pad_left)
            .filter(|&i| i < self.w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_and_valid_match_tensorflow() {
        assert_eq!(conv_output_size(5, 3, 1, Padding::Valid).unwrap(), (3, 0));
        assert_eq!(conv_output_size(5, 3, 2, Padding::Valid).unwrap(), (2, 0));
        assert_eq!(conv_output_size(5, 3, 1, Padding::Same).unwrap(), (5, 1));
        assert_eq!(conv_output_size(5, 2, 2, Padding::Same).unwrap(), (3, 0));
        assert_eq!(conv_output_size(4, 3, 2, Padding::Same).unwrap(), (2, 0));
        assert_eq!(conv_output_size(6, 3, 2, Padding::Same).unwrap(), (3, 0));
        assert_eq!(conv_output_size(7, 4, 1, Padding::Same).unwrap(), (7, 1));
        assert_eq!(conv_output_size(2, 3, 1, Padding::Valid).unwrap(), (0, 0));
        let e = conv_output_size(1, 3, 1, Padding::Valid).unwrap_err();
        assert_eq!(
            e.message(),
            "Computed output size would be negative: -1 [input_size: 1, effective_filter_size: 3, stride: 1]"
        );
    }
}
