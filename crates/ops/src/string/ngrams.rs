//! `StringNGrams` (`tf.strings.ngrams`): joins windows of adjacent strings of each row of a
//! ragged batch, optionally padded on both sides.
//!
//! weir has no RaggedTensor: [`NGrams::build`] takes a dense tensor and returns a dense one
//! (as TensorFlow does for dense input), and [`NGrams::build_ragged`] takes a ragged tensor of
//! ragged rank 1 as its flat values and row splits and returns the ngrams in the same form.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, Bytes, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output,
    Result, Shape, Tensor,
};

use super::StringsBuilder;
use crate::array::shape_util::to_i64s;
use crate::array::{constant, reshape, shape_typed, stack, strided_slice_items, SliceItem};
use crate::math::{add, cast, equal, floordiv, maximum, mul, range_from, Reduce};

/// `tf.strings.ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
/// preserve_short_sequences=False)`, as a builder holding TensorFlow's defaults.
///
/// ```
/// # use weir_graph::{Graph, Shape};
/// # use weir_ops::{array::{constant, reshape}, string::NGrams};
/// let g = Graph::new();
/// let words = reshape(constant(&g, ["a", "b", "c", "d", "e", "f"])?, vec![2i64, 3])?;
/// let bigrams = NGrams::new(2).build(&words)?; // [["a b", "b c"], ["d e", "e f"]]
/// assert_eq!(bigrams.shape(), Shape::new(vec![Some(2), None]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct NGrams {
    widths: Vec<i64>,
    /// Whether the widths were given as a list (TensorFlow's error prints them as given).
    listed: bool,
    separator: String,
    pad_values: Option<(String, String)>,
    padding_width: Option<i64>,
    preserve_short_sequences: bool,
    name: Option<String>,
}

impl NGrams {
    /// N-grams of one width (`ngram_width=n`).
    pub fn new(ngram_width: i64) -> NGrams {
        NGrams {
            widths: vec![ngram_width],
            listed: false,
            separator: " ".into(),
            pad_values: None,
            padding_width: None,
            preserve_short_sequences: false,
            name: None,
        }
    }

    /// N-grams of each width in turn (`ngram_width=(n1, n2, ...)`), in list order per row.
    pub fn widths(ngram_widths: &[i64]) -> NGrams {
        NGrams {
            widths: ngram_widths.to_vec(),
            listed: true,
            ..NGrams::new(1)
        }
    }

    /// The string between the joined elements (default `" "`).
    pub fn separator(mut self, separator: &str) -> NGrams {
        self.separator = separator.into();
        self
    }

    /// Pads both sides with `value` (`pad_values="value"`).
    pub fn pad_value(self, value: &str) -> NGrams {
        self.pad_values(value, value)
    }

    /// Pads the start with `left` and the end with `right` (`pad_values=(left, right)`).
    pub fn pad_values(mut self, left: &str, right: &str) -> NGrams {
        self.pad_values = Some((left.into(), right.into()));
        self
    }

    /// How many pad values go on each side (default: `ngram_width - 1`); needs pad values.
    pub fn padding_width(mut self, width: i64) -> NGrams {
        self.padding_width = Some(width);
        self
    }

    /// Makes one n-gram of a whole non-empty row too short for any width.
    pub fn preserve_short_sequences(mut self, preserve: bool) -> NGrams {
        self.preserve_short_sequences = preserve;
        self
    }

    /// The name scope of the added nodes (default `StringNGrams`).
    pub fn name(mut self, name: &str) -> NGrams {
        self.name = Some(name.into());
        self
    }

    /// The checks `tf.strings.ngrams` makes on its arguments before looking at the data.
    fn check_padding(&self) -> Result<()> {
        if self.padding_width.is_some_and(|w| w < 1) {
            return Err(Error::invalid_argument(
                "padding_width must be greater than 0.",
            ));
        }
        if self.padding_width.is_some() && self.pad_values.is_none() {
            return Err(Error::invalid_argument(
                "pad_values must be provided if padding_width is set.",
            ));
        }
        Ok(())
    }

    fn check_widths(&self) -> Result<()> {
        if self.widths.iter().all(|&w| w >= 1) {
            return Ok(());
        }
        let given = if self.listed {
            let w: Vec<String> = self.widths.iter().map(i64::to_string).collect();
            format!("[{}]", w.join(", "))
        } else {
            self.widths[0].to_string()
        };
        Err(Error::invalid_argument(format!(
            "All ngram_widths must be greater than 0. Got {given}"
        )))
    }

