//! Reusable row slots for queues whose component shapes are fully defined: every element is
//! copied into a slot of one chunked buffer per component, and a dequeue copies its rows out
//! into one new tensor per component.
//!
//! Why not keep the enqueued tensors: a RandomShuffleQueue's elements leave in random order, so
//! an enqueue_many batch kept as views would stay alive until its last row left (about an epoch
//! of data), and per-row tensors cost an allocation per row that the dequeuing thread then frees
//! on the enqueuing thread's heap. Slots are reused as soon as they are given back and never
//! allocate once the queue has reached its working size.
//!
//! A dequeue only reserves its slots under the queue's lock; the dequeuing thread copies the
//! rows out after releasing it ([`SlotBatch::gather`]), so enqueuers never wait behind the copy.
//! Each chunk has its own lock for that reason. A batch may also copy rows straight out of
//! enqueued tensors ([`RowRef::View`]): a RandomShuffleQueue keeps enqueue_many batches as they
//! came while they are mostly alive.

use std::sync::Arc;

use parking_lot::Mutex;
use weir_graph::{format_dims, match_data_dtype, DType, Error, Result, Tensor, TensorType};

/// An enqueued batch that rows are read from in place, one tensor per component: shared, so a
/// dequeue holding some of its rows costs one reference count, not a vector of tensors.
pub(crate) type BatchParts = Arc<[Tensor]>;

/// A row for a [`SlotBatch`] to copy out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RowRef {
    /// The row in this slot.
    Slot(u32),
    /// Row `row` of the batch's view tensors `part` (one tensor per component).
    View { part: u32, row: u32 },
}

/// One component's rows, stored `width` elements per slot in chunks of `chunk` slots.
trait Column: Send + Sync {
    /// Adds one chunk of slots.
    fn add_chunk(&mut self);
    /// Copies row `row` of `src` (a tensor whose rows have `width` elements) into `slot`.
    fn write(&self, slot: usize, src: &Tensor, row: usize) -> Result<()>;
    /// A new tensor of `shape` holding `rows` in order (one allocation); a view row is read
    /// from component `comp` of its part in `views`.
    fn gather(
        &self,
        rows: &[RowRef],
        views: &[BatchParts],
        comp: usize,
        shape: &[usize],
    ) -> Result<Tensor>;
    /// A handle on the same chunks, to gather from after the queue's lock is released.
    fn share(&self) -> Box<dyn Column>;
}

/// Chunks, not one growing vector: growing never moves stored rows (a gather may be reading
/// them). A chunk starts empty with room for all its slots and grows as its slots are first
/// written, lowest first (the order [`RowSlots`] hands fresh slots out): a queue's first fill
/// then writes each row once, instead of zeroing the chunk and overwriting it.
struct Typed<T> {
    width: usize,
    chunk: usize,
    chunks: Arc<Vec<Arc<Mutex<Vec<T>>>>>,
}

impl<T: TensorType> Column for Typed<T> {
    fn add_chunk(&mut self) {
        let mut chunks: Vec<_> = self.chunks.iter().cloned().collect();
        chunks.push(Arc::new(Mutex::new(Vec::with_capacity(
            self.chunk * self.width,
        ))));
        self.chunks = Arc::new(chunks);
    }

    fn write(&self, slot: usize, src: &Tensor, row: usize) -> Result<()> {
        let w = self.width;
        let from = src
            .as_slice::<T>()?
            .get(row * w..(row + 1) * w)
            .ok_or_else(|| {
                Error::internal(format!(
                    "Row {row} of a tensor of shape {} does not hold {w} elements",
                    format_dims(src.shape())
                ))
            })?;
        let (c, at) = (slot / self.chunk, slot % self.chunk * w);
        let mut rows = self.chunks[c].lock();
        if at + w <= rows.len() {
            rows[at..at + w].clone_from_slice(from);
        } else {
            // A slot's first write; a slot skipped over (never the case) stays zero.
            // (Rows are whole, so the chunk ends at or before `at`.)
            rows.resize(at, T::zero());
            rows.extend_from_slice(from);
        }
        Ok(())
    }

