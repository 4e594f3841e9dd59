//! The session state behind TensorFlow's map staging ops (`MapStage`, `MapPeek`, `MapUnstage`,
//! `MapUnstageNoKey`, ... and their `OrderedMap*` twins): TensorFlow's `StagingMap`, a map from
//! int64 keys to tuples of tensors, with a side map of incomplete tuples that partial puts fill.
//!
//! Its quirks are TensorFlow 2.21's, so graphs behave as they do there: a put whose key is
//! already staged is dropped silently, completing an incomplete tuple ignores the capacity, a
//! failed partial put or get keeps what it did before the failing index, and a put is charged
//! the bytes of its last value only (TensorFlow sums an optional tuple wrongly), while peeks and
//! gets give back the bytes of every value they return.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Instant;

use weir_graph::{CancellationToken, Error, Monitor, Result, Tensor};

use super::staging_kernels::total_bytes;

/// How long a blocked put or get may wait: until the run is cancelled or its deadline passes.
pub(super) struct Wait<'a> {
    /// The run's cancellation (session close, a failed step).
    pub cancel: &'a CancellationToken,
    /// The run's deadline, if it has a timeout.
    pub deadline: Option<Instant>,
}

/// A staged key: its value, and the tensor a no-key get outputs for it (TensorFlow keeps the
/// tensor that was put, which may be any one-element shape).
#[derive(Clone)]
pub(super) struct Key {
    pub value: i64,
    pub tensor: Tensor,
}

/// A complete tuple; its values are taken out one by one by partial gets.
struct Entry {
    key: Tensor,
    arrival: u64,
    values: Vec<Option<Tensor>>,
}

#[derive(Default)]
struct State {
    complete: BTreeMap<i64, Entry>,
    /// Arrival number -> key of the complete tuples: an unordered map's no-key get takes the
    /// oldest (TensorFlow's takes whatever its hash map holds first).
    arrivals: BTreeMap<u64, i64>,
    next_arrival: u64,
    incomplete: HashMap<i64, Vec<Option<Tensor>>>,
    current_bytes: usize,
}

/// One staging map of a session: TensorFlow's `StagingMap<Ordered>`.
pub(super) struct StagingMap {
    ordered: bool,
    /// How many components a tuple has: the length of the `dtypes` attr of the op that made it.
    components: usize,
    capacity: usize,
    memory_limit: usize,
    state: Arc<Monitor<State>>,
}

/// What `values` weigh against the memory limit, counted as `StagingArea`'s buffer counts them.
fn bytes_of(values: &[Tensor]) -> usize {
    values.iter().map(total_bytes).sum()
}

/// A tuple index as TensorFlow reads it: an int32 widened into a `size_t`, so -1 is 2^64 - 1.
fn as_size_t(index: i32) -> u64 {
    index as i64 as u64
}

/// TensorFlow's checks of a put's or get's indices: some, strictly increasing.
pub(super) fn check_ordering(indices: &[i32]) -> Result<()> {
    if indices.is_empty() {
        return Err(Error::invalid_argument("Indices are empty"));
    }
    if indices.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::invalid_argument("Indices are not strictly ordered"));
    }
    Ok(())
}

fn removed(index: usize, key: i64) -> Error {
    Error::invalid_argument(format!(
        "Tensor at index '{index}' for key '{key}' has already been removed."
    ))
}

impl State {
    /// Stages a complete tuple; a key already staged keeps its tuple, as `std::map::insert`.
    fn insert_complete(&mut self, key: &Key, values: Vec<Option<Tensor>>) {
        if self.complete.contains_key(&key.value) {
            return;
        }
        let arrival = self.next_arrival;
        self.next_arrival += 1;
        self.arrivals.insert(arrival, key.value);
        self.complete.insert(
            key.value,
            Entry {
                key: key.tensor.clone(),
                arrival,
                values,
            },
        );
    }

    fn remove_complete(&mut self, key: i64) {
        if let Some(e) = self.complete.remove(&key) {
            self.arrivals.remove(&e.arrival);
        }
    }
}

