//! The array behind a `TensorArrayV3` handle: TensorFlow's `TensorArray` resource
//! (tensor_array.h), with its write-once, read-once (unless `clear_after_read` is off)
//! elements, its optional growth, its element shape and its messages.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use weir_graph::{format_dims, DType, Error, Resource, Result, Shape, Tensor};

/// One element of the array and what has happened to it.
#[derive(Default)]
struct Entry {
    /// The value, until a read with `clear_after_read` takes it.
    tensor: Option<Tensor>,
    /// The value's shape (or the element shape an unwritten read filled in).
    shape: Vec<usize>,
    written: bool,
    read: bool,
    cleared: bool,
}

struct State {
    closed: bool,
    dynamic_size: bool,
    /// How many elements the array has (written or not).
    size: usize,
    /// The elements touched so far, by index: an array of a billion elements costs nothing
    /// until they are written.
    entries: HashMap<usize, Entry>,
    /// What every element must be compatible with (learned from the first write when
    /// `identical_element_shapes`).
    element_shape: Shape,
}

/// A TensorArray: made by one run of a `TensorArrayV3` node and reached through its handle.
pub(crate) struct TensorArrayResource {
    /// The unique name messages quote (`TensorArray_3`).
    name: String,
    dtype: DType,
    identical_element_shapes: bool,
    clear_after_read: bool,
    /// A gradient array: a second write to an element adds to it (TensorFlow's
    /// `multiple_writes_aggregate`), as the gradients of several reads of one element do.
    aggregate: bool,
    state: Mutex<State>,
    /// The gradient arrays made from this one, by gradient source (`TensorArrayGradV3`).
    grads: Mutex<HashMap<String, Arc<TensorArrayResource>>>,
}

impl Resource for TensorArrayResource {
    fn type_name(&self) -> &str {
        "TensorArray"
    }
}

impl TensorArrayResource {
    /// A new array of `size` unwritten elements.
    pub(crate) fn new(
        name: String,
        dtype: DType,
        size: usize,
        element_shape: Shape,
        identical_element_shapes: bool,
        dynamic_size: bool,
        clear_after_read: bool,
    ) -> TensorArrayResource {
        TensorArrayResource {
            name,
            dtype,
            identical_element_shapes,
            clear_after_read,
            aggregate: false,
            grads: Mutex::new(HashMap::new()),
            state: Mutex::new(State {
                closed: false,
                dynamic_size,
                size,
                entries: HashMap::new(),
                element_shape,
            }),
        }
    }

    /// The gradient array of this one for gradient `source` (TensorFlow's `TensorArrayGradV3`):
    /// made on first use, of this array's dtype, size and element shape, not resizeable; its
    /// writes to one element add up.
    pub(crate) fn grad(&self, source: &str) -> Result<Arc<TensorArrayResource>> {
        let (size, element_shape) = {
            let st = self.state.lock();
            self.check_open(&st)?;
            (st.size, st.element_shape.clone())
        };
        let mut grads = self.grads.lock();
        let g = grads.entry(source.to_string()).or_insert_with(|| {
            let mut g = TensorArrayResource::new(
                format!("{}@{source}", self.name),
                self.dtype,
                size,
                element_shape,
                self.identical_element_shapes,
                false,
                true,
            );
            g.aggregate = true;
            Arc::new(g)
        });
        Ok(g.clone())
    }

    /// The array's unique name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The element dtype.
    pub(crate) fn dtype(&self) -> DType {
        self.dtype
    }

    fn check_open(&self, st: &State) -> Result<()> {
        if st.closed {
            return Err(Error::invalid_argument(format!(
                "TensorArray {} has already been closed.",
                self.name
            )));
        }
        Ok(())
    }

    /// The number of elements; fails once closed.
    pub(crate) fn size(&self) -> Result<usize> {
        let st = self.state.lock();
        self.check_open(&st)?;
        Ok(st.size)
    }

    /// Whether writes past the end grow the array.
    pub(crate) fn has_dynamic_size(&self) -> bool {
        self.state.lock().dynamic_size
    }

    /// Merges `candidate` into the element shape (TensorFlow's `SetElemShape`), as a gather
    /// does with the element shape it was built with.
    pub(crate) fn set_element_shape(&self, candidate: &Shape) -> Result<()> {
        let mut st = self.state.lock();
        let merged = st.element_shape.merge_with(candidate).map_err(|_| {
            Error::invalid_argument(format!(
                "Incompatible shapes during merge: {} vs. {}",
                st.element_shape, candidate
            ))
        })?;
        st.element_shape = merged;
        Ok(())
    }

