//! The buckets of a `MutableDenseHashTableV2`: TensorFlow's open addressing with quadratic
//! probing over a power-of-two array of buckets, each a key row and a value row. Empty buckets
//! hold the table's `empty_key`, removed ones its `deleted_key`.
//!
//! The bucket arrays are what `LookupTableExportV2` returns, so the layout is TensorFlow's bit
//! for bit: the same hash (an integer key is its own hash, a string key its `Hash64`, a vector
//! key the `Hash64Combine` of its elements), the same probe sequence and the same growth (the
//! bucket count doubles before an insert that could pass the load factor, and the old buckets
//! are re-inserted in bucket order).

use weir_graph::{format_dims, Bytes, DType, Error, Result, Tensor, TensorType};

use crate::string::hash64;

/// The most elements (keys and values) the buckets may hold: a bound on an allocation sized by
/// an attribute or by a growth.
const MAX_ELEMENTS: usize = 1 << 31;

/// A key type of a dense table: int32, int64 or string.
pub(super) trait DenseKey: TensorType + PartialEq {
    /// TensorFlow's `HashScalar`: an integer converted to `uint64`, a string's `Hash64`.
    fn hash_scalar(&self) -> u64;
}

impl DenseKey for i32 {
    fn hash_scalar(&self) -> u64 {
        // `static_cast<uint64>` of a negative int32 sign-extends.
        i64::from(*self) as u64
    }
}

impl DenseKey for i64 {
    fn hash_scalar(&self) -> u64 {
        *self as u64
    }
}

impl DenseKey for Bytes {
    fn hash_scalar(&self) -> u64 {
        hash64(self)
    }
}

/// TensorFlow's `Hash64Combine`.
fn hash64_combine(a: u64, b: u64) -> u64 {
    a ^ b
        .wrapping_add(0x9e37_79b9_7f4a_7800)
        .wrapping_add(a << 10)
        .wrapping_add(a >> 4)
}

fn hash_row<K: DenseKey>(row: &[K]) -> u64 {
    match row {
        [k] => k.hash_scalar(),
        _ => row
            .iter()
            .fold(0, |acc, k| hash64_combine(acc, k.hash_scalar())),
    }
}

/// What a dense table does with its buckets, whatever their dtypes. Shapes and dtypes are
/// checked by the caller ([`super::dense_table::DenseTable`]).
pub(super) trait DenseStore: Send + Sync {
    /// The number of keys.
    fn len(&self) -> usize;

    /// The value rows of the `n` key rows of `keys`, missing keys getting the first row of
    /// `default`, as a tensor of `out`.
    fn find(&self, keys: &Tensor, n: usize, default: &Tensor, out: &[usize]) -> Result<Tensor>;

    /// Inserts or overwrites the `n` key rows of `keys` with the rows of `values`, growing the
    /// buckets first if `n` new keys could pass `max_load_factor`.
    fn insert(&mut self, keys: &Tensor, values: &Tensor, n: usize, max_load: f32) -> Result<()>;

    /// Marks the buckets of the `n` key rows present as deleted.
    fn remove(&mut self, keys: &Tensor, n: usize) -> Result<()>;

    /// Takes `keys` (`[buckets, key_size]`) and `values` as the buckets, as a restore does.
    fn import(&mut self, keys: &Tensor, values: &Tensor) -> Result<()>;

    /// The buckets: keys `[buckets, key_size]` and values `[buckets, value_size]`.
    fn export(&self) -> Result<(Tensor, Tensor)>;
}

/// The buckets of one table: see the module doc.
struct Buckets<K, V> {
    key_size: usize,
    /// The columns of the key matrix: `key_size`, unless an import gave scalar keys as rows of
    /// more columns, which TensorFlow keeps (reading the first) and exports as given.
    key_stride: usize,
    value_size: usize,
    empty: Vec<K>,
    deleted: Vec<K>,
    empty_hash: u64,
    deleted_hash: u64,
    num_buckets: usize,
    num_entries: usize,
    keys: Vec<K>,
    values: Vec<V>,
}

/// Why a key cannot be used, if it is the empty or the deleted key.
enum Reserved {
    Empty,
    Deleted,
}

impl Reserved {
    fn error(&self) -> Error {
        Error::invalid_argument(match self {
            Reserved::Empty => "Using the empty_key as a table key is not allowed",
            Reserved::Deleted => "Using the deleted_key as a table key is not allowed",
        })
    }
}

impl<K: DenseKey, V: TensorType> Buckets<K, V> {
    fn key(&self, b: usize) -> &[K] {
        &self.keys[b * self.key_stride..b * self.key_stride + self.key_size]
    }

