//! Small helpers shared by the op families.

use weir_graph::{Error, Output, Result};

/// The graph of the first input, after checking that every input shares it.
pub(crate) fn same_graph<'a>(inputs: &[&'a Output]) -> Result<&'a weir_graph::Graph> {
    let first = inputs
        .first()
        .ok_or_else(|| Error::invalid_argument("An op needs at least one input"))?;
    for o in &inputs[1..] {
        if !o.graph().ptr_eq(first.graph()) {
            return Err(Error::invalid_argument(format!(
                "Tensor {} must be from the same graph as Tensor {}.",
                o.name(),
                first.name()
            )));
        }
    }
    Ok(first.graph())
}

/// Runs `f` compiled for the widest vector instructions this CPU has (AVX-512 or AVX2, found at
/// run time), so the plain elementwise loops inside it vectorize 8 or 16 lanes wide instead of
/// the 4 of the portable x86-64 baseline. Other CPUs run it as compiled.
///
/// Only code inlined into `f`'s variants gets the wide instructions, and the compiler declines
/// to inline a large closure body: keep closures to one loop, or pass a struct whose
/// `NullaryFnOnce::call` is `#[inline(always)]`. (Kernels written with explicit vectors use
/// `pulp::Arch::dispatch` and `WithSimd` instead, as the narrow products do.)
#[inline(always)]
pub(crate) fn vectorized<R>(f: impl pulp::NullaryFnOnce<Output = R>) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(v4) = pulp::x86::V4::try_new() {
            return v4.vectorize(f);
        }
        if let Some(v3) = pulp::x86::V3::try_new() {
            return v3.vectorize(f);
        }
    }
    f.call()
}