    /// The `StringNGrams` node over flat `values` and their row `splits`.
    fn op(&self, values: Output, splits: Output) -> Result<(Output, Output)> {
        let (left, right) = self.pad_values.clone().unwrap_or_default();
        let pad_width = match (&self.pad_values, self.padding_width) {
            (None, _) => 0,
            (Some(_), None) => -1,
            (Some(_), Some(w)) => w,
        };
        let g = values.graph().clone();
        let op = crate::new_op(&g, "StringNGrams")
            .input(values)
            .input(splits)
            .attr("separator", self.separator.as_str())
            .attr("ngram_widths", self.widths.clone())
            .attr("left_pad", left)
            .attr("right_pad", right)
            .attr("pad_width", pad_width)
            .attr("preserve_short_sequences", self.preserve_short_sequences)
            .build()?;
        Ok((op.output(0)?, op.output(1)?))
    }

    /// The n-grams of each row (the innermost dimension) of dense string `data`, as a tensor
    /// of shape `data.shape[:-1] + [num_ngrams]`. Fails as TensorFlow does when `data`'s rank
    /// is unknown or 0.
    pub fn build(&self, data: impl Into<Output>) -> Result<Output> {
        let data = data.into();
        self.check_padding()?;
        let g = data.graph().clone();
        let dims = match data.shape().dims() {
            None => return Err(Error::invalid_argument("Rank of data must be known.")),
            Some([]) => return Err(Error::invalid_argument("Data must have rank>0")),
            Some(d) => d.to_vec(),
        };
        self.check_widths()?;
        check_string(&data)?;
        let _scope = g.name_scope(self.name.as_deref().unwrap_or("StringNGrams"));
        let r = dims.len();
        let flat = if r == 1 {
            data.clone()
        } else {
            reshape(&data, vec![-1i64])?
        };
        let one = constant(&g, 1i64)?;
        let (outer, cols) = if dims.iter().all(Option::is_some) {
            // A uniform batch of known size: constant sizes, so the row splits fold too.
            let d: Vec<i64> = dims.iter().map(|x| x.unwrap_or(0) as i64).collect();
            let outer: Vec<Output> = d[..r - 1]
                .iter()
                .map(|&n| constant(&g, n))
                .collect::<Result<_>>()?;
            (outer, constant(&g, d[r - 1])?)
        } else {
            // Unknown sizes come from the data's shape at run time; the known ones stay
            // constants so the result's static shape keeps them.
            let shape = shape_typed(&data, DType::I64)?;
            let dim = |i: usize| -> Result<Output> {
                match dims[i] {
                    Some(n) => constant(&g, n as i64),
                    None => strided_slice_items(&shape, &[SliceItem::Index(i as i64)]),
                }
            };
            let outer = (0..r - 1).map(dim).collect::<Result<Vec<_>>>()?;
            (outer, dim(r - 1)?)
        };
        if r == 1 {
            let splits = stack(&[constant(&g, 0i64)?, cols], 0)?;
            return Ok(self.op(flat, splits)?.0);
        }
        let outer_vec = stack(&outer, 0)?;
        let rows = Reduce::prod().build(&outer_vec)?;
        let row_ids = range_from(&constant(&g, 0i64)?, &add(&rows, &one)?, &one)?;
        let (values, _) = self.op(flat, mul(row_ids, cols)?)?;
        let mut target = outer;
        target.push(last_dim(&values, &rows, &outer_vec, &one)?);
        reshape(&values, stack(&target, 0)?)
    }

    /// The n-grams of a ragged batch given as its flat string `values` and int32/int64
    /// `row_splits` (a RaggedTensor of ragged rank 1): the n-grams' flat values and their row
    /// splits, of `row_splits`' dtype.
    pub fn build_ragged(
        &self,
        values: impl Into<Output>,
        row_splits: impl Into<Output>,
    ) -> Result<(Output, Output)> {
        let (values, row_splits) = (values.into(), row_splits.into());
        self.check_padding()?;
        self.check_widths()?;
        let g = crate::util::same_graph(&[&values, &row_splits])?.clone();
        let _scope = g.name_scope(self.name.as_deref().unwrap_or("StringNGrams"));
        self.op(values, row_splits)
    }
}

/// `tf.strings.ngrams(data, ngram_width)` with the other arguments at their defaults:
/// `ngram_width`-grams of each row of dense `data`, joined with spaces, unpadded.
pub fn ngrams(data: impl Into<Output>, ngram_width: i64) -> Result<Output> {
    NGrams::new(ngram_width).build(data)
}