    /// Writes `value` at `index` (TensorFlow's `WriteOrAggregate` without aggregation).
    pub(crate) fn write(&self, index: i64, value: Tensor) -> Result<()> {
        let mut st = self.state.lock();
        self.locked_write(&mut st, index, value)
    }

    /// Writes `values[k]` at `indices[k]`, in order, stopping at the first failure (the
    /// writes before it stay, as in TensorFlow).
    pub(crate) fn write_many(&self, indices: &[i64], values: Vec<Tensor>) -> Result<()> {
        let mut st = self.state.lock();
        for (&i, v) in indices.iter().zip(values) {
            self.locked_write(&mut st, i, v)?;
        }
        Ok(())
    }

    /// Reads the element at `index`.
    pub(crate) fn read(&self, index: i64) -> Result<Tensor> {
        let mut st = self.state.lock();
        self.locked_read(&mut st, index)
    }

    /// Reads the elements at `indices`, in order, stopping at the first failure.
    pub(crate) fn read_many(&self, indices: &[i64]) -> Result<Vec<Tensor>> {
        let mut st = self.state.lock();
        indices
            .iter()
            .map(|&i| self.locked_read(&mut st, i))
            .collect()
    }

    /// Drops every element and refuses every later use (TensorFlow's `ClearAndMarkClosed`).
    pub(crate) fn close(&self) {
        let mut st = self.state.lock();
        st.entries.clear();
        st.size = 0;
        st.closed = true;
    }

    fn locked_write(&self, st: &mut State, index: i64, value: Tensor) -> Result<()> {
        self.check_open(st)?;
        let name = &self.name;
        if index < 0 || (!st.dynamic_size && index as u64 >= st.size as u64) {
            return Err(Error::invalid_argument(format!(
                "TensorArray {name}: Tried to write to index {index} but array is not resizeable and size is: {}",
                st.size
            )));
        }
        let i = usize::try_from(index)
            .map_err(|_| Error::invalid_argument(format!("Index {index} is too large")))?;
        if st.dynamic_size && i >= st.size {
            st.size = i + 1;
        }
        if value.dtype() != self.dtype {
            return Err(Error::invalid_argument(format!(
                "TensorArray {name}: Could not write to TensorArray index {index} because the value dtype is {} but TensorArray dtype is {}.",
                value.dtype().name(),
                self.dtype.name()
            )));
        }
        if !st.element_shape.is_compatible_with_dims(value.shape()) {
            return Err(Error::invalid_argument(format!(
                "TensorArray {name}: Could not write to TensorArray index {index} because the value shape is {} which is incompatible with the TensorArray's inferred element shape: {} (consider setting infer_shape=False).",
                format_dims(value.shape()),
                st.element_shape
            )));
        } else if self.identical_element_shapes && !st.element_shape.is_fully_defined() {
            st.element_shape = Shape::known(value.shape());
        }
        let t = st.entries.entry(i).or_default();
        if t.read {
            return Err(Error::invalid_argument(format!(
                "TensorArray {name}: Could not write to TensorArray index {index} because it has already been read."
            )));
        }
        if t.written && self.aggregate && t.tensor.is_some() {
            let old = t.tensor.take().unwrap_or_else(|| value.clone());
            if old.shape() != value.shape() {
                let old_shape = format_dims(old.shape());
                t.tensor = Some(old);
                return Err(Error::invalid_argument(format!(
                    "TensorArray {name}: Could not aggregate to TensorArray index {index} because the existing shape is {old_shape} but the new input shape is {}.",
                    format_dims(value.shape())
                )));
            }
            t.tensor = Some(add_tensors(&old, &value)?);
            return Ok(());
        }
        if t.written {
            return Err(Error::invalid_argument(format!(
                "TensorArray {name}: Could not write to TensorArray index {index} because it has already been written to."
            )));
        }
        t.shape = value.shape().to_vec();
        t.tensor = Some(value);
        t.written = true;
        Ok(())
    }

