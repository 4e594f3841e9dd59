//! The event file behind a summary writer: TensorFlow's `SummaryFileWriter` over its
//! `EventsWriter`. Events queue in memory and reach the TFRecord file when the queue outgrows
//! `max_queue`, when `flush_millis` have passed since the last flush, or on flush and close.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use parking_lot::Mutex;
use prost::Message;
use weir_graph::{Error, Result};

use crate::io::{open_error, RecordWriter, TfRecordOptions};
use crate::summary::proto::{event::What, Event, SourceMetadata};

/// TensorFlow numbers the event files of a process in the order their writers open, so two
/// writers opened in the same second never share a name.
static FILE_ID: AtomicU64 = AtomicU64::new(0);

/// Seconds since the Unix epoch, as an event's `wall_time`.
pub(super) fn wall_time() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// The machine's name as `port::Hostname()` gives it, which TensorFlow puts in event file
/// names.
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".to_string())
}

/// `events.out.tfevents.<seconds, 10 digits>.<host>.<pid>.<file id><suffix>`, a dot put before
/// a suffix that lacks one, as TensorFlow 2 names the files of `CreateSummaryFileWriter`.
fn event_file_name(secs: u64, suffix: &str) -> String {
    let id = FILE_ID.fetch_add(1, Ordering::Relaxed);
    let sep = if suffix.starts_with('.') { "" } else { "." };
    format!(
        "events.out.tfevents.{secs:010}.{}.{}.{id}{sep}{suffix}",
        hostname(),
        std::process::id()
    )
}

/// Creates `logdir` and its parents; a parent that is a file is FailedPrecondition
/// `"<parent> is not a directory"`, as TensorFlow's `RecursivelyCreateDir` says.
fn create_logdir(logdir: &Path) -> Result<()> {
    if logdir.is_dir() {
        return Ok(());
    }
    if let Some(file) = logdir.ancestors().find(|p| p.exists() && !p.is_dir()) {
        return Err(Error::failed_precondition(format!(
            "{} is not a directory",
            file.display()
        )));
    }
    std::fs::create_dir_all(logdir).map_err(|e| open_error(&logdir.to_string_lossy(), &e))
}

struct Queue {
    events: Vec<Bytes>,
    last_flush: Instant,
}

/// One open event file and its queue of serialized events.
pub(super) struct EventFile {
    path: PathBuf,
    max_queue: usize,
    flush_millis: u128,
    queue: Mutex<Queue>,
    /// Taken by whoever flushes, before the queue, so events reach the file in order; writers
    /// that only queue never wait on the file.
    file: Mutex<RecordWriter<File>>,
}

impl EventFile {
    /// Opens a new event file in `logdir` (created if missing) and writes its first event, the
    /// file version `brain.Event:2` stamped with whole seconds, flushed at once.
    pub(super) fn create(
        logdir: &str,
        max_queue: i32,
        flush_millis: i32,
        filename_suffix: &str,
    ) -> Result<EventFile> {
        let dir = Path::new(logdir);
        create_logdir(dir)?;
        let secs = wall_time() as u64;
        let path = dir.join(event_file_name(secs, filename_suffix));
        let mut file = RecordWriter::create(&path, TfRecordOptions::default())
            .map_err(|e| e.with_prefix(&format!("Creating writable file {}: ", path.display())))?;
        let version = Event {
            wall_time: secs as f64,
            step: 0,
            what: Some(What::FileVersion("brain.Event:2".to_string())),
            // TensorFlow 2's `EventsWriter` names itself in the first event.
            source_metadata: Some(SourceMetadata {
                writer: "tensorflow.core.util.events_writer".to_string(),
            }),
        };
        file.write(version.encode_to_vec())?;
        file.flush()?;
        Ok(EventFile {
            path,
            // TensorFlow compares the queue's size_t length with the int bound, so a negative
            // bound never triggers a flush, and a negative interval always does.
            max_queue: usize::try_from(max_queue).unwrap_or(usize::MAX),
            flush_millis: u128::try_from(flush_millis).unwrap_or(0),
            queue: Mutex::new(Queue {
                events: Vec::new(),
                last_flush: Instant::now(),
            }),
            file: Mutex::new(file),
        })
    }

    /// The event file's path.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Queues `event`, flushing when the queue holds more than `max_queue` events or the last
    /// flush is older than `flush_millis`.
    pub(super) fn write_event(&self, event: &Event) -> Result<()> {
        let bytes = Bytes::from(event.encode_to_vec());
        let due = {
            let mut q = self.queue.lock();
            q.events.push(bytes);
            q.events.len() > self.max_queue
                || q.last_flush.elapsed().as_millis() > self.flush_millis
        };
        if due {
            self.flush()
        } else {
            Ok(())
        }
    }

    /// Writes every queued event to the file and flushes it: TensorFlow's `Flush`.
    pub(super) fn flush(&self) -> Result<()> {
        let mut file = self.file.lock();
        let events = {
            let mut q = self.queue.lock();
            q.last_flush = Instant::now();
            std::mem::take(&mut q.events)
        };
        events
            .iter()
            .try_for_each(|e| file.write(e))
            .and_then(|_| file.flush())
    }

    /// Flushes and closes the file; later writes fail.
    pub(super) fn close(&self) -> Result<()> {
        let flushed = self.flush();
        let closed = self.file.lock().close();
        flushed.and(closed)
    }
}

impl Drop for EventFile {
    fn drop(&mut self) {
        // A session dropped without CloseSummaryWriter still gets its events on disk, as
        // TensorFlow's destructor flushes; there is no caller to report a failure to.
        let _ = self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_put_a_dot_before_a_bare_suffix() {
        let a = event_file_name(7, ".v2");
        assert!(a.starts_with("events.out.tfevents.0000000007."), "{a}");
        assert!(a.ends_with(".v2") && !a.ends_with("..v2"), "{a}");
        let b = event_file_name(7, "abc");
        assert!(b.ends_with(".abc"), "{b}");
        let c = event_file_name(7, "");
        assert!(c.ends_with('.'), "{c}");
    }

    #[test]
    fn a_file_in_the_way_is_failed_precondition() {
        let dir = std::env::temp_dir().join(format!("weir-evfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let blocker = dir.join("file");
        std::fs::write(&blocker, b"x").unwrap();
        let e = EventFile::create(&blocker.join("sub").to_string_lossy(), 10, 1000, "")
            .err()
            .unwrap();
        assert!(e.is_failed_precondition(), "{e}");
        assert_eq!(
            e.message(),
            format!("{} is not a directory", blocker.display())
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn events_queue_until_the_queue_outgrows_max_queue() {
        let dir = std::env::temp_dir().join(format!("weir-evqueue-{}", std::process::id()));
        let f = EventFile::create(&dir.to_string_lossy(), 1, 1_000_000, ".t").unwrap();
        let len = || std::fs::metadata(f.path()).unwrap().len();
        let first = len();
        let e = Event {
            step: 1,
            ..Event::default()
        };
        f.write_event(&e).unwrap();
        assert_eq!(len(), first, "one queued event is not flushed");
        f.write_event(&e).unwrap();
        assert!(len() > first, "the second event overflows max_queue 1");
        f.close().unwrap();
        std::fs::remove_dir_all(&dir).ok();
    }
}
