//! TensorFlow's tensor bundle: `BundleWriter` and `BundleReader` of
//! `tensorflow/core/util/tensor_bundle`, over the table of [`super::table`] and the tensor
//! layout of [`super::data`].

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use prost::Message;
use weir_graph::graph_def::proto::{tensor_shape_proto, TensorShapeProto, VersionDef};
use weir_graph::{Bytes, DType, Error, Result, Tensor};

use super::data::{decode_tensor, element_size, write_tensor};
use super::proto::{BundleEntryProto, BundleHeaderProto};
use super::table::{read_table, TableBuilder, TableOptions};
use super::{data_filename, dtype_name, index_filename};
use crate::io::crc::mask;

/// `kTensorBundleVersion`: the format version weir writes.
const BUNDLE_VERSION: i32 = 1;
/// `kTensorBundleMinConsumer`: the oldest reader that may read what weir writes.
const BUNDLE_MIN_CONSUMER: i32 = 0;

fn io_error(e: std::io::Error, what: &str, path: &str) -> Error {
    let e: Error = e.into();
    e.with_prefix(&format!("Failed to {what} {path}: "))
}

/// A temporary file beside `path`, named as TensorFlow names its own
/// (`<path>.tempstate<number>`), removed again unless it was renamed into place.
struct TempFile {
    tmp: String,
    done: bool,
}

impl TempFile {
    fn new(path: &str) -> TempFile {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        let n = nanos
            ^ (u64::from(std::process::id()) << 32)
            ^ COUNTER
                .fetch_add(1, Ordering::Relaxed)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        TempFile {
            tmp: format!("{path}.tempstate{n}"),
            done: false,
        }
    }

    fn create(&self) -> Result<File> {
        File::create(&self.tmp).map_err(|e| io_error(e, "create", &self.tmp))
    }

