//! Read-ahead for plain files: a thread reads a file's next chunks while the records of the
//! current one are checked and decoded.
//!
//! Why: in a reader pipeline the `read` system calls (the kernel copying page-cache bytes into
//! the chunk) were a fifth to a third of the enqueuing thread's time (perf, `mnist_*_batched`),
//! on the thread every record waits for, while the dequeuing thread's core sat idle part of the
//! time. Here that copy runs on a core with time to spare, and the records still come out as
//! slices of the chunks (never copied once more), because each chunk leaves room in front of
//! its data for the unread tail of the chunk before it.

use std::fs::File;
use std::io::Read;
use std::ops::Range;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread::JoinHandle;

use weir_graph::{Error, Result};

use super::tfrecord::precheck::FramingCheck;

/// Bytes kept free in front of each chunk's data for the unread tail of the chunk before it: a
/// record that straddles two chunks and is shorter than this is joined in place.
pub(crate) const HEADROOM: usize = 64 << 10;

/// Chunks read ahead of the one in use, waiting in the channel (one more may be in the read).
const AHEAD: usize = 1;

/// Spare chunks handed back for the thread to read into, so steady reading reuses warm memory.
const SPARES: usize = 2;

/// One chunk: `len` bytes of the file at `buf[start..]`, with `start >= HEADROOM`.
pub(crate) struct Chunk {
    pub(crate) buf: Vec<u8>,
    pub(crate) start: usize,
    pub(crate) len: usize,
    /// The file offsets of the whole TFRecord records in it whose CRCs the thread checked
    /// (empty unless it was asked to, see [`FramingCheck`]).
    pub(crate) checked: Range<u64>,
}

/// What the read-ahead thread sends, in file order.
enum Msg {
    Chunk(Chunk),
    /// The file has been read to its end (or to where it now ends, if it shrank).
    End,
    /// A read failed; nothing follows.
    Failed(Error),
}

/// A file being read ahead by its own thread; dropping it stops and joins the thread.
pub(crate) struct Prefetcher {
    chunks: Option<Receiver<Msg>>,
    name: Arc<str>,
    spares: Option<SyncSender<Vec<u8>>>,
    /// The size of a chunk buffer: larger buffers (joined long records) are not kept as spares.
    spare_len: usize,
    thread: Option<JoinHandle<()>>,
}

impl Prefetcher {
    /// Starts reading the first `len` bytes of `file` in chunks of `chunk` bytes, each laid out
    /// at the offset within a cache line of `align` bytes that it has in the file (see
    /// `ChunkedInput::buffer_for` for why). `read_error` words a failed read. Gives the file
    /// back if no thread could be started. With `check`, the thread also checks the TFRecord
    /// framing of each chunk it reads.
    pub(crate) fn start(
        file: File,
        len: u64,
        chunk: usize,
        align: usize,
        read_error: fn(std::io::Error, &str) -> Error,
        name: Arc<str>,
        mut check: Option<FramingCheck>,
    ) -> std::result::Result<Prefetcher, File> {
        let (tx, chunks) = sync_channel::<Msg>(AHEAD);
        let (spares, spare_rx) = sync_channel::<Vec<u8>>(SPARES);
        // The file goes to the thread through a channel, so a failed spawn can give it back.
        let (file_tx, file_rx) = sync_channel::<File>(1);
        let thread_name = name.clone();
        let spawned = std::thread::Builder::new()
            .name("weir-read-ahead".into())
            .spawn(move || {
                let name = thread_name;
                let Ok(mut file) = file_rx.recv() else { return };
                let mut off = 0u64;
                while off < len {
                    let want = chunk.min((len - off).min(usize::MAX as u64) as usize);
                    let mut buf = spare_rx.try_recv().unwrap_or_default();
                    let need = HEADROOM + want + align;
                    if buf.len() < need {
                        if buf.is_empty() {
                            // Zeroed by the allocator: fresh pages need no memset.
                            buf = vec![0; need];
                        } else {
                            buf.resize(need, 0);
                        }
                    }
                    let addr = buf.as_ptr() as usize + HEADROOM;
                    let start = HEADROOM + (off as usize).wrapping_sub(addr) % align;
                    let (got, failed) = read_fully(&mut file, &mut buf[start..start + want]);
                    let checked = match &mut check {
                        Some(c) => c.chunk(off, &buf[start..start + got]),
                        None => 0..0,
                    };
                    off += got as u64;
                    if got > 0
                        && tx
                            .send(Msg::Chunk(Chunk {
                                buf,
                                start,
                                len: got,
                                checked,
                            }))
                            .is_err()
                    {
                        return;
                    }
                    if let Some(e) = failed {
                        let _ = tx.send(Msg::Failed(read_error(e, &name)));
                        return;
                    }
                    if got < want {
                        // The file is shorter than when it was opened: it ends here.
                        break;
                    }
                }
                let _ = tx.send(Msg::End);
            });
        match spawned {
            Ok(thread) => {
                file_tx
                    .send(file)
                    .expect("the read-ahead thread waits for its file");
                Ok(Prefetcher {
                    chunks: Some(chunks),
                    name,
                    spares: Some(spares),
                    spare_len: HEADROOM + chunk + align,
                    thread: Some(thread),
                })
            }
            // The file is only sent once the thread runs, so it is still here.
            Err(_) => Err(file),
        }
    }

