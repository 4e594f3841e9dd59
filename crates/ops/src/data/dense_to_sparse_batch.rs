//! `tf.data.experimental.dense_to_sparse_batch` (op `DenseToSparseBatchDataset`): elements of
//! different shapes batched into one sparse tensor each, every value of an element kept
//! (zeros too).

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{format_dims, ArgType, DType, Error, Kernel, OpContext, Result, Shape, Tensor};

use super::arg::I64Arg;
use super::batch::next_batch;
use super::structure::SparseSpec;
use super::{
    dataset_def, dataset_tensor, input_dataset, Dataset, DatasetBase, Element, IteratorBase,
    IteratorContext,
};
use crate::data_flow::pieces::concat_rows;
use crate::sparse::serialize::kernels::serialized;

impl Dataset {
    /// `dataset.apply(tf.data.experimental.dense_to_sparse_batch(batch_size, row_shape))`:
    /// `batch_size` consecutive elements (fewer at the end) as one sparse tensor of dense shape
    /// `[n] + row_shape`, an unknown dimension of `row_shape` being the batch's largest. The
    /// dataset must have one component, of the rank of `row_shape`; an element larger than
    /// `row_shape` is DataLoss, as in TensorFlow.
    ///
    /// ```
    /// use weir_graph::{DType, Graph, Shape};
    /// use weir_ops::data::{ComponentSpec, Dataset};
    ///
    /// let g = Graph::new();
    /// let ds = Dataset::range(&g, 1, 5, 1)?
    ///     .map(|x| Ok(vec![weir_ops::array::fill(weir_ops::array::expand_dims(&x[0], 0)?, &x[0])?]))?
    ///     .dense_to_sparse_batch(2, &Shape::new(vec![None]))?;
    /// let spec = ComponentSpec::Sparse { dtype: DType::I64, shape: Shape::new(vec![None, None]) };
    /// assert_eq!(ds.element_spec(), vec![spec]);
    /// // In a session: dense shapes [2, 2] ([1], [2, 2]) and [2, 4] ([3, 3, 3], [4, 4, 4, 4]).
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn dense_to_sparse_batch(
        &self,
        batch_size: impl Into<I64Arg>,
        row_shape: &Shape,
    ) -> Result<Dataset> {
        self.dense_only("dense_to_sparse_batch")?;
        let Some(row) = row_shape.dims() else {
            return Err(Error::invalid_argument(
                "dense_to_sparse_batch needs a row_shape of known rank",
            ));
        };
        if self.output_types().len() != 1 {
            return Err(Error::invalid_argument(format!(
                "dense_to_sparse_batch takes a dataset of one component, not {}",
                self.output_types().len()
            )));
        }
        let g = self.graph();
        let batch_size = batch_size.into();
        let row_values: Vec<i64> = row.iter().map(|d| d.map_or(-1, |n| n as i64)).collect();
        let ds = Dataset::build(
            crate::new_op(g, "DenseToSparseBatchDataset")
                .input(self.handle())
                .input(batch_size.to_output(g, "batch_size", true)?)
                .input(crate::array::constant_named(g, row_values, "row_shape")?),
            vec![DType::String],
            vec![Shape::new(vec![Some(3)])],
        )?;
        let mut shape = vec![None];
        shape.extend_from_slice(row);
        Ok(ds.with_sparse(vec![Some(SparseSpec {
            dtype: self.output_types()[0],
            shape: Shape::new(shape),
        })]))
    }
}

struct DenseToSparseBatch {
    input: Arc<dyn DatasetBase>,
    batch_size: usize,
    /// -1 for a dimension taken from the batch.
    row_shape: Vec<i64>,
}

impl DatasetBase for DenseToSparseBatch {
    fn output_dtypes(&self) -> &[DType] {
        &[DType::String]
    }

    fn cardinality(&self) -> i64 {
        super::batch::batched_cardinality(self.input.cardinality(), self.batch_size, false)
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(DenseToSparseBatchIter {
            input: Some(self.input.make_iterator()?),
            batch_size: self.batch_size,
            row_shape: self.row_shape.clone(),
        }))
    }
}

