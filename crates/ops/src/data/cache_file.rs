//! `CacheDataset` with a file name (`Dataset.cache(filename)`): the first iterator that reads
//! the input to its end writes every element to a TensorFlow tensor bundle at `filename`, and
//! later iterators read the bundle instead of the input, in this process or in another one.
//!
//! The files are TensorFlow's, byte for byte (its `FileDatasetBase` of
//! `cache_dataset_ops.cc`), so TensorFlow reads a cache weir wrote and weir reads TensorFlow's:
//! - while writing, the elements go to the bundle `<filename>_0` (its data file stays a
//!   `.tempstate` file until the end), guarded by the lock file `<filename>_0.lockfile`
//!   ("Created at: <seconds>");
//! - at the input's end, `<filename>_0` is merged into the bundle `<filename>`
//!   (`<filename>.index` and `<filename>.data-00000-of-00001`) and the lock file removed;
//! - component `j` of element `i` has the key `format!("{i:>7}_{j:>w}")`, `w` being the width
//!   of the last component's number (keys sort in element order).
//!
//! An iterator reads the cache when `<filename>.index` exists as it is made, and writes it
//! otherwise. A writer dropped before the input's end removes what it wrote, as TensorFlow's
//! does ("The calling iterator did not fully read the dataset being cached..."), so a
//! `cache(f).take(k)` never leaves a truncated cache behind.

use std::sync::Arc;

use weir_graph::{DType, Error, Result};

use super::{DatasetBase, Element, IteratorBase, IteratorContext};
use crate::training::checkpoint::bundle::{BundleReader, BundleWriter};
use crate::training::checkpoint::{
    data_filename, dtype_name, index_filename, merge_v2_checkpoints,
};

/// TensorFlow's `kMaxItems`: a cache holds at most this many elements.
const MAX_ITEMS: usize = 10_000_000;

/// The dataset `input.cache(filename)`.
pub(super) struct FileCache {
    pub(super) input: Arc<dyn DatasetBase>,
    pub(super) filename: String,
}

impl FileCache {
    /// The width of the component numbers in keys (TensorFlow's `StringPaddingSize`).
    fn component_width(&self) -> usize {
        self.input
            .output_dtypes()
            .len()
            .saturating_sub(1)
            .to_string()
            .len()
    }
}

impl DatasetBase for FileCache {
    fn cardinality(&self) -> i64 {
        self.input.cardinality()
    }

    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        if std::path::Path::new(&index_filename(&self.filename)).exists() {
            return Ok(Box::new(Reader {
                filename: self.filename.clone(),
                dtypes: self.output_dtypes().to_vec(),
                reader: None,
                next_key: 0,
            }));
        }
        let shard = format!("{}_0", self.filename);
        Ok(Box::new(Writer {
            input: self.input.make_iterator()?,
            filename: self.filename.clone(),
            lockfile: format!("{shard}.lockfile"),
            shard,
            width: self.component_width(),
            writer: None,
            next: 0,
            completed: false,
        }))
    }
}

/// Hands out the input's elements and writes each to the bundle.
struct Writer {
    input: Box<dyn IteratorBase>,
    /// The cache's prefix, and the prefix written to until the merge (`<filename>_0`).
    filename: String,
    shard: String,
    lockfile: String,
    width: usize,
    /// Open from the first `get_next` (which takes the lock) to the input's end.
    writer: Option<BundleWriter>,
    /// The number of the next element.
    next: usize,
    /// The cache is whole: every later call is the end.
    completed: bool,
}

