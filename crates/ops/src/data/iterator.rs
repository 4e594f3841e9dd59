//! Iterators: the session resource that reads a dataset (`IteratorV2`, `OneShotIterator`),
//! `MakeIterator` (an initializable iterator's initializer) and `IteratorGetNext`.

use std::sync::OnceLock;

use parking_lot::Mutex;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Resource, ResourceHandle, Result, Shape, Tensor,
};

use super::function::FunctionAttr;
use super::{input_dataset, IteratorBase, IteratorContext};

/// An iterator's state in a session: TensorFlow's `IteratorResource`.
pub(crate) struct IteratorResource {
    dtypes: Vec<DType>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// `None` until an initializer (or the one-shot factory) has run.
    iterator: Option<Box<dyn IteratorBase>>,
    /// Set once the iterator has returned its last element: later calls end at once.
    ended: bool,
}

impl Resource for IteratorResource {
    fn type_name(&self) -> &str {
        "Iterator"
    }
}

impl IteratorResource {
    fn new(dtypes: Vec<DType>) -> Self {
        IteratorResource {
            dtypes,
            state: Mutex::new(State::default()),
        }
    }

    /// Points the iterator at the start of `dataset`'s elements.
    fn initialize(&self, iterator: Box<dyn IteratorBase>) {
        *self.state.lock() = State {
            iterator: Some(iterator),
            ended: false,
        };
    }

    fn is_initialized(&self) -> bool {
        self.state.lock().iterator.is_some()
    }

    fn get_next(&self, ctx: &IteratorContext) -> Result<Vec<Tensor>> {
        self.get_next_if_any(ctx)?.ok_or_else(end_of_sequence)
    }

    /// The next element, or `None` at the end of the sequence (and on every call after).
    pub(crate) fn get_next_if_any(&self, ctx: &IteratorContext) -> Result<Option<Vec<Tensor>>> {
        // Another run may be inside get_next, waiting on its own terms: this run's wait for
        // the iterator still ends with its own cancellation or deadline.
        let mut st = loop {
            if let Some(st) = self.state.try_lock_for(std::time::Duration::from_millis(5)) {
                break st;
            }
            ctx.check()?;
        };
        if st.ended {
            return Ok(None);
        }
        let it = st.iterator.as_mut().ok_or_else(|| {
            Error::failed_precondition(
                "GetNext() failed because the iterator has not been initialized. Ensure that you \
                 have run the initializer operation for this iterator before getting the next \
                 element.",
            )
        })?;
        match it.get_next(ctx)? {
            Some(element) => {
                if element.len() != self.dtypes.len()
                    || element
                        .iter()
                        .zip(&self.dtypes)
                        .any(|(t, &d)| t.dtype() != d)
                {
                    return Err(Error::invalid_argument(format!(
                        "The dataset's element has dtypes [{}], not the iterator's [{}]",
                        names(element.iter().map(|t| t.dtype())),
                        names(self.dtypes.iter().copied())
                    )));
                }
                Ok(Some(element))
            }
            None => {
                st.ended = true;
                // The finished iterator may hold files and threads: let them go now.
                st.iterator = Some(Box::new(Exhausted));
                Ok(None)
            }
        }
    }
}

fn names(d: impl Iterator<Item = DType>) -> String {
    d.map(|d| d.to_string()).collect::<Vec<_>>().join(", ")
}

fn end_of_sequence() -> Error {
    Error::out_of_range("End of sequence")
}

/// What an iterator holds once its dataset is done.
struct Exhausted;

impl IteratorBase for Exhausted {
    fn get_next(&mut self, _ctx: &IteratorContext) -> Result<Option<super::Element>> {
        Ok(None)
    }
}

/// Finds or creates the iterator resource of `node` (named by its shared_name, or the node's
/// name) and outputs its handle.
fn iterator_handle(node_name: &str, node: &Node, ctx: &OpContext<'_>) -> Result<Tensor> {
    let shared: String = node.attr("shared_name")?;
    let container: String = node.attr("container")?;
    let name = if shared.is_empty() {
        node_name.to_string()
    } else {
        shared
    };
    let dtypes: Vec<DType> = node.attr("output_types")?;
    let r = ctx
        .resources()
        .lookup_or_create_typed(&container, &name, || {
            Ok(IteratorResource::new(dtypes.clone()))
        })?;
    if r.dtypes != dtypes {
        return Err(Error::invalid_argument(format!(
            "Shared iterator '{name}' has dtypes [{}], not [{}]",
            names(r.dtypes.iter().copied()),
            names(dtypes.iter().copied())
        )));
    }
    Ok(Tensor::scalar(ResourceHandle::new(&container, &name, r)))
}