struct DenseToSparseBatchIter {
    input: Option<Box<dyn IteratorBase>>,
    batch_size: usize,
    row_shape: Vec<i64>,
}

impl IteratorBase for DenseToSparseBatchIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        match next_batch(&mut self.input, ctx, self.batch_size, false)? {
            Some(elements) => Ok(Some(vec![sparse_batch(&elements, &self.row_shape)?])),
            None => Ok(None),
        }
    }
}

/// The row shape as TensorFlow's `PartialTensorShape` prints it: `[?,2]`.
fn show_row(row: &[i64]) -> String {
    let dims: Vec<String> = row
        .iter()
        .map(|&d| {
            if d < 0 {
                "?".to_string()
            } else {
                d.to_string()
            }
        })
        .collect();
    format!("[{}]", dims.join(","))
}

/// The serialized sparse tensor of `elements` (one component each) in rows of `row_shape`.
fn sparse_batch(elements: &[Element], row_shape: &[i64]) -> Result<Tensor> {
    let rank = row_shape.len();
    let mut dense: Vec<i64> = row_shape.iter().map(|&d| d.max(0)).collect();
    let mut total = 0usize;
    for e in elements {
        let t = &e[0];
        let shape = t.shape();
        let message = |what: &str| {
            format!(
                "Input element had shape ({}) that is {what} the row shape ({}).",
                format_dims(shape),
                show_row(row_shape)
            )
        };
        if shape.len() != rank {
            return Err(Error::invalid_argument(message("incompatible with")));
        }
        for (k, (&d, &r)) in shape.iter().zip(row_shape).enumerate() {
            let d = d as i64;
            if r >= 0 && d > r {
                return Err(Error::data_loss(message("larger than")));
            }
            if r < 0 {
                dense[k] = dense[k].max(d);
            }
        }
        total += t.num_elements();
    }
    let mut indices: Vec<i64> = Vec::with_capacity(total * (rank + 1));
    for (i, e) in elements.iter().enumerate() {
        let shape = e[0].shape();
        // Row-major strides: each value's coordinates are its flat position divided down.
        let mut strides = vec![1usize; rank];
        for k in (0..rank.saturating_sub(1)).rev() {
            strides[k] = strides[k + 1] * shape[k + 1];
        }
        for j in 0..e[0].num_elements() {
            indices.push(i as i64);
            indices.extend((0..rank).map(|k| ((j / strides[k]) % shape[k]) as i64));
        }
    }
    let parts: Vec<Tensor> = elements.iter().map(|e| e[0].clone()).collect();
    let values = concat_rows(elements[0][0].dtype(), &parts, &[total])?;
    let mut shape = Vec::with_capacity(rank + 1);
    shape.push(elements.len() as i64);
    shape.extend_from_slice(&dense);
    serialized(
        &Tensor::from_vec(&[total, rank + 1], indices)?,
        &values,
        &Tensor::from(shape),
    )
}

struct DenseToSparseBatchKernel;

impl Kernel for DenseToSparseBatchKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let batch_size = ctx.input(1).to_scalar::<i64>()?;
        if batch_size <= 0 {
            return Err(Error::invalid_argument(
                "Batch size must be greater than zero.",
            ));
        }
        let row_shape = ctx.input(2).to_vec::<i64>()?;
        ctx.set_output(
            0,
            dataset_tensor(Arc::new(DenseToSparseBatch {
                input,
                batch_size: batch_size as usize,
                row_shape,
            })),
        );
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        dataset_def("DenseToSparseBatchDataset")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .input("batch_size", ArgType::Fixed(DType::I64))
            .input("row_shape", ArgType::Fixed(DType::I64)),
    );
    register_kernel("DenseToSparseBatchDataset", |_| {
        Ok(Box::new(DenseToSparseBatchKernel))
    });
}
