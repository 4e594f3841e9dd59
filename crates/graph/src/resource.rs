//! Stateful resources (variables, queues, readers) kept per session, keyed by container, type and
//! shared_name, as TensorFlow's `ResourceMgr` keeps them.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::{Error, FunctionRuntime, Result};

/// Upcasts to `Any` so a shared resource can be downcast to its concrete type.
pub trait AsAny: Any + Send + Sync {
    /// `self` as `Arc<dyn Any>`.
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync>;

    /// `self` as `&dyn Any`.
    fn as_any(&self) -> &(dyn Any + Send + Sync);
}

impl<T: Any + Send + Sync> AsAny for T {
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }

    fn as_any(&self) -> &(dyn Any + Send + Sync) {
        self
    }
}

/// A stateful object owned by a session: TensorFlow's `ResourceBase`.
pub trait Resource: AsAny {
    /// The kind of resource, as TensorFlow names it in messages (`FIFOQueue`, `Variable`, ...).
    fn type_name(&self) -> &str;

    /// The queue interface, when this resource is a queue (readers take work from queues
    /// without knowing their kind).
    fn as_queue(&self) -> Option<&dyn QueueResource> {
        None
    }
}

/// What other ops need of any queue (TensorFlow's `QueueInterface`): readers dequeue their
/// work items (filenames) through it.
pub trait QueueResource: Send + Sync {
    /// The queue's resource name as messages quote it (`_1_input_producer`, or its shared_name).
    fn queue_name(&self) -> &str;

    /// The dtypes of the components of each element.
    fn component_dtypes(&self) -> &[crate::DType];

    /// Dequeues one element, blocking while the queue is empty and open, exactly as the
    /// `QueueDequeueV2` op does: OutOfRange once closed and empty, Cancelled when `cancel`
    /// fires, DeadlineExceeded when `deadline` passes.
    fn dequeue(
        &self,
        cancel: &crate::CancellationToken,
        deadline: Option<std::time::Instant>,
    ) -> Result<Vec<crate::Tensor>>;
}

/// A handle to a session resource, the value of a `tf.resource` tensor.
///
/// The op that creates or finds the resource puts the resource itself in the handle, so ops that
/// consume the handle reach it without another lookup.
#[derive(Clone)]
pub struct ResourceHandle {
    container: Arc<str>,
    name: Arc<str>,
    resource: Option<Arc<dyn Resource>>,
}

impl ResourceHandle {
    /// A handle to `resource`, registered as `container`/`name`.
    pub fn new(container: &str, name: &str, resource: Arc<dyn Resource>) -> ResourceHandle {
        ResourceHandle {
            container: container.into(),
            name: name.into(),
            resource: Some(resource),
        }
    }

    /// A handle that points to nothing (the zero value of the resource dtype).
    pub fn empty() -> ResourceHandle {
        ResourceHandle {
            container: "".into(),
            name: "".into(),
            resource: None,
        }
    }

    /// The container the resource lives in (`""` is the default container).
    pub fn container(&self) -> &str {
        &self.container
    }

    /// The resource's name in its container (its shared_name, or the node name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The resource as its concrete type `T`; InvalidArgument if it is another kind.
    pub fn get<T: Resource>(&self) -> Result<Arc<T>> {
        let r = self.resource.as_ref().ok_or_else(|| self.empty_error())?;
        r.clone()
            .into_any()
            .downcast::<T>()
            .map_err(|_| self.kind_error::<T>(r.as_ref()))
    }

    /// The resource as its concrete type `T`, borrowed; InvalidArgument if it is another kind.
    ///
    /// Resource ops look their resource up on every run, often from several threads at once:
    /// a borrow touches no reference count, so those threads never contend on one.
    pub fn get_ref<T: Resource>(&self) -> Result<&T> {
        let r: &dyn Resource = self.resource.as_deref().ok_or_else(|| self.empty_error())?;
        // On `r` itself: the blanket `AsAny` impl would also take the `Arc` around it.
        r.as_any()
            .downcast_ref::<T>()
            .ok_or_else(|| self.kind_error::<T>(r))
    }

