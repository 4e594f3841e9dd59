//! The sorted string table of a checkpoint's `.index` file: TensorFlow's
//! `tensorflow/core/lib/io` table, which is LevelDB's table format without filters.
//!
//! ```text
//! file    data block*  metaindex block  index block  footer
//! block   entry*  restart: u32le * num_restarts  num_restarts: u32le
//!         then the trailer: compression type (1 byte, 0 = none), masked CRC32C (u32le) of
//!         the block and the type byte
//! entry   shared: varint32  non_shared: varint32  value_len: varint32
//!         key[shared..] (the rest after the `shared` bytes of the previous key)  value
//! footer  metaindex handle, index handle (varint64 offset + varint64 size each), zero padding
//!         to 40 bytes, magic 0xdb4775248b80fb57 (u64le): 48 bytes
//! ```
//!
//! Keys are in strictly increasing byte order. A data block is cut once its estimated size
//! reaches the block size (TensorFlow's default: 256 KiB); every 16th entry of a data block is a
//! restart point whose key is stored whole. The index block (a restart at every entry) maps, for
//! each data block, a key >= its last key and < the next block's first key to its handle.

use crate::io::crc::{mask, unmask};

/// TensorFlow's `kTableMagicNumber`.
const MAGIC: u64 = 0xdb47_7524_8b80_fb57;
/// The footer's size: two handles padded to 40 bytes, then the magic.
pub(crate) const FOOTER_LEN: usize = 48;
/// Compression type byte and masked CRC after every block.
const TRAILER_LEN: usize = 5;

/// How the writer cuts blocks (TensorFlow's `table::Options`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TableOptions {
    /// A data block is written once its estimated size reaches this many bytes.
    pub block_size: usize,
    /// Keys between restart points of a data block.
    pub restart_interval: usize,
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions {
            block_size: 262_144,
            restart_interval: 16,
        }
    }
}

pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Decodes a varint of at most `max_bytes` bytes from the front of `b`: (value, bytes read).
pub(crate) fn get_varint(b: &[u8], max_bytes: usize) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for (i, &byte) in b.iter().enumerate().take(max_bytes) {
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            if max_bytes == 5 && v > u64::from(u32::MAX) {
                return None;
            }
            return Some((v, i + 1));
        }
    }
    None
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Where a block lies in the file (its size excludes the trailer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BlockHandle {
    offset: u64,
    size: u64,
}

impl BlockHandle {
    fn encode_to(&self, out: &mut Vec<u8>) {
        put_varint(out, self.offset);
        put_varint(out, self.size);
    }

    fn decode(b: &[u8]) -> Option<(BlockHandle, usize)> {
        let (offset, n) = get_varint(b, 10)?;
        let (size, m) = get_varint(&b[n..], 10)?;
        Some((BlockHandle { offset, size }, n + m))
    }
}

/// Builds one block: prefix-compressed entries, then the restart array.
struct BlockBuilder {
    buf: Vec<u8>,
    restarts: Vec<u32>,
    counter: usize,
    last_key: Vec<u8>,
    interval: usize,
}

impl BlockBuilder {
    fn new(interval: usize) -> Self {
        BlockBuilder {
            buf: Vec::new(),
            restarts: vec![0],
            counter: 0,
            last_key: Vec::new(),
            interval: interval.max(1),
        }
    }

    fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    fn size_estimate(&self) -> usize {
        self.buf.len() + self.restarts.len() * 4 + 4
    }

    fn add(&mut self, key: &[u8], value: &[u8]) {
        let shared = if self.counter < self.interval {
            key.iter()
                .zip(&self.last_key)
                .take_while(|(a, b)| a == b)
                .count()
        } else {
            self.restarts.push(self.buf.len() as u32);
            self.counter = 0;
            0
        };
        put_varint(&mut self.buf, shared as u64);
        put_varint(&mut self.buf, (key.len() - shared) as u64);
        put_varint(&mut self.buf, value.len() as u64);
        self.buf.extend_from_slice(&key[shared..]);
        self.buf.extend_from_slice(value);
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        self.counter += 1;
    }

    /// The block's bytes; the builder is empty again afterwards.
    fn finish(&mut self) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.buf);
        for r in &self.restarts {
            out.extend_from_slice(&r.to_le_bytes());
        }
        out.extend_from_slice(&(self.restarts.len() as u32).to_le_bytes());
        self.restarts = vec![0];
        self.counter = 0;
        self.last_key.clear();
        out
    }
}

