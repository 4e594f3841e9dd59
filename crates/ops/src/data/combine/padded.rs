//! `PaddedBatchDatasetV2` (`Dataset.padded_batch`): consecutive elements padded to a common
//! shape and stacked along a new first dimension.

use std::sync::Arc;

use ndarray::{Axis, Slice};
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    match_data_dtype, ArgType, AttrKind, AttrValue, DType, Error, Kernel, OpContext, Output,
    Result, Shape, Tensor, TensorType,
};

use super::super::batch::next_batch;
use super::super::{
    dataset_def, dataset_tensor, input_dataset, Dataset, DatasetBase, Element, IteratorBase,
    IteratorContext,
};

struct PaddedBatch {
    input: Arc<dyn DatasetBase>,
    batch_size: usize,
    drop_remainder: bool,
    /// Per component, each dimension's padded size; `None` pads to the batch's largest.
    padded_shapes: Vec<Vec<Option<usize>>>,
    /// Per component, a scalar of its dtype.
    padding_values: Vec<Tensor>,
}

impl DatasetBase for PaddedBatch {
    fn cardinality(&self) -> i64 {
        super::super::batch::batched_cardinality(
            self.input.cardinality(),
            self.batch_size,
            self.drop_remainder,
        )
    }

    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(PaddedBatchIter {
            input: Some(self.input.make_iterator()?),
            batch_size: self.batch_size,
            drop_remainder: self.drop_remainder,
            padded_shapes: self.padded_shapes.clone(),
            padding_values: self.padding_values.clone(),
        }))
    }
}

struct PaddedBatchIter {
    /// `None` once the input has ended.
    input: Option<Box<dyn IteratorBase>>,
    batch_size: usize,
    drop_remainder: bool,
    padded_shapes: Vec<Vec<Option<usize>>>,
    padding_values: Vec<Tensor>,
}

impl IteratorBase for PaddedBatchIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        let Some(elements) =
            next_batch(&mut self.input, ctx, self.batch_size, self.drop_remainder)?
        else {
            return Ok(None);
        };
        (0..self.padded_shapes.len())
            .map(|c| {
                let parts = elements
                    .iter()
                    .map(|e| {
                        e.get(c).ok_or_else(|| {
                            Error::internal(format!("An input element has no component {c}"))
                        })
                    })
                    .collect::<Result<Vec<&Tensor>>>()?;
                pad_component(c, &parts, &self.padded_shapes[c], &self.padding_values[c])
            })
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }
}

/// Component `c` of a batch: `parts` padded to `padded` (unknown dimensions to the largest
/// part's) with `pad`, one after the other.
fn pad_component(
    c: usize,
    parts: &[&Tensor],
    padded: &[Option<usize>],
    pad: &Tensor,
) -> Result<Tensor> {
    let mut shape = Vec::with_capacity(padded.len() + 1);
    shape.push(parts.len());
    shape.extend(padded.iter().map(|d| d.unwrap_or(0)));
    for p in parts {
        if p.rank() != padded.len() {
            return Err(Error::invalid_argument(format!(
                "All elements in a batch must have the same rank as the padded shape for \
                 component{c}: expected rank {} but got element with rank {}",
                padded.len(),
                p.rank()
            )));
        }
        for (j, (&d, want)) in p.shape().iter().zip(padded).enumerate() {
            match want {
                None => shape[j + 1] = shape[j + 1].max(d),
                Some(w) if d > *w => {
                    return Err(Error::data_loss(
                        "Attempted to pad to a smaller size than the input element.",
                    ))
                }
                Some(_) => {}
            }
        }
    }
    fn go<T: TensorType>(parts: &[&Tensor], shape: &[usize], pad: &Tensor) -> Result<Tensor> {
        let mut out = Tensor::filled::<T>(shape, pad.to_scalar::<T>()?);
        {
            let mut view = out.view_mut::<T>()?;
            for (row, p) in parts.iter().enumerate() {
                if p.num_elements() == 0 {
                    continue;
                }
                let mut slot = view.index_axis_mut(Axis(0), row);
                for (ax, &d) in p.shape().iter().enumerate() {
                    slot.slice_axis_inplace(Axis(ax), Slice::from(0..d));
                }
                slot.assign(&p.view::<T>()?);
            }
        }
        Ok(out)
    }
    let dtype = pad.dtype();
    match_data_dtype!(dtype, T => go::<T>(parts, &shape, pad),
        _ => Err(Error::unimplemented(format!("padded_batch cannot pad {dtype} tensors"))))
}

struct PaddedBatchKernel;