    // Formatted only when a lookup fails: lookups run on every run.
    fn empty_error(&self) -> Error {
        Error::invalid_argument(format!("Resource handle '{}' is empty", self.name))
    }

    fn kind_error<T: Resource>(&self, found: &dyn Resource) -> Error {
        Error::invalid_argument(format!(
            "Resource '{}' is a {}, not a {}",
            self.name,
            found.type_name(),
            short_type_name::<T>()
        ))
    }

    /// The resource as a queue; InvalidArgument if it is not one.
    pub fn queue(&self) -> Result<&dyn QueueResource> {
        self.resource
            .as_ref()
            .and_then(|r| r.as_queue())
            .ok_or_else(|| {
                Error::invalid_argument(format!("Resource '{}' is not a queue", self.name))
            })
    }

    /// The resource as a trait object.
    pub fn resource(&self) -> Option<&Arc<dyn Resource>> {
        self.resource.as_ref()
    }
}

impl PartialEq for ResourceHandle {
    fn eq(&self, other: &Self) -> bool {
        self.container == other.container && self.name == other.name
    }
}

impl fmt::Debug for ResourceHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ResourceHandle({}/{})", self.container, self.name)
    }
}

fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}

/// The resources of one session, keyed by (container, type, name): TensorFlow's `ResourceMgr`.
///
/// The type is part of the key as in TensorFlow, so a queue and a staging area that share a
/// name are two resources. Each Rust type stands for one of TensorFlow's resource classes: all
/// queue kinds are one type (TensorFlow's `QueueInterface`), as are all tables
/// (`LookupInterface`), so a FIFO queue and a shuffle queue sharing a name still meet and the
/// creating op reports the clash.
#[derive(Default)]
pub struct ResourceManager {
    resources: Mutex<HashMap<ResourceKey, Arc<dyn Resource>>>,
    /// The session's way to run functions of its graph, set once when the session starts.
    functions: std::sync::OnceLock<Arc<dyn FunctionRuntime>>,
}

/// (container, type, name).
type ResourceKey = (String, TypeId, String);

fn key<T: Resource>(container: &str, name: &str) -> ResourceKey {
    (container.to_string(), TypeId::of::<T>(), name.to_string())
}

impl ResourceManager {
    /// An empty manager.
    pub fn new() -> ResourceManager {
        ResourceManager::default()
    }

    /// The resource of type `T` at (container, name), created by `create` if absent.
    ///
    /// `create` runs under the manager's lock, so it must be quick and must not reach the manager.
    /// The caller checks that an existing resource has the configuration it expects
    /// (TensorFlow's "Shared queue 'q' has capacity 10 but requested capacity was 11").
    pub fn lookup_or_create_typed<T: Resource>(
        &self,
        container: &str,
        name: &str,
        create: impl FnOnce() -> Result<T>,
    ) -> Result<Arc<T>> {
        let mut map = self.resources.lock();
        let k = key::<T>(container, name);
        let r = match map.get(&k) {
            Some(r) => r.clone(),
            None => {
                let r: Arc<dyn Resource> = Arc::new(create()?);
                map.insert(k, r.clone());
                r
            }
        };
        drop(map);
        // Cannot fail: the key's type is `T`.
        ResourceHandle::new(container, name, r).get::<T>()
    }

    /// The resource of type `T` at (container, name); NotFound if there is none.
    pub fn lookup<T: Resource>(&self, container: &str, name: &str) -> Result<Arc<T>> {
        let r = self
            .resources
            .lock()
            .get(&key::<T>(container, name))
            .cloned()
            .ok_or_else(|| {
                Error::not_found(format!("Resource {container}/{name} does not exist."))
            })?;
        ResourceHandle::new(container, name, r).get::<T>()
    }

