//! The session resource behind every table op: TensorFlow's `LookupInterface`, either a
//! `HashTable` (filled once by an initializer, then read-only) or a `MutableHashTable` (of
//! scalars, or of vectors for `MutableHashTableOfTensorsV2`).

use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::{Mutex, RwLock};
use weir_graph::{format_dims, DType, Error, Resource, Result, Tensor};

use super::store::{new_store, Store};

/// Which table a resource is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TableKind {
    /// `HashTableV2`: initializable, immutable once initialized.
    Hash,
    /// `MutableHashTableV2` and `MutableHashTableOfTensorsV2`.
    Mutable,
}

/// A lookup table of one session: see the module doc.
pub(super) struct LookupTable {
    kind: TableKind,
    key_dtype: DType,
    value_dtype: DType,
    /// `[]` for tables of scalars, `[n]` for tables of vectors.
    value_shape: Vec<usize>,
    /// Set once a `HashTable`'s initialization has completed.
    initialized: AtomicBool,
    /// Serializes initializations, as TensorFlow's table mutex does.
    init: Mutex<()>,
    store: RwLock<Box<dyn Store>>,
}

impl Resource for LookupTable {
    fn type_name(&self) -> &str {
        "LookupTable"
    }
}

/// TensorFlow's `TensorShapeUtils::EndsWith` for the (always scalar) keys, and the shape of the
/// values of `keys`: the keys' shape followed by the value shape.
fn values_shape(keys: &Tensor, value_shape: &[usize]) -> Vec<usize> {
    let mut s = keys.shape().to_vec();
    s.extend_from_slice(value_shape);
    s
}

impl LookupTable {
    /// An empty table; None for a dtype pair no store holds.
    pub(super) fn new(
        kind: TableKind,
        key_dtype: DType,
        value_dtype: DType,
        value_shape: Vec<usize>,
    ) -> Option<LookupTable> {
        let width = value_shape.iter().product();
        Some(LookupTable {
            kind,
            key_dtype,
            value_dtype,
            value_shape,
            initialized: AtomicBool::new(false),
            init: Mutex::new(()),
            store: RwLock::new(new_store(key_dtype, value_dtype, width)?),
        })
    }

    pub(super) fn kind(&self) -> TableKind {
        self.kind
    }

    pub(super) fn key_dtype(&self) -> DType {
        self.key_dtype
    }

    pub(super) fn value_dtype(&self) -> DType {
        self.value_dtype
    }

    fn is_initialized(&self) -> bool {
        self.initialized.load(Ordering::Acquire)
    }

    /// TensorFlow's `CheckKeyAndValueTensorsHelper`: the values' shape is the keys' shape
    /// followed by the value shape.
    fn check_pairs(&self, keys: &Tensor, values: &Tensor) -> Result<()> {
        self.check_types(keys, values)?;
        let want = values_shape(keys, &self.value_shape);
        if values.shape() != want.as_slice() {
            return Err(Error::invalid_argument(format!(
                "Expected shape {} for value, got {}",
                format_dims(&want),
                format_dims(values.shape())
            )));
        }
        Ok(())
    }

    fn check_types(&self, keys: &Tensor, values: &Tensor) -> Result<()> {
        if keys.dtype() != self.key_dtype {
            return Err(Error::invalid_argument(format!(
                "Key must be type {} but got {}",
                self.key_dtype,
                keys.dtype()
            )));
        }
        if values.dtype() != self.value_dtype {
            return Err(Error::invalid_argument(format!(
                "Value must be type {} but got {}",
                self.value_dtype,
                values.dtype()
            )));
        }
        Ok(())
    }

