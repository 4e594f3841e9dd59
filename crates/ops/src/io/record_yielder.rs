//! TensorFlow's `RecordYielder`, behind the `RecordInput` op: background threads read every
//! record of a set of TFRecord files once per epoch into a randomizing buffer, and the op takes
//! records out of it.
//!
//! Each epoch lists the files again, shuffles the list with an `mt19937_64` seeded by
//! `Hash64(epoch, seed)` (libstdc++'s `std::shuffle`), rotates it left by
//! `shift_ratio × files`, and deals it round-robin to `parallelism` shard threads. A shard
//! hands its records over 16 at a time, last read first, each into a random place of the
//! buffer; the op takes from the buffer's end once it is half full (or the epoch is draining).
//! The next epoch starts when the buffer is empty. With a buffer of one record and one thread
//! the order is TensorFlow's exactly; otherwise it depends on thread timing, as TensorFlow's
//! does.
//!
//! Two deliberate differences: a consumer waiting for records is woken when an error or the end
//! of an epoch arrives (TensorFlow's may sleep on), and its wait ends on cancellation; with no
//! threads (`parallelism` 0) the yielder idles instead of spinning through empty epochs.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use bytes::Bytes;
use parking_lot::MutexGuard;
use weir_graph::{CancellationToken, Error, Monitor, Result};

use crate::io::options::Compression;
use crate::io::tfrecord::RecordReader;
use crate::libstdcxx_random::{shuffle, Mt19937_64};
use crate::string::hash64_with_seed;

/// Records a shard collects before it hands them to the buffer (TensorFlow's `kRecords`).
const HAND_OVER: usize = 16;

/// What the yielder reads and how (TensorFlow's `RecordYielder::Options`).
#[derive(Clone, Debug)]
pub(crate) struct YielderOptions {
    /// Glob patterns, comma-separated.
    pub file_pattern: String,
    pub seed: i64,
    pub shift_ratio: f32,
    pub bufsize: u64,
    pub parallelism: usize,
    pub compression: Compression,
}

/// Lists the files of one pattern, in the order an epoch starts from.
pub(crate) type Lister = Box<dyn Fn(&str) -> Result<Vec<String>> + Send + Sync>;

struct State {
    stop: bool,
    status: Option<Error>,
    rnd: Mt19937_64,
    buf: Vec<Bytes>,
    epoch_end: bool,
}

struct Shared {
    opts: YielderOptions,
    lister: Lister,
    monitor: Arc<Monitor<State>>,
    /// Cancelled when the yielder is dropped: ends the background threads' waits.
    stop_token: CancellationToken,
}

/// The running yielder; dropping it stops and joins its threads.
pub(crate) struct RecordYielder {
    shared: Arc<Shared>,
    main: Option<JoinHandle<()>>,
}

impl RecordYielder {
    /// Starts reading at once, as TensorFlow's starts in the kernel's constructor.
    pub(crate) fn start(opts: YielderOptions, lister: Lister) -> Result<RecordYielder> {
        let state = State {
            stop: false,
            status: None,
            rnd: Mt19937_64::new(opts.seed as u64),
            buf: Vec::new(),
            epoch_end: false,
        };
        let shared = Arc::new(Shared {
            opts,
            lister,
            monitor: Monitor::new(state),
            stop_token: CancellationToken::new(),
        });
        let s = Arc::clone(&shared);
        let main = std::thread::Builder::new()
            .name("record_yielder".into())
            .spawn(move || s.main_loop())
            .map_err(|e| Error::internal(format!("Cannot start RecordInput's thread: {e}")))?;
        Ok(RecordYielder {
            shared,
            main: Some(main),
        })
    }

    /// Takes `n` records, waiting for each while the buffer is short. The first error of the
    /// background threads is returned to every call from then on, as TensorFlow's status is.
    pub(crate) fn yield_batch(
        &self,
        n: usize,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<Vec<Bytes>> {
        let sh = &self.shared;
        let mut out = Vec::with_capacity(n);
        let mut st = sh.monitor.lock();
        for _ in 0..n {
            sh.monitor
                .wait_while(&mut st, cancel, deadline, |s| !sh.buf_enough(s))?;
            if let Some(e) = &st.status {
                return Err(e.clone());
            }
            let was_full = st.buf.len() as u64 >= sh.opts.bufsize;
            let Some(r) = st.buf.pop() else {
                return Err(Error::cancelled("RecordInput was stopped"));
            };
            out.push(r);
            if st.buf.is_empty() || was_full {
                sh.monitor.notify_all();
            }
        }
        Ok(out)
    }
}

impl Drop for RecordYielder {
    fn drop(&mut self) {
        self.shared.monitor.lock().stop = true;
        self.shared
            .stop_token
            .cancel(Error::cancelled("RecordInput was stopped"));
        self.shared.monitor.notify_all();
        if let Some(h) = self.main.take() {
            // A panic of the background thread has nothing left to report to.
            let _ = h.join();
        }
    }
}

impl Shared {
    fn buf_enough(&self, s: &State) -> bool {
        s.stop
            || s.status.is_some()
            || (s.epoch_end && !s.buf.is_empty())
            || (!s.epoch_end && s.buf.len() as u64 >= (self.opts.bufsize / 2).max(1))
    }

