//! The graph side of `tf.compat.v1.data.Iterator`: [`Iterator`], made from a [`Dataset`] or
//! from a structure, whose `get_next` reads the elements.

use weir_graph::{DType, Error, Graph, OpBuilder, Operation, Output, Result, Shape};

use super::builders::{dense_only, Dataset};
use super::structure::{self, Component, ComponentSpec, SparseSpec};

/// An iterator over a dataset in a graph: TensorFlow's `tf.compat.v1.data.Iterator`.
#[derive(Clone, Debug)]
pub struct Iterator {
    handle: Output,
    initializer: Option<Operation>,
    dtypes: Vec<DType>,
    shapes: Vec<Shape>,
    /// Per component: what a sparse one is (`None` for a dense one).
    sparse: Vec<Option<SparseSpec>>,
}

impl Iterator {
    /// `Iterator.from_structure(output_types, output_shapes)`: an iterator not bound to a
    /// dataset, which [`make_initializer`](Self::make_initializer) points at any dataset of
    /// that structure (op `IteratorV2`): one iterator for a training and a validation dataset.
    pub fn from_structure(g: &Graph, dtypes: &[DType], shapes: &[Shape]) -> Result<Iterator> {
        Iterator::of_op(
            crate::new_op(g, "IteratorV2").name("Iterator"),
            dtypes,
            shapes,
        )
    }

    /// The iterator that `b` (an op with a handle output) makes, of elements of `dtypes` and
    /// `shapes`.
    pub(super) fn of_op(b: OpBuilder, dtypes: &[DType], shapes: &[Shape]) -> Result<Iterator> {
        if dtypes.len() != shapes.len() {
            return Err(Error::invalid_argument(format!(
                "{} output types and {} output shapes",
                dtypes.len(),
                shapes.len()
            )));
        }
        let op = b
            .attr("output_types", dtypes.to_vec())
            .attr("output_shapes", shapes.to_vec())
            .build()?;
        Ok(Iterator {
            handle: op.output(0)?,
            initializer: None,
            dtypes: dtypes.to_vec(),
            shapes: shapes.to_vec(),
            sparse: vec![None; dtypes.len()],
        })
    }

    /// This iterator with `initializer` as the op that (re)starts it.
    pub(super) fn with_initializer(mut self, initializer: Operation) -> Iterator {
        self.initializer = Some(initializer);
        self
    }

    /// This iterator with the sparse components `sparse` marks.
    pub(super) fn with_sparse(mut self, sparse: Vec<Option<SparseSpec>>) -> Iterator {
        self.sparse = sparse;
        self
    }

    /// `Iterator.from_structure(element_spec)`: [`from_structure`](Self::from_structure) for
    /// elements that may have sparse components, given as a dataset's
    /// [`element_spec`](Dataset::element_spec).
    pub fn from_element_spec(g: &Graph, spec: &[ComponentSpec]) -> Result<Iterator> {
        let (dtypes, shapes, sparse) = structure::encoded(spec);
        Ok(Iterator::from_structure(g, &dtypes, &shapes)?.with_sparse(sparse))
    }

    /// `Iterator.from_string_handle(string_handle, output_types, output_shapes)`: a feedable
    /// iterator that reads whichever iterator's [`string_handle`](Self::string_handle) is fed to
    /// `string_handle` in a run (op `IteratorFromStringHandleV2`): one `get_next` for a
    /// training and a validation iterator that each keep their place.
    pub fn from_string_handle(
        string_handle: &Output,
        dtypes: &[DType],
        shapes: &[Shape],
    ) -> Result<Iterator> {
        Iterator::of_op(
            crate::new_op(string_handle.graph(), "IteratorFromStringHandleV2").input(string_handle),
            dtypes,
            shapes,
        )
    }

    /// [`from_string_handle`](Self::from_string_handle) for elements that may have sparse
    /// components, given as a dataset's [`element_spec`](Dataset::element_spec).
    pub fn from_string_handle_with_spec(
        string_handle: &Output,
        spec: &[ComponentSpec],
    ) -> Result<Iterator> {
        let (dtypes, shapes, sparse) = structure::encoded(spec);
        Ok(Iterator::from_string_handle(string_handle, &dtypes, &shapes)?.with_sparse(sparse))
    }

    /// `iterator.string_handle()`: a string scalar naming this iterator, to feed to a
    /// [`from_string_handle`](Self::from_string_handle) iterator (op `IteratorToStringHandle`).
    pub fn string_handle(&self) -> Result<Output> {
        crate::new_op(self.handle.graph(), "IteratorToStringHandle")
            .input(&self.handle)
            .build()?
            .output(0)
    }

    /// The iterator's resource handle (`iterator._iterator_resource`).
    pub fn handle(&self) -> &Output {
        &self.handle
    }

    /// The initializer of an iterator made by
    /// [`make_initializable_iterator`](Dataset::make_initializable_iterator) (`iterator.initializer`).
    pub fn initializer(&self) -> Result<Operation> {
        self.initializer.clone().ok_or_else(|| {
            Error::invalid_argument(
                "This iterator has no initializer: it was made by make_one_shot_iterator or \
                 from_structure (use make_initializer)",
            )
        })
    }

