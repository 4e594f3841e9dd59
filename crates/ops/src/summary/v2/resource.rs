//! The summary writer resource: TensorFlow's `SummaryWriterInterface` in the resource manager.
//!
//! TensorFlow's `SummaryWriter` op only makes a handle; `CreateSummaryFileWriter` creates the
//! resource behind it and `CloseSummaryWriter` deletes it. weir's handles carry their resource,
//! so the `SummaryWriter` op registers a slot under (container, shared_name) and those ops
//! fill and empty it, with TensorFlow's NotFound messages for an empty slot.

use std::sync::Arc;

use parking_lot::Mutex;
use weir_graph::{Error, Resource, Result};

use super::event_file::EventFile;

enum Slot {
    /// No `CreateSummaryFileWriter` has run yet.
    Never,
    Open(Arc<EventFile>),
    /// Closed by `CloseSummaryWriter`, which deletes TensorFlow's resource.
    Closed,
}

/// A summary writer resource (TensorFlow's `SummaryWriterInterface`): the event file that
/// `CreateSummaryFileWriter` opened, if any.
pub struct SummaryWriterResource {
    container: String,
    name: String,
    slot: Mutex<Slot>,
}

impl Resource for SummaryWriterResource {
    fn type_name(&self) -> &str {
        "SummaryWriter"
    }
}

impl SummaryWriterResource {
    pub(super) fn new(container: &str, name: &str) -> SummaryWriterResource {
        SummaryWriterResource {
            container: container.to_string(),
            name: name.to_string(),
            slot: Mutex::new(Slot::Never),
        }
    }

    /// The container as TensorFlow's messages name it: the default one is `localhost`.
    fn container_name(&self) -> &str {
        if self.container.is_empty() {
            "localhost"
        } else {
            &self.container
        }
    }

    /// The open event file; NotFound in TensorFlow's words when no writer was created or it
    /// was closed.
    pub(super) fn file(&self) -> Result<Arc<EventFile>> {
        match &*self.slot.lock() {
            Slot::Open(f) => Ok(f.clone()),
            Slot::Never => Err(Error::not_found(format!(
                "Container {c} does not exist. (Could not find resource: {c}/{n})",
                c = self.container_name(),
                n = self.name
            ))),
            Slot::Closed => Err(Error::not_found(format!(
                "Resource {}/{}/N10tensorflow22SummaryWriterInterfaceE does not exist.",
                self.container_name(),
                self.name
            ))),
        }
    }

    /// `LookupOrCreateResource`: opens the event file with `create` unless one is open (then
    /// the arguments are ignored, as in TensorFlow).
    pub(super) fn open_with(&self, create: impl FnOnce() -> Result<EventFile>) -> Result<()> {
        if matches!(&*self.slot.lock(), Slot::Open(_)) {
            return Ok(());
        }
        // The directory and file are made without the lock; a writer opened meanwhile by
        // another run wins and this one's file is closed again.
        let file = Arc::new(create()?);
        let mut slot = self.slot.lock();
        if !matches!(&*slot, Slot::Open(_)) {
            *slot = Slot::Open(file);
        }
        Ok(())
    }

    /// The path of the open event file, if the writer is open.
    pub fn event_file_path(&self) -> Option<std::path::PathBuf> {
        match &*self.slot.lock() {
            Slot::Open(f) => Some(f.path().to_path_buf()),
            _ => None,
        }
    }

    /// `DeleteResource`: closes the event file (flushing it); NotFound when there is none.
    pub(super) fn close(&self) -> Result<()> {
        let file = self.file()?;
        *self.slot.lock() = Slot::Closed;
        file.close()
    }
}