impl Kernel for PaddedBatchKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let batch_size = ctx.input(1).to_scalar::<i64>()?;
        if batch_size <= 0 {
            return Err(Error::invalid_argument(
                "Batch size must be greater than zero.",
            ));
        }
        let n: i64 = ctx.node().attr("N")?;
        let n = n.max(0) as usize;
        let components = input.output_dtypes().len();
        if n != components {
            return Err(Error::invalid_argument(format!(
                "Number of padded shapes ({n}) must match the number of components in the \
                 input dataset's elements ({components})"
            )));
        }
        let num_inputs = ctx.inputs().len();
        if num_inputs != 3 + 2 * n {
            return Err(Error::invalid_argument(format!(
                "Number of padding values ({}) must match the number of components in the \
                 input dataset's elements ({components})",
                num_inputs.saturating_sub(3 + n)
            )));
        }
        let mut padded_shapes = Vec::with_capacity(n);
        for i in 0..n {
            let t = ctx.input(2 + i);
            if t.rank() != 1 {
                return Err(Error::invalid_argument("All padded shapes must be vectors"));
            }
            let dims = t
                .as_slice::<i64>()?
                .iter()
                .map(|&d| match d {
                    -1 => Ok(None),
                    d if d < -1 => Err(Error::invalid_argument(format!(
                        "Dimension {d} must be >= -1"
                    ))),
                    d => Ok(Some(d as usize)),
                })
                .collect::<Result<Vec<_>>>()?;
            padded_shapes.push(dims);
        }
        let mut padding_values = Vec::with_capacity(n);
        for i in 0..n {
            let t = ctx.input(2 + n + i);
            if t.rank() != 0 {
                return Err(Error::invalid_argument(
                    "All padding values must be scalars",
                ));
            }
            let want = input.output_dtypes()[i];
            if t.dtype() != want {
                return Err(Error::invalid_argument(format!(
                    "Mismatched type between padding value {i} and input dataset's component \
                     {i}: {} vs. {want}",
                    t.dtype()
                )));
            }
            padding_values.push(t.clone());
        }
        let drop_remainder = ctx.input(2 + 2 * n).to_scalar::<bool>()?;
        ctx.set_output(
            0,
            dataset_tensor(Arc::new(PaddedBatch {
                input,
                batch_size: batch_size as usize,
                drop_remainder,
                padded_shapes,
                padding_values,
            })),
        );
        Ok(())
    }
}

/// TensorFlow's `ValueError` for a `padded_shapes` or `padding_values` list of the wrong
/// length (`nest`'s words).
fn structure_error(input: usize, shallow: usize) -> Error {
    Error::invalid_argument(format!(
        "The two structures don't have the same sequence length. Input structure has length \
         {input}, while shallow structure has length {shallow}."
    ))
}

/// Whether an element of static shape `input` can be padded to `padded`.
fn can_pad(padded: &Shape, input: &Shape) -> bool {
    match (padded.dims(), input.dims()) {
        (Some(p), Some(i)) => {
            p.len() == i.len()
                && p.iter()
                    .zip(i)
                    .all(|(p, i)| !matches!((p, i), (Some(p), Some(i)) if p < i))
        }
        _ => true,
    }
}

impl Dataset {
    /// `dataset.padded_batch(batch_size, padded_shapes, padding_values, drop_remainder)`:
    /// consecutive elements padded to `padded_shapes` (by default the components' static
    /// shapes; an unknown dimension pads to the batch's largest) with `padding_values` (scalars,
    /// by default `0` / `""`; one value serves every component) and stacked, as
    /// [`batch_with`](Self::batch_with) does (op `PaddedBatchDatasetV2`).
    ///
    /// ```
    /// use weir_graph::{Graph, Shape};
    /// use weir_ops::array::{constant, fill, stack};
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// // [1], [2, 2], [3, 3, 3]
    /// let ragged = Dataset::range(&g, 1, 4, 1)?.map(|x| Ok(vec![fill(stack(&x[..1], 0)?, &x[0])?]))?;
    /// let ds = ragged.padded_batch(2, Some(&[Shape::known(&[4])]), Some(&[constant(&g, -1i64)?]), false)?;
    /// assert_eq!(ds.output_shapes(), &[Shape::new(vec![None, Some(4)])]);
    /// // In a session: [[1, -1, -1, -1], [2, 2, -1, -1]], [[3, 3, 3, -1]], then OutOfRange.
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn padded_batch(
        &self,
        batch_size: i64,
        padded_shapes: Option<&[Shape]>,
        padding_values: Option<&[Output]>,
        drop_remainder: bool,
    ) -> Result<Dataset> {
        self.dense_only("dataset.padded_batch")?;
        let g = self.graph();
        let (padded, values) = self.padded_batch_arguments(padded_shapes, padding_values)?;
        let dim = (drop_remainder && batch_size > 0).then_some(batch_size as usize);
        let mut shape_tensors = Vec::with_capacity(padded.len());
        for p in &padded {
            let dims: Vec<i64> = p
                .dims()
                .unwrap_or(&[])
                .iter()
                .map(|d| d.map_or(-1, |d| d as i64))
                .collect();
            shape_tensors.push(crate::array::constant(g, Tensor::from(dims))?);
        }
        let out_shapes = padded.iter().map(|p| p.with_leading(dim)).collect();
        self.padded_batch_op(
            &crate::array::constant(g, batch_size)?,
            shape_tensors,
            values,
            drop_remainder,
            out_shapes,
        )
    }