/// TensorFlow's `FindShortestSeparator`: shortens `start` to a key in `[start, limit)`.
fn shortest_separator(start: &mut Vec<u8>, limit: &[u8]) {
    let diff = start.iter().zip(limit).take_while(|(a, b)| a == b).count();
    if diff < start.len().min(limit.len()) {
        let byte = start[diff];
        if byte < 0xff && byte + 1 < limit[diff] {
            start[diff] += 1;
            start.truncate(diff + 1);
        }
    }
}

/// TensorFlow's `FindShortSuccessor`: the shortest key >= `key`.
fn short_successor(key: &mut Vec<u8>) {
    if let Some(i) = key.iter().position(|&b| b != 0xff) {
        key[i] += 1;
        key.truncate(i + 1);
    }
}

/// Writes a table in memory, as TensorFlow's `TableBuilder` lays it out byte for byte.
pub(crate) struct TableBuilder {
    opts: TableOptions,
    out: Vec<u8>,
    data: BlockBuilder,
    index: BlockBuilder,
    last_key: Vec<u8>,
    entries: usize,
    pending: Option<BlockHandle>,
}

impl TableBuilder {
    pub(crate) fn new(opts: TableOptions) -> Self {
        TableBuilder {
            opts,
            out: Vec::new(),
            data: BlockBuilder::new(opts.restart_interval),
            index: BlockBuilder::new(1),
            last_key: Vec::new(),
            entries: 0,
            pending: None,
        }
    }

    /// Adds an entry; keys must come in strictly increasing order.
    pub(crate) fn add(&mut self, key: &[u8], value: &[u8]) {
        debug_assert!(self.entries == 0 || key > self.last_key.as_slice());
        if self.entries > 0 && key.len() + value.len() >= 2 * self.opts.block_size {
            // An entry this large gets a block of its own.
            self.flush();
        }
        if let Some(handle) = self.pending.take() {
            shortest_separator(&mut self.last_key, key);
            self.add_index_entry(handle);
        }
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        self.entries += 1;
        self.data.add(key, value);
        if self.data.size_estimate() >= self.opts.block_size {
            self.flush();
        }
    }

    fn add_index_entry(&mut self, handle: BlockHandle) {
        let mut enc = Vec::with_capacity(20);
        handle.encode_to(&mut enc);
        self.index.add(&self.last_key, &enc);
    }

    fn flush(&mut self) {
        if self.data.is_empty() {
            return;
        }
        let block = self.data.finish();
        self.pending = Some(self.write_block(&block));
    }

    fn write_block(&mut self, block: &[u8]) -> BlockHandle {
        let handle = BlockHandle {
            offset: self.out.len() as u64,
            size: block.len() as u64,
        };
        self.out.extend_from_slice(block);
        let crc = crc32c::crc32c_append(crc32c::crc32c(block), &[0]);
        self.out.push(0);
        self.out.extend_from_slice(&mask(crc).to_le_bytes());
        handle
    }

    /// Writes the last data block, the metaindex and index blocks and the footer.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.flush();
        let meta = BlockBuilder::new(self.opts.restart_interval).finish();
        let meta_handle = self.write_block(&meta);
        if let Some(handle) = self.pending.take() {
            short_successor(&mut self.last_key);
            self.add_index_entry(handle);
        }
        let index = self.index.finish();
        let index_handle = self.write_block(&index);
        let mut footer = Vec::with_capacity(FOOTER_LEN);
        meta_handle.encode_to(&mut footer);
        index_handle.encode_to(&mut footer);
        footer.resize(FOOTER_LEN - 8, 0);
        footer.extend_from_slice(&MAGIC.to_le_bytes());
        self.out.extend_from_slice(&footer);
        self.out
    }
}

