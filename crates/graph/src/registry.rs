//! The process-wide registries of op signatures and kernels, found by op type name.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use parking_lot::RwLock;

use crate::{Error, Kernel, Node, OpDef, Result};

/// Makes the kernel of one node (read its attrs, validate them once, keep its state).
pub type KernelFactory = fn(&Node) -> Result<Box<dyn Kernel>>;

static OPS: LazyLock<RwLock<HashMap<String, Arc<OpDef>>>> = LazyLock::new(Default::default);
static KERNELS: LazyLock<RwLock<HashMap<String, KernelFactory>>> = LazyLock::new(Default::default);

/// Registers an op signature (TensorFlow's `REGISTER_OP`); a later registration of the same
/// name replaces the earlier one.
pub fn register_op(def: OpDef) {
    OPS.write().insert(def.name.clone(), Arc::new(def));
}

/// Registers the kernel of an op type (TensorFlow's `REGISTER_KERNEL_BUILDER`).
pub fn register_kernel(op_type: &str, factory: KernelFactory) {
    KERNELS.write().insert(op_type.to_string(), factory);
}

/// Registers `alias` as another name of the registered op `op_type`, with the same signature and
/// kernel: TensorFlow 1's ref-handle ops (`FIFOQueue`, `ReaderRead`), whose V2 successors take
/// resource handles, which is how weir models their ref handles too.
///
/// Panics if `op_type` is not registered, or has no kernel: the aliases are registered by the
/// same code that registers `op_type`, so this is a bug in that code, not bad input.
pub fn register_alias(op_type: &str, alias: &str) {
    let mut def = OPS.read()[op_type].as_ref().clone();
    def.name = alias.to_string();
    register_op(def);
    let factory = KERNELS.read()[op_type];
    register_kernel(alias, factory);
}

/// The signature of `op_type`; NotFound naming it if none is registered.
pub fn op_def(op_type: &str) -> Result<Arc<OpDef>> {
    OPS.read()
        .get(op_type)
        .cloned()
        .ok_or_else(|| Error::not_found(format!("Op type not registered '{op_type}'")))
}

/// The kernel factory of `op_type`; NotFound naming the op type if none is registered.
pub fn kernel_factory(op_type: &str) -> Result<KernelFactory> {
    KERNELS
        .read()
        .get(op_type)
        .copied()
        .ok_or_else(|| Error::not_found(format!("No registered kernel for op type '{op_type}'")))
}

/// The names of every registered op type, sorted.
pub fn registered_ops() -> Vec<String> {
    let mut v: Vec<String> = OPS.read().keys().cloned().collect();
    v.sort();
    v
}