/// The n-gram count per row that TensorFlow's `reshape(values, outer + [-1])` infers:
/// `size / rows`, except that with no rows its Reshape leaves zero sizes out of both products,
/// giving `1 / prod(nonzero outer sizes)` (so `[0, 3]` data gives `[0, 1]`). Spelled out
/// rather than left to `-1` so the result does not depend on how Reshape treats empty tensors.
fn last_dim(values: &Output, rows: &Output, outer: &Output, one: &Output) -> Result<Output> {
    let size = strided_slice_items(shape_typed(values, DType::I64)?, &[SliceItem::Index(0)])?;
    let no_rows = cast(
        equal(rows, constant(&values.graph().clone(), 0i64)?)?,
        DType::I64,
    )?;
    let nonzero = Reduce::prod().build(maximum(outer, one)?)?;
    floordiv(add(size, no_rows)?, nonzero)
}

fn check_string(data: &Output) -> Result<()> {
    match data.dtype() {
        DType::String => Ok(()),
        dt => Err(Error::invalid_argument(format!(
            "Tensor conversion requested dtype string for Tensor with dtype {dt}"
        ))),
    }
}

/// TensorFlow's shape function: rank-1 data and splits; the ngrams' count is unknown and
/// their splits have the input splits' shape.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::unknown_of_rank(1));
    ctx.with_rank(0, 1)?;
    let splits = ctx.with_rank(1, 1)?;
    ctx.set_output(1, splits);
    Ok(())
}

struct NGramsKernel {
    separator: Bytes,
    widths: Vec<i64>,
    left_pad: Bytes,
    right_pad: Bytes,
    pad_width: i64,
    preserve_short: bool,
}

/// The largest value of TensorFlow's `int`, which bounds its padded lengths.
const INT_MAX: i64 = i32::MAX as i64;

impl NGramsKernel {
    /// Padding on each side for `width`: `pad_width`, or `width - 1` when negative, but never
    /// more than `width - 1`.
    fn pad_for(&self, width: i64) -> i64 {
        let p = if self.pad_width < 0 {
            width - 1
        } else {
            self.pad_width
        };
        p.min(width - 1)
    }

    fn count(&self, len: i64, width: i64) -> Result<i64> {
        let pad = self.pad_for(width);
        if pad > INT_MAX / 2 - len {
            return Err(Error::invalid_argument(format!(
                "Pad width could lead to integer overflow, got pad_width = {pad}"
            )));
        }
        Ok((len + 2 * pad - width + 1).max(0))
    }

    /// Writes the `n` n-grams of `width` of `row`, padded with `pad` on each side.
    fn write(&self, row: &[Bytes], n: i64, width: i64, pad: i64, out: &mut StringsBuilder) {
        let sep = &self.separator[..];
        for k in 0..n {
            let left = (pad - k).max(0);
            let right = (pad - (n - k - 1)).max(0);
            let tokens = width - left - right;
            let start = if left > 0 { 0 } else { (k - pad) as usize };
            let buf = out.buf();
            for _ in 0..left {
                buf.extend_from_slice(&self.left_pad);
                buf.extend_from_slice(sep);
            }
            if tokens > 0 {
                let words = &row[start..start + tokens as usize];
                for (i, w) in words.iter().enumerate() {
                    if i > 0 {
                        buf.extend_from_slice(sep);
                    }
                    buf.extend_from_slice(w);
                }
                for _ in 0..right {
                    buf.extend_from_slice(sep);
                    buf.extend_from_slice(&self.right_pad);
                }
            } else {
                // Without tokens the left padding already ended in a separator, so the
                // n-gram ends on a right pad rather than a separator.
                for i in 0..right.max(1) {
                    if i > 0 {
                        buf.extend_from_slice(sep);
                    }
                    buf.extend_from_slice(&self.right_pad);
                }
            }
            out.finish_one();
        }
    }
}

/// Row splits of the input's dtype.
fn splits_tensor(dtype: DType, shape: &[usize], v: Vec<i64>) -> Result<Tensor> {
    match dtype {
        DType::I32 => Tensor::from_vec(shape, v.into_iter().map(|x| x as i32).collect()),
        _ => Tensor::from_vec(shape, v),
    }
}