/// `IteratorV2`: an iterator that an initializer (`MakeIterator`) points at a dataset.
struct IteratorKernel {
    handle: OnceLock<Tensor>,
}

impl Kernel for IteratorKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Some(h) = self.handle.get() {
            ctx.set_output(0, h.clone());
            return Ok(());
        }
        let node = ctx.node();
        let h = iterator_handle(node.name(), node, ctx)?;
        ctx.set_output(0, self.handle.get_or_init(|| h).clone());
        Ok(())
    }

    fn output_is_fixed(&self) -> bool {
        true
    }
}

/// `OneShotIterator`: an iterator that makes its dataset itself, on first use, by calling its
/// dataset factory (TensorFlow's `dataset_factory` function).
struct OneShotKernel {
    factory: FunctionAttr,
    handle: OnceLock<Tensor>,
    /// Held while the factory runs, so two first runs make the dataset once.
    init: Mutex<()>,
}

impl Kernel for OneShotKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Some(h) = self.handle.get() {
            ctx.set_output(0, h.clone());
            return Ok(());
        }
        let _once = self.init.lock();
        if let Some(h) = self.handle.get() {
            ctx.set_output(0, h.clone());
            return Ok(());
        }
        let node = ctx.node();
        let h = iterator_handle(node.name(), node, ctx)?;
        let r = h.as_slice::<ResourceHandle>()?[0].get::<IteratorResource>()?;
        if !r.is_initialized() {
            let made = self
                .factory
                .get(ctx)?
                .call(&[], ctx.cancellation(), ctx.deadline())?;
            let ds = made
                .first()
                .ok_or_else(|| Error::internal("The dataset factory returned nothing"))?;
            let ds = ds.as_slice::<ResourceHandle>()?[0]
                .get::<super::DatasetResource>()?
                .0
                .clone();
            r.initialize(ds.make_iterator()?);
        }
        ctx.set_output(0, self.handle.get_or_init(|| h).clone());
        Ok(())
    }

    fn output_is_fixed(&self) -> bool {
        true
    }
}

/// `MakeIterator(dataset, iterator)`: (re)starts the iterator at the dataset's first element.
struct MakeIteratorKernel;

impl Kernel for MakeIteratorKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let ds = input_dataset(ctx, 0)?;
        let r = ctx.resource::<IteratorResource>(1)?;
        if ds.output_dtypes() != r.dtypes.as_slice() {
            return Err(Error::invalid_argument(format!(
                "The dataset has dtypes [{}], not the iterator's [{}]",
                names(ds.output_dtypes().iter().copied()),
                names(r.dtypes.iter().copied())
            )));
        }
        r.initialize(ds.make_iterator()?);
        Ok(())
    }
}

/// `IteratorGetNext(iterator)`: the next element's components.
struct GetNextKernel;

impl Kernel for GetNextKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let ictx = IteratorContext::of(ctx);
        let element = ctx.resource::<IteratorResource>(0)?.get_next(&ictx)?;
        for (i, t) in element.into_iter().enumerate() {
            ctx.set_output(i, t);
        }
        Ok(())
    }

    /// Reading files, or waiting for a prefetching thread.
    fn may_block(&self) -> bool {
        true
    }
}

/// The string handle of an iterator resource: what `IteratorToStringHandle` outputs and
/// `IteratorFromStringHandleV2` reads back (TensorFlow's is a serialized ResourceHandleProto;
/// both are opaque to programs).
const HANDLE_PREFIX: &str = "weir-iterator\u{0}";

/// `IteratorToStringHandle(resource_handle)`: the iterator's handle as a string scalar, to feed
/// to a feedable iterator.
struct ToStringHandleKernel;

impl Kernel for ToStringHandleKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let h = ctx.resource_handle(0)?;
        ctx.resource::<IteratorResource>(0)?;
        let s = format!("{HANDLE_PREFIX}{}\u{0}{}", h.container(), h.name());
        ctx.set_output(0, Tensor::scalar(bytes::Bytes::from(s)));
        Ok(())
    }
}

/// `IteratorFromStringHandleV2(string_handle)`: the iterator a string handle names, checked
/// against the feedable iterator's structure.
struct FromStringHandleKernel {
    dtypes: Vec<DType>,
}

