//! Buffered, optionally decompressed input that hands out records as slices of shared chunks.
//!
//! Bytes are read in large chunks into one allocation each, frozen into [`Bytes`], and records
//! are `Bytes::slice`s of a chunk: a record is never copied after the read that brought it in.
//! Only the unread tail of a chunk is copied, into the next chunk, when a record straddles two.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use flate2::bufread::{MultiGzDecoder, ZlibDecoder};
use weir_graph::{Code, Error, Result};

use super::options::Compression;
use super::prefetch::Prefetcher;
use super::tfrecord::precheck::FramingCheck;

/// TensorFlow's message for a file that cannot be opened: `"<file>; No such file or directory"`
/// (NotFound), and likewise for other OS errors.
pub fn open_error(path: &str, e: &std::io::Error) -> Error {
    let code = match e.kind() {
        std::io::ErrorKind::NotFound => Code::NotFound,
        std::io::ErrorKind::PermissionDenied => Code::PermissionDenied,
        _ => Error::from(std::io::Error::new(e.kind(), "")).code(),
    };
    Error::new(code, format!("{path}; {}", os_message(e)))
}

/// An OS error's text without Rust's `" (os error N)"` suffix, as `strerror` gives it.
fn os_message(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Opens `path` for reading, with TensorFlow's NotFound message when it does not exist.
pub(crate) fn open_file(path: &str) -> Result<(File, u64)> {
    let f = File::open(path).map_err(|e| open_error(path, &e))?;
    let meta = f.metadata().map_err(|e| open_error(path, &e))?;
    if meta.is_dir() {
        return Err(Error::failed_precondition(format!(
            "{path}; Is a directory"
        )));
    }
    Ok((f, meta.len()))
}

enum Source {
    /// Plain bytes whose remaining length is known (a file), so reads never overshoot.
    Sized {
        r: Box<dyn Read + Send>,
        remaining: u64,
    },
    /// Plain bytes of unknown length.
    Stream(Box<dyn Read + Send>),
    /// Compressed bytes whose header has not been checked yet; checking lazily makes a
    /// codec mismatch a read error (as in TensorFlow) rather than an open error.
    Pending(BufReader<Box<dyn Read + Send>>, Compression),
    /// A decompressor.
    Inflate(Box<dyn Read + Send>),
    /// A plain file read ahead by its own thread.
    Prefetch(Prefetcher),
}

/// A byte stream read in chunks, with a cursor; see the module doc.
pub(crate) struct ChunkedInput {
    src: Source,
    /// The current chunk: all of it initialised, its bytes from `end` on stale.
    buf: Bytes,
    pos: usize,
    /// Where the chunk's data starts and ends.
    start: usize,
    end: usize,
    /// The stream offset of `buf[start]`.
    base: u64,
    eof: bool,
    /// A read error that came after bytes still in memory; reported once those are used up.
    failed: Option<Error>,
    chunk: usize,
    name: Arc<str>,
    /// Earlier chunks that records still held when they were replaced, kept for reuse.
    retired: Vec<Bytes>,
    /// Stream offsets of whole TFRecord records whose CRCs the read-ahead thread checked, from
    /// the next one not yet consumed (see [`ChunkedInput::prechecked_here`]).
    prechecked: Range<u64>,
}

/// Whether a file is read ahead by a thread of its own, and whether that thread also checks
/// TFRecord framing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReadAhead {
    No,
    Plain,
    TfRecord,
}

/// How many replaced chunks a stream keeps for reuse.
const MAX_RETIRED: usize = 2;

/// The alignment a read's destination is given (see [`ChunkedInput::buffer_for`]).
const CACHE_LINE: usize = 64;

/// Plain files of at least this many chunks are read ahead ([`Prefetcher`]): below it, starting
/// a thread costs more than the reads it would take over.
const PREFETCH_MIN_CHUNKS: u64 = 4;