impl Kernel for NGramsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if self.widths.iter().any(|&w| w <= 0) {
            return Err(Error::invalid_argument(
                "ngram_widths must contain positive values",
            ));
        }
        let (data, splits_t) = (ctx.input(0), ctx.input(1));
        let strings = data.as_slice::<Bytes>()?;
        let splits = to_i64s(splits_t)?;
        let size = strings.len() as i64;
        if let Some(&first) = splits.first() {
            if first != 0 {
                return Err(Error::invalid_argument(format!(
                    "First split value must be 0, got {first}"
                )));
            }
            let mut prev = first;
            for &s in &splits[1..] {
                if s < prev || s > size {
                    return Err(Error::invalid_argument(format!(
                        "Invalid split value {s}, must be in [{prev}, {size}]"
                    )));
                }
                prev = s;
            }
            if prev != size {
                return Err(Error::invalid_argument(format!(
                    "Last split value must be data size. Expected {size}, got {prev}"
                )));
            }
        }
        let (dtype, splits_shape) = (splits_t.dtype(), splits_t.shape().to_vec());
        if strings.is_empty() || splits.is_empty() {
            // TensorFlow returns the data's shape of empty strings and all-zero splits.
            let empty = vec![Bytes::new(); strings.len()];
            let out = Tensor::from_vec(data.shape(), empty)?;
            let zeros = splits_tensor(dtype, &splits_shape, vec![0; splits.len()])?;
            ctx.set_output(0, out);
            ctx.set_output(1, zeros);
            return Ok(());
        }
        let mut out_splits = Vec::with_capacity(splits.len());
        out_splits.push(0i64);
        for w in splits.windows(2) {
            let len = w[1] - w[0];
            let mut n = 0;
            for &width in &self.widths {
                n += self.count(len, width)?;
            }
            if self.preserve_short && len > 0 && n == 0 {
                n = 1;
            }
            out_splits.push(out_splits[out_splits.len() - 1] + n);
        }
        let total = out_splits[out_splits.len() - 1] as usize;
        let mut out = StringsBuilder::with_capacity(total, 8);
        for w in splits.windows(2) {
            let row = &strings[w[0] as usize..w[1] as usize];
            let len = row.len() as i64;
            let mut made = 0;
            for &width in &self.widths {
                let n = self.count(len, width)?;
                self.write(row, n, width, self.pad_for(width), &mut out);
                made += n;
            }
            if self.preserve_short && made == 0 && len > 0 {
                if self.pad_width < 0 {
                    return Err(Error::invalid_argument(format!(
                        "Pad width should be >= 0 when preserve_short_sequences is True and \
                         ngram_widths are not provided, got {}",
                        self.pad_width
                    )));
                }
                // One n-gram of the whole row with its full padding.
                let width = len + 2 * self.pad_width;
                self.write(row, 1, width, self.pad_for(width), &mut out);
            }
        }
        ctx.set_output(0, out.build(&[total])?);
        ctx.set_output(1, splits_tensor(dtype, &splits_shape, out_splits)?);
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("StringNGrams")
            .input("data", ArgType::Fixed(DType::String))
            .input("data_splits", ArgType::Attr("Tsplits"))
            .output("ngrams", ArgType::Fixed(DType::String))
            .output("ngrams_splits", ArgType::Attr("Tsplits"))
            .attr("separator", AttrKind::Str, None)
            .attr("ngram_widths", AttrKind::Ints, None)
            .attr("left_pad", AttrKind::Str, None)
            .attr("right_pad", AttrKind::Str, None)
            .attr("pad_width", AttrKind::Int, None)
            .attr("preserve_short_sequences", AttrKind::Bool, None)
            .type_attr("Tsplits", &[DType::I32, DType::I64])
            .shape_fn(shape_fn),
    );
    register_kernel("StringNGrams", |node| {
        // TensorFlow reads these attrs as C++ ints.
        let widths: Vec<i64> = node.attr("ngram_widths")?;
        let pad_width: i64 = node.attr("pad_width")?;
        for (attr, v) in widths
            .iter()
            .map(|&w| ("ngram_widths", w))
            .chain([("pad_width", pad_width)])
        {
            if i32::try_from(v).is_err() {
                return Err(Error::invalid_argument(format!(
                    "Attr {attr} has value {v} out of range for an int32"
                )));
            }
        }
        Ok(Box::new(NGramsKernel {
            separator: Bytes::from(node.attr::<String>("separator")?),
            widths,
            left_pad: Bytes::from(node.attr::<String>("left_pad")?),
            right_pad: Bytes::from(node.attr::<String>("right_pad")?),
            pad_width,
            preserve_short: node.attr("preserve_short_sequences")?,
        }))
    });
}
