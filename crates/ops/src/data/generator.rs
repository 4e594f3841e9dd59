//! `Dataset.from_generator`: the elements a Rust closure's iterator yields.
//!
//! The closure is registered as a script op's function is ([`crate::script`]): the op names it
//! by token, and the graph keeps it alive. Each iterator (each initialization) calls it anew
//! for a fresh iterator, at its first `get_next`, as TensorFlow calls a Python generator.

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{AttrKind, DType, Error, Graph, Kernel, Node, OpContext, Result, Shape, Tensor};

use super::builders::Dataset;
use super::{dataset_def, dataset_tensor, DatasetBase, Element, IteratorBase, IteratorContext};
use crate::script::{find_function, not_found, register_function};

/// What a generator's iterator yields: an element's components, or an error for that element.
pub type GeneratorItem = Result<Vec<Tensor>>;

/// The iterator a generator closure returns.
type Items = Box<dyn std::iter::Iterator<Item = GeneratorItem> + Send>;

/// A generator closure, sized for the registry.
struct GeneratorFunction(Box<dyn Fn() -> Items + Send + Sync>);

impl Dataset {
    /// `tf.data.Dataset.from_generator(generator, output_types, output_shapes)`: the elements
    /// yielded by the iterator `generator` returns, called anew for each iterator.
    ///
    /// Each element must have one tensor per `output_types` entry, of that dtype, and of a
    /// shape compatible with `output_shapes` (default: unknown). An element that does not is
    /// InvalidArgument from its `get_next`, in TensorFlow's words ("TypeError: `generator`
    /// yielded an element of shape (3,) where an element of shape (2,) was expected."), and the
    /// next `get_next` goes on with the next one; an `Err` the iterator yields is that
    /// `get_next`'s error. (The elements are typed tensors, so no value is converted to
    /// another dtype, as TensorFlow converts Python numbers.)
    ///
    /// ```
    /// use weir_graph::{DType, Graph, Shape, Tensor};
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// let squares = Dataset::from_generator(
    ///     &g,
    ///     || (0..5i64).map(|i| Ok(vec![Tensor::scalar(i * i)])),
    ///     &[DType::I64],
    ///     Some(&[Shape::scalar()]),
    /// )?;
    /// // In a session: 0, 1, 4, 9, 16, then End of sequence.
    /// assert_eq!(squares.output_shapes(), &[Shape::scalar()]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn from_generator<I>(
        g: &Graph,
        generator: impl Fn() -> I + Send + Sync + 'static,
        output_types: &[DType],
        output_shapes: Option<&[Shape]>,
    ) -> Result<Dataset>
    where
        I: IntoIterator<Item = GeneratorItem>,
        I::IntoIter: Send + 'static,
    {
        let shapes = match output_shapes {
            Some(s) if s.len() != output_types.len() => {
                return Err(Error::invalid_argument(format!(
                    "`output_shapes` has {} entries, but `output_types` has {}",
                    s.len(),
                    output_types.len()
                )))
            }
            Some(s) => s.to_vec(),
            None => vec![Shape::unknown(); output_types.len()],
        };
        let function = GeneratorFunction(Box::new(move || -> Items {
            Box::new(generator().into_iter())
        }));
        let token = register_function(g, Arc::new(function));
        Dataset::build(
            crate::new_op(g, "_GeneratorDataset")
                .attr("token", token)
                .attr("output_types", output_types.to_vec())
                .attr("output_shapes", shapes.clone()),
            output_types.to_vec(),
            shapes,
        )
    }
}

/// A generator dataset: its function and the structure its elements must have.
struct Generator {
    function: Arc<GeneratorFunction>,
    dtypes: Vec<DType>,
    shapes: Vec<Shape>,
}

impl DatasetBase for Generator {
    fn output_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(GeneratorIter {
            function: self.function.clone(),
            dtypes: self.dtypes.clone(),
            shapes: self.shapes.clone(),
            items: None,
        }))
    }
}

struct GeneratorIter {
    function: Arc<GeneratorFunction>,
    dtypes: Vec<DType>,
    shapes: Vec<Shape>,
    /// The generator's iterator, from the first `get_next` on.
    items: Option<Items>,
}

impl IteratorBase for GeneratorIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        ctx.check()?;
        let items = self.items.get_or_insert_with(|| (self.function.0)());
        let Some(item) = items.next() else {
            return Ok(None);
        };
        let element = item?;
        check_element(&element, &self.dtypes, &self.shapes)?;
        Ok(Some(element))
    }
}