    /// `padded_batch`'s `padded_shapes` and `padding_values` checked and filled in with
    /// TensorFlow's defaults, in its order and words.
    pub(crate) fn padded_batch_arguments(
        &self,
        padded_shapes: Option<&[Shape]>,
        padding_values: Option<&[Output]>,
    ) -> Result<(Vec<Shape>, Vec<Output>)> {
        let g = self.graph();
        let (dtypes, in_shapes) = (self.output_types(), self.output_shapes());
        let n = dtypes.len();
        // TensorFlow's order: the padding values' structure, then the padded shapes, then each
        // padding value.
        if let Some(v) = padding_values {
            if v.len() != 1 && v.len() != n {
                return Err(structure_error(n, v.len()));
            }
        }
        let padded: Vec<Shape> = match padded_shapes {
            None => {
                if let Some(i) = in_shapes.iter().position(|s| s.rank().is_none()) {
                    return Err(Error::invalid_argument(format!(
                        "You must provide `padded_shapes` argument because component {i} has \
                         unknown rank."
                    )));
                }
                in_shapes.to_vec()
            }
            Some(p) => {
                if p.len() != n {
                    return Err(structure_error(p.len(), n));
                }
                p.to_vec()
            }
        };
        for (p, s) in padded.iter().zip(in_shapes) {
            if p.rank().is_none() {
                return Err(Error::invalid_argument(
                    "Cannot convert a partially known TensorShape <unknown> to a Tensor.",
                ));
            }
            if !can_pad(p, s) {
                return Err(Error::invalid_argument(format!(
                    "The padded shape {} is not compatible with the shape {} of the \
                     corresponding input component.",
                    p.python_str(),
                    s.python_str()
                )));
            }
        }
        let mut values = Vec::with_capacity(n);
        for (i, &dtype) in dtypes.iter().enumerate() {
            let v = match padding_values {
                Some([one]) => one.clone(),
                Some(v) => v[i].clone(),
                None => crate::array::constant(g, Tensor::zeros(dtype, &[])?)?,
            };
            if !v.shape().is_compatible_with(&Shape::scalar()) {
                return Err(Error::invalid_argument(format!(
                    "Invalid `padding_values`. `padding_values` values should be scalars, but \
                     got {}.",
                    v.shape().python_str()
                )));
            }
            if v.dtype() != dtype {
                return Err(Error::invalid_argument(format!(
                    "Invalid `padding_values`. `padding_values` values type <dtype: '{}'> does \
                     not match type <dtype: '{}'> of the corresponding input component.",
                    v.dtype().python_name(),
                    dtype.python_name()
                )));
            }
            values.push(v);
        }
        Ok((padded, values))
    }

    /// The `PaddedBatchDatasetV2` op of checked arguments given as tensors (a batch size and
    /// padded shapes a function computes), with the static shapes `out_shapes`.
    pub(crate) fn padded_batch_op(
        &self,
        batch_size: &Output,
        padded_shapes: Vec<Output>,
        padding_values: Vec<Output>,
        drop_remainder: bool,
        out_shapes: Vec<Shape>,
    ) -> Result<Dataset> {
        let g = self.graph();
        let dtypes = self.output_types();
        let b = crate::new_op(g, "PaddedBatchDatasetV2")
            .input(self.handle().clone())
            .input(batch_size.clone())
            .inputs(padded_shapes)
            .inputs(padding_values)
            .input(crate::array::constant(g, drop_remainder)?)
            .attr("N", dtypes.len() as i64)
            .attr("Toutput_types", dtypes.to_vec());
        Dataset::build(b, dtypes.to_vec(), out_shapes)
    }
}

pub(super) fn register() {
    register_op(
        dataset_def("PaddedBatchDatasetV2")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .input("batch_size", ArgType::Fixed(DType::I64))
            .input(
                "padded_shapes",
                ArgType::RepeatedFixed {
                    count: "N",
                    dtype: DType::I64,
                },
            )
            .input("padding_values", ArgType::List("Toutput_types"))
            .input("drop_remainder", ArgType::Fixed(DType::Bool))
            .attr(
                "parallel_copy",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .attr("Toutput_types", AttrKind::Types, None)
            .int_attr_min("N", 1),
    );
    register_kernel("PaddedBatchDatasetV2", |_| Ok(Box::new(PaddedBatchKernel)));
}
