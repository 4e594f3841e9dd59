//! Reader ops: TensorFlow's `ReaderBase` and its subclasses, kept as session resources.
//!
//! A reader holds its current work unit (a filename taken from a queue) and an open record
//! source on it. `read` returns the next record, taking the next filename from the queue when
//! the current file is exhausted: it blocks while the queue is empty and open, and fails with the
//! queue's OutOfRange once it is closed and empty.

mod builders;
mod kernels;
mod sources;

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use parking_lot::{Mutex, MutexGuard};
use weir_graph::{
    deadline_exceeded, CancellationToken, DType, Error, QueueResource, Resource, Result,
};

pub use builders::{
    FixedLengthRecordReader, IdentityReader, Reader, TextLineReader, TfRecordReader,
    WholeFileReader,
};
pub(crate) use kernels::register;
use sources::RecordSource;

use super::options::Compression;

/// The kind of a reader and its options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ReaderKind {
    TextLine {
        skip_header_lines: usize,
    },
    FixedLength {
        header_bytes: usize,
        record_bytes: usize,
        footer_bytes: usize,
        hop_bytes: usize,
        compression: Compression,
    },
    TfRecord {
        compression: Compression,
    },
    WholeFile,
    Identity,
}

impl ReaderKind {
    /// TensorFlow's class name, as messages quote it.
    fn type_name(&self) -> &'static str {
        match self {
            ReaderKind::TextLine { .. } => "TextLineReader",
            ReaderKind::FixedLength { .. } => "FixedLengthRecordReader",
            ReaderKind::TfRecord { .. } => "TFRecordReader",
            ReaderKind::WholeFile => "WholeFileReader",
            ReaderKind::Identity => "IdentityReader",
        }
    }

    /// Whether `serialize_state`/`restore_state` are supported (as in TensorFlow, only for the
    /// readers whose position is the work unit alone).
    fn can_serialize(&self) -> bool {
        matches!(self, ReaderKind::WholeFile | ReaderKind::Identity)
    }
}

/// What the current work unit is and where in it the reader stands.
struct Current {
    work: Bytes,
    source: Box<dyn RecordSource>,
}

/// One reader's state in a session: TensorFlow's `ReaderBase` resource.
///
/// Reads are serialized by a lock held while the reader waits for work and reads its file (as
/// in TensorFlow); the counters are atomics, so `num_records_produced` never waits for I/O.
pub struct ReaderResource {
    name: String,
    kind: ReaderKind,
    current: Mutex<Option<Current>>,
    work_started: AtomicI64,
    work_finished: AtomicI64,
    produced: AtomicI64,
}

impl Resource for ReaderResource {
    fn type_name(&self) -> &str {
        self.kind.type_name()
    }
}

/// The fields of TensorFlow's `ReaderBaseState` proto (what `serialize_state` returns).
#[derive(Clone, PartialEq, prost::Message)]
struct ReaderBaseState {
    #[prost(int64, tag = "1")]
    work_started: i64,
    #[prost(int64, tag = "2")]
    work_finished: i64,
    #[prost(int64, tag = "3")]
    num_records_produced: i64,
    #[prost(bytes = "bytes", tag = "4")]
    current_work: Bytes,
}

impl ReaderResource {
    pub(crate) fn new(name: &str, kind: ReaderKind) -> ReaderResource {
        ReaderResource {
            name: name.to_string(),
            kind,
            current: Mutex::new(None),
            work_started: AtomicI64::new(0),
            work_finished: AtomicI64::new(0),
            produced: AtomicI64::new(0),
        }
    }

