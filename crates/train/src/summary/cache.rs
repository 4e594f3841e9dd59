//! `tf.compat.v1.summary.FileWriterCache`: one [`FileWriter`] per log directory, shared by
//! everything in the process that writes there (the hooks of a monitored session, say), so
//! their events land in one file instead of one file each.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use weir_graph::Result;

use super::FileWriter;

fn writers() -> &'static Mutex<HashMap<PathBuf, Arc<FileWriter>>> {
    static WRITERS: OnceLock<Mutex<HashMap<PathBuf, Arc<FileWriter>>>> = OnceLock::new();
    WRITERS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// `FileWriterCache` (`SummaryWriterCache` in `tf.train`): the process's writers, by log
/// directory.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("weir-doc-cache-{}", std::process::id()));
/// use weir_train::summary::SummaryWriterCache;
/// let a = SummaryWriterCache::get(&dir)?;
/// let b = SummaryWriterCache::get(&dir)?;
/// assert_eq!(a.path(), b.path());
/// SummaryWriterCache::clear();
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct SummaryWriterCache;

impl SummaryWriterCache {
    /// The writer of `logdir`, opened on first use.
    pub fn get(logdir: impl AsRef<Path>) -> Result<Arc<FileWriter>> {
        let key = logdir.as_ref().to_path_buf();
        // The lock stays held while a new writer creates its file: two callers racing for one
        // directory would otherwise leave a second, abandoned events file in it. It happens
        // once per directory and process, never on a training step.
        let mut map = writers().lock();
        if let Some(w) = map.get(&key) {
            return Ok(w.clone());
        }
        let w = Arc::new(FileWriter::new(&key)?);
        map.insert(key, w.clone());
        Ok(w)
    }

    /// Closes and forgets every cached writer (`FileWriterCache.clear()`).
    pub fn clear() {
        let all: Vec<_> = writers().lock().drain().map(|(_, w)| w).collect();
        for w in all {
            let _ = w.close();
        }
    }
}