    fn gather(
        &self,
        rows: &[RowRef],
        views: &[BatchParts],
        comp: usize,
        shape: &[usize],
    ) -> Result<Tensor> {
        let w = self.width;
        let mut out: Vec<T> = Vec::with_capacity(rows.len() * w);
        let mut i = 0;
        while i < rows.len() {
            match rows[i] {
                RowRef::Slot(first) => {
                    // One lock per run of slots in the same chunk (a FIFO's batch is one or two
                    // runs): each lock taken here moves the mutex's cache line away from the
                    // thread writing the rows.
                    let c = first as usize / self.chunk;
                    let chunk = self.chunks[c].lock();
                    while let Some(&RowRef::Slot(s)) = rows.get(i) {
                        if s as usize / self.chunk != c {
                            break;
                        }
                        let at = s as usize % self.chunk * w;
                        let row = chunk.get(at..at + w).ok_or_else(|| {
                            Error::internal("A queue row refers to a slot never written")
                        })?;
                        out.extend_from_slice(row);
                        i += 1;
                    }
                }
                RowRef::View { part, row } => {
                    let src = views
                        .get(part as usize)
                        .and_then(|p| p.get(comp))
                        .ok_or_else(|| Error::internal("A queue row refers to a missing batch"))?;
                    let (at, row) = (row as usize * w, row as usize);
                    let from = src.as_slice::<T>()?.get(at..at + w).ok_or_else(|| {
                        Error::internal(format!(
                            "Row {row} of a tensor of shape {} does not hold {w} elements",
                            format_dims(src.shape())
                        ))
                    })?;
                    out.extend_from_slice(from);
                    i += 1;
                }
            }
        }
        Tensor::from_vec(shape, out)
    }

    fn share(&self) -> Box<dyn Column> {
        Box::new(Typed {
            width: self.width,
            chunk: self.chunk,
            chunks: self.chunks.clone(),
        })
    }
}

/// About this many bytes of the widest component per chunk.
const CHUNK_BYTES: usize = 256 << 10;

/// Fixed-shape rows in reusable slots, one column per queue component. Lives under the
/// queue's lock.
pub(crate) struct RowSlots {
    columns: Vec<Box<dyn Column>>,
    /// The element shape of each component.
    shapes: Arc<Vec<Vec<usize>>>,
    free: Vec<u32>,
    /// Slots that finished batches gave back from outside the queue's lock.
    returned: Arc<Mutex<Vec<u32>>>,
    allocated: usize,
    /// Slots per chunk: at most the queue's capacity, so a small queue stays small.
    chunk: usize,
}

impl RowSlots {
    /// Slots for elements of `dtypes` and fully defined `shapes`; None when a dtype cannot be
    /// stored by value (resource handles).
    pub(crate) fn new(dtypes: &[DType], shapes: &[Vec<usize>], capacity: usize) -> Option<Self> {
        let widest = dtypes
            .iter()
            .zip(shapes)
            .map(|(d, s)| d.size_of().unwrap_or(8) * s.iter().product::<usize>())
            .max()
            .unwrap_or(0);
        let chunk = (CHUNK_BYTES / widest.max(1))
            .clamp(16, 4096)
            .min(capacity.max(1));
        let columns = dtypes
            .iter()
            .zip(shapes)
            .map(|(&d, s)| {
                let width = s.iter().product();
                match_data_dtype!(d, T => Some(Box::new(Typed::<T> {
                    width,
                    chunk,
                    chunks: Arc::new(Vec::new()),
                }) as Box<dyn Column>),
                _ => None)
            })
            .collect::<Option<Vec<_>>>()?;
        Some(RowSlots {
            columns,
            shapes: Arc::new(shapes.to_vec()),
            free: Vec::new(),
            returned: Arc::new(Mutex::new(Vec::new())),
            allocated: 0,
            chunk,
        })
    }