    /// `LookupTableFindV2`: the values of `keys` (any shape), `default` for missing keys.
    pub(super) fn find(&self, keys: &Tensor, default: &Tensor) -> Result<Tensor> {
        self.check_types(keys, default)?;
        let out = values_shape(keys, &self.value_shape);
        let d = default.shape();
        if d != self.value_shape.as_slice() && d != out.as_slice() {
            return Err(Error::invalid_argument(format!(
                "Expected shape {} or {} for default value, got {}",
                format_dims(&self.value_shape),
                format_dims(&out),
                format_dims(d)
            )));
        }
        // A HashTable gives every missing key the default's first element; a mutable table
        // gives each its own when the default is as large as the result.
        let per_key = match self.kind {
            TableKind::Hash => {
                if !self.is_initialized() {
                    return Err(Error::failed_precondition("Table not initialized."));
                }
                false
            }
            TableKind::Mutable => default.num_elements() == out.iter().product::<usize>(),
        };
        self.store.read().find(keys, default, per_key, &out)
    }

    /// The number of entries (0 for a HashTable not initialized yet).
    pub(super) fn size(&self) -> usize {
        if self.kind == TableKind::Hash && !self.is_initialized() {
            return 0;
        }
        self.store.read().len()
    }

    /// `LookupTableInsertV2`.
    pub(super) fn insert(&self, keys: &Tensor, values: &Tensor) -> Result<()> {
        self.check_pairs(keys, values)?;
        match self.kind {
            TableKind::Hash => Err(Error::unimplemented(
                "Insert not supported by InitializableLookupTable implementations",
            )),
            TableKind::Mutable => self.store.write().insert_or_assign(keys, values),
        }
    }

    /// `LookupTableRemoveV2`.
    pub(super) fn remove(&self, keys: &Tensor) -> Result<()> {
        if keys.dtype() != self.key_dtype {
            return Err(Error::invalid_argument(format!(
                "Key must be type {} but got {}",
                self.key_dtype,
                keys.dtype()
            )));
        }
        match self.kind {
            TableKind::Hash => Err(Error::unimplemented(
                "Remove not supported by InitializableLookupTable implementations",
            )),
            TableKind::Mutable => self.store.write().remove(keys),
        }
    }

    /// `LookupTableImportV2`: a mutable table is replaced by the entries; a HashTable is
    /// initialized with them.
    pub(super) fn import(&self, keys: &Tensor, values: &Tensor) -> Result<()> {
        self.check_pairs(keys, values)?;
        match self.kind {
            TableKind::Hash => self.initialize(keys, values, keys.num_elements() as i64),
            TableKind::Mutable => {
                let mut store = self.store.write();
                store.clear();
                store.insert_or_assign(keys, values)
            }
        }
    }

    /// `LookupTableExportV2`.
    pub(super) fn export(&self) -> Result<(Tensor, Tensor)> {
        if self.kind == TableKind::Hash && !self.is_initialized() {
            return Err(Error::aborted("HashTable is not initialized."));
        }
        self.store.read().export(&self.value_shape)
    }

    /// TensorFlow's `InitializableLookupTable::Initialize` with the whole of an initializer's
    /// data: `total` entries are what the initializer holds. An initialized table accepts a
    /// second initialization only if it holds as many entries ("Table was already initialized
    /// with different data." otherwise, as TensorFlow compares only the sizes). Keys inserted
    /// before a conflicting duplicate stay in the table, which stays uninitialized.
    pub(super) fn initialize(&self, keys: &Tensor, values: &Tensor, total: i64) -> Result<()> {
        self.initialize_with(|store| store.insert_new(keys, values), total)
    }

    /// [`LookupTable::initialize`] with the entries inserted by `fill`.
    pub(super) fn initialize_with(
        &self,
        fill: impl FnOnce(&mut dyn Store) -> Result<()>,
        total: i64,
    ) -> Result<()> {
        let _init = self.init.lock();
        if self.is_initialized() {
            return if total == self.size() as i64 {
                Ok(())
            } else {
                Err(Error::failed_precondition(
                    "Table was already initialized with different data.",
                ))
            };
        }
        fill(self.store.write().as_mut())?;
        self.initialized.store(true, Ordering::Release);
        Ok(())
    }

    /// Whether the table is a HashTable already initialized.
    pub(super) fn initialized_hash_table(&self) -> bool {
        self.kind == TableKind::Hash && self.is_initialized()
    }
}