    /// Drops every resource of `container` (TensorFlow's `Session.reset` of a container).
    pub fn clear_container(&self, container: &str) {
        self.resources.lock().retain(|(c, _, _), _| c != container);
    }

    /// Sets the runtime kernels use to call functions of the session's graph; only the first
    /// call has an effect.
    pub fn set_function_runtime(&self, runtime: Arc<dyn FunctionRuntime>) {
        let _ = self.functions.set(runtime);
    }

    /// The runtime that calls functions of the session's graph; FailedPrecondition outside a
    /// session (a kernel run by hand).
    pub fn function_runtime(&self) -> Result<&Arc<dyn FunctionRuntime>> {
        self.functions.get().ok_or_else(|| {
            Error::failed_precondition("Functions of the graph can only be called in a session")
        })
    }

    /// The number of resources held.
    pub fn len(&self) -> usize {
        self.resources.lock().len()
    }

    /// Whether no resource is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Counter(Mutex<i32>);
    impl Resource for Counter {
        fn type_name(&self) -> &str {
            "Counter"
        }
    }
    struct Other;
    impl Resource for Other {
        fn type_name(&self) -> &str {
            "Other"
        }
    }

    #[test]
    fn lookup_or_create_shares_one_instance() {
        let rm = ResourceManager::new();
        let a = rm
            .lookup_or_create_typed("", "c", || Ok(Counter(Mutex::new(0))))
            .unwrap();
        *a.0.lock() += 1;
        let b = rm
            .lookup_or_create_typed("", "c", || Ok(Counter(Mutex::new(100))))
            .unwrap();
        assert_eq!(*b.0.lock(), 1);
        let c = rm
            .lookup_or_create_typed("other", "c", || Ok(Counter(Mutex::new(5))))
            .unwrap();
        assert_eq!(*c.0.lock(), 5);
        assert_eq!(rm.len(), 2);
    }

    #[test]
    fn resources_of_two_types_may_share_a_name() {
        let rm = ResourceManager::new();
        rm.lookup_or_create_typed("", "x", || Ok(Other)).unwrap();
        let c = rm
            .lookup_or_create_typed("", "x", || Ok(Counter(Mutex::new(7))))
            .unwrap();
        assert_eq!(*c.0.lock(), 7);
        assert_eq!(rm.len(), 2);
        assert_eq!(*rm.lookup::<Counter>("", "x").unwrap().0.lock(), 7);
        assert!(rm.lookup::<Other>("", "x").is_ok());
        rm.clear_container("");
        assert!(rm.is_empty());
    }

    #[test]
    fn a_borrowed_lookup_finds_the_resource_and_refuses_another_kind() {
        let r: Arc<dyn Resource> = Arc::new(Counter(Mutex::new(3)));
        let h = ResourceHandle::new("", "c", r.clone());
        assert_eq!(*h.get_ref::<Counter>().unwrap().0.lock(), 3);
        assert_eq!(
            Arc::strong_count(&r),
            2,
            "a borrow must not take a reference"
        );
        let e = h.get_ref::<Other>().err().unwrap();
        assert!(e.is_invalid_argument());
        assert!(e.message().contains("not a Other"), "{e}");
        assert!(ResourceHandle::empty()
            .get_ref::<Counter>()
            .err()
            .unwrap()
            .message()
            .contains("is empty"));
    }

    #[test]
    fn missing_is_not_found() {
        let rm = ResourceManager::new();
        assert!(rm.lookup::<Other>("", "nope").err().unwrap().is_not_found());
        rm.lookup_or_create_typed("", "c", || Ok(Counter(Mutex::new(0))))
            .unwrap();
        assert!(rm.lookup::<Other>("", "c").err().unwrap().is_not_found());
        assert!(ResourceHandle::empty().get::<Other>().is_err());
    }
}
