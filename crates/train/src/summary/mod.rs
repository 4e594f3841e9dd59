//! TensorBoard event files: `tf.summary.FileWriter`, writing `Event` protos as TFRecords.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;
use prost::Message;
use weir_graph::{Bytes, Error, Graph, Result, Tensor};
use weir_ops::io::{RecordWriter, TfRecordOptions};
use weir_ops::summary::proto::{
    event::What, Event, SessionLog, SourceMetadata, Summary, TaggedRunMetadata,
};
use weir_session::RunMetadata;

mod cache;

pub use cache::SummaryWriterCache;

/// `SessionLog.SessionStatus`: what a session-log event marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionStatus {
    /// Training (re)started: TensorBoard drops the later-stepped events of an earlier run.
    Start = 1,
    /// Training stopped.
    Stop = 2,
    /// A checkpoint was written.
    Checkpoint = 3,
}

/// `tf.compat.v1.train.summary_iterator(path)`: the `Event`s of an event file, in order, as
/// TensorBoard reads them. A damaged record is DataLoss naming the file and offset (from the
/// TFRecord reader); a record that is not an `Event` is DataLoss naming its index.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("weir-doc-iter-{}", std::process::id()));
/// let writer = weir_train::FileWriter::new(&dir)?;
/// writer.add_scalar("loss", 0.5, 1)?;
/// writer.close()?;
/// let events = weir_train::summary_iterator(writer.path())?.collect::<Result<Vec<_>, _>>()?;
/// assert_eq!((events.len(), events[1].step), (2, 1)); // the file version, then the scalar
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn summary_iterator(path: impl AsRef<Path>) -> Result<impl Iterator<Item = Result<Event>>> {
    let path = path.as_ref().to_path_buf();
    let records = weir_ops::io::tf_record_iterator(&path, TfRecordOptions::default())?;
    Ok(records.enumerate().map(move |(i, r)| {
        let bytes = r?;
        Event::decode(bytes).map_err(|e| {
            Error::data_loss(format!(
                "{}: record {i} is not an Event: {e}",
                path.display()
            ))
        })
    }))
}