    fn locked_read(&self, st: &mut State, index: i64) -> Result<Tensor> {
        self.check_open(st)?;
        let name = &self.name;
        if index < 0 || index as u64 >= st.size as u64 {
            return Err(Error::invalid_argument(format!(
                "Tried to read from index {index} but array size is: {}",
                st.size
            )));
        }
        let i = index as usize;
        let element_shape = st.element_shape.clone();
        let t = st.entries.entry(i).or_default();
        if !t.written {
            // An element never written reads as zeros of the element shape, when it is known.
            let Some(dims) = element_shape.to_known() else {
                return Err(Error::invalid_argument(format!(
                    "TensorArray {name}: Could not read from TensorArray index {index}.  Furthermore, the element shape is not fully defined: {element_shape}.  It is possible you are working with a resizeable TensorArray and stop_gradients is not allowing the gradients to be written.  If you set the full element_shape property on the forward TensorArray, the proper all-zeros tensor will be returned instead of incurring this error."
                )));
            };
            t.shape = dims;
            t.written = true;
        }
        if t.cleared {
            return Err(Error::invalid_argument(format!(
                "TensorArray {name}: Could not read index {index} twice because it was cleared after a previous read (perhaps try setting clear_after_read = false?)."
            )));
        }
        let value = match &t.tensor {
            Some(v) => v.clone(),
            None => {
                let n: usize = t.shape.iter().product();
                if n > 0 && matches!(self.dtype, DType::String | DType::Resource) {
                    return Err(Error::invalid_argument(format!(
                        "tensor_array::TensorSetZero type not supported: {}",
                        self.dtype.name()
                    )));
                }
                let z = Tensor::zeros(self.dtype, &t.shape)?;
                t.tensor = Some(z.clone());
                z
            }
        };
        if self.clear_after_read {
            t.tensor = None;
            t.cleared = true;
        }
        t.read = true;
        Ok(value)
    }
}

/// `a + b` of two float tensors of one shape: what a gradient array's writes to one element
/// sum to.
fn add_tensors(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    fn sum<T: weir_graph::TensorType + std::ops::Add<Output = T> + Copy>(
        a: &Tensor,
        b: &Tensor,
    ) -> Result<Tensor> {
        let v: Vec<T> = a
            .as_slice::<T>()?
            .iter()
            .zip(b.as_slice::<T>()?)
            .map(|(&x, &y)| x + y)
            .collect();
        Tensor::from_vec(a.shape(), v)
    }
    match a.dtype() {
        DType::F32 => sum::<f32>(a, b),
        DType::F64 => sum::<f64>(a, b),
        DType::I32 => sum::<i32>(a, b),
        DType::I64 => sum::<i64>(a, b),
        d => Err(Error::unimplemented(format!(
            "Adding TensorArray gradients of type {}",
            d.name()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array(size: usize, shape: Shape, dynamic: bool, clear: bool) -> TensorArrayResource {
        TensorArrayResource::new("ta_0".into(), DType::F32, size, shape, true, dynamic, clear)
    }

    #[test]
    fn write_once_read_once() {
        let ta = array(2, Shape::unknown(), false, true);
        ta.write(0, Tensor::from(vec![1.0f32, 2.0])).unwrap();
        let e = ta.write(0, Tensor::from(vec![1.0f32, 2.0])).unwrap_err();
        assert!(e.message().ends_with("has already been written to."), "{e}");
        assert_eq!(ta.read(0).unwrap().to_vec::<f32>().unwrap(), [1.0, 2.0]);
        assert!(ta.read(0).unwrap_err().message().contains("twice"));
        // The element shape was learned from the first write: index 1 reads as zeros.
        assert_eq!(ta.read(1).unwrap().to_vec::<f32>().unwrap(), [0.0, 0.0]);
        let e = ta.write(1, Tensor::from(vec![1.0f32, 2.0])).unwrap_err();
        assert!(e.message().ends_with("has already been read."), "{e}");
    }

    #[test]
    fn growth_and_close() {
        let ta = array(0, Shape::scalar(), true, false);
        ta.write(1_000_000_000, Tensor::from(1.0f32)).unwrap();
        assert_eq!(ta.size().unwrap(), 1_000_000_001);
        assert_eq!(ta.read(5).unwrap().to_scalar::<f32>().unwrap(), 0.0);
        ta.close();
        assert_eq!(
            ta.size().unwrap_err().message(),
            "TensorArray ta_0 has already been closed."
        );
    }
}
