//! The element identity of TensorFlow's `Unique`, `UniqueV2`, `UniqueWithCounts(V2)` and
//! `ListDiff` kernels, and the dtypes they have CPU kernels for.
//!
//! TensorFlow hashes elements with `std::hash` (or Eigen's hash for the half types) and compares
//! them with `==`, so: NaN never equals anything (each NaN is its own value); float32/float64
//! `-0.0` and `0.0` are one value (`std::hash` hashes both zeros alike); float16/bfloat16 `-0.0`
//! and `0.0` are two (Eigen hashes their bits, so they land in different buckets); complex has
//! no kernel at all.

use std::hash::Hash;

use bytes::Bytes;
use weir_graph::{bf16, f16, DType, Error, Node, TensorType};

/// A hashable identity for the Unique family: `None` for a value equal to nothing (NaN).
pub(super) trait UniqueKey: TensorType {
    /// What two equal elements share.
    type Key: Hash + Eq;
    /// This element's identity, or `None` when it equals nothing, itself included.
    fn key(&self) -> Option<Self::Key>;
}

macro_rules! exact_keys {
    ($($t:ty),*) => {$(
        impl UniqueKey for $t {
            type Key = $t;
            fn key(&self) -> Option<$t> { Some(self.clone()) }
        }
    )*};
}
exact_keys!(i8, i16, i32, i64, u8, u16, u32, u64, bool, Bytes);

macro_rules! float_keys {
    ($($t:ty => $k:ty),*) => {$(
        impl UniqueKey for $t {
            type Key = $k;
            fn key(&self) -> Option<$k> {
                if self.is_nan() {
                    None
                } else if *self == 0.0 {
                    Some(0)
                } else {
                    Some(self.to_bits())
                }
            }
        }
    )*};
}
float_keys!(f32 => u32, f64 => u64);

macro_rules! half_keys {
    ($($t:ty),*) => {$(
        impl UniqueKey for $t {
            type Key = u16;
            fn key(&self) -> Option<u16> {
                if self.is_nan() { None } else { Some(self.to_bits()) }
            }
        }
    )*};
}
half_keys!(f16, bf16);

/// Runs `$body` with `$T` bound to the element type of `$dtype` when TensorFlow has a CPU
/// kernel of the Unique family for it (`$list_diff`: ListDiff, which has none for bool);
/// evaluates `$other` otherwise.
macro_rules! match_unique_dtype {
    ($dtype:expr, $list_diff:expr, $T:ident => $body:expr, _ => $other:expr) => {
        match $dtype {
            weir_graph::DType::String => {
                type $T = bytes::Bytes;
                $body
            }
            weir_graph::DType::Bool if !$list_diff => {
                type $T = bool;
                $body
            }
            other => weir_graph::match_real_dtype!(other, $T => $body,
                _ => weir_graph::match_half_dtype!(other, $T => $body, _ => $other)),
        }
    };
}
pub(super) use match_unique_dtype;

/// The element types with a CPU kernel, in the order TensorFlow's error lists them.
const KERNEL_TYPES: &[DType] = &[
    DType::Bool,
    DType::String,
    DType::F64,
    DType::F32,
    DType::BF16,
    DType::F16,
    DType::I32,
    DType::I8,
    DType::U8,
    DType::I16,
    DType::U16,
    DType::U32,
    DType::I64,
    DType::U64,
];

/// TensorFlow's error for a node of the Unique family whose `T` has no CPU kernel (complex,
/// or bool for ListDiff). TensorFlow's list also names its XLA devices' kernels; weir lists
/// the CPU ones.
pub(super) fn no_kernel(node: &Node, dtype: DType) -> Error {
    let list_diff = node.op_type() == "ListDiff";
    let mut attrs = vec![format!("T={}", dtype.proto_name())];
    for name in ["Taxis", "out_idx"] {
        if let Ok(t) = node.attr::<DType>(name) {
            attrs.push(format!("{name}={}", t.proto_name()));
        }
    }
    let mut kernels = Vec::new();
    for t in KERNEL_TYPES {
        if list_diff && *t == DType::Bool {
            continue;
        }
        for idx in ["DT_INT64", "DT_INT32"] {
            kernels.push(format!(
                "  device='CPU'; T in [{}]; out_idx in [{idx}]",
                t.proto_name()
            ));
        }
    }
    Error::invalid_argument(format!(
        "No OpKernel was registered to support Op '{}' used by {{{{node {}}}}} with these attrs: [{}]\nRegistered devices: [CPU]\nRegistered kernels:\n{}\n",
        node.op_type(),
        node.name(),
        attrs.join(", "),
        kernels.join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeros_merge_in_float32_but_not_in_the_half_types() {
        assert_eq!(0.0f32.key(), (-0.0f32).key());
        assert_eq!(0.0f64.key(), (-0.0f64).key());
        assert_ne!(f16::ZERO.key(), f16::NEG_ZERO.key());
        assert_ne!(bf16::ZERO.key(), bf16::NEG_ZERO.key());
        assert_eq!(f32::NAN.key(), None);
        assert_eq!(bf16::NAN.key(), None);
        assert_eq!(7u64.key(), Some(7));
    }
}