    /// The next chunk, waiting for its read; `None` once the file has been read to its end.
    /// A thread that stopped without saying so (it panicked) is an error, never an early end.
    pub(crate) fn next(&mut self) -> Option<Result<Chunk>> {
        let out = match self.chunks.as_ref()?.recv() {
            Ok(Msg::Chunk(c)) => return Some(Ok(c)),
            Ok(Msg::End) => None,
            Ok(Msg::Failed(e)) => Some(Err(e)),
            Err(_) => Some(Err(Error::internal(format!(
                "The thread reading \"{}\" ahead stopped before its end",
                self.name
            )))),
        };
        // Nothing follows an end or an error.
        self.chunks = None;
        out
    }

    /// Hands `buf` back for a later chunk; dropped if the thread has spares enough, or if it
    /// is larger than a chunk needs (a buffer grown for a long record would stay held).
    pub(crate) fn give_back(&self, buf: Vec<u8>) {
        if buf.len() > self.spare_len {
            return;
        }
        if let Some(s) = &self.spares {
            match s.try_send(buf) {
                Ok(()) | Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {}
            }
        }
    }
}

impl Drop for Prefetcher {
    fn drop(&mut self) {
        // Closing the channels makes the thread's next send fail, so it stops after at most the
        // read in progress.
        self.chunks = None;
        self.spares = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Reads into all of `dst` unless the file ends first: how many bytes came, and the error that
/// stopped it, if any.
fn read_fully(file: &mut File, dst: &mut [u8]) -> (usize, Option<std::io::Error>) {
    let mut got = 0;
    while got < dst.len() {
        match file.read(&mut dst[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return (got, Some(e)),
        }
    }
    (got, None)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::HEADROOM;
    use crate::io::input::{check_held_records, ChunkedInput};
    use crate::io::options::Compression;

    /// A file of `len` patterned bytes in the temporary directory, removed on drop.
    struct TempFile(PathBuf, Vec<u8>);

    impl TempFile {
        fn new(tag: &str, len: usize) -> TempFile {
            let data: Vec<u8> = (0..len as u32).map(|i| (i * 7 + i / 251) as u8).collect();
            let path = std::env::temp_dir()
                .join(format!("weir-prefetch-{tag}-{}.bin", std::process::id()));
            std::fs::write(&path, &data).unwrap();
            TempFile(path, data)
        }

        fn open(&self, chunk: usize) -> ChunkedInput {
            ChunkedInput::open_read_ahead(self.0.to_str().unwrap(), Compression::None, chunk)
                .unwrap()
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    /// Records of every size up to three chunks, and some longer than the room in front of a
    /// chunk, read while a few stay held: each holds its bytes and starts at the cache-line
    /// offset it has in the file, and the stream ends where the file does.
    #[test]
    fn read_ahead_records_are_the_file_bytes_at_their_alignment() {
        let f = TempFile::new("records", 900_000);
        let mut inp = f.open(4096);
        assert!(inp.is_read_ahead());
        let sizes = (0..).map(|i| {
            if i % 97 == 50 {
                HEADROOM + 1 + (i * 7919) % 40_000
            } else {
                1 + (i * 389) % 12_001
            }
        });
        let at = check_held_records(&mut inp, &f.1, sizes);
        assert_eq!(at, f.1.len());
        assert!(inp.at_eof());
    }

    /// A length claiming 2^40 bytes gets the rest of the file, in a buffer that grew
    /// geometrically to about its size.
    #[test]
    fn a_huge_request_gets_the_rest_of_a_read_ahead_file() {
        let f = TempFile::new("huge", 1 << 20);
        let mut inp = f.open(8192);
        assert!(inp.is_read_ahead());
        assert_eq!(inp.fill(10).unwrap(), 8192);
        inp.consume(10);
        assert_eq!(inp.fill(1 << 40).unwrap(), (1 << 20) - 10);
        assert_eq!(inp.available(), &f.1[10..]);
        assert!(inp.buffer_len() <= 3 << 20, "{}", inp.buffer_len());
    }

    /// A file cut short after it was opened ends where it now ends, with no error and no wait.
    #[test]
    fn a_file_truncated_after_opening_ends_early() {
        let f = TempFile::new("truncated", 600_000);
        let mut inp = f.open(4096);
        assert!(inp.is_read_ahead());
        assert_eq!(inp.fill(100).unwrap(), 4096);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&f.0)
            .unwrap()
            .set_len(100_000)
            .unwrap();
        let got = inp.fill(usize::MAX).unwrap();
        // Chunks read ahead before the cut may still come; nothing past them does.
        assert!((100_000..=100_000 + 3 * 4096).contains(&got), "{got}");
        assert_eq!(inp.available(), &f.1[..got]);
        assert!(inp.at_eof());
    }

    /// Small files, and files opened without asking for it, are read on the caller's thread;
    /// dropping a read-ahead input part-way stops its thread (the drop joins it).
    #[test]
    fn small_files_are_not_read_ahead_and_a_dropped_input_stops() {
        let f = TempFile::new("small", 10_000);
        assert!(!f.open(4096).is_read_ahead());
        let plain = TempFile::new("plain", 100_000);
        let path = plain.0.to_str().unwrap();
        assert!(!ChunkedInput::open(path, Compression::None, 4096)
            .unwrap()
            .is_read_ahead());
        let g = TempFile::new("dropped", 2 << 20);
        let mut inp = g.open(4096);
        assert!(inp.is_read_ahead());
        assert_eq!(inp.fill(1).unwrap(), 4096);
        drop(inp);
    }
}