    fn set_key(&mut self, b: usize, row: &[K]) {
        let at = b * self.key_stride;
        self.keys[at..at + self.key_size].clone_from_slice(row);
    }

    fn reserved(&self, hash: u64, row: &[K]) -> Option<Reserved> {
        if hash == self.empty_hash && row == self.empty.as_slice() {
            Some(Reserved::Empty)
        } else if hash == self.deleted_hash && row == self.deleted.as_slice() {
            Some(Reserved::Deleted)
        } else {
            None
        }
    }

    /// The probe sequence of `hash`: the buckets TensorFlow visits, in order, until
    /// `visit` says where to stop; an Internal error (`what` naming the operation) after as
    /// many probes as buckets, or on buckets that are not a power of two.
    fn probe(
        &self,
        hash: u64,
        what: &str,
        mut visit: impl FnMut(&Self, usize) -> bool,
    ) -> Result<usize> {
        let internal =
            || Error::internal(format!("Internal error in MutableDenseHashTable {what}"));
        let mask = (self.num_buckets as u64).wrapping_sub(1);
        let mut b = hash & mask;
        let mut probes: u64 = 0;
        loop {
            // Imported buckets need not number a power of two: TensorFlow reads past them then.
            let i = usize::try_from(b)
                .ok()
                .filter(|&i| i < self.num_buckets)
                .ok_or_else(internal)?;
            if visit(self, i) {
                return Ok(i);
            }
            probes += 1;
            b = b.wrapping_add(probes) & mask;
            if probes >= self.num_buckets as u64 {
                return Err(internal());
            }
        }
    }

    /// TensorFlow's `AllocateBuckets`: every bucket empty, every value zero.
    fn allocate(&mut self, num_buckets: i64) -> Result<()> {
        if num_buckets < 4 || (num_buckets & (num_buckets - 1)) != 0 {
            return Err(Error::invalid_argument(format!(
                "Number of buckets must be at least 4 and a power of 2, got: {num_buckets}"
            )));
        }
        let n = usize::try_from(num_buckets).unwrap_or(usize::MAX);
        let elements = n.saturating_mul(self.key_size.max(1) + self.value_size);
        if elements > MAX_ELEMENTS {
            return Err(Error::resource_exhausted(format!(
                "OOM when allocating tensor with shape[{num_buckets},{}] and type {} on cpu",
                self.key_size,
                K::DTYPE.name()
            )));
        }
        self.num_buckets = n;
        self.num_entries = 0;
        self.key_stride = self.key_size;
        let mut keys = Vec::with_capacity(n * self.key_size);
        for _ in 0..n {
            keys.extend_from_slice(&self.empty);
        }
        self.keys = keys;
        self.values = vec![V::zero(); n * self.value_size];
        Ok(())
    }

    /// TensorFlow's `DoInsert` of `n` key rows `stride` apart; the empty and deleted keys are
    /// skipped when `rebucketing`.
    fn insert_rows(
        &mut self,
        keys: &[K],
        stride: usize,
        values: &[V],
        n: usize,
        rebucketing: bool,
    ) -> Result<()> {
        let (ks, vs) = (self.key_size, self.value_size);
        for i in 0..n {
            let row = &keys[i * stride..i * stride + ks];
            let hash = hash_row(row);
            if let Some(r) = self.reserved(hash, row) {
                if rebucketing {
                    continue;
                }
                return Err(r.error());
            }
            let b = self.probe(hash, "insert", |s, b| {
                let k = s.key(b);
                k == row || k == s.empty.as_slice() || k == s.deleted.as_slice()
            })?;
            if self.key(b) != row {
                self.num_entries += 1;
                self.set_key(b, row);
            }
            self.values[b * vs..(b + 1) * vs].clone_from_slice(&values[i * vs..(i + 1) * vs]);
        }
        Ok(())
    }
}

impl<K: DenseKey, V: TensorType> DenseStore for Buckets<K, V> {
    fn len(&self) -> usize {
        self.num_entries
    }