/// Python's `repr` of a tensor's shape tuple: `()`, `(3,)`, `(2, 4)`.
fn python_shape(t: &Tensor) -> String {
    Shape::known(t.shape()).python_str()
}

/// TensorFlow's `TensorSpec` repr of a component.
fn spec(dtype: DType, shape: &Shape) -> String {
    format!(
        "TensorSpec(shape={}, dtype=tf.{}, name=None)",
        shape.python_str(),
        dtype.python_name()
    )
}

/// Checks an element against the dataset's structure, with TensorFlow's messages.
fn check_element(element: &[Tensor], dtypes: &[DType], shapes: &[Shape]) -> Result<()> {
    let typed =
        element.len() == dtypes.len() && element.iter().zip(dtypes).all(|(t, d)| t.dtype() == *d);
    if !typed {
        let specs: Vec<String> = dtypes
            .iter()
            .zip(shapes)
            .map(|(d, s)| spec(*d, s))
            .collect();
        let expected = match specs.len() {
            1 => specs[0].clone(),
            _ => format!("({})", specs.join(", ")),
        };
        let got: Vec<String> = element
            .iter()
            .map(|t| {
                format!(
                    "a {} tensor of shape {}",
                    t.dtype().python_name(),
                    python_shape(t)
                )
            })
            .collect();
        return Err(Error::invalid_argument(format!(
            "TypeError: `generator` yielded an element that did not match the expected \
             structure. The expected structure was {expected}, but the yielded element was \
             ({}).",
            got.join(", ")
        )));
    }
    for (t, want) in element.iter().zip(shapes) {
        let Some(dims) = want.dims() else { continue };
        let fits = dims.len() == t.rank()
            && dims
                .iter()
                .zip(t.shape())
                .all(|(w, &d)| w.is_none_or(|w| w == d));
        if !fits {
            return Err(Error::invalid_argument(format!(
                "TypeError: `generator` yielded an element of shape {} where an element of \
                 shape {} was expected.",
                python_shape(t),
                want.python_str()
            )));
        }
    }
    Ok(())
}

struct GeneratorKernel {
    token: String,
    dtypes: Vec<DType>,
    shapes: Vec<Shape>,
}

impl Kernel for GeneratorKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let function = find_function::<GeneratorFunction>(&self.token)
            .ok_or_else(|| not_found(&self.token))?;
        let ds = Generator {
            function,
            dtypes: self.dtypes.clone(),
            shapes: self.shapes.clone(),
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(GeneratorKernel {
        token: node.attr("token")?,
        dtypes: node.attr("output_types")?,
        shapes: node.attr("output_shapes")?,
    }))
}

pub(super) fn register() {
    register_op(
        dataset_def("_GeneratorDataset")
            .attr("token", AttrKind::Str, None)
            .stateful(),
    );
    register_kernel("_GeneratorDataset", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_print_as_python_tuples() {
        assert_eq!(python_shape(&Tensor::scalar(1i64)), "()");
        assert_eq!(python_shape(&Tensor::from(vec![1i64, 2, 3])), "(3,)");
        assert_eq!(
            spec(DType::I64, &Shape::new(vec![Some(2), None])),
            "TensorSpec(shape=(2, None), dtype=tf.int64, name=None)"
        );
        assert_eq!(
            spec(DType::I64, &Shape::unknown()),
            "TensorSpec(shape=<unknown>, dtype=tf.int64, name=None)"
        );
    }

    #[test]
    fn elements_are_checked_against_the_structure() {
        let shapes = [Shape::new(vec![Some(2)])];
        let ok = check_element(&[Tensor::from(vec![1i64, 2])], &[DType::I64], &shapes);
        assert!(ok.is_ok());
        let e =
            check_element(&[Tensor::from(vec![1i64, 2, 3])], &[DType::I64], &shapes).unwrap_err();
        assert_eq!(
            e.message(),
            "TypeError: `generator` yielded an element of shape (3,) where an element of shape \
             (2,) was expected."
        );
        let e =
            check_element(&[Tensor::from(vec![1.0f32, 2.0])], &[DType::I64], &shapes).unwrap_err();
        assert!(e.message().contains(
            "The expected structure was TensorSpec(shape=(2,), dtype=tf.int64, name=None), but \
             the yielded element was (a float32 tensor of shape (2,))."
        ));
    }
}