impl StagingMap {
    /// An empty map; `capacity` and `memory_limit` of 0 are unbounded.
    pub fn new(ordered: bool, components: usize, capacity: usize, memory_limit: usize) -> Self {
        StagingMap {
            ordered,
            components,
            capacity,
            memory_limit,
            state: Monitor::new(State::default()),
        }
    }

    fn check_index(&self, key: i64, index: i32) -> Result<usize> {
        let at = as_size_t(index);
        if at >= self.components as u64 {
            return Err(Error::invalid_argument(format!(
                "Index '{at}' for key '{key}' was out of bounds '{}'.",
                self.components
            )));
        }
        Ok(at as usize)
    }

    fn exceeds_memory(&self, st: &State, bytes: usize) -> bool {
        self.memory_limit > 0 && bytes.saturating_add(st.current_bytes) > self.memory_limit
    }

    fn is_full(&self, st: &State) -> bool {
        self.capacity > 0 && st.complete.len() >= self.capacity
    }

    fn check_memory_limit(&self, bytes: usize) -> Result<()> {
        if self.memory_limit > 0 && bytes > self.memory_limit {
            return Err(Error::resource_exhausted(format!(
                "Attempted to insert tensors with combined size of '{bytes}' bytes into Staging \
                 Area with a memory limit of '{}'.",
                self.memory_limit
            )));
        }
        Ok(())
    }

    /// `MapStage`: stages `values` at `indices` of `key`'s tuple. A put of every component
    /// waits while the map is full or over its memory limit; a partial put waits only for
    /// memory, and completes its tuple when the last component arrives.
    pub fn put(&self, key: &Key, indices: &[i32], values: Vec<Tensor>, wait: &Wait) -> Result<()> {
        let mut st = self.state.lock();
        check_ordering(indices)?;
        if values.len() < indices.len() {
            // TensorFlow reads past its input list here; refuse instead.
            return Err(Error::invalid_argument(format!(
                "Number of indices {} doesn't match number of values {}",
                indices.len(),
                values.len()
            )));
        }
        let bytes = values.last().map_or(0, total_bytes);
        self.check_memory_limit(bytes)?;
        if indices.len() != self.components {
            self.state
                .wait_while(&mut st, wait.cancel, wait.deadline, |s| {
                    self.exceeds_memory(s, bytes)
                })?;
            let result = self.put_incomplete(&mut st, key, indices, values, bytes);
            self.state.notify_all();
            return result;
        }
        self.state
            .wait_while(&mut st, wait.cancel, wait.deadline, |s| {
                self.exceeds_memory(s, bytes) || self.is_full(s)
            })?;
        st.insert_complete(key, values.into_iter().map(Some).collect());
        st.current_bytes = st.current_bytes.saturating_add(bytes);
        self.state.notify_all();
        Ok(())
    }

    fn put_incomplete(
        &self,
        st: &mut State,
        key: &Key,
        indices: &[i32],
        values: Vec<Tensor>,
        bytes: usize,
    ) -> Result<()> {
        let k = key.value;
        let Some(present) = st.incomplete.get_mut(&k) else {
            let mut tuple = vec![None; self.components];
            for (&index, value) in indices.iter().zip(values) {
                tuple[self.check_index(k, index)?] = Some(value);
            }
            st.incomplete.insert(k, tuple);
            st.current_bytes = st.current_bytes.saturating_add(bytes);
            return Ok(());
        };
        // Components before a bad index stay put, as in TensorFlow.
        for (&index, value) in indices.iter().zip(values) {
            let at = self.check_index(k, index)?;
            if present[at].is_some() {
                return Err(Error::invalid_argument(format!(
                    "The tensor for index '{at}' for key '{k}' was already initialized '{}'.",
                    self.components
                )));
            }
            present[at] = Some(value);
        }
        st.current_bytes = st.current_bytes.saturating_add(bytes);
        if present.iter().all(Option::is_some) {
            if let Some(tuple) = st.incomplete.remove(&k) {
                st.insert_complete(key, tuple);
            }
        }
        Ok(())
    }

