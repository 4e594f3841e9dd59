//! TensorFlow 1's table ops (`HashTable`, `MutableHashTable`, `MutableHashTableOfTensors`,
//! `InitializeTable`, `InitializeTableFromTextFile`, `LookupTableFind`, `LookupTableInsert`,
//! `LookupTableSize`, `LookupTableExport`, `LookupTableImport`), which old GraphDefs hold.
//!
//! TensorFlow types their table handle as a string ref; weir models such a ref as a resource
//! handle (as it does a `VariableV2`'s), so these ops share the signatures and kernels of their
//! V2 forms. Only TensorFlow's signature messages differ: they name the handle `string_ref`.
//! TensorFlow marks the V1 consumers stateless (their ref input keeps them apart); weir's handle
//! is a plain value, so they stay stateful here, as their V2 forms.

use weir_graph::registry::{kernel_factory, op_def, register_kernel, register_op};
use weir_graph::{Error, Kernel, Node, OpContext, Result};

/// A V2 kernel run for a TensorFlow 1 op: its signature errors name the handle as TensorFlow 1
/// types it.
struct RefKernel(Box<dyn Kernel>);

impl Kernel for RefKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        self.0.compute(ctx).map_err(|e| {
            let msg = e.message();
            if msg.starts_with("Signature mismatch, have: resource") {
                let fixed = msg
                    .replacen("have: resource", "have: string_ref", 1)
                    .replacen("expected: resource", "expected: string_ref", 1);
                Error::new(e.code(), fixed)
            } else {
                e
            }
        })
    }
}

/// A V1 op's kernel: its V2 form's, with TensorFlow 1's signature messages.
fn make_ref_kernel(node: &Node) -> Result<Box<dyn Kernel>> {
    let v2 = kernel_factory(&format!("{}V2", node.op_type()))?;
    Ok(Box::new(RefKernel(v2(node)?)))
}

/// Registers TensorFlow 1's table ops, with their V2 forms' signatures (TensorFlow 2.21
/// declares the same arguments and attrs for both); the V2 ops must be registered first.
pub(super) fn register() {
    for v1 in [
        "HashTable",
        "MutableHashTable",
        "MutableHashTableOfTensors",
        "InitializeTable",
        "InitializeTableFromTextFile",
        "LookupTableFind",
        "LookupTableInsert",
        "LookupTableImport",
        "LookupTableSize",
        "LookupTableExport",
    ] {
        let v2 = op_def(&format!("{v1}V2"))
            .unwrap_or_else(|e| panic!("{v1}'s V2 op is registered after it: {e}"));
        let mut def = v2.as_ref().clone();
        def.name = v1.to_string();
        register_op(def);
        register_kernel(v1, make_ref_kernel);
    }
}