    /// A free slot, adding a chunk when none is left.
    fn alloc(&mut self) -> Result<u32> {
        if let Some(s) = self.free.pop() {
            return Ok(s);
        }
        std::mem::swap(&mut self.free, &mut self.returned.lock());
        if let Some(s) = self.free.pop() {
            return Ok(s);
        }
        let grown = self.allocated + self.chunk;
        if grown > u32::MAX as usize {
            return Err(Error::resource_exhausted(
                "A queue cannot hold 2^32 elements",
            ));
        }
        for c in &mut self.columns {
            c.add_chunk();
        }
        // Lowest slots are handed out first.
        self.free
            .extend((self.allocated as u32 + 1..grown as u32).rev());
        let s = self.allocated as u32;
        self.allocated = grown;
        Ok(s)
    }

    /// Copies row `row` of every component of `tuple` into a new slot and returns it.
    pub(crate) fn insert(&mut self, tuple: &[Tensor], row: usize) -> Result<u32> {
        let slot = self.alloc()?;
        for (c, t) in self.columns.iter().zip(tuple) {
            if let Err(e) = c.write(slot as usize, t, row) {
                self.free.push(slot);
                return Err(e);
            }
        }
        Ok(slot)
    }

    /// A batch that reserves `slots` until it is gathered (or dropped).
    pub(crate) fn batch(&self, slots: impl IntoIterator<Item = u32>) -> SlotBatch {
        SlotBatch {
            columns: self.columns.iter().map(|c| c.share()).collect(),
            chunks: self.allocated / self.chunk,
            shapes: self.shapes.clone(),
            returned: self.returned.clone(),
            rows: slots.into_iter().map(RowRef::Slot).collect(),
            views: Vec::new(),
        }
    }

    /// Adds taken `rows` to a batch of this queue's; their view parts index `views`, which
    /// are appended to the batch's own. Its chunk handles are renewed only when chunks were
    /// added since they were taken, so a dequeue that takes rows one at a time as they arrive
    /// costs no allocation per row.
    pub(crate) fn extend_batch_rows(
        &self,
        b: &mut SlotBatch,
        rows: impl IntoIterator<Item = RowRef>,
        views: Vec<BatchParts>,
    ) {
        let chunks = self.allocated / self.chunk;
        if b.chunks != chunks {
            b.columns = self.columns.iter().map(|c| c.share()).collect();
            b.chunks = chunks;
        }
        let offset = b.views.len() as u32;
        b.views.extend(views);
        b.rows.extend(rows.into_iter().map(|r| match r {
            RowRef::View { part, row } => RowRef::View {
                part: part + offset,
                row,
            },
            slot => slot,
        }));
    }

    /// The element in `slot`, each component of its element shape; the slot is freed.
    pub(crate) fn take_one(&mut self, slot: u32) -> Result<Vec<Tensor>> {
        let out = self.copy_element(&[RowRef::Slot(slot)], &[]);
        self.free.push(slot);
        out
    }

    /// Row `row` of `parts` (one batch tensor per component) as an element with its own
    /// buffers.
    pub(crate) fn copy_row(&self, parts: &[Tensor], row: usize) -> Result<Vec<Tensor>> {
        let r = RowRef::View {
            part: 0,
            row: row as u32,
        };
        self.copy_element(&[r], &[BatchParts::from(parts)])
    }

    fn copy_element(&self, r: &[RowRef], views: &[BatchParts]) -> Result<Vec<Tensor>> {
        self.columns
            .iter()
            .zip(self.shapes.iter())
            .enumerate()
            .map(|(comp, (c, s))| c.gather(r, views, comp, s))
            .collect()
    }
}