impl ChunkedInput {
    /// Reads `r`, decompressing with `compression`; `len` is its length when known and plain.
    /// `name` is what error messages call the stream (the file name).
    pub(crate) fn new(
        r: Box<dyn Read + Send>,
        len: Option<u64>,
        compression: Compression,
        chunk: usize,
        name: Arc<str>,
    ) -> ChunkedInput {
        let src = match (compression, len) {
            (Compression::None, Some(remaining)) => Source::Sized { r, remaining },
            (Compression::None, None) => Source::Stream(r),
            (c, _) => Source::Pending(BufReader::with_capacity(chunk.min(1 << 20), r), c),
        };
        ChunkedInput {
            src,
            buf: Bytes::new(),
            pos: 0,
            start: 0,
            end: 0,
            base: 0,
            eof: false,
            failed: None,
            chunk: chunk.max(1024),
            name,
            retired: Vec::new(),
            prechecked: 0..0,
        }
    }

    /// Opens the file `path`, read on the caller's thread.
    pub(crate) fn open(path: &str, compression: Compression, chunk: usize) -> Result<ChunkedInput> {
        ChunkedInput::open_with(path, compression, chunk, ReadAhead::No)
    }

    /// Opens the file `path` for a reader op: a plain file of a few chunks or more is read ahead
    /// by a thread of its own ([`Prefetcher`]), so the runner threads decode while it reads.
    ///
    /// Why only reader ops: their runner threads decode each record at length, and the copy
    /// out of the page cache overlaps that (`cifar_t2`, median of 24 alternating repetitions on
    /// 2 vCPUs: 307k -> 337k ex/s; more with cores to spare). A bare
    /// scan of records (`tf_record_iterator`) only checks CRCs, faster than the kernel copies,
    /// so it would wait at every chunk for a thread to wake on a 2-vCPU machine: `tfrecord_scan`
    /// went from 3.9M to 3.1M records/s with it.
    pub(crate) fn open_read_ahead(
        path: &str,
        compression: Compression,
        chunk: usize,
    ) -> Result<ChunkedInput> {
        ChunkedInput::open_with(path, compression, chunk, ReadAhead::Plain)
    }

    /// [`ChunkedInput::open_read_ahead`] for a TFRecord file: the read-ahead thread also checks
    /// the CRCs of the records in each chunk it reads ([`FramingCheck`]), so the reader's
    /// thread need not.
    pub(crate) fn open_tfrecord_read_ahead(
        path: &str,
        compression: Compression,
        chunk: usize,
    ) -> Result<ChunkedInput> {
        ChunkedInput::open_with(path, compression, chunk, ReadAhead::TfRecord)
    }

    /// Opens `path`, read ahead as `read_ahead` asks when it is a plain file of a few chunks or
    /// more.
    fn open_with(
        path: &str,
        compression: Compression,
        chunk: usize,
        read_ahead: ReadAhead,
    ) -> Result<ChunkedInput> {
        let (f, len) = open_file(path)?;
        // A chunk never needs to exceed the file: small files get small buffers.
        let chunk = if compression == Compression::None {
            chunk.min(len as usize + 1)
        } else {
            chunk
        };
        let chunk = chunk.max(1024);
        let check = match read_ahead {
            ReadAhead::No => None,
            ReadAhead::Plain => Some(None),
            ReadAhead::TfRecord => Some(Some(FramingCheck::default())),
        };
        let f = match check {
            Some(check)
                if compression == Compression::None
                    && len >= PREFETCH_MIN_CHUNKS * chunk as u64 =>
            {
                match Prefetcher::start(f, len, chunk, CACHE_LINE, read_error, path.into(), check) {
                    Ok(p) => {
                        let mut input = ChunkedInput::new(
                            Box::new(std::io::empty()),
                            None,
                            compression,
                            chunk,
                            path.into(),
                        );
                        input.src = Source::Prefetch(p);
                        return Ok(input);
                    }
                    Err(f) => f,
                }
            }
            _ => f,
        };
        Ok(ChunkedInput::new(
            Box::new(f),
            Some(len),
            compression,
            chunk,
            path.into(),
        ))
    }