    /// Copies (`MapPeek`) or takes (`MapUnstage`) the values at `indices` of `key`'s tuple; a
    /// value taken before a failing index is lost, as in TensorFlow.
    fn copy_or_take(
        &self,
        entry: &mut Entry,
        key: i64,
        indices: &[i32],
        take: bool,
    ) -> Result<Vec<Tensor>> {
        let mut out = Vec::with_capacity(indices.len());
        for &index in indices {
            let at = self.check_index(key, index)?;
            let slot = entry.values.get_mut(at).ok_or_else(|| removed(at, key))?;
            let value = if take { slot.take() } else { slot.clone() };
            out.push(value.ok_or_else(|| removed(at, key))?);
        }
        Ok(out)
    }

    /// `MapPeek`: the values at `indices` of `key`'s tuple, waiting until it is staged.
    pub fn peek(&self, key: i64, indices: &[i32], wait: &Wait) -> Result<Vec<Tensor>> {
        let mut st = self.state.lock();
        check_ordering(indices)?;
        self.state
            .wait_while(&mut st, wait.cancel, wait.deadline, |s| {
                !s.complete.contains_key(&key)
            })?;
        let entry = st.complete.get_mut(&key).ok_or_else(|| removed(0, key))?;
        let out = self.copy_or_take(entry, key, indices, false)?;
        // TensorFlow gives a peek's bytes back too.
        st.current_bytes = st.current_bytes.saturating_sub(bytes_of(&out));
        Ok(out)
    }

    /// `MapUnstage`: takes the values at `indices` of `key`'s tuple, waiting until it is
    /// staged; the tuple leaves the map once all its values are taken.
    pub fn pop(&self, key: i64, indices: &[i32], wait: &Wait) -> Result<Vec<Tensor>> {
        let mut st = self.state.lock();
        check_ordering(indices)?;
        self.state
            .wait_while(&mut st, wait.cancel, wait.deadline, |s| {
                !s.complete.contains_key(&key)
            })?;
        self.take_from(&mut st, key, indices).map(|(_, out)| out)
    }

    /// `MapUnstageNoKey`: takes the values at `indices` of the smallest key's tuple (ordered) or
    /// the oldest tuple (unordered), waiting while the map is empty; the key tensor and values.
    pub fn pop_any(&self, indices: &[i32], wait: &Wait) -> Result<(Tensor, Vec<Tensor>)> {
        let mut st = self.state.lock();
        check_ordering(indices)?;
        self.state
            .wait_while(&mut st, wait.cancel, wait.deadline, |s| {
                s.complete.is_empty()
            })?;
        let first = if self.ordered {
            st.complete.keys().next().copied()
        } else {
            st.arrivals.values().next().copied()
        };
        let key = first.ok_or_else(|| Error::internal("A staging map emptied while locked"))?;
        self.take_from(&mut st, key, indices)
    }

    fn take_from(
        &self,
        st: &mut State,
        key: i64,
        indices: &[i32],
    ) -> Result<(Tensor, Vec<Tensor>)> {
        let entry = st.complete.get_mut(&key).ok_or_else(|| removed(0, key))?;
        let out = self.copy_or_take(entry, key, indices, true)?;
        let key_tensor = entry.key.clone();
        if entry.values.iter().all(Option::is_none) {
            st.remove_complete(key);
        }
        st.current_bytes = st.current_bytes.saturating_sub(bytes_of(&out));
        self.state.notify_all();
        Ok((key_tensor, out))
    }

    /// `MapClear`: drops every tuple, complete or not, and wakes blocked puts.
    pub fn clear(&self) {
        let mut st = self.state.lock();
        st.complete.clear();
        st.arrivals.clear();
        st.incomplete.clear();
        st.current_bytes = 0;
        drop(st);
        self.state.notify_all();
    }

    /// `MapSize`: the number of complete tuples.
    pub fn size(&self) -> usize {
        self.state.lock().complete.len()
    }