/// A table's (key, value) entries in key order.
pub(crate) type Entries = Vec<(Vec<u8>, Vec<u8>)>;
/// A block's entries: whole keys, values borrowed from the block.
type BlockEntries<'a> = Vec<(Vec<u8>, &'a [u8])>;

/// Why a table did not parse, and the byte offset where it went wrong.
#[derive(Debug)]
pub(crate) struct TableError {
    pub offset: u64,
    pub what: String,
}

fn bad(offset: u64, what: impl Into<String>) -> TableError {
    TableError {
        offset,
        what: what.into(),
    }
}

/// Checks a block's trailer and returns its contents (without the trailer).
fn read_block<'a>(
    file: &'a [u8],
    h: BlockHandle,
    limit: usize,
    what: &str,
) -> Result<&'a [u8], TableError> {
    let end = h
        .offset
        .checked_add(h.size)
        .and_then(|e| e.checked_add(TRAILER_LEN as u64))
        .filter(|&e| e <= limit as u64)
        .ok_or_else(|| {
            bad(
                h.offset,
                format!(
                    "{what} of {} bytes at offset {} runs past its end at {limit} (truncated block read)",
                    h.size, h.offset
                ),
            )
        })?;
    let (start, n) = (h.offset as usize, h.size as usize);
    let block = &file[start..start + n];
    let kind = file[start + n];
    let stored = unmask(u32_at(file, start + n + 1));
    let actual = crc32c::crc32c_append(crc32c::crc32c(block), &[kind]);
    if stored != actual {
        return Err(bad(
            h.offset,
            format!("block checksum mismatch in {what} at bytes [{start}, {end})"),
        ));
    }
    if kind != 0 {
        return Err(bad(
            h.offset,
            format!("{what} at offset {start} has compression type {kind}; only uncompressed blocks are supported"),
        ));
    }
    Ok(block)
}

/// Decodes every entry of a block, checking its structure and restart points. `base` is the
/// block's file offset, for messages.
fn block_entries(block: &[u8], base: u64) -> Result<BlockEntries<'_>, TableError> {
    let corrupt =
        |at: usize, what: &str| bad(base + at as u64, format!("bad entry in block: {what}"));
    if block.len() < 4 {
        return Err(corrupt(0, "block shorter than its restart count"));
    }
    let num_restarts = u32_at(block, block.len() - 4) as usize;
    let restarts_len = num_restarts
        .checked_mul(4)
        .and_then(|n| n.checked_add(4))
        .filter(|&n| n <= block.len() && num_restarts > 0)
        .ok_or_else(|| corrupt(block.len() - 4, "implausible restart count"))?;
    let data_end = block.len() - restarts_len;
    let mut restarts = (0..num_restarts).map(|i| u32_at(block, data_end + 4 * i) as usize);
    let mut next_restart = restarts.next();
    let mut entries: BlockEntries<'_> = Vec::new();
    let mut pos = 0;
    let mut key: Vec<u8> = Vec::new();
    while pos < data_end {
        let at = pos;
        let mut field = || -> Result<usize, TableError> {
            let (v, n) =
                get_varint(&block[pos..data_end], 5).ok_or_else(|| corrupt(pos, "bad varint"))?;
            pos += n;
            Ok(v as usize)
        };
        let (shared, non_shared, value_len) = (field()?, field()?, field()?);
        if shared > key.len() {
            return Err(corrupt(
                at,
                "shares more key bytes than the previous key has",
            ));
        }
        let value_start = non_shared
            .checked_add(pos)
            .filter(|&e| e <= data_end)
            .ok_or_else(|| corrupt(at, "key runs past the block"))?;
        let value_end = value_start
            .checked_add(value_len)
            .filter(|&e| e <= data_end)
            .ok_or_else(|| corrupt(at, "value runs past the block"))?;
        if next_restart == Some(at) {
            if shared != 0 {
                return Err(corrupt(at, "restart point with a shared key prefix"));
            }
            next_restart = restarts.next();
        } else if next_restart.is_some_and(|r| r < at) {
            return Err(corrupt(at, "restart point inside an entry"));
        }
        key.truncate(shared);
        key.extend_from_slice(&block[pos..value_start]);
        if entries.last().is_some_and(|(k, _)| *k >= key) {
            return Err(corrupt(at, "keys out of order"));
        }
        entries.push((key.clone(), &block[value_start..value_end]));
        pos = value_end;
    }
    // An empty block has the single restart 0; otherwise every restart must have been met.
    if next_restart.is_some() && !(entries.is_empty() && next_restart == Some(0)) {
        return Err(corrupt(data_end, "restart point past the last entry"));
    }
    Ok(entries)
}