impl Kernel for FromStringHandleKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let s = ctx.input(0).to_scalar::<bytes::Bytes>()?;
        let bad =
            || Error::invalid_argument("Could not parse string_handle as a valid ResourceHandle");
        let rest = s.strip_prefix(HANDLE_PREFIX.as_bytes()).ok_or_else(bad)?;
        let rest = std::str::from_utf8(rest).map_err(|_| bad())?;
        let (container, name) = rest.split_once('\u{0}').ok_or_else(bad)?;
        let it = ctx
            .resources()
            .lookup::<IteratorResource>(container, name)?;
        if it.dtypes.len() != self.dtypes.len() {
            return Err(Error::invalid_argument(format!(
                "Number of components does not match: expected {} types but got {}.",
                self.dtypes.len(),
                it.dtypes.len()
            )));
        }
        if let Some(i) = (0..it.dtypes.len()).find(|&i| it.dtypes[i] != self.dtypes[i]) {
            return Err(Error::invalid_argument(format!(
                "Data type mismatch at component {i}: expected {} but got {}.",
                self.dtypes[i], it.dtypes[i]
            )));
        }
        let handle = ResourceHandle::new(container, name, it);
        ctx.set_output(0, Tensor::scalar(handle));
        Ok(())
    }
}

fn resource_output(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

pub(super) fn element_shapes(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let shapes: Vec<Shape> = ctx.attr("output_shapes")?;
    for (i, s) in shapes.into_iter().enumerate().take(ctx.num_outputs()) {
        ctx.set_output(i, s);
    }
    Ok(())
}

/// The attrs every iterator op has.
pub(super) fn iterator_def(name: &str) -> OpDef {
    OpDef::new(name)
        .output("handle", ArgType::Fixed(DType::Resource))
        .attr(
            "shared_name",
            AttrKind::Str,
            Some(AttrValue::Str(String::new())),
        )
        .attr(
            "container",
            AttrKind::Str,
            Some(AttrValue::Str(String::new())),
        )
        .attr("output_types", AttrKind::Types, None)
        .attr("output_shapes", AttrKind::Shapes, None)
        .stateful()
        .shape_fn(resource_output)
}

pub(super) fn register() {
    register_op(iterator_def("IteratorV2"));
    register_kernel("IteratorV2", |_| {
        Ok(Box::new(IteratorKernel {
            handle: OnceLock::new(),
        }))
    });
    register_op(
        iterator_def("OneShotIterator")
            .attr("dataset_factory_feeds", AttrKind::Strs, None)
            .attr("dataset_factory_results", AttrKind::Strs, None),
    );
    register_kernel("OneShotIterator", |node| {
        let factory = FunctionAttr::from_node(node, "dataset_factory")?;
        if factory.num_results() != 1 {
            return Err(Error::invalid_argument(
                "A dataset factory returns one dataset",
            ));
        }
        Ok(Box::new(OneShotKernel {
            factory,
            handle: OnceLock::new(),
            init: Mutex::new(()),
        }))
    });
    register_op(
        OpDef::new("MakeIterator")
            .input("dataset", ArgType::Fixed(DType::Resource))
            .input("iterator", ArgType::Fixed(DType::Resource))
            .stateful(),
    );
    register_kernel("MakeIterator", |_| Ok(Box::new(MakeIteratorKernel)));
    register_op(
        OpDef::new("IteratorGetNext")
            .input("iterator", ArgType::Fixed(DType::Resource))
            .output("components", ArgType::List("output_types"))
            .attr("output_types", AttrKind::Types, None)
            .attr("output_shapes", AttrKind::Shapes, None)
            .stateful()
            .shape_fn(element_shapes),
    );
    register_kernel("IteratorGetNext", |_| Ok(Box::new(GetNextKernel)));
    register_op(
        OpDef::new("IteratorToStringHandle")
            .input("resource_handle", ArgType::Fixed(DType::Resource))
            .output("string_handle", ArgType::Fixed(DType::String))
            .shape_fn(resource_output),
    );
    register_kernel("IteratorToStringHandle", |_| {
        Ok(Box::new(ToStringHandleKernel))
    });
    register_op(
        OpDef::new("IteratorFromStringHandleV2")
            .input("string_handle", ArgType::Fixed(DType::String))
            .output("resource_handle", ArgType::Fixed(DType::Resource))
            .attr(
                "output_types",
                AttrKind::Types,
                Some(AttrValue::Types(Vec::new())),
            )
            .attr(
                "output_shapes",
                AttrKind::Shapes,
                Some(AttrValue::Shapes(Vec::new())),
            )
            .stateful()
            .shape_fn(resource_output),
    );
    register_kernel("IteratorFromStringHandleV2", |node| {
        Ok(Box::new(FromStringHandleKernel {
            dtypes: node.attr("output_types")?,
        }))
    });
}