    fn find(&self, keys: &Tensor, n: usize, default: &Tensor, out: &[usize]) -> Result<Tensor> {
        let keys = keys.as_slice::<K>()?;
        let default = default.as_slice::<V>()?;
        let (ks, vs) = (self.key_size, self.value_size);
        if default.len() < vs || keys.len() < n * ks {
            return Err(Error::internal("the default value is smaller than a row"));
        }
        let mut values = Vec::with_capacity(n * vs);
        for i in 0..n {
            let row = &keys[i * ks..(i + 1) * ks];
            let hash = hash_row(row);
            if let Some(r) = self.reserved(hash, row) {
                return Err(r.error());
            }
            let b = self.probe(hash, "lookup", |s, b| {
                let k = s.key(b);
                k == row || k == s.empty.as_slice()
            })?;
            if self.key(b) == row {
                values.extend_from_slice(&self.values[b * vs..(b + 1) * vs]);
            } else {
                values.extend_from_slice(&default[..vs]);
            }
        }
        Tensor::from_vec(out, values)
    }

    fn insert(&mut self, keys: &Tensor, values: &Tensor, n: usize, max_load: f32) -> Result<()> {
        let (keys, values) = (keys.as_slice::<K>()?, values.as_slice::<V>()?);
        if keys.len() < n * self.key_size || values.len() < n * self.value_size {
            return Err(Error::internal("fewer values than keys"));
        }
        // As TensorFlow, counts every key as new: the float products are TensorFlow's.
        let pending = (self.num_entries + n) as f32;
        if pending > self.num_buckets as f32 * max_load {
            let mut grown = self.num_buckets as i64;
            loop {
                grown = grown.saturating_mul(2);
                // `max_load` is in (0, 1), never NaN; no bucket at all (an empty import) never grows,
                // where TensorFlow loops forever.
                if pending <= grown as f32 * max_load || grown == i64::MAX || grown == 0 {
                    break;
                }
            }
            let old_keys = std::mem::take(&mut self.keys);
            let old_values = std::mem::take(&mut self.values);
            let (old_buckets, old_stride) = (self.num_buckets, self.key_stride);
            if let Err(e) = self.allocate(grown) {
                self.keys = old_keys;
                self.values = old_values;
                return Err(e);
            }
            self.insert_rows(&old_keys, old_stride, &old_values, old_buckets, true)?;
        }
        self.insert_rows(keys, self.key_size, values, n, false)
    }

    fn remove(&mut self, keys: &Tensor, n: usize) -> Result<()> {
        let keys = keys.as_slice::<K>()?;
        let ks = self.key_size;
        if keys.len() < n * ks {
            return Err(Error::internal("fewer keys than rows"));
        }
        for i in 0..n {
            let row = &keys[i * ks..(i + 1) * ks];
            let hash = hash_row(row);
            if let Some(r) = self.reserved(hash, row) {
                return Err(r.error());
            }
            let b = self.probe(hash, "remove", |s, b| {
                let k = s.key(b);
                k == row || k == s.empty.as_slice()
            })?;
            if self.key(b) == row {
                self.num_entries -= 1;
                let deleted = self.deleted.clone();
                self.set_key(b, &deleted);
            }
        }
        Ok(())
    }

    fn import(&mut self, keys: &Tensor, values: &Tensor) -> Result<()> {
        let (k, v) = (keys.as_slice::<K>()?, values.as_slice::<V>()?);
        let (n, stride) = match keys.shape() {
            &[n, m] if m >= self.key_size && m > 0 => (n, m),
            _ => (0, 0),
        };
        if stride == 0 || v.len() != n * self.value_size {
            return Err(Error::invalid_argument(format!(
                "Expected keys of shape [n,{}], got {}",
                self.key_size,
                format_dims(keys.shape())
            )));
        }
        self.num_buckets = n;
        self.key_stride = stride;
        self.keys = k.to_vec();
        self.values = v.to_vec();
        self.num_entries = (0..n)
            .filter(|&b| {
                let key = self.key(b);
                key != self.empty.as_slice() && key != self.deleted.as_slice()
            })
            .count();
        Ok(())
    }

    fn export(&self) -> Result<(Tensor, Tensor)> {
        let n = self.num_buckets;
        Ok((
            Tensor::from_vec(&[n, self.key_stride], self.keys.clone())?,
            Tensor::from_vec(&[n, self.value_size], self.values.clone())?,
        ))
    }
}

fn buckets<K: DenseKey, V: TensorType>(
    empty: &Tensor,
    deleted: &Tensor,
    value_size: usize,
    num_buckets: i64,
) -> Result<Box<dyn DenseStore>> {
    let empty = empty.as_slice::<K>()?.to_vec();
    let deleted = deleted.as_slice::<K>()?.to_vec();
    let (empty_hash, deleted_hash) = (hash_row(&empty), hash_row(&deleted));
    if empty_hash == deleted_hash && empty == deleted {
        return Err(Error::invalid_argument(
            "Empty and deleted keys cannot be equal",
        ));
    }
    let mut b = Buckets::<K, V> {
        key_size: empty.len(),
        key_stride: empty.len(),
        value_size,
        empty,
        deleted,
        empty_hash,
        deleted_hash,
        num_buckets: 0,
        num_entries: 0,
        keys: Vec::new(),
        values: Vec::new(),
    };
    b.allocate(num_buckets)?;
    Ok(Box::new(b))
}