/// Rows a dequeue has taken from the queue and not yet copied out. Dropping it without
/// [`gather`](Self::gather) gives the slots back (their rows are lost, as a cancelled
/// dequeue_many loses its rows in TensorFlow).
pub(crate) struct SlotBatch {
    columns: Vec<Box<dyn Column>>,
    /// How many chunks `columns` see.
    chunks: usize,
    shapes: Arc<Vec<Vec<usize>>>,
    returned: Arc<Mutex<Vec<u32>>>,
    rows: Vec<RowRef>,
    /// The enqueued batches that `RowRef::View` rows point into, one tensor per component.
    views: Vec<BatchParts>,
}

impl SlotBatch {
    /// Releases the rows without giving the slots back, for the queue to store them again (a
    /// dequeue_many cut short by close returns its rows), with the batches views point into.
    pub(crate) fn into_rows(mut self) -> (Vec<RowRef>, Vec<BatchParts>) {
        (
            std::mem::take(&mut self.rows),
            std::mem::take(&mut self.views),
        )
    }

    /// Copies the rows out, one tensor per component of shape `[len, ...element shape]`, and
    /// gives the slots back.
    pub(crate) fn gather(mut self) -> Result<Vec<Tensor>> {
        let n = self.rows.len();
        let out = self
            .columns
            .iter()
            .zip(self.shapes.iter())
            .enumerate()
            .map(|(comp, (c, s))| {
                let mut shape = Vec::with_capacity(s.len() + 1);
                shape.push(n);
                shape.extend_from_slice(s);
                c.gather(&self.rows, &self.views, comp, &shape)
            })
            .collect();
        self.give_back();
        out
    }

    fn give_back(&mut self) {
        let mut returned = None;
        for r in self.rows.drain(..) {
            if let RowRef::Slot(s) = r {
                returned.get_or_insert_with(|| self.returned.lock()).push(s);
            }
        }
    }
}

impl Drop for SlotBatch {
    fn drop(&mut self) {
        self.give_back();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_slots_are_reused() {
        let dtypes = [DType::F32, DType::String];
        let shapes = vec![vec![2], vec![]];
        let mut s = RowSlots::new(&dtypes, &shapes, 100).unwrap();
        let a = Tensor::from_vec(&[3, 2], vec![0f32, 1., 10., 11., 20., 21.]).unwrap();
        let b = Tensor::from_strings(&["x", "y", "z"]);
        let slots: Vec<u32> = (0..3)
            .map(|r| s.insert(&[a.clone(), b.clone()], r).unwrap())
            .collect();
        assert_eq!(slots, vec![0, 1, 2]);
        let out = s.batch([2, 0]).gather().unwrap();
        assert_eq!(out[0].shape(), &[2, 2]);
        assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![20., 21., 0., 1.]);
        assert_eq!(out[1].to_strings().unwrap(), vec!["z", "x"]);
        // Given-back slots are used before the columns grow again.
        let before = s.allocated;
        for _ in 0..(before - 1) {
            s.insert(&[a.clone(), b.clone()], 1).unwrap();
        }
        assert_eq!(s.allocated, before);
        let one = s.take_one(1).unwrap();
        assert_eq!(one[0].shape(), &[2]);
        assert_eq!(one[0].to_vec::<f32>().unwrap(), vec![10., 11.]);
        assert_eq!(one[1].shape(), &[] as &[usize]);
    }

    #[test]
    fn rows_span_chunks_and_a_gather_survives_growth() {
        // Capacity 20 gives chunks of 20 slots; 50 rows take three.
        let mut s = RowSlots::new(&[DType::I64], &[vec![]], 20).unwrap();
        assert_eq!(s.chunk, 20);
        for i in 0..30 {
            s.insert(&[Tensor::from(vec![i as i64])], 0).unwrap();
        }
        let early = s.batch((0..30).rev());
        for i in 30..50 {
            s.insert(&[Tensor::from(vec![i as i64])], 0).unwrap();
        }
        assert_eq!(s.allocated, 60);
        assert_eq!(
            early.gather().unwrap()[0].to_vec::<i64>().unwrap(),
            (0..30).rev().collect::<Vec<i64>>()
        );
        let rest = s.batch(30..50).gather().unwrap();
        assert_eq!(
            rest[0].to_vec::<i64>().unwrap(),
            (30..50).collect::<Vec<i64>>()
        );
        // Runs within one chunk, interleaved with other chunks, keep the order asked for.
        let mixed = [0, 25, 26, 1, 45, 44, 2, 3, 21];
        let got = s.batch(mixed.to_vec()).gather().unwrap();
        assert_eq!(
            got[0].to_vec::<i64>().unwrap(),
            mixed.iter().map(|&i| i as i64).collect::<Vec<i64>>()
        );
    }