impl Writer {
    /// Takes the lock and starts the bundle, as TensorFlow's `EnsureLockFileExists` does: an
    /// existing `<filename>_0` bundle or lock file is AlreadyExists.
    fn start(&mut self) -> Result<()> {
        let index = index_filename(&self.shard);
        if std::path::Path::new(&index).exists() {
            return Err(Error::already_exists(format!(
                "Existing cache files found: \n{index}\n{}\nTo continue delete the above files.",
                data_filename(&self.shard, 0, 1)
            )));
        }
        if std::path::Path::new(&self.lockfile).exists() {
            let contents = std::fs::read(&self.lockfile).unwrap_or_default();
            let shown = String::from_utf8_lossy(&contents[..contents.len().min(150)]).into_owned();
            return Err(Error::already_exists(format!(
                "There appears to be a concurrent caching iterator running - cache lockfile \
                 already exists ('{}'). If you are sure no other running TF computations are \
                 using this cache prefix, delete the lockfile and re-initialize the iterator. \
                 Lockfile contents: {shown}",
                self.lockfile
            )));
        }
        let seconds = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        std::fs::write(&self.lockfile, format!("Created at: {seconds}")).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::not_found(format!("{}; No such file or directory", self.lockfile))
            } else {
                Error::from(e).with_prefix(&format!("Failed to create {}: ", self.lockfile))
            }
        })?;
        self.writer = Some(BundleWriter::new(&self.shard, Default::default())?);
        Ok(())
    }

    /// Closes the bundle and merges it into `<filename>`, then drops the lock.
    fn finish(&mut self) -> Result<()> {
        self.completed = true;
        if let Some(w) = self.writer.take() {
            w.finish()?;
        }
        merge_v2_checkpoints(
            std::slice::from_ref(&self.shard),
            &self.filename,
            false,
            false,
        )?;
        std::fs::remove_file(&self.lockfile).map_err(|e| {
            Error::from(e).with_prefix(&format!("Failed to delete {}: ", self.lockfile))
        })
    }
}

impl IteratorBase for Writer {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        if self.completed {
            return Ok(None);
        }
        if self.writer.is_none() {
            self.start()?;
        }
        if self.next >= MAX_ITEMS {
            // As TensorFlow does, the truncated cache is closed as a courtesy.
            let _ = self.finish();
            return Err(Error::invalid_argument(format!(
                "Upstream iterator is producing more than {MAX_ITEMS} items, which is more than \
                 the cache limit."
            )));
        }
        let Some(element) = self.input.get_next(ctx)? else {
            self.finish()?;
            return Ok(None);
        };
        let writer = self
            .writer
            .as_mut()
            .ok_or_else(|| Error::internal("The cache writer is not open"))?;
        for (j, t) in element.iter().enumerate() {
            writer.add(&key(self.next, j, self.width), t)?;
        }
        self.next += 1;
        Ok(Some(element))
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        if self.writer.is_some() && !self.completed {
            // The bundle writer removes its temporary data file as it drops; the lock goes too.
            self.writer = None;
            let _ = std::fs::remove_file(&self.lockfile);
        }
    }
}

/// The key of component `component` of element `index`: TensorFlow's `%7zu_%<width>zu`.
fn key(index: usize, component: usize, width: usize) -> String {
    format!("{index:>7}_{component:>width$}")
}

/// Reads the elements back from the bundle, in key order.
struct Reader {
    filename: String,
    dtypes: Vec<DType>,
    /// Opened on the first `get_next`: a damaged index fails that call, as in TensorFlow.
    reader: Option<BundleReader>,
    /// Where the next element's first entry is among the bundle's keys.
    next_key: usize,
}

impl IteratorBase for Reader {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        ctx.check()?;
        if self.reader.is_none() {
            self.reader = Some(BundleReader::open(&self.filename)?);
        }
        let Some(reader) = self.reader.as_mut() else {
            return Ok(None);
        };
        let n = self.dtypes.len();
        // A last element with fewer entries than components is the end, as in TensorFlow.
        let Some(entries) = reader.raw_entries().get(self.next_key..self.next_key + n) else {
            return Ok(None);
        };
        let keys: Vec<Vec<u8>> = entries.iter().map(|(k, _)| k.clone()).collect();
        let mut element = Vec::with_capacity(n);
        for (i, (k, &dtype)) in keys.iter().zip(&self.dtypes).enumerate() {
            let info = reader.entry(k)?;
            if info.dtype != dtype.proto_number() {
                return Err(dtype_mismatch_at(i, dtype, info.dtype));
            }
            let name = String::from_utf8_lossy(k).into_owned();
            element.push(reader.read(&name, &info, dtype)?);
        }
        self.next_key += n;
        Ok(Some(element))
    }
}

/// TensorFlow's message (from its iterator's output check) for a cached component whose dtype
/// is not the dataset's.
fn dtype_mismatch_at(component: usize, want: DType, stored: i32) -> Error {
    Error::invalid_argument(format!(
        "Data type mismatch at component {component}: expected {want} but got {}.",
        dtype_name(stored)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_padded_with_spaces_and_sort_by_element() {
        assert_eq!(key(0, 0, 1), "      0_0");
        assert_eq!(key(12, 3, 2), "     12_ 3");
        let mut keys: Vec<String> = (0..120).map(|i| key(i, 0, 1)).collect();
        let made = keys.clone();
        keys.sort();
        assert_eq!(keys, made);
    }
}
