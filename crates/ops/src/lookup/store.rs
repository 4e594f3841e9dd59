//! The entries of a lookup table, typed by its key and value dtypes: a hash index from key to
//! row, the keys in row order and the values as rows of `width` elements (one for the scalar
//! tables, the value shape's size for `MutableHashTableOfTensorsV2`).
//!
//! Tables pick their store at run time from the dtype pair ([`new_store`]); every operation
//! takes and gives whole tensors, so a lookup of a batch is one loop over typed slices.

use std::collections::HashMap;
use std::hash::Hash;

use weir_graph::{Bytes, DType, Error, Result, Tensor, TensorType};

/// A key type of a table: int32, int64 or string.
pub(super) trait TableKey: TensorType + Eq + Hash {
    /// The key as TensorFlow's `StrCat` writes it in messages.
    fn describe(&self) -> String;
}

/// A value type of a table.
pub(super) trait TableValue: TensorType + PartialEq {
    /// The value as TensorFlow's `StrCat` writes it in messages.
    fn describe(&self) -> String;
}

macro_rules! int_describe {
    ($($t:ty),*) => {$(
        impl TableKey for $t {
            fn describe(&self) -> String {
                self.to_string()
            }
        }
        impl TableValue for $t {
            fn describe(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
int_describe!(i32, i64);

impl TableKey for Bytes {
    fn describe(&self) -> String {
        String::from_utf8_lossy(self).into_owned()
    }
}

impl TableValue for Bytes {
    fn describe(&self) -> String {
        String::from_utf8_lossy(self).into_owned()
    }
}

impl TableValue for f32 {
    fn describe(&self) -> String {
        Tensor::scalar(*self).summarize_value(-1)
    }
}

impl TableValue for f64 {
    fn describe(&self) -> String {
        Tensor::scalar(*self).summarize_value(-1)
    }
}

impl TableValue for bool {
    /// `StrCat` promotes a bool to an integer.
    fn describe(&self) -> String {
        u8::from(*self).to_string()
    }
}

/// What a table does with its entries, whatever their dtypes.
pub(super) trait Store: Send + Sync {
    /// The number of keys.
    fn len(&self) -> usize;

    /// The values of `keys` (any shape), as a tensor of `out_shape`. A missing key gets the row
    /// of `default` at its own position when `per_key`, else the first row of `default`.
    fn find(&self, keys: &Tensor, default: &Tensor, per_key: bool, out: &[usize])
        -> Result<Tensor>;

    /// Adds each key with its row of `values`, replacing what a key had (a mutable table's
    /// insert).
    fn insert_or_assign(&mut self, keys: &Tensor, values: &Tensor) -> Result<()>;

    /// Adds each key with its row of `values`, keeping the keys added before the first key
    /// that is already there with another value, which fails (a `HashTable`'s initialization).
    fn insert_new(&mut self, keys: &Tensor, values: &Tensor) -> Result<()>;

    /// Removes the keys present; others are ignored.
    fn remove(&mut self, keys: &Tensor) -> Result<()>;

    /// Removes every entry.
    fn clear(&mut self);

    /// Every key (a vector) and its values (`[n]` plus `value_shape`), in the table's order.
    fn export(&self, value_shape: &[usize]) -> Result<(Tensor, Tensor)>;
}

/// The entries of one table: see the module doc.
struct Entries<K, V> {
    index: HashMap<K, usize>,
    keys: Vec<K>,
    values: Vec<V>,
    width: usize,
}

impl<K: TableKey, V: TableValue> Entries<K, V> {
    fn row(&self, r: usize) -> &[V] {
        &self.values[r * self.width..(r + 1) * self.width]
    }

    /// Adds `key` with `value` as a new row, or overwrites its row.
    fn put(&mut self, key: &K, value: &[V]) {
        match self.index.get(key) {
            Some(&r) => self.values[r * self.width..(r + 1) * self.width].clone_from_slice(value),
            None => {
                self.index.insert(key.clone(), self.keys.len());
                self.keys.push(key.clone());
                self.values.extend_from_slice(value);
            }
        }
    }
}

impl<K: TableKey, V: TableValue> Store for Entries<K, V> {
    fn len(&self) -> usize {
        self.keys.len()
    }

    fn find(
        &self,
        keys: &Tensor,
        default: &Tensor,
        per_key: bool,
        out: &[usize],
    ) -> Result<Tensor> {
        let keys = keys.as_slice::<K>()?;
        let default = default.as_slice::<V>()?;
        let w = self.width;
        if keys.is_empty() || w == 0 {
            return Tensor::from_vec(out, Vec::<V>::new());
        }
        if default.len() < w || (per_key && default.len() < keys.len() * w) {
            return Err(Error::internal("the default value is smaller than a row"));
        }
        let mut values = Vec::with_capacity(keys.len() * w);
        for (i, k) in keys.iter().enumerate() {
            match self.index.get(k) {
                Some(&r) => values.extend_from_slice(self.row(r)),
                None if per_key => values.extend_from_slice(&default[i * w..(i + 1) * w]),
                None => values.extend_from_slice(&default[..w]),
            }
        }
        Tensor::from_vec(out, values)
    }

    fn insert_or_assign(&mut self, keys: &Tensor, values: &Tensor) -> Result<()> {
        let (keys, values) = (keys.as_slice::<K>()?, values.as_slice::<V>()?);
        for (i, k) in keys.iter().enumerate() {
            let row = values
                .get(i * self.width..(i + 1) * self.width)
                .ok_or_else(|| Error::internal("fewer values than keys"))?;
            self.put(k, row);
        }
        Ok(())
    }

    fn insert_new(&mut self, keys: &Tensor, values: &Tensor) -> Result<()> {
        let (keys, values) = (keys.as_slice::<K>()?, values.as_slice::<V>()?);
        for (i, k) in keys.iter().enumerate() {
            let row = values
                .get(i * self.width..(i + 1) * self.width)
                .ok_or_else(|| Error::internal("fewer values than keys"))?;
            if let Some(&r) = self.index.get(k) {
                let have = self.row(r);
                if have != row {
                    return Err(Error::failed_precondition(format!(
                        "HashTable has different value for same key. Key {} has {} and trying to add value {}",
                        k.describe(),
                        describe_row(have),
                        describe_row(row)
                    )));
                }
                continue;
            }
            self.put(k, row);
        }
        Ok(())
    }

    fn remove(&mut self, keys: &Tensor) -> Result<()> {
        for k in keys.as_slice::<K>()? {
            let Some(r) = self.index.remove(k) else {
                continue;
            };
            let last = self.keys.len() - 1;
            let w = self.width;
            if r != last {
                self.keys.swap(r, last);
                for j in 0..w {
                    self.values.swap(r * w + j, last * w + j);
                }
                self.index.insert(self.keys[r].clone(), r);
            }
            self.keys.pop();
            self.values.truncate(last * w);
        }
        Ok(())
    }

    fn clear(&mut self) {
        self.index.clear();
        self.keys.clear();
        self.values.clear();
    }

    fn export(&self, value_shape: &[usize]) -> Result<(Tensor, Tensor)> {
        let n = self.keys.len();
        let keys = Tensor::from_vec(&[n], self.keys.clone())?;
        let mut shape = vec![n];
        shape.extend_from_slice(value_shape);
        let values = Tensor::from_vec(&shape, self.values.clone())?;
        Ok((keys, values))
    }
}

fn describe_row<V: TableValue>(row: &[V]) -> String {
    let parts: Vec<String> = row.iter().map(TableValue::describe).collect();
    parts.join(" ")
}

fn entries<K: TableKey, V: TableValue>(width: usize) -> Box<dyn Store> {
    Box::new(Entries::<K, V> {
        index: HashMap::new(),
        keys: Vec::new(),
        values: Vec::new(),
        width,
    })
}

fn with_key<K: TableKey>(value: DType, width: usize) -> Option<Box<dyn Store>> {
    Some(match value {
        DType::I32 => entries::<K, i32>(width),
        DType::I64 => entries::<K, i64>(width),
        DType::F32 => entries::<K, f32>(width),
        DType::F64 => entries::<K, f64>(width),
        DType::Bool => entries::<K, bool>(width),
        DType::String => entries::<K, Bytes>(width),
        _ => return None,
    })
}

/// An empty store for `key`/`value` dtypes and rows of `width` values; `None` for dtypes no
/// table holds.
pub(super) fn new_store(key: DType, value: DType, width: usize) -> Option<Box<dyn Store>> {
    match key {
        DType::I32 => with_key::<i32>(value, width),
        DType::I64 => with_key::<i64>(value, width),
        DType::String => with_key::<Bytes>(value, width),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Tensor {
        Tensor::from_strings(v)
    }

    #[test]
    fn finds_inserts_removes_and_exports() {
        let mut s = new_store(DType::String, DType::I64, 1).unwrap();
        s.insert_or_assign(&strings(&["a", "b", "c"]), &Tensor::from(vec![1i64, 2, 3]))
            .unwrap();
        s.remove(&strings(&["a", "zz"])).unwrap();
        assert_eq!(s.len(), 2);
        let got = s
            .find(
                &strings(&["a", "b", "c"]),
                &Tensor::from(-1i64),
                false,
                &[3],
            )
            .unwrap();
        assert_eq!(got.to_vec::<i64>().unwrap(), vec![-1, 2, 3]);
        let per_key = s
            .find(
                &strings(&["a", "b"]),
                &Tensor::from(vec![7i64, 8]),
                true,
                &[2],
            )
            .unwrap();
        assert_eq!(per_key.to_vec::<i64>().unwrap(), vec![7, 2]);
        let (k, v) = s.export(&[]).unwrap();
        let mut pairs: Vec<(String, i64)> = k
            .to_strings()
            .unwrap()
            .into_iter()
            .zip(v.to_vec::<i64>().unwrap())
            .collect();
        pairs.sort();
        assert_eq!(pairs, vec![("b".into(), 2), ("c".into(), 3)]);
    }

    #[test]
    fn a_conflicting_duplicate_is_refused_and_an_equal_one_kept_once() {
        let mut s = new_store(DType::I64, DType::F32, 1).unwrap();
        s.insert_new(
            &Tensor::from(vec![1i64, 2, 1]),
            &Tensor::from(vec![0.5f32, 2.0, 0.5]),
        )
        .unwrap();
        assert_eq!(s.len(), 2);
        let e = s
            .insert_new(&Tensor::from(vec![2i64]), &Tensor::from(vec![3.25f32]))
            .unwrap_err();
        assert_eq!(
            e.message(),
            "HashTable has different value for same key. Key 2 has 2 and trying to add value 3.25"
        );
    }

    #[test]
    fn rows_of_tensors_move_with_their_keys() {
        let mut s = new_store(DType::I64, DType::I32, 2).unwrap();
        s.insert_or_assign(
            &Tensor::from(vec![1i64, 2, 3]),
            &Tensor::from(vec![10i32, 11, 20, 21, 30, 31]),
        )
        .unwrap();
        s.remove(&Tensor::from(vec![1i64])).unwrap();
        let got = s
            .find(
                &Tensor::from(vec![3i64, 1]),
                &Tensor::from(vec![0i32, 0]),
                false,
                &[2, 2],
            )
            .unwrap();
        assert_eq!(got.to_vec::<i32>().unwrap(), vec![30, 31, 0, 0]);
        assert!(new_store(DType::F32, DType::F32, 1).is_none());
    }
}