    #[test]
    fn an_extended_batch_sees_chunks_added_after_it_started() {
        let mut s = RowSlots::new(&[DType::I64], &[vec![]], 16).unwrap();
        let first: Vec<u32> = (0..16)
            .map(|i| s.insert(&[Tensor::from(vec![i as i64])], 0).unwrap())
            .collect();
        let mut b = s.batch(first);
        let second: Vec<u32> = (16..20)
            .map(|i| s.insert(&[Tensor::from(vec![i as i64])], 0).unwrap())
            .collect();
        s.extend_batch_rows(&mut b, second.into_iter().map(RowRef::Slot), Vec::new());
        assert_eq!(
            b.gather().unwrap()[0].to_vec::<i64>().unwrap(),
            (0..20).collect::<Vec<i64>>()
        );
    }

    #[test]
    fn a_dropped_batch_gives_its_slots_back_and_a_kept_one_does_not() {
        let mut s = RowSlots::new(&[DType::I32], &[vec![]], 16).unwrap();
        let ids: Vec<u32> = (0..16)
            .map(|i| s.insert(&[Tensor::from(vec![i])], 0).unwrap())
            .collect();
        let mut b = s.batch(ids[..4].to_vec());
        s.extend_batch_rows(
            &mut b,
            ids[4..6].iter().copied().map(RowRef::Slot),
            Vec::new(),
        );
        assert_eq!(b.rows.len(), 6);
        drop(b);
        assert_eq!(s.returned.lock().len(), 6);
        let (kept, views) = s.batch(ids[6..8].to_vec()).into_rows();
        assert_eq!(kept, vec![RowRef::Slot(6), RowRef::Slot(7)]);
        assert!(views.is_empty());
        assert_eq!(s.returned.lock().len(), 6);
    }

    #[test]
    fn a_chunk_grows_as_its_slots_are_first_written_in_any_order() {
        let mut c = Typed::<i32> {
            width: 2,
            chunk: 4,
            chunks: Arc::new(Vec::new()),
        };
        c.add_chunk();
        let rows = Tensor::from_vec(&[2, 2], vec![1, 2, 3, 4]).unwrap();
        c.write(2, &rows, 1).unwrap();
        assert!(c.gather(&[RowRef::Slot(3)], &[], 0, &[1, 2]).is_err());
        c.write(0, &rows, 0).unwrap();
        c.write(3, &rows, 0).unwrap();
        c.write(2, &rows, 0).unwrap();
        let refs: Vec<RowRef> = [3, 1, 2, 0].map(RowRef::Slot).to_vec();
        let got = c.gather(&refs, &[], 0, &[4, 2]).unwrap();
        assert_eq!(got.to_vec::<i32>().unwrap(), vec![1, 2, 0, 0, 1, 2, 1, 2]);
    }

    #[test]
    fn a_short_row_is_an_error_and_frees_its_slot() {
        let mut s = RowSlots::new(&[DType::I32], &[vec![3]], 8).unwrap();
        let short = Tensor::from(vec![1i32, 2]);
        assert!(s.insert(&[short], 0).is_err());
        assert_eq!(s.free.len(), s.chunk);
        assert!(RowSlots::new(&[DType::Resource], &[vec![]], 8).is_none());
    }
}