    /// Flushes `f` to disk and renames the temporary file to `path`.
    fn commit(mut self, f: File, path: &str) -> Result<()> {
        f.sync_all().map_err(|e| io_error(e, "write", &self.tmp))?;
        drop(f);
        std::fs::rename(&self.tmp, path).map_err(|e| io_error(e, "rename into place", path))?;
        self.done = true;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `tensors` (in the order given, which is their order in the data file) as the bundle
/// `prefix`: the data file first, then the index, each through a temporary file renamed into
/// place, so a reader that finds `<prefix>.index` finds the whole checkpoint.
pub(crate) fn write_bundle(
    prefix: &str,
    tensors: &[(&str, &Tensor)],
    opts: TableOptions,
) -> Result<()> {
    // Every name is checked before any file is made.
    let mut names = std::collections::BTreeSet::new();
    for (name, t) in tensors {
        check_entry(name, t)?;
        if !names.insert(*name) {
            return Err(duplicate_key(name));
        }
    }
    let mut w = BundleWriter::new(prefix, opts)?;
    for (name, t) in tensors {
        w.add(name, t)?;
    }
    w.finish()
}

fn check_entry(name: &str, t: &Tensor) -> Result<()> {
    if name.is_empty() {
        return Err(Error::invalid_argument(
            "A tensor name in a checkpoint cannot be empty (the empty key holds the header)",
        ));
    }
    if t.dtype() == DType::Resource {
        return Err(Error::invalid_argument(format!(
            "Cannot save {name}: a resource handle cannot be saved in a checkpoint"
        )));
    }
    Ok(())
}

fn duplicate_key(name: &str) -> Error {
    Error::invalid_argument(format!("Adding duplicate key: {name}"))
}

/// TensorFlow's `BundleWriter`: tensors added one at a time go straight to the data file (a
/// temporary file until [`finish`](Self::finish)), and only their index entries are kept, so a
/// bundle larger than memory can be written (as `Dataset.cache(filename)` does).
pub(crate) struct BundleWriter {
    prefix: String,
    data_path: String,
    data_tmp: TempFile,
    out: BufWriter<File>,
    offset: u64,
    entries: BTreeMap<String, BundleEntryProto>,
    opts: TableOptions,
}

impl BundleWriter {
    /// Starts the bundle `prefix`, creating its directory (one level, as TensorFlow's writer
    /// does) and its temporary data file.
    pub(crate) fn new(prefix: &str, opts: TableOptions) -> Result<BundleWriter> {
        if let Some(dir) = Path::new(prefix)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
        {
            if let Err(e) = std::fs::create_dir(dir) {
                if e.kind() != std::io::ErrorKind::AlreadyExists {
                    return Err(io_error(e, "create the directory of", prefix));
                }
            }
        }
        let data_path = data_filename(prefix, 0, 1);
        let data_tmp = TempFile::new(&data_path);
        let out = BufWriter::with_capacity(1 << 20, data_tmp.create()?);
        Ok(BundleWriter {
            prefix: prefix.to_string(),
            data_path,
            data_tmp,
            out,
            offset: 0,
            entries: BTreeMap::new(),
            opts,
        })
    }

    /// Appends `t` to the data file under the key `name`.
    pub(crate) fn add(&mut self, name: &str, t: &Tensor) -> Result<()> {
        check_entry(name, t)?;
        if self.entries.contains_key(name) {
            return Err(duplicate_key(name));
        }
        let (size, crc) = write_tensor(t, &mut self.out)
            .map_err(|e| e.with_prefix(&format!("Writing {}: ", self.data_path)))?;
        let entry = BundleEntryProto {
            dtype: t.dtype().proto_number(),
            shape: Some(TensorShapeProto {
                dim: t
                    .shape()
                    .iter()
                    .map(|&d| tensor_shape_proto::Dim { size: d as i64 })
                    .collect(),
                unknown_rank: false,
            }),
            shard_id: 0,
            offset: self.offset as i64,
            size: size as i64,
            crc32c: mask(crc),
            slices: Vec::new(),
        };
        self.entries.insert(name.to_string(), entry);
        self.offset += size;
        Ok(())
    }

    /// Renames the data file into place, then writes the index: a reader that finds
    /// `<prefix>.index` finds the whole bundle. A bundle without tensors has no data file, as
    /// TensorFlow's writer removes an empty one. Dropped without this, the writer leaves nothing.
    pub(crate) fn finish(self) -> Result<()> {
        let f = self
            .out
            .into_inner()
            .map_err(|e| io_error(e.into_error(), "write", &self.data_path))?;
        if self.entries.is_empty() {
            drop(f);
            drop(self.data_tmp);
        } else {
            self.data_tmp.commit(f, &self.data_path)?;
        }
        write_index(
            &self.prefix,
            1,
            self.entries
                .iter()
                .map(|(name, entry)| (name.as_bytes().to_vec(), entry.encode_to_vec())),
            self.opts,
        )
    }
}

/// Writes `<prefix>.index` (through a temporary file renamed into place): the header of a
/// bundle of `num_shards` data files, then `entries` (key, serialized `BundleEntryProto`),
/// which must come sorted by key.
pub(crate) fn write_index(
    prefix: &str,
    num_shards: i32,
    entries: impl Iterator<Item = (Vec<u8>, Vec<u8>)>,
    opts: TableOptions,
) -> Result<()> {
    let mut table = TableBuilder::new(opts);
    let header = BundleHeaderProto {
        num_shards,
        endianness: 0,
        version: Some(VersionDef {
            producer: BUNDLE_VERSION,
            min_consumer: BUNDLE_MIN_CONSUMER,
        }),
    };
    table.add(b"", &header.encode_to_vec());
    for (key, entry) in entries {
        table.add(&key, &entry);
    }
    let index_path = index_filename(prefix);
    let index_tmp = TempFile::new(&index_path);
    let mut f = index_tmp.create()?;
    f.write_all(&table.finish())
        .map_err(|e| io_error(e, "write", &index_tmp.tmp))?;
    index_tmp.commit(f, &index_path)
}

/// An open bundle: its index read and checked, its data files opened on demand.
pub(crate) struct BundleReader {
    prefix: String,
    index_path: String,
    num_shards: i32,
    /// Every (key, serialized BundleEntryProto) after the header, sorted by key.
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    data_files: BTreeMap<i32, (File, u64)>,
}

/// An entry's dtype (TensorFlow's number) and shape, read from the index.
pub(crate) struct EntryInfo {
    pub dtype: i32,
    pub shape: Vec<usize>,
    pub num_elements: usize,
    entry: BundleEntryProto,
}

impl BundleReader {
    /// Opens the bundle `prefix`; NotFound when `<prefix>.index` does not exist, DataLoss when it
    /// is damaged.
    pub(crate) fn open(prefix: &str) -> Result<BundleReader> {
        let index_path = index_filename(prefix);
        let bytes = std::fs::read(&index_path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::not_found(format!("{index_path}; No such file or directory"))
            } else {
                io_error(e, "read checkpoint index", &index_path)
            }
        })?;
        let corrupt = |what: String| {
            Error::data_loss(format!(
                "Checkpoint index {index_path} is truncated or corrupt: {what}"
            ))
        };
        let mut entries = read_table(&bytes)
            .map_err(|e| corrupt(format!("{} (at byte {})", e.what, e.offset)))?;
        if entries.first().is_none_or(|(k, _)| !k.is_empty()) {
            return Err(corrupt("failed to seek to header entry".into()));
        }
        let (_, header) = entries.remove(0);
        let header = BundleHeaderProto::decode(header.as_slice())
            .map_err(|_| corrupt("unable to parse header".into()))?;
        if header.num_shards < 1 {
            return Err(corrupt(format!("header has {} shards", header.num_shards)));
        }
        if header.endianness != 0 {
            return Err(Error::unimplemented(format!(
                "Checkpoint {prefix} was written on a big-endian machine; weir reads little-endian checkpoints only"
            )));
        }
        let version = header.version.unwrap_or_default();
        if version.min_consumer > BUNDLE_VERSION {
            return Err(Error::invalid_argument(format!(
                "Checkpoint min consumer version {} above current version {BUNDLE_VERSION} for weir. Please upgrade weir.",
                version.min_consumer
            )));
        }
        Ok(BundleReader {
            prefix: prefix.to_string(),
            index_path,
            num_shards: header.num_shards,
            entries,
            data_files: BTreeMap::new(),
        })
    }