    /// The reader's resource name.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn kind(&self) -> &ReaderKind {
        &self.kind
    }

    /// Takes the read lock, giving up on cancellation or at the deadline (another run of this
    /// reader may hold it while it waits on an empty queue).
    fn lock_current(
        &self,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<MutexGuard<'_, Option<Current>>> {
        if let Some(g) = self.current.try_lock() {
            return Ok(g);
        }
        loop {
            if let Some(g) = self.current.try_lock_for(Duration::from_millis(20)) {
                return Ok(g);
            }
            if cancel.is_cancelled() {
                return Err(cancel
                    .error()
                    .unwrap_or_else(|| Error::cancelled("Cancelled")));
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(deadline_exceeded());
            }
        }
    }

    /// Dequeues the next work unit and opens it. A failure to open consumes the work unit
    /// without counting it as started, as TensorFlow does.
    fn start_next_work(
        &self,
        queue: &dyn QueueResource,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<Current> {
        let work = next_work(queue, cancel, deadline)?;
        let source = sources::open(&self.kind, &work)?;
        self.work_started.fetch_add(1, Ordering::Relaxed);
        Ok(Current { work, source })
    }

    fn finish_work(&self) {
        self.work_finished
            .store(self.work_started.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    /// `ReaderRead`: the next (key, value) record.
    pub fn read(
        &self,
        queue: &dyn QueueResource,
        want_key: bool,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<(Bytes, Bytes)> {
        let mut cur = self.lock_current(cancel, deadline)?;
        loop {
            if cur.is_none() {
                *cur = Some(self.start_next_work(queue, cancel, deadline)?);
            }
            let current = cur.as_mut().expect("work unit just started");
            match current.source.next(want_key)? {
                Some(rec) => {
                    self.produced.fetch_add(1, Ordering::Relaxed);
                    return Ok(rec);
                }
                None => {
                    self.finish_work();
                    *cur = None;
                }
            }
        }
    }

    /// `ReaderReadUpTo`: up to `n` records, never spanning two work units: the call returns
    /// at the end of a file once it has at least one record.
    pub fn read_up_to(
        &self,
        n: usize,
        queue: &dyn QueueResource,
        want_keys: bool,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<(Vec<Bytes>, Vec<Bytes>)> {
        // Without `want_keys` the keys stay empty: nothing reads them.
        let mut keys = Vec::with_capacity(if want_keys { n.min(4096) } else { 0 });
        let mut values = Vec::with_capacity(n.min(4096));
        if n == 0 {
            return Ok((keys, values));
        }
        let mut cur = self.lock_current(cancel, deadline)?;
        while values.len() < n {
            if cur.is_none() {
                *cur = Some(self.start_next_work(queue, cancel, deadline)?);
            }
            let current = cur.as_mut().expect("work unit just started");
            match current.source.next(want_keys)? {
                Some((k, v)) => {
                    self.produced.fetch_add(1, Ordering::Relaxed);
                    if want_keys {
                        keys.push(k);
                    }
                    values.push(v);
                }
                None => {
                    self.finish_work();
                    *cur = None;
                    if !values.is_empty() {
                        break;
                    }
                }
            }
        }
        Ok((keys, values))
    }

    /// The number of records produced since creation or the last reset.
    pub fn num_records_produced(&self) -> i64 {
        self.produced.load(Ordering::Relaxed)
    }

    /// The number of work units (files) finished since creation or the last reset.
    pub fn num_work_units_completed(&self) -> i64 {
        self.work_finished.load(Ordering::Relaxed)
    }

    /// `ReaderReset`: zeroes the counters and drops the current work unit (waiting for a read in
    /// progress to end first).
    pub fn reset(&self, cancel: &CancellationToken, deadline: Option<Instant>) -> Result<()> {
        let mut cur = self.lock_current(cancel, deadline)?;
        *cur = None;
        self.work_started.store(0, Ordering::Relaxed);
        self.work_finished.store(0, Ordering::Relaxed);
        self.produced.store(0, Ordering::Relaxed);
        Ok(())
    }

    /// `ReaderSerializeState`: a `ReaderBaseState` proto; Unimplemented "Reader SerializeState"
    /// for readers whose position inside a file it cannot express.
    pub fn serialize_state(
        &self,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<Bytes> {
        if !self.kind.can_serialize() {
            return Err(Error::unimplemented("Reader SerializeState"));
        }
        let cur = self.lock_current(cancel, deadline)?;
        let state = ReaderBaseState {
            work_started: self.work_started.load(Ordering::Relaxed),
            work_finished: self.work_finished.load(Ordering::Relaxed),
            num_records_produced: self.produced.load(Ordering::Relaxed),
            current_work: cur.as_ref().map(|c| c.work.clone()).unwrap_or_default(),
        };
        Ok(Bytes::from(prost::Message::encode_to_vec(&state)))
    }

    /// `ReaderRestoreState`: restores what [`serialize_state`](Self::serialize_state) saved; a
    /// state that does not parse or is inconsistent is InvalidArgument and resets the reader.
    pub fn restore_state(
        &self,
        state: &[u8],
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<()> {
        if !self.kind.can_serialize() {
            return Err(Error::unimplemented("Reader RestoreState"));
        }
        let mut cur = self.lock_current(cancel, deadline)?;
        let parsed: Result<ReaderBaseState> = <ReaderBaseState as prost::Message>::decode(state)
            .map_err(|_| {
                Error::invalid_argument(format!(
                    "Could not parse state for {} '{}': {}",
                    self.kind.type_name(),
                    self.name,
                    super::example::c_escape(state)
                ))
            })
            .and_then(|s| {
                let bad = s.work_started < 0
                    || s.work_finished < 0
                    || s.num_records_produced < 0
                    || s.work_finished > s.work_started
                    || (s.work_finished < s.work_started && s.current_work.is_empty())
                    || s.work_started - s.work_finished > 1;
                if bad {
                    Err(Error::invalid_argument(format!(
                        "Unexpected work_started/work_finished/num_records_produced in state for {} '{}'",
                        self.kind.type_name(),
                        self.name
                    )))
                } else {
                    Ok(s)
                }
            });
        let restored = parsed.and_then(|s| {
            let current = if s.work_finished < s.work_started {
                Some(Current {
                    source: sources::open(&self.kind, &s.current_work)?,
                    work: s.current_work.clone(),
                })
            } else {
                None
            };
            Ok((s, current))
        });
        match restored {
            Ok((s, current)) => {
                *cur = current;
                self.work_started.store(s.work_started, Ordering::Relaxed);
                self.work_finished.store(s.work_finished, Ordering::Relaxed);
                self.produced
                    .store(s.num_records_produced, Ordering::Relaxed);
                Ok(())
            }
            Err(e) => {
                *cur = None;
                self.work_started.store(0, Ordering::Relaxed);
                self.work_finished.store(0, Ordering::Relaxed);
                self.produced.store(0, Ordering::Relaxed);
                Err(e)
            }
        }
    }
}

/// Dequeues one work string, with TensorFlow's checks of the queue's element.
fn next_work(
    queue: &dyn QueueResource,
    cancel: &CancellationToken,
    deadline: Option<Instant>,
) -> Result<Bytes> {
    let tuple = queue.dequeue(cancel, deadline)?;
    if tuple.len() != 1 {
        return Err(Error::invalid_argument("Expected single component queue"));
    }
    let t = &tuple[0];
    if t.dtype() != DType::String {
        return Err(Error::invalid_argument(
            "Expected queue with single string component",
        ));
    }
    if t.num_elements() != 1 {
        return Err(Error::invalid_argument(
            "Expected to dequeue a one-element string tensor",
        ));
    }
    Ok(t.as_slice::<Bytes>()?[0].clone())
}