fn with_key<K: DenseKey>(
    value: DType,
    empty: &Tensor,
    deleted: &Tensor,
    value_size: usize,
    num_buckets: i64,
) -> Option<Result<Box<dyn DenseStore>>> {
    Some(match value {
        DType::I32 => buckets::<K, i32>(empty, deleted, value_size, num_buckets),
        DType::I64 => buckets::<K, i64>(empty, deleted, value_size, num_buckets),
        DType::F32 => buckets::<K, f32>(empty, deleted, value_size, num_buckets),
        DType::F64 => buckets::<K, f64>(empty, deleted, value_size, num_buckets),
        DType::Bool => buckets::<K, bool>(empty, deleted, value_size, num_buckets),
        _ => return None,
    })
}

/// The buckets of a new table keyed like `empty` (its elements one key), with `value_size`
/// values a bucket and `num_buckets` buckets; `None` for dtypes no dense table holds.
pub(super) fn new_dense_store(
    value: DType,
    empty: &Tensor,
    deleted: &Tensor,
    value_size: usize,
    num_buckets: i64,
) -> Option<Result<Box<dyn DenseStore>>> {
    match empty.dtype() {
        DType::I32 => with_key::<i32>(value, empty, deleted, value_size, num_buckets),
        DType::I64 => with_key::<i64>(value, empty, deleted, value_size, num_buckets),
        DType::String => with_key::<Bytes>(value, empty, deleted, value_size, num_buckets),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(num_buckets: i64) -> Box<dyn DenseStore> {
        new_dense_store(
            DType::I64,
            &Tensor::from(0i64),
            &Tensor::from(-1i64),
            1,
            num_buckets,
        )
        .unwrap()
        .unwrap()
    }

    #[test]
    fn colliding_keys_probe_quadratically() {
        let mut s = store(8);
        let keys = Tensor::from(vec![5i64, 13, 21]);
        s.insert(&keys, &Tensor::from(vec![1i64, 2, 3]), 3, 0.8)
            .unwrap();
        let (k, _) = s.export().unwrap();
        // 5 % 8 = 5; 13 probes 5 then 6; 21 probes 5, 6, then (6 + 2) % 8 = 0.
        assert_eq!(k.to_vec::<i64>().unwrap(), vec![21, 0, 0, 0, 0, 5, 13, 0]);
        s.remove(&Tensor::from(vec![13i64]), 1).unwrap();
        let found = s.find(&keys, 3, &Tensor::from(-7i64), &[3]).unwrap();
        assert_eq!(found.to_vec::<i64>().unwrap(), vec![1, -7, 3]);
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn growth_doubles_before_the_load_factor_is_passed() {
        let mut s = store(4);
        let keys = Tensor::from(vec![1i64, 2, 3, 4]);
        s.insert(&keys, &keys, 4, 0.8).unwrap();
        assert_eq!(s.export().unwrap().0.shape(), &[8, 1]);
        let e = s
            .insert(
                &Tensor::from(vec![-1i64]),
                &Tensor::from(vec![1i64]),
                1,
                0.8,
            )
            .unwrap_err();
        assert_eq!(
            e.message(),
            "Using the deleted_key as a table key is not allowed"
        );
    }

    #[test]
    fn bad_bucket_counts_and_equal_keys_are_refused() {
        let e = new_dense_store(DType::I64, &Tensor::from(0i64), &Tensor::from(1i64), 1, 6)
            .unwrap()
            .err()
            .unwrap();
        assert_eq!(
            e.message(),
            "Number of buckets must be at least 4 and a power of 2, got: 6"
        );
        let huge = new_dense_store(
            DType::I64,
            &Tensor::from(0i64),
            &Tensor::from(1i64),
            1,
            1 << 40,
        );
        assert!(huge.unwrap().is_err());
        let same = new_dense_store(DType::I64, &Tensor::from(3i64), &Tensor::from(3i64), 1, 8);
        assert_eq!(
            same.unwrap().err().unwrap().message(),
            "Empty and deleted keys cannot be equal"
        );
        assert!(new_dense_store(
            DType::String,
            &Tensor::from(0i64),
            &Tensor::from(1i64),
            1,
            8
        )
        .is_none());
    }
}
