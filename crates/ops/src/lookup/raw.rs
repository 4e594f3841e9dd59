//! Helpers of the table types: adding the table ops with TensorFlow's names and static
//! shapes, and the Python-side checks they share.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use weir_graph::{DType, Error, Operation, Output, Result, Shape};

/// `<dtype: 'string'>`: Python's repr of a dtype, as TensorFlow's TypeErrors print it.
pub(super) fn dtype_repr(d: DType) -> String {
    format!("<dtype: '{}'>", d.python_name())
}

/// TensorFlow's TypeError for keys of the wrong dtype.
pub(super) fn check_keys(keys: &Output, key_dtype: DType) -> Result<()> {
    if keys.dtype() != key_dtype {
        return Err(Error::invalid_argument(format!(
            "Dtype of argument `keys` must be {}, received: {}",
            dtype_repr(key_dtype),
            dtype_repr(keys.dtype())
        )));
    }
    Ok(())
}

/// The last component of an op's name: what Python calls the table's name.
pub(super) fn base_name(op: &Operation) -> String {
    op.name().rsplit('/').next().unwrap_or_default().to_string()
}

/// A random version-4 UUID, as Python's `uuid.uuid4()` writes one: what makes the shared name
/// of a table filled from tensors unique.
pub(super) fn uuid4() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let word = || {
        let mut h = RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            h.write_u128(t.as_nanos());
        }
        h.finish()
    };
    let (a, b) = (word(), word());
    let a = (a & !0xf000) | 0x4000;
    let b = (b & !(0xc << 60)) | (0x8 << 60);
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xffff,
        b >> 48,
        b & 0xffff_ffff_ffff
    )
}

/// A `LookupTableFindV2` of `keys` in the table `handle`, its values shaped like the keys
/// followed by `value_shape`.
pub(super) fn find(
    handle: &Output,
    keys: &Output,
    default: &Output,
    value_shape: &Shape,
) -> Result<Output> {
    crate::new_op(handle.graph(), "LookupTableFindV2")
        .input(handle)
        .input(keys)
        .input(default)
        .output_shape(0, keys.shape().concatenate(value_shape))
        .build()?
        .output(0)
}

/// A `LookupTableSizeV2` of the table `handle`.
pub(super) fn size(handle: &Output) -> Result<Output> {
    crate::new_op(handle.graph(), "LookupTableSizeV2")
        .input(handle)
        .build()?
        .output(0)
}

/// A `LookupTableExportV2` of the table `handle`: its keys and their values.
pub(super) fn export(
    handle: &Output,
    key_dtype: DType,
    value_dtype: DType,
    value_shape: &Shape,
) -> Result<(Output, Output)> {
    let op = crate::new_op(handle.graph(), "LookupTableExportV2")
        .input(handle)
        .attr("Tkeys", key_dtype)
        .attr("Tvalues", value_dtype)
        .output_shape(1, Shape::new(vec![None]).concatenate(value_shape))
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

#[cfg(test)]
mod tests {
    #[test]
    fn uuids_look_like_pythons_and_differ() {
        let (a, b) = (super::uuid4(), super::uuid4());
        assert_ne!(a, b);
        let parts: Vec<usize> = a.split('-').map(str::len).collect();
        assert_eq!(parts, vec![8, 4, 4, 4, 12]);
        assert_eq!(&a[14..15], "4");
    }
}