/// Reads every (key, value) of a table, checking each block's checksum and that the blocks,
/// index and footer tile the file exactly as TensorFlow's writer lays them out.
pub(crate) fn read_table(file: &[u8]) -> Result<Entries, TableError> {
    if file.len() < FOOTER_LEN {
        return Err(bad(
            0,
            format!("file is too short ({} bytes) to be an sstable", file.len()),
        ));
    }
    let footer_at = file.len() - FOOTER_LEN;
    let footer = &file[footer_at..];
    let magic = u64::from_le_bytes(footer[40..].try_into().unwrap_or([0; 8]));
    if magic != MAGIC {
        return Err(bad(
            footer_at as u64 + 40,
            "not an sstable (bad magic number)",
        ));
    }
    let bad_footer = |what: &str| bad(footer_at as u64, format!("bad footer: {what}"));
    let (meta, n) =
        BlockHandle::decode(&footer[..40]).ok_or_else(|| bad_footer("bad block handle"))?;
    let (index, _) =
        BlockHandle::decode(&footer[n..40]).ok_or_else(|| bad_footer("bad block handle"))?;
    // TensorFlow's writer encodes both handles minimally and pads with zeros; anything else
    // (a stray continuation bit, a nonzero pad byte) is damage.
    let mut canonical = Vec::with_capacity(40);
    meta.encode_to(&mut canonical);
    index.encode_to(&mut canonical);
    canonical.resize(40, 0);
    if canonical.as_slice() != &footer[..40] {
        return Err(bad_footer(
            "handles not minimally encoded or nonzero padding",
        ));
    }
    if index
        .offset
        .checked_add(index.size)
        .and_then(|e| e.checked_add(TRAILER_LEN as u64))
        != Some(footer_at as u64)
    {
        return Err(bad_footer(
            "the index block does not end where the footer starts",
        ));
    }
    let index_block = read_block(file, index, footer_at, "index block")?;
    let meta_end = meta
        .offset
        .checked_add(meta.size)
        .map(|e| e + TRAILER_LEN as u64);
    if meta_end != Some(index.offset) {
        return Err(bad_footer(
            "the metaindex block does not end where the index block starts",
        ));
    }
    read_block(file, meta, index.offset as usize, "metaindex block")?;
    let mut out: Entries = Vec::new();
    let mut next_block = 0u64;
    for (sep, enc) in block_entries(index_block, index.offset)? {
        let h = match BlockHandle::decode(enc) {
            Some((h, used)) if used == enc.len() => h,
            _ => return Err(bad(index.offset, "bad block handle in the index block")),
        };
        if h.offset != next_block {
            return Err(bad(
                h.offset,
                format!(
                    "data block at offset {} where one was expected at {next_block}",
                    h.offset
                ),
            ));
        }
        let block = read_block(file, h, meta.offset as usize, "data block")?;
        next_block = h.offset + h.size + TRAILER_LEN as u64;
        let entries = block_entries(block, h.offset)?;
        let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
            return Err(bad(h.offset, "empty data block"));
        };
        if out.last().is_some_and(|(k, _)| *k >= first.0) || last.0 > sep {
            return Err(bad(h.offset, "keys out of order across blocks"));
        }
        out.extend(entries.into_iter().map(|(k, v)| (k, v.to_vec())));
    }
    if next_block != meta.offset {
        return Err(bad(
            next_block,
            "bytes between the last data block and the metaindex block",
        ));
    }
    Ok(out)
}

#[cfg(test)]
#[path = "table_tests.rs"]
pub(crate) mod tests;