    /// `iterator.make_initializer(dataset)`: an op that (re)starts the iterator at `dataset`'s
    /// first element (op `MakeIterator`). The dataset's types must be the iterator's, and its
    /// shapes compatible.
    pub fn make_initializer(&self, dataset: &Dataset) -> Result<Operation> {
        let sparse_fits = |a: &Option<SparseSpec>, b: &Option<SparseSpec>| match (a, b) {
            (Some(a), Some(b)) => a.dtype == b.dtype && b.shape.is_compatible_with(&a.shape),
            (None, None) => true,
            _ => false,
        };
        let theirs = dataset.sparse_specs();
        if theirs.len() != self.sparse.len()
            || theirs
                .iter()
                .zip(&self.sparse)
                .any(|(a, b)| !sparse_fits(a, b))
        {
            return Err(Error::invalid_argument(format!(
                "Expected element spec {} but got dataset with element spec {}.",
                structure::python_element_spec(&self.element_spec()),
                structure::python_element_spec(&dataset.element_spec())
            )));
        }
        if dataset.output_types() != self.dtypes {
            return Err(Error::invalid_argument(format!(
                "Expected output types {} but got dataset with output types {}.",
                tf_types(&self.dtypes),
                tf_types(dataset.output_types())
            )));
        }
        if self
            .shapes
            .iter()
            .zip(dataset.output_shapes())
            .any(|(want, got)| !want.is_compatible_with(got))
        {
            return Err(Error::invalid_argument(format!(
                "Expected output shapes compatible with {} but got dataset with output shapes {}.",
                tf_shapes(&self.shapes),
                tf_shapes(dataset.output_shapes())
            )));
        }
        crate::new_op(self.handle.graph(), "MakeIterator")
            .input(dataset.handle())
            .input(&self.handle)
            .build()
    }

    /// `iterator.get_next()`: the next element's components, one run at a time; OutOfRange
    /// "End of sequence" after the last (op `IteratorGetNext`). Elements with a sparse
    /// component are read with [`get_next_components`](Self::get_next_components).
    pub fn get_next(&self) -> Result<Vec<Output>> {
        self.dense_only("iterator.get_next")?;
        self.get_next_encoded()
    }

    /// InvalidArgument when an element has a sparse component: `what` gives dense ones only.
    pub(crate) fn dense_only(&self, what: &str) -> Result<()> {
        dense_only(&self.sparse, what)
    }

    /// `iterator.get_next()` for elements that may have sparse components: each component a
    /// tensor or a sparse tensor, as the dataset's functions returned them.
    pub fn get_next_components(&self) -> Result<Vec<Component>> {
        structure::decode(&self.get_next_encoded()?, &self.sparse)
    }

    /// The element structure (`iterator.element_spec`).
    pub fn element_spec(&self) -> Vec<ComponentSpec> {
        structure::specs(&self.dtypes, &self.shapes, &self.sparse)
    }

    fn get_next_encoded(&self) -> Result<Vec<Output>> {
        let op = crate::new_op(self.handle.graph(), "IteratorGetNext")
            .input(&self.handle)
            .attr("output_types", self.dtypes.clone())
            .attr("output_shapes", self.shapes.clone())
            .build()?;
        op.outputs().into_iter().map(Ok).collect()
    }

    /// The dtype of each component.
    pub fn output_types(&self) -> &[DType] {
        &self.dtypes
    }

    /// The static shape of each component.
    pub fn output_shapes(&self) -> &[Shape] {
        &self.shapes
    }
}

/// A structure of dtypes as Python prints it: `tf.int64`, or `(tf.int64, tf.float32)`.
fn tf_types(d: &[DType]) -> String {
    python_structure(
        d.iter()
            .map(|d| format!("tf.{}", d.python_name()))
            .collect(),
    )
}

/// A structure of shapes as Python prints it: `TensorShape([2])`, or a tuple of them.
fn tf_shapes(s: &[Shape]) -> String {
    python_structure(
        s.iter()
            .map(|s| match s.dims() {
                None => "TensorShape(None)".to_string(),
                Some(_) => format!("TensorShape({})", python_list(s)),
            })
            .collect(),
    )
}

fn python_structure(items: Vec<String>) -> String {
    match items.as_slice() {
        [one] => one.clone(),
        _ => format!("({})", items.join(", ")),
    }
}

fn dim_strings(s: &Shape) -> Vec<String> {
    s.dims()
        .unwrap_or(&[])
        .iter()
        .map(|d| d.map_or("None".to_string(), |n| n.to_string()))
        .collect()
}

/// `[2, None]`.
fn python_list(s: &Shape) -> String {
    format!("[{}]", dim_strings(s).join(", "))
}

/// A shape as a Python tuple: `()`, `(1,)`, `(2, None)`; `None` when the rank is unknown.
pub(super) fn python_shape(s: &Shape) -> String {
    if s.dims().is_none() {
        return "None".to_string();
    }
    match dim_strings(s).as_slice() {
        [one] => format!("({one},)"),
        d => format!("({})", d.join(", ")),
    }
}