    /// Records the first error; true once the yielder should stop.
    fn should_finish(&self, e: Option<Error>) -> bool {
        let mut st = self.monitor.lock();
        if st.status.is_none() && e.is_some() {
            st.status = e;
            self.monitor.notify_all();
        }
        st.stop || st.status.is_some()
    }

    fn list_files(&self) -> Result<Vec<String>> {
        let mut files = Vec::new();
        for pattern in self.opts.file_pattern.split(',') {
            files.extend((self.lister)(pattern)?);
        }
        Ok(files)
    }

    fn main_loop(self: Arc<Self>) {
        let mut epoch: i64 = 0;
        loop {
            epoch += 1;
            let mut files = match self.list_files() {
                Ok(f) => f,
                Err(e) => {
                    self.should_finish(Some(e));
                    break;
                }
            };
            if files.is_empty() {
                self.should_finish(Some(Error::not_found(format!(
                    "Found no files at {}",
                    self.opts.file_pattern
                ))));
                break;
            }
            let mut g = Mt19937_64::new(hash64_with_seed(
                &epoch.to_le_bytes(),
                self.opts.seed as u64,
            ));
            shuffle(&mut files, &mut g);
            let ratio = self.opts.shift_ratio;
            if (0.0..1.0).contains(&ratio) {
                // C++ multiplies in float and truncates.
                let shift = ((ratio * files.len() as f32) as usize).min(files.len());
                files.rotate_left(shift);
            }
            let n = self.opts.parallelism;
            if n == 0 {
                self.idle();
                break;
            }
            let statuses: Vec<Option<Error>> = std::thread::scope(|sc| {
                let shards: Vec<_> = (0..n)
                    .map(|i| {
                        let mine: Vec<String> = files.iter().skip(i).step_by(n).cloned().collect();
                        let me = &self;
                        sc.spawn(move || me.shard_loop(mine))
                    })
                    .collect();
                shards
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Some(Error::internal("A RecordInput reader thread panicked"))
                        })
                    })
                    .collect()
            });
            if self.should_finish(statuses.into_iter().flatten().next()) {
                break;
            }
            // The next epoch starts once every record of this one was taken.
            let mut st = self.monitor.lock();
            st.epoch_end = true;
            self.monitor.notify_all();
            let drained = self
                .monitor
                .wait_while(&mut st, &self.stop_token, None, |s| {
                    !s.stop && !s.buf.is_empty()
                });
            st.epoch_end = false;
            if drained.is_err() || st.stop {
                break;
            }
        }
    }

    /// Waits until the yielder is dropped.
    fn idle(&self) {
        let mut st = self.monitor.lock();
        // Only the stop token ends this wait, and then there is nothing left to do.
        let _ = self
            .monitor
            .wait_while(&mut st, &self.stop_token, None, |s| !s.stop);
    }

    /// Reads `files` in order, handing records to the buffer; the shard's status (TensorFlow
    /// keeps the last error and goes on with the next file after a damaged one, but stops at a
    /// file it cannot open).
    fn shard_loop(&self, files: Vec<String>) -> Option<Error> {
        let mut values: Vec<Bytes> = Vec::new();
        let mut status = None;
        for f in &files {
            if self.should_finish(None) {
                break;
            }
            let mut reader = match RecordReader::open(f, self.opts.compression) {
                Ok(r) => r,
                Err(e) => {
                    status = Some(Error::invalid_argument(format!("Can't open {f}: {e}")));
                    break;
                }
            };
            loop {
                match reader.read_record() {
                    Ok(Some(r)) => {
                        values.push(r);
                        if values.len() >= HAND_OVER && self.add(&mut values) {
                            status = Some(Error::aborted("stopped"));
                            break;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        status = Some(e);
                        break;
                    }
                }
            }
        }
        while !values.is_empty() {
            if self.add(&mut values) {
                break;
            }
        }
        status
    }

    /// Moves records from the back of `values` into random places of the buffer while it has
    /// room, after waiting for room; true if the yielder is stopping.
    fn add(&self, values: &mut Vec<Bytes>) -> bool {
        let mut st = self.monitor.lock();
        let cap = self.opts.bufsize;
        let waited = self
            .monitor
            .wait_while(&mut st, &self.stop_token, None, |s| {
                !s.stop && s.buf.len() as u64 >= cap
            });
        if waited.is_err() || st.stop {
            return true;
        }
        fill(&mut st, values, cap);
        if self.buf_enough(&st) {
            self.monitor.notify_all();
        }
        false
    }
}

/// TensorFlow's placement: each record swaps into a uniformly chosen slot of the buffer.
fn fill(st: &mut MutexGuard<'_, State>, values: &mut Vec<Bytes>, cap: u64) {
    while (st.buf.len() as u64) < cap {
        let Some(v) = values.pop() else { break };
        let len = st.buf.len();
        let index = (st.rnd.next_u64() % (len as u64 + 1)) as usize;
        st.buf.push(v);
        st.buf.swap(index, len);
    }
}

#[cfg(test)]
mod tests;
