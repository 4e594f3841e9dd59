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

/// Which instruction set a kernel written with explicit vectors (`pulp::WithSimd`) runs on:
/// the widest the CPU has, chosen at run time, or one named by a test, so the narrow and sparse
/// products can check every block width and remainder this CPU can run.
#[derive(Clone, Copy)]
pub(crate) enum Isa {
    /// The widest available (AVX-512, AVX2 or the baseline), as kernels run outside tests.
    Dispatched,
    /// One-lane vectors: the portable fallback.
    #[cfg(test)]
    Scalar,
    /// AVX2's eight lanes.
    #[cfg(all(test, target_arch = "x86_64"))]
    Avx2(pulp::x86::V3),
    /// AVX-512's sixteen lanes.
    #[cfg(all(test, target_arch = "x86_64"))]
    Avx512(pulp::x86::V4),
}

impl Isa {
    /// Runs `kernel` compiled for this instruction set.
    #[inline(always)]
    pub(crate) fn run<K: pulp::WithSimd>(self, kernel: K) -> K::Output {
        match self {
            Isa::Dispatched => pulp::Arch::new().dispatch(kernel),
            #[cfg(test)]
            Isa::Scalar => pulp::Simd::vectorize(pulp::Scalar::new(), kernel),
            #[cfg(all(test, target_arch = "x86_64"))]
            Isa::Avx2(v3) => pulp::Simd::vectorize(v3, kernel),
            #[cfg(all(test, target_arch = "x86_64"))]
            Isa::Avx512(v4) => pulp::Simd::vectorize(v4, kernel),
        }
    }

    /// Every instruction set this CPU can run, with a name for test messages.
    #[cfg(test)]
    pub(crate) fn all() -> Vec<(&'static str, Isa)> {
        #[allow(unused_mut)]
        let mut out = vec![("dispatched", Isa::Dispatched), ("scalar", Isa::Scalar)];
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(v3) = pulp::x86::V3::try_new() {
                out.push(("avx2", Isa::Avx2(v3)));
            }
            if let Some(v4) = pulp::x86::V4::try_new() {
                out.push(("avx512", Isa::Avx512(v4)));
            }
        }
        out
    }
}