/// `tf.summary.FileWriter(logdir)`: appends events to
/// `logdir/events.out.tfevents.<seconds>.<host>`, a TFRecord file TensorBoard reads. The first
/// event is the file version `brain.Event:2`.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("weir-doc-events-{}", std::process::id()));
/// let writer = weir_train::FileWriter::new(&dir)?;
/// writer.add_scalar("loss", 0.5, 1)?;
/// writer.close()?;
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct FileWriter {
    dir: PathBuf,
    path: Mutex<PathBuf>,
    writer: Mutex<Option<RecordWriter<std::fs::File>>>,
    /// The tags `add_run_metadata` has used, which TensorFlow refuses to reuse.
    run_tags: Mutex<std::collections::HashSet<String>>,
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Creates `dir` if needed and a new event file in it, with its first event (the file
/// version).
fn open_event_file(dir: &Path) -> Result<(PathBuf, RecordWriter<std::fs::File>)> {
    std::fs::create_dir_all(dir).map_err(|e| {
        Error::from(e).with_prefix(&format!("Cannot create log directory {}: ", dir.display()))
    })?;
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "localhost".to_string());
    let secs = now() as u64;
    let mut path = dir.join(format!("events.out.tfevents.{secs}.{host}"));
    let mut n = 1;
    while path.exists() {
        path = dir.join(format!("events.out.tfevents.{secs}.{host}.{n}"));
        n += 1;
    }
    let mut writer = RecordWriter::create(&path, TfRecordOptions::default())?;
    let first = Event {
        wall_time: now(),
        step: 0,
        what: Some(What::FileVersion("brain.Event:2".to_string())),
        // TensorFlow's EventsWriter names itself in the first event, as TensorBoard expects.
        source_metadata: Some(SourceMetadata {
            writer: "tensorflow.core.util.events_writer".to_string(),
        }),
    };
    writer.write(first.encode_to_vec())?;
    Ok((path, writer))
}

impl FileWriter {
    /// Creates `logdir` if needed and opens a new event file in it.
    pub fn new(logdir: impl AsRef<Path>) -> Result<FileWriter> {
        let dir = logdir.as_ref().to_path_buf();
        let (path, writer) = open_event_file(&dir)?;
        Ok(FileWriter {
            dir,
            path: Mutex::new(path),
            writer: Mutex::new(Some(writer)),
            run_tags: Mutex::new(Default::default()),
        })
    }

    /// `writer.reopen()`: after [`close`](Self::close), opens a new event file in the same
    /// directory for the events still to come (a `Supervisor` does this for every managed
    /// session); on an open writer it does nothing.
    pub fn reopen(&self) -> Result<()> {
        let mut w = self.writer.lock();
        if w.is_none() {
            let (path, writer) = open_event_file(&self.dir)?;
            *self.path.lock() = path;
            *w = Some(writer);
        }
        Ok(())
    }

    /// The path of the event file written now.
    pub fn path(&self) -> PathBuf {
        self.path.lock().clone()
    }

    /// Writes one event.
    pub fn add_event(&self, event: &Event) -> Result<()> {
        let bytes = event.encode_to_vec();
        match self.writer.lock().as_mut() {
            Some(w) => w.write(&bytes),
            None => Err(Error::failed_precondition("FileWriter is closed.")),
        }
    }

    /// `writer.add_graph(graph)` (also what `FileWriter(logdir, graph)` does): writes the graph,
    /// with its static shapes, for TensorBoard's Graphs tab.
    pub fn add_graph(&self, graph: &Graph) -> Result<()> {
        let def = graph.as_graph_def(true)?;
        self.add_event(&Event {
            wall_time: now(),
            step: 0,
            what: Some(What::GraphDef(Bytes::from(def.encode_to_vec()))),
            source_metadata: None,
        })
    }

    /// `writer.add_meta_graph(meta_graph_def)`: writes the meta graph (the graph with its
    /// collections and saver), which TensorBoard shows beside the graph.
    pub fn add_meta_graph(
        &self,
        meta_graph: &weir_graph::graph_def::meta_graph::MetaGraphDef,
    ) -> Result<()> {
        self.add_event(&Event {
            wall_time: now(),
            step: 0,
            what: Some(What::MetaGraphDef(Bytes::from(meta_graph.encode_to_vec()))),
            source_metadata: None,
        })
    }

    /// `writer.add_run_metadata(run_metadata, tag, global_step)`: a traced run's step stats,
    /// which TensorBoard's Graphs tab offers under `tag` to colour nodes by compute time. A tag
    /// used before is InvalidArgument, as TensorFlow's ValueError.
    pub fn add_run_metadata(&self, metadata: &RunMetadata, tag: &str, step: i64) -> Result<()> {
        if !self.run_tags.lock().insert(tag.to_string()) {
            return Err(Error::invalid_argument(
                "The provided tag was already used for this event type",
            ));
        }
        self.add_event(&Event {
            wall_time: now(),
            step,
            what: Some(What::TaggedRunMetadata(TaggedRunMetadata {
                tag: tag.to_string(),
                run_metadata: Bytes::from(metadata.encode_to_vec()),
            })),
            source_metadata: None,
        })
    }

    /// `writer.add_summary(summary, global_step)`: `summary` is the serialized `Summary` a
    /// summary op (or `merge_all`) produced, as a string tensor or bytes.
    pub fn add_summary(&self, summary: &Tensor, step: i64) -> Result<()> {
        let bytes: Bytes = summary.to_scalar::<Bytes>()?;
        let summary = Summary::decode(bytes)
            .map_err(|e| Error::invalid_argument(format!("Not a serialized Summary: {e}")))?;
        self.add_event(&Event {
            wall_time: now(),
            step,
            what: Some(What::Summary(summary)),
            source_metadata: None,
        })
    }

    /// Writes a scalar summary directly, without a graph.
    pub fn add_scalar(&self, tag: &str, value: f32, step: i64) -> Result<()> {
        use weir_ops::summary::proto::{summary_value::Value, SummaryValue};
        self.add_event(&Event {
            wall_time: now(),
            step,
            what: Some(What::Summary(Summary {
                value: vec![SummaryValue {
                    tag: tag.to_string(),
                    value: Some(Value::SimpleValue(value)),
                    ..SummaryValue::default()
                }],
            })),
            source_metadata: None,
        })
    }

    /// `add_session_log(SessionLog(status=...), step)`: records a session START, STOP or
    /// CHECKPOINT (with the checkpoint's path) at `step`.
    pub fn add_session_log(
        &self,
        status: SessionStatus,
        checkpoint_path: &str,
        step: i64,
    ) -> Result<()> {
        self.add_event(&Event {
            wall_time: now(),
            step,
            what: Some(What::SessionLog(SessionLog {
                status: status as i32,
                checkpoint_path: checkpoint_path.to_string(),
                msg: String::new(),
            })),
            source_metadata: None,
        })
    }

    /// Flushes buffered events to the file.
    pub fn flush(&self) -> Result<()> {
        match self.writer.lock().as_mut() {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }

    /// Flushes and closes the file; later writes are FailedPrecondition. Closing twice is fine.
    pub fn close(&self) -> Result<()> {
        match self.writer.lock().take() {
            Some(mut w) => w.close(),
            None => Ok(()),
        }
    }
}

impl Drop for FileWriter {
    fn drop(&mut self) {
        // Errors on drop cannot be reported; `close` reports them.
        let _ = self.close();
    }
}
