//! Element types of tensors, mirroring TensorFlow's `tf.DType`.

use std::fmt;

use crate::{Error, Result};

/// The element type of a [`Tensor`](crate::Tensor): TensorFlow's `tf.DType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `tf.float32`.
    F32,
    /// `tf.float64`.
    F64,
    /// `tf.int8`.
    I8,
    /// `tf.int16`.
    I16,
    /// `tf.int32`.
    I32,
    /// `tf.int64`.
    I64,
    /// `tf.uint8`.
    U8,
    /// `tf.uint16`.
    U16,
    /// `tf.uint32`.
    U32,
    /// `tf.uint64`.
    U64,
    /// `tf.float16` (`half`): IEEE binary16; arithmetic rounds to it after each operation, as
    /// TensorFlow's `Eigen::half` does.
    F16,
    /// `tf.bfloat16`: float32's exponent with a 7-bit mantissa.
    BF16,
    /// `tf.complex64`: a pair of float32 (real, imaginary).
    C64,
    /// `tf.complex128`: a pair of float64 (real, imaginary).
    C128,
    /// `tf.bool`.
    Bool,
    /// `tf.string`: arbitrary bytes per element.
    String,
    /// `tf.resource`: a handle to a stateful resource (variable, queue, reader) of a session.
    Resource,
}