    /// The stream's name in messages.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The unread bytes in memory.
    #[inline]
    pub(crate) fn available(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// The stream offset (in decompressed bytes) of the cursor.
    #[inline]
    pub(crate) fn offset(&self) -> u64 {
        self.base + (self.pos - self.start) as u64
    }

    /// `len` bytes at `start` past the cursor, sharing the chunk.
    #[inline]
    pub(crate) fn slice(&self, start: usize, len: usize) -> Bytes {
        self.buf.slice(self.pos + start..self.pos + start + len)
    }

    /// Moves the cursor `n` bytes on (`n` must be available).
    #[inline]
    pub(crate) fn consume(&mut self, n: usize) {
        debug_assert!(n <= self.end - self.pos);
        if self.prechecked.start == self.offset() && !self.prechecked.is_empty() {
            // A record read from the start of the checked span: the span goes on after it.
            self.prechecked.start += n as u64;
        }
        self.pos += n;
    }

    /// Whether the read-ahead thread checked both CRCs of the TFRecord record at the cursor.
    /// Only a record that starts exactly where the checked span goes on counts: the thread
    /// walked the framing from the start of the file, so its records are the reader's.
    #[inline]
    pub(crate) fn prechecked_here(&self) -> bool {
        let at = self.offset();
        self.prechecked.start == at && at < self.prechecked.end
    }

    /// Whether a read-ahead thread reads the stream.
    #[cfg(test)]
    pub(crate) fn is_read_ahead(&self) -> bool {
        matches!(self.src, Source::Prefetch(_))
    }

    /// The size of the buffer the unread bytes are in.
    #[cfg(test)]
    pub(crate) fn buffer_len(&self) -> usize {
        self.buf.len()
    }

    /// Whether the source has no more bytes beyond those in memory.
    #[cfg(test)]
    pub(crate) fn at_eof(&self) -> bool {
        self.eof
    }

    /// Makes at least `n` bytes available past the cursor, unless the stream ends first; returns
    /// how many are available. Memory grows at most geometrically with the bytes actually
    /// present, so a length field claiming 2^40 bytes cannot make it allocate that much.
    pub(crate) fn fill(&mut self, n: usize) -> Result<usize> {
        if matches!(self.src, Source::Prefetch(_)) {
            return self.fill_prefetched(n);
        }
        let mut avail = self.end - self.pos;
        while avail < n && !self.eof {
            if let Some(e) = &self.failed {
                return Err(e.clone());
            }
            let grow = n.min(avail.saturating_mul(2).saturating_add(self.chunk));
            let mut want = grow.max(avail + self.chunk);
            if let Source::Sized { remaining, .. } = &self.src {
                want = want.min(avail + (*remaining).min(usize::MAX as u64 / 2) as usize);
                if *remaining == 0 {
                    self.eof = true;
                    break;
                }
            }
            let (mut v, start) = self.buffer_for(want);
            let (got, res) = self.read_into(&mut v[start + avail..start + want]);
            if let Source::Sized { remaining, .. } = &mut self.src {
                *remaining -= got as u64;
                if *remaining == 0 {
                    self.eof = true;
                }
            }
            self.base += (self.pos - self.start) as u64;
            self.start = start;
            self.pos = start;
            self.end = start + avail + got;
            self.buf = Bytes::from(v);
            avail += got;
            match res {
                Ok(true) => {}
                Ok(false) => self.eof = true,
                Err(e) => self.failed = Some(e),
            }
        }
        Ok(avail)
    }

    /// [`ChunkedInput::fill`] from the read-ahead thread's chunks: the unread bytes go into the
    /// room in front of the next chunk's data. When they do not fit there (a record longer than
    /// the room), the chunk's bytes are appended to a buffer that grows geometrically, as in
    /// `fill`, so a length field claiming 2^40 bytes costs at most the file's bytes.
    fn fill_prefetched(&mut self, n: usize) -> Result<usize> {
        let mut avail = self.end - self.pos;
        while avail < n && !self.eof {
            if let Some(e) = &self.failed {
                return Err(e.clone());
            }
            let Source::Prefetch(p) = &mut self.src else {
                unreachable!("only called on a prefetched input")
            };
            if let Some(v) = self.retired.iter().position(Bytes::is_unique) {
                if let Ok(v) = self.retired.swap_remove(v).try_into_mut() {
                    p.give_back(Vec::from(v));
                }
            }
            let chunk = match p.next() {
                None => {
                    self.eof = true;
                    break;
                }
                Some(Err(e)) => {
                    self.failed = Some(e);
                    continue;
                }
                Some(Ok(c)) => c,
            };
            // The records before it were all used up (fill is asked for the rest of the one at
            // the cursor), so only this chunk's span can still be read.
            self.prechecked = chunk.checked.clone();
            let data = &chunk.buf[chunk.start..chunk.start + chunk.len];
            let (pos, end) = (self.pos, self.end);
            let old = std::mem::take(&mut self.buf);
            let (v, start, old) = if avail <= chunk.start {
                let mut v = chunk.buf;
                let start = chunk.start - avail;
                v[start..chunk.start].copy_from_slice(&old[pos..end]);
                (v, start, Some(old))
            } else {
                let grown = match old.try_into_mut() {
                    Ok(b) if b.len() >= end + chunk.len => {
                        let mut v = Vec::from(b);
                        v[end..end + chunk.len].copy_from_slice(data);
                        Ok(v)
                    }
                    Ok(b) => Err(Bytes::from(b)),
                    Err(shared) => Err(shared),
                };
                match grown {
                    Ok(v) => {
                        // Appended in place: the cursor and the data's start stay.
                        self.end += chunk.len;
                        self.buf = Bytes::from(v);
                        avail += chunk.len;
                        p.give_back(chunk.buf);
                        continue;
                    }
                    Err(old) => {
                        let room = n.min(avail.saturating_mul(2)).max(avail) + chunk.len;
                        let mut v = vec![0; room + CACHE_LINE];
                        let at = self.base + (pos - self.start) as u64;
                        let start = (at as usize).wrapping_sub(v.as_ptr() as usize) % CACHE_LINE;
                        v[start..start + avail].copy_from_slice(&old[pos..end]);
                        v[start + avail..start + avail + chunk.len].copy_from_slice(data);
                        p.give_back(chunk.buf);
                        (v, start, Some(old))
                    }
                }
            };
            match old.map(Bytes::try_into_mut) {
                Some(Ok(old)) if !old.is_empty() => p.give_back(Vec::from(old)),
                Some(Err(shared)) if self.retired.len() < MAX_RETIRED => self.retired.push(shared),
                _ => {}
            }
            self.base += (self.pos - self.start) as u64;
            self.start = start;
            self.pos = start;
            self.end = start + avail + chunk.len;
            self.buf = Bytes::from(v);
            avail += chunk.len;
        }
        Ok(avail)
    }

    /// A buffer that holds the unread bytes at the returned start, followed by room for at least
    /// `want` bytes in all, initialised. The current chunk is reused when no record of it is
    /// still held (a scan that drops each record), else a retired chunk whose records have all
    /// been dropped since: fresh allocations cost page faults and zeroing on every chunk, reused
    /// ones are in cache.
    ///
    /// The start puts the next read's first byte at the same offset within a cache line as its
    /// offset in the file has: the kernel copies page-cache bytes with `rep movsb`, which on
    /// AMD Zen runs 2.6x slower when source and destination are not equally aligned (measured:
    /// 1.6 vs 4.3 GB/s for 256 KiB reads of a cached file into a buffer at offset 8 vs 0).
    fn buffer_for(&mut self, want: usize) -> (Vec<u8>, usize) {
        let (pos, end) = (self.pos, self.end);
        let keep = end - pos;
        let next = self.base + (end - self.start) as u64;
        let room = |v: &mut Vec<u8>| {
            if v.is_empty() {
                // Zeroed by the allocator: fresh pages need no memset.
                *v = vec![0; want + CACHE_LINE];
            } else if v.len() < want + CACHE_LINE {
                v.resize(want + CACHE_LINE, 0);
            }
            let addr = v.as_ptr() as usize + keep;
            (next as usize).wrapping_sub(addr) % CACHE_LINE
        };
        match std::mem::take(&mut self.buf).try_into_mut() {
            Ok(unique) => {
                let mut v = Vec::from(unique);
                let start = room(&mut v);
                v.copy_within(pos..end, start);
                (v, start)
            }
            Err(shared) => {
                let mut v = self.reusable().unwrap_or_default();
                let start = room(&mut v);
                v[start..start + keep].copy_from_slice(&shared[pos..end]);
                if self.retired.len() < MAX_RETIRED {
                    self.retired.push(shared);
                }
                (v, start)
            }
        }
    }

    /// A retired chunk that no record holds any more.
    fn reusable(&mut self) -> Option<Vec<u8>> {
        let i = self.retired.iter().position(Bytes::is_unique)?;
        self.retired
            .swap_remove(i)
            .try_into_mut()
            .ok()
            .map(Vec::from)
    }

    /// Reads into all of `dst` unless the source ends first: how many bytes came, and
    /// `Ok(false)` when the source ended. Each `read` asks for all that is left, so a chunk
    /// takes one system call (std's `read_to_end` starts at 8 KiB and doubles).
    fn read_into(&mut self, dst: &mut [u8]) -> (usize, Result<bool>) {
        if matches!(self.src, Source::Pending(..)) {
            let Source::Pending(mut br, c) =
                std::mem::replace(&mut self.src, Source::Stream(Box::new(std::io::empty())))
            else {
                unreachable!("checked above")
            };
            if let Err(e) = check_header(&mut br, c, &self.name) {
                self.src = Source::Pending(br, c);
                return (0, Err(e));
            }
            self.src = Source::Inflate(match c {
                Compression::Gzip => Box::new(MultiGzDecoder::new(br)),
                _ => Box::new(ZlibDecoder::new(br)),
            });
        }
        let inflating = matches!(self.src, Source::Inflate(_));
        let r: &mut dyn Read = match &mut self.src {
            Source::Sized { r, .. } | Source::Stream(r) | Source::Inflate(r) => r,
            Source::Pending(..) | Source::Prefetch(_) => unreachable!("replaced above"),
        };
        let mut got = 0;
        while got < dst.len() {
            match r.read(&mut dst[got..]) {
                Ok(0) => return (got, Ok(false)),
                Ok(k) => got += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if inflating => {
                    return (
                        got,
                        Err(Error::data_loss(format!(
                            "inflate() failed with error -3: {} in \"{}\"",
                            os_message(&e),
                            self.name
                        ))),
                    )
                }
                Err(e) => return (got, Err(read_error(e, &self.name))),
            }
        }
        (got, Ok(true))
    }
}

/// Reads `inp` to its end in records of `sizes`, keeping the last few alive so some chunks stay
/// shared for a while, and checks that every held record still has its bytes of `data` and that
/// each started at the offset within a cache line it has in the stream; returns the bytes read.
#[cfg(test)]
pub(crate) fn check_held_records(
    inp: &mut ChunkedInput,
    data: &[u8],
    sizes: impl Iterator<Item = usize>,
) -> usize {
    let mut held = std::collections::VecDeque::new();
    let mut at = 0usize;
    for (i, len) in sizes.enumerate() {
        let avail = inp.fill(len).unwrap();
        if avail == 0 {
            break;
        }
        let len = len.min(avail);
        assert_eq!(inp.offset(), at as u64);
        assert_eq!(
            inp.available().as_ptr() as usize % CACHE_LINE,
            at % CACHE_LINE,
            "record {i} at {at}"
        );
        held.push_back((at, inp.slice(0, len)));
        inp.consume(len);
        at += len;
        if held.len() > 3 {
            held.pop_front();
        }
        for (start, rec) in &held {
            assert_eq!(
                &rec[..],
                &data[*start..*start + rec.len()],
                "record at {start}"
            );
        }
    }
    at
}

/// A failed read of the stream `name`.
fn read_error(e: std::io::Error, name: &str) -> Error {
    Error::from(e).with_prefix(&format!("\"{name}\": "))
}

/// Checks the zlib or gzip magic before inflating, so a codec mismatch gets zlib's own words.
fn check_header(
    br: &mut BufReader<Box<dyn Read + Send>>,
    c: Compression,
    name: &str,
) -> Result<()> {
    let head = br
        .fill_buf()
        .map_err(|e| Error::from(e).with_prefix(&format!("\"{name}\": ")))?;
    if head.is_empty() {
        // An empty file holds no records, compressed or not.
        return Ok(());
    }
    let ok = match c {
        Compression::Gzip => head.len() < 2 || (head[0] == 0x1f && head[1] == 0x8b),
        _ => {
            head.len() < 2
                || (head[0] & 0x0f == 8 && (u16::from(head[0]) << 8 | u16::from(head[1])) % 31 == 0)
        }
    };
    if ok {
        Ok(())
    } else {
        Err(Error::data_loss(format!(
            "inflate() failed with error -3: incorrect header check in \"{name}\""
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn input(data: Vec<u8>, sized: bool, chunk: usize) -> ChunkedInput {
        let len = data.len() as u64;
        ChunkedInput::new(
            Box::new(Cursor::new(data)),
            sized.then_some(len),
            Compression::None,
            chunk,
            "mem".into(),
        )
    }

    #[test]
    fn fill_grows_across_chunks_and_slices_share() {
        let data: Vec<u8> = (0..5000u32).map(|i| i as u8).collect();
        for sized in [true, false] {
            let mut inp = input(data.clone(), sized, 1024);
            assert_eq!(inp.fill(10).unwrap(), 1024);
            inp.consume(1000);
            assert_eq!(inp.offset(), 1000);
            assert!(inp.fill(3000).unwrap() >= 3000);
            assert_eq!(inp.slice(0, 3).as_ref(), &data[1000..1003]);
            inp.consume(3000);
            assert_eq!(inp.fill(5000).unwrap(), 1000);
            assert!(inp.at_eof());
            assert_eq!(inp.available(), &data[4000..]);
        }
    }

    /// Records held across refills (the shared path, then retired chunks coming back) keep
    /// their bytes, and every chunk lays bytes out at the cache-line offset they have in the
    /// stream, whichever path made it.
    #[test]
    fn held_records_survive_refills_and_bytes_keep_their_alignment() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        for sized in [true, false] {
            let mut inp = input(data.clone(), sized, 4096);
            // Odd record sizes, so chunks end mid-record at every offset.
            let at = check_held_records(&mut inp, &data, (0..).map(|i| 1 + (i * 389) % 3001));
            assert_eq!(at, data.len());
        }
    }

    #[test]
    fn huge_request_is_bounded_by_data() {
        let mut inp = input(vec![1u8; 100], false, 1024);
        assert_eq!(inp.fill(1 << 40).unwrap(), 100);
        assert!(inp.buf.len() <= 2048, "{}", inp.buf.len());
    }

    #[test]
    fn codec_mismatch_is_data_loss_with_zlib_wording() {
        let mut inp = ChunkedInput::new(
            Box::new(Cursor::new(vec![0u8; 40])),
            Some(40),
            Compression::Zlib,
            4096,
            "f".into(),
        );
        let e = inp.fill(12).unwrap_err();
        assert!(e.is_data_loss());
        assert!(
            e.message()
                .starts_with("inflate() failed with error -3: incorrect header check"),
            "{e}"
        );
        // Retrying gives the same error.
        assert_eq!(inp.fill(12).unwrap_err().message(), e.message());
    }

    #[test]
    fn missing_file_is_not_found_naming_it() {
        let e = open_file("/no/such/file.tfrecord").unwrap_err();
        assert!(e.is_not_found());
        assert_eq!(
            e.message(),
            "/no/such/file.tfrecord; No such file or directory"
        );
    }
}