    /// How many data files the bundle has.
    pub(crate) fn num_shards(&self) -> i32 {
        self.num_shards
    }

    /// Every (key, serialized `BundleEntryProto`) after the header, sorted by key.
    pub(crate) fn raw_entries(&self) -> &[(Vec<u8>, Vec<u8>)] {
        &self.entries
    }

    /// Every key after the header, sorted.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &[u8]> {
        self.entries.iter().map(|(k, _)| k.as_slice())
    }

    /// The entry of `name`: NotFound with TensorFlow's message when absent, DataLoss when it
    /// does not parse or its shape is invalid.
    pub(crate) fn entry(&self, name: &[u8]) -> Result<EntryInfo> {
        let shown = String::from_utf8_lossy(name);
        let i = self
            .entries
            .binary_search_by(|(k, _)| k.as_slice().cmp(name))
            .map_err(|_| Error::not_found(format!("Key {shown} not found in checkpoint")))?;
        let entry = BundleEntryProto::decode(self.entries[i].1.as_slice()).map_err(|_| {
            Error::data_loss(format!(
                "Entry for key {shown} not parseable in checkpoint index {}.",
                self.index_path
            ))
        })?;
        let invalid_shape = || {
            Error::data_loss(format!(
                "Invalid tensor shape: {shown} {:?} in checkpoint index {}",
                entry.shape, self.index_path
            ))
        };
        let shape_proto = entry.shape.clone().unwrap_or_default();
        if shape_proto.unknown_rank || shape_proto.dim.len() > 254 {
            return Err(invalid_shape());
        }
        let mut shape = Vec::with_capacity(shape_proto.dim.len());
        let mut n: u64 = 1;
        for d in &shape_proto.dim {
            let size = u64::try_from(d.size).map_err(|_| invalid_shape())?;
            n = n
                .checked_mul(size)
                .filter(|&n| n <= i64::MAX as u64)
                .ok_or_else(invalid_shape)?;
            shape.push(usize::try_from(size).map_err(|_| invalid_shape())?);
        }
        Ok(EntryInfo {
            dtype: entry.dtype,
            shape,
            num_elements: usize::try_from(n).map_err(|_| invalid_shape())?,
            entry,
        })
    }

    /// Reads the tensor of `info` (whose dtype the caller has checked to be `dtype`) from its
    /// data file, checking its size and CRC.
    pub(crate) fn read(&mut self, name: &str, info: &EntryInfo, dtype: DType) -> Result<Tensor> {
        let e = &info.entry;
        if !e.slices.is_empty() {
            return Err(Error::unimplemented(format!(
                "{name} in checkpoint {} is saved as slices of a partitioned variable; weir restores whole tensors only",
                self.prefix
            )));
        }
        let size = u64::try_from(e.size).ok();
        let offset = u64::try_from(e.offset).ok();
        let (Some(size), Some(offset)) = (size, offset) else {
            return Err(Error::data_loss(format!(
                "Invalid offset {} or size {} of {name} in checkpoint index {}",
                e.offset, e.size, self.index_path
            )));
        };
        let n = info.num_elements as u64;
        match element_size(dtype) {
            Some(es) if n.checked_mul(es as u64) != Some(size) => {
                return Err(Error::data_loss(format!(
                    "Invalid size in bundle entry: key {name}; stored size {size}; expected size {}",
                    n.saturating_mul(es as u64)
                )));
            }
            None if size < n.saturating_add(4) && !(n == 0 && size == 0) => {
                return Err(Error::data_loss(format!(
                    "Invalid size in bundle entry: key {name}; stored size {size}; expected size is at least {}",
                    n + 4
                )));
            }
            _ => {}
        }
        if e.shard_id < 0 || e.shard_id >= self.num_shards {
            return Err(Error::data_loss(format!(
                "{name} is in shard {} but checkpoint index {} has {} shards",
                e.shard_id, self.index_path, self.num_shards
            )));
        }
        let path = data_filename(&self.prefix, e.shard_id, self.num_shards);
        let (file, len) = match self.data_files.entry(e.shard_id) {
            std::collections::btree_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::btree_map::Entry::Vacant(v) => {
                let f = File::open(&path).map_err(|err| {
                    if err.kind() == std::io::ErrorKind::NotFound {
                        Error::not_found(format!("{path}; No such file or directory"))
                    } else {
                        io_error(err, "open checkpoint data file", &path)
                    }
                })?;
                let len = f
                    .metadata()
                    .map_err(|err| io_error(err, "read checkpoint data file", &path))?
                    .len();
                v.insert((f, len))
            }
        };
        let end = offset.checked_add(size).filter(|&end| end <= *len).ok_or_else(|| {
            Error::data_loss(format!(
                "Checkpoint data file {path} is truncated: {name} needs bytes [{offset}, {}) but the file has {len} bytes",
                offset.saturating_add(size)
            ))
        })?;
        // `size` is at most the file's length, checked above.
        let mut buf = vec![0u8; size as usize];
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.read_exact(&mut buf))
            .map_err(|err| {
                if err.kind() == std::io::ErrorKind::UnexpectedEof {
                    Error::data_loss(format!(
                        "Checkpoint data file {path} is truncated: reading {name} at bytes [{offset}, {end})"
                    ))
                } else {
                    io_error(err, "read checkpoint data file", &path)
                }
            })?;
        decode_tensor(
            dtype,
            &info.shape,
            info.num_elements,
            Bytes::from(buf),
            e.crc32c,
        )
        .map_err(|what| {
            Error::data_loss(format!(
                "Checkpoint data file {path} is corrupt: {name} at bytes [{offset}, {end}): {what}"
            ))
        })
    }
}

/// TensorFlow's message for a dtype mismatch between the restore op and the checkpoint.
pub(crate) fn dtype_mismatch(name: &str, want: DType, stored: i32) -> Error {
    Error::invalid_argument(format!(
        "tensor_name = {name}; expected dtype {want} does not equal original dtype {}",
        dtype_name(stored)
    ))
}