    /// `MapIncompleteSize`: the number of tuples still missing components.
    pub fn incomplete_size(&self) -> usize {
        self.state.lock().incomplete.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use weir_graph::Bytes;

    fn key(v: i64) -> Key {
        Key {
            value: v,
            tensor: Tensor::scalar(v),
        }
    }

    fn now_plus(ms: u64) -> Option<Instant> {
        Some(Instant::now() + Duration::from_millis(ms))
    }

    #[test]
    fn partial_puts_complete_a_tuple_and_partial_gets_empty_it() {
        let m = StagingMap::new(false, 2, 0, 0);
        let t = CancellationToken::new();
        let w = Wait {
            cancel: &t,
            deadline: now_plus(5000),
        };
        m.put(&key(7), &[1], vec![Tensor::scalar(2i32)], &w)
            .unwrap();
        assert_eq!((m.size(), m.incomplete_size()), (0, 1));
        m.put(&key(7), &[0], vec![Tensor::scalar(1.5f32)], &w)
            .unwrap();
        assert_eq!((m.size(), m.incomplete_size()), (1, 0));
        let got = m.pop(7, &[1], &w).unwrap();
        assert_eq!(got[0].to_scalar::<i32>().unwrap(), 2);
        assert_eq!(m.size(), 1);
        let e = m.pop(7, &[1], &w).unwrap_err();
        assert_eq!(
            e.message(),
            "Tensor at index '1' for key '7' has already been removed."
        );
        let (k, got) = m.pop_any(&[0], &w).unwrap();
        assert_eq!(k.to_scalar::<i64>().unwrap(), 7);
        assert_eq!(got[0].to_scalar::<f32>().unwrap(), 1.5);
        assert_eq!(m.size(), 0);
    }

    #[test]
    fn ordered_maps_give_the_smallest_key_and_unordered_the_oldest() {
        for (ordered, want) in [(true, [1, 3, 5]), (false, [5, 1, 3])] {
            let m = StagingMap::new(ordered, 1, 0, 0);
            let t = CancellationToken::new();
            let w = Wait {
                cancel: &t,
                deadline: now_plus(5000),
            };
            for k in [5, 1, 3] {
                m.put(&key(k), &[0], vec![Tensor::scalar(k as f32)], &w)
                    .unwrap();
            }
            let got: Vec<i64> = (0..3)
                .map(|_| m.pop_any(&[0], &w).unwrap().0.to_scalar::<i64>().unwrap())
                .collect();
            assert_eq!(got, want, "ordered={ordered}");
        }
    }

    #[test]
    fn a_full_map_blocks_a_put_until_the_deadline() {
        let m = StagingMap::new(true, 1, 1, 0);
        let t = CancellationToken::new();
        let w = Wait {
            cancel: &t,
            deadline: now_plus(5000),
        };
        m.put(&key(1), &[0], vec![Tensor::scalar(1i32)], &w)
            .unwrap();
        let short = Wait {
            cancel: &t,
            deadline: now_plus(30),
        };
        let e = m
            .put(&key(2), &[0], vec![Tensor::scalar(2i32)], &short)
            .unwrap_err();
        assert!(e.is_deadline_exceeded(), "{e}");
        assert_eq!(m.size(), 1);
    }

    #[test]
    fn a_put_over_the_memory_limit_is_resource_exhausted() {
        let m = StagingMap::new(false, 1, 0, 10);
        let t = CancellationToken::new();
        let w = Wait {
            cancel: &t,
            deadline: now_plus(5000),
        };
        let big = Tensor::from_vec(&[3], vec![0.0f32; 3]).unwrap();
        let e = m.put(&key(1), &[0], vec![big], &w).unwrap_err();
        assert!(e.is_resource_exhausted());
        assert_eq!(
            e.message(),
            "Attempted to insert tensors with combined size of '12' bytes into Staging Area \
             with a memory limit of '10'."
        );
    }

    #[test]
    fn string_bytes_count_as_tensorflow_counts_them() {
        let t = Tensor::from_vec(&[2], vec![Bytes::from("abc"), Bytes::from("de")]).unwrap();
        assert_eq!(total_bytes(&t), 53);
    }
}