impl DType {
    /// Every dtype, `Resource` last: the types of ops that only move elements around
    /// (`Identity`, `Pack`, `GatherV2`), which TensorFlow also lets pass, stack and pick
    /// resource handles (`QueueBase.from_list`).
    pub const ALL: &'static [DType] = &[
        DType::F32,
        DType::F64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::C64,
        DType::C128,
        DType::Bool,
        DType::String,
        DType::Resource,
    ];
    /// Every dtype a tensor of data can have (all but `Resource`).
    pub const ALL_DATA: &'static [DType] = DType::ALL.split_at(DType::ALL.len() - 1).0;
    /// The real number types kernels compute in, and `Bool`: TensorFlow's `realnumbertypes`
    /// plus bool, less the half types, which only the ops that list [`DType::HALF`] take.
    pub const NUMBER_AND_BOOL: &'static [DType] = &[
        DType::F32,
        DType::F64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::Bool,
    ];
    /// Every number type: the real ones, the halves and complex (TensorFlow's `numbertypes`).
    pub const NUMBER: &'static [DType] = &[
        DType::F32,
        DType::F64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::C64,
        DType::C128,
    ];
    /// The real number types with the halves (TensorFlow's `realnumbertypes`).
    pub const REAL_AND_HALF: &'static [DType] = DType::NUMBER.split_at(12).0;
    /// The real number types (TensorFlow's `realnumbertypes`), less the half types.
    pub const REAL_NUMBER: &'static [DType] = DType::NUMBER_AND_BOOL.split_at(10).0;
    /// `float32` and `float64`: the floating-point types every float kernel takes.
    pub const FLOAT: &'static [DType] = &[DType::F32, DType::F64];
    /// The 16-bit floating-point types, `float16` and `bfloat16`.
    pub const HALF: &'static [DType] = &[DType::F16, DType::BF16];
    /// The complex types (TensorFlow's `complextypes`).
    pub const COMPLEX: &'static [DType] = &[DType::C64, DType::C128];
    /// The integer types.
    pub const INTEGER: &'static [DType] = &[
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
    ];

    /// TensorFlow's name of the dtype (`float`, `int32`, `string`, ...), as its messages print it.
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "float",
            DType::F64 => "double",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::F16 => "half",
            DType::BF16 => "bfloat16",
            DType::C64 => "complex64",
            DType::C128 => "complex128",
            DType::Bool => "bool",
            DType::String => "string",
            DType::Resource => "resource",
        }
    }

    /// TensorFlow's `DataType` enum number (`DT_FLOAT` = 1, ...), as its protos store a dtype.
    pub fn proto_number(self) -> i32 {
        match self {
            DType::F32 => 1,
            DType::F64 => 2,
            DType::I32 => 3,
            DType::U8 => 4,
            DType::I16 => 5,
            DType::I8 => 6,
            DType::String => 7,
            DType::I64 => 9,
            DType::Bool => 10,
            DType::U16 => 17,
            DType::U32 => 22,
            DType::U64 => 23,
            DType::F16 => 19,
            DType::BF16 => 14,
            DType::C64 => 8,
            DType::C128 => 18,
            DType::Resource => 20,
        }
    }

    /// The dtype of a `DataType` number; `None` for one weir does not have (`DT_HALF`, ...).
    pub fn from_proto_number(n: i32) -> Option<DType> {
        DType::ALL.iter().copied().find(|d| d.proto_number() == n)
    }

    /// TensorFlow's `DataType` enum name (`DT_FLOAT`, `DT_INT64`, ...), as text protos spell it.
    pub fn proto_name(self) -> &'static str {
        match self {
            DType::F32 => "DT_FLOAT",
            DType::F64 => "DT_DOUBLE",
            DType::I32 => "DT_INT32",
            DType::U8 => "DT_UINT8",
            DType::I16 => "DT_INT16",
            DType::I8 => "DT_INT8",
            DType::String => "DT_STRING",
            DType::I64 => "DT_INT64",
            DType::Bool => "DT_BOOL",
            DType::U16 => "DT_UINT16",
            DType::U32 => "DT_UINT32",
            DType::U64 => "DT_UINT64",
            DType::F16 => "DT_HALF",
            DType::BF16 => "DT_BFLOAT16",
            DType::C64 => "DT_COMPLEX64",
            DType::C128 => "DT_COMPLEX128",
            DType::Resource => "DT_RESOURCE",
        }
    }

    /// The name Python gives the dtype (`tf.float32.name`): `float32`, `float64`, `int32`, ...,
    /// as TensorFlow's Python-side errors print it.
    pub fn python_name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::F16 => "float16",
            other => other.name(),
        }
    }

    /// The dtype for a TensorFlow or numpy name (`"float32"`, `"float"`, `"int64"`, ...).
    pub fn from_name(name: &str) -> Result<DType> {
        Ok(match name {
            "float" | "float32" => DType::F32,
            "double" | "float64" => DType::F64,
            "int8" => DType::I8,
            "int16" => DType::I16,
            "int32" => DType::I32,
            "int64" => DType::I64,
            "uint8" => DType::U8,
            "uint16" => DType::U16,
            "uint32" => DType::U32,
            "uint64" => DType::U64,
            "half" | "float16" => DType::F16,
            "bfloat16" => DType::BF16,
            "complex64" => DType::C64,
            "complex128" => DType::C128,
            "bool" => DType::Bool,
            "string" => DType::String,
            "resource" => DType::Resource,
            _ => {
                return Err(Error::invalid_argument(format!(
                    "Unknown dtype name '{name}'"
                )))
            }
        })
    }

    /// Size in bytes of one element for fixed-size types; `None` for strings and resources.
    pub fn size_of(self) -> Option<usize> {
        Some(match self {
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 | DType::C64 => 8,
            DType::I8 | DType::U8 | DType::Bool => 1,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::C128 => 16,
            DType::String | DType::Resource => return None,
        })
    }

    /// Whether the dtype is a floating-point type (`F32`, `F64`, `F16`, `BF16`).
    pub fn is_floating(self) -> bool {
        DType::FLOAT.contains(&self) || DType::HALF.contains(&self)
    }

    /// Whether the dtype is `C64` or `C128`.
    pub fn is_complex(self) -> bool {
        DType::COMPLEX.contains(&self)
    }

    /// Whether the dtype is a signed or unsigned integer.
    pub fn is_integer(self) -> bool {
        DType::INTEGER.contains(&self)
    }

    /// Whether the dtype is a real number (integer or floating, half types included; not
    /// complex).
    pub fn is_numeric(self) -> bool {
        DType::REAL_NUMBER.contains(&self) || DType::HALF.contains(&self)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn proto_numbers_and_names_are_tensorflows_and_read_back() {
        assert_eq!(
            (
                DType::F32.proto_number(),
                DType::I64.proto_number(),
                DType::U16.proto_number()
            ),
            (1, 9, 17)
        );
        assert_eq!(DType::Bool.proto_name(), "DT_BOOL");
        for &d in DType::ALL {
            assert_eq!(DType::from_proto_number(d.proto_number()), Some(d));
        }
        assert_eq!(
            (DType::from_proto_number(19), DType::from_proto_number(8)),
            (Some(DType::F16), Some(DType::C64))
        );
        // DT_QINT8 and DT_VARIANT are TensorFlow's, not weir's.
        assert_eq!(
            (DType::from_proto_number(11), DType::from_proto_number(21)),
            (None, None)
        );
    }
    use super::DType;

    #[test]
    fn number_lists_are_the_slices_they_claim() {
        assert_eq!(DType::NUMBER.len(), 14);
        assert!(!DType::NUMBER.contains(&DType::Bool));
        assert!(DType::COMPLEX.iter().all(|d| DType::NUMBER.contains(d)));
        assert!(DType::HALF.iter().all(|d| DType::REAL_AND_HALF.contains(d)));
        assert!(DType::REAL_AND_HALF.iter().all(|d| !d.is_complex()));
        assert!(DType::REAL_NUMBER
            .iter()
            .all(|d| DType::REAL_AND_HALF.contains(d)));
    }

    #[test]
    fn every_dtype_is_the_data_dtypes_and_resource() {
        assert_eq!(DType::ALL_DATA.len() + 1, DType::ALL.len());
        assert!(!DType::ALL_DATA.contains(&DType::Resource));
        assert_eq!(DType::ALL.last(), Some(&DType::Resource));
        assert!(DType::ALL_DATA.iter().all(|d| DType::ALL.contains(d)));
    }
}
