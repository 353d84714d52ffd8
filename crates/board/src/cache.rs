//! The board's state: the store behind a lock, and what is costly to make
//! again kept for a while — the list of runs (every page filters it), each
//! finished run's page and its headline figures — so a page under load is
//! a lookup, not a query.
//!
//! The headline figures are what the machines, seeds and trend pages read
//! across many runs: a few numbers per series, at most [`KEEP`] runs' worth,
//! each read once from the store and then kept while its run is unchanged
//! (a finished run's stored figures never change), so a page that reads
//! the newest few dozen runs of a family loads a run only the first time.
//!
//! Two answers are kept whole: the seeds page (it reads up to 200 runs per
//! family), while the list of runs it was made from is unchanged, and each
//! finished run's JSON export (`/api/runs/{id}`) of at most [`EXPORT_ONE`],
//! up to [`EXPORT_BYTES`] in all (a larger export is streamed from the
//! store each time it is read, never held). A write through the board
//! drops both at once: a new run may change the seeds' figures, and may
//! take the id of a run removed meanwhile.
//!
//! Headlines are read from a run's outline (the store reads no samples),
//! and how many exports are sent and pushes read at once is bounded here.

use crate::headline::{self, RunHeads};
use crate::limit::RateLimit;
use bytes::Bytes;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use toll_store::{Run, RunRow, RunStatus, Store, StoreError};

/// How long the list of runs is reused: a run another process stores
/// shows within this; the board's own writes drop the list at once.
pub const RUNS_FRESH: Duration = Duration::from_secs(1);
/// How long a run's page is reused (a run removed meanwhile goes with it).
const PAGE_FRESH: Duration = Duration::from_secs(60);
/// How long a finished run's headline figures are reused: they are stored
/// once and never change; the list of runs says whether the run is still
/// there, and its start time whether it is still the same run.
const HEADS_FRESH: Duration = Duration::from_secs(3600);
/// How many pages and headlines are kept: memory stays flat however many
/// runs the store holds.
pub const KEEP: usize = 512;
/// How many bytes of run exports are kept (one run's export can be large:
/// every sample of every point).
pub const EXPORT_BYTES: usize = 64 << 20;
/// The largest export kept: a larger one is sent as it is read from the
/// store, each time.
pub const EXPORT_ONE: usize = 4 << 20;
/// Exports sent at once (each holds a chunk of samples and at most
/// [`EXPORT_ONE`] of its text); more are answered 503.
pub const SENDING: usize = 8;
/// Pushes read at once (each holds its run's samples while it is checked
/// and stored, and a thread of the blocking pool while its body arrives);
/// more are answered 503.
pub const READING: usize = 2;

/// Everything the handlers share.
pub struct Board {
    store: Mutex<Store>,
    runs: Mutex<Option<(Instant, Arc<Vec<RunRow>>)>>,
    pages: Mutex<Kept<Bytes>>,
    /// Runs pages by their query, made from the list in `runs` (dropped
    /// with it).
    lists: Mutex<HashMap<String, Bytes>>,
    heads: Mutex<Kept<Arc<RunHeads>>>,
    exports: Mutex<Kept<Bytes>>,
    /// The seeds page and the list of runs it was made from.
    seeds: Mutex<Option<(Arc<Vec<RunRow>>, Bytes)>>,
    pub limit: Mutex<RateLimit>,
    pub max_body: usize,
    /// A permit per export being sent.
    pub sending: Arc<Semaphore>,
    /// A permit per push being read.
    pub reading: Arc<Semaphore>,
}

impl Board {
    pub fn new(store: Store, max_body: usize, writes_per_minute: u32) -> Board {
        Board {
            store: Mutex::new(store),
            runs: Mutex::new(None),
            pages: Mutex::new(Kept::default()),
            lists: Mutex::new(HashMap::new()),
            heads: Mutex::new(Kept::default()),
            exports: Mutex::new(Kept::within(EXPORT_BYTES)),
            seeds: Mutex::new(None),
            limit: Mutex::new(RateLimit::new(
                writes_per_minute.clamp(1, 10),
                writes_per_minute,
            )),
            max_body,
            sending: Arc::new(Semaphore::new(SENDING)),
            reading: Arc::new(Semaphore::new(READING)),
        }
    }

    /// The store, for one operation.
    pub fn store(&self) -> MutexGuard<'_, Store> {
        lock(&self.store)
    }

    /// Every run, newest first.
    pub fn runs(&self) -> Result<Arc<Vec<RunRow>>, StoreError> {
        if let Some((at, rows)) = lock(&self.runs).as_ref() {
            if at.elapsed() < RUNS_FRESH {
                return Ok(rows.clone());
            }
        }
        let rows = Arc::new(self.store().list_runs()?);
        *lock(&self.runs) = Some((Instant::now(), rows.clone()));
        lock(&self.lists).clear();
        Ok(rows)
    }

    /// After a write: the list is read again next time, and what was made
    /// from it is made again.
    pub fn written(&self) {
        *lock(&self.runs) = None;
        lock(&self.lists).clear();
        *lock(&self.seeds) = None;
        *lock(&self.exports) = Kept::within(EXPORT_BYTES);
    }

    /// The seeds page, made by `make` from the current list unless made
    /// from an equal one already (its figures are those of complete runs,
    /// which never change).
    pub fn seeds_page<E: From<StoreError>>(
        &self,
        make: impl FnOnce(&[RunRow]) -> Result<String, E>,
    ) -> Result<Bytes, E> {
        let rows = self.runs()?;
        if let Some((from, page)) = lock(&self.seeds).as_ref() {
            if Arc::ptr_eq(from, &rows) || same_rows(from, &rows) {
                return Ok(page.clone());
            }
        }
        let page = Bytes::from(make(&rows)?);
        *lock(&self.seeds) = Some((rows, page.clone()));
        Ok(page)
    }

    /// Run `id`'s export, if a finished run's is kept.
    pub fn kept_export(&self, id: i64) -> Option<Bytes> {
        lock(&self.exports).get(id, PAGE_FRESH)
    }

    /// Keep a finished run's export, when it is at most [`EXPORT_ONE`].
    pub fn keep_export(&self, id: i64, export: Bytes) {
        if export.len() <= EXPORT_ONE {
            let weight = export.len();
            lock(&self.exports).put_weighed(id, export, weight);
        }
    }

    /// The runs page for `query`, made by `make` from the current list
    /// unless made from it already.
    pub fn list_page<E: From<StoreError>>(
        &self,
        query: &str,
        make: impl FnOnce(&[RunRow]) -> Result<String, E>,
    ) -> Result<Bytes, E> {
        let rows = self.runs()?;
        if let Some(p) = lock(&self.lists).get(query) {
            return Ok(p.clone());
        }
        let page = Bytes::from(make(&rows)?);
        let mut lists = lock(&self.lists);
        if lists.len() >= KEEP {
            lists.clear();
        }
        lists.insert(query.to_string(), page.clone());
        Ok(page)
    }

    /// Run `id`'s page, made by `make` unless a finished run's page is kept.
    pub fn page(&self, id: i64, make: impl FnOnce(&Run) -> String) -> Result<Bytes, StoreError> {
        if let Some(p) = lock(&self.pages).get(id, PAGE_FRESH) {
            return Ok(p);
        }
        let run = self.store().load_run(id)?;
        let page = Bytes::from(make(&run));
        if run.status != RunStatus::Running {
            lock(&self.pages).put(id, page.clone());
        }
        Ok(page)
    }

    /// The headline figures of the run `row` lists.
    pub fn heads(&self, row: &RunRow) -> Result<Arc<RunHeads>, StoreError> {
        if let Some(h) = lock(&self.heads)
            .get(row.id, HEADS_FRESH)
            .filter(|h| h.started_at == row.started_at)
        {
            return Ok(h);
        }
        // Headlines read summaries and fits, never samples.
        let run = self.store().load_outline(row.id)?.run;
        let heads = Arc::new(headline::of(&run));
        if run.status != RunStatus::Running {
            lock(&self.heads).put(row.id, heads.clone());
        }
        Ok(heads)
    }
}

/// A poisoned lock only means a handler panicked mid-way: what it guards
/// is still whole (every write to it is one assignment).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether two lists of runs say the same: the seeds page made from one
/// is the page of the other.
fn same_rows(a: &[RunRow], b: &[RunRow]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.id == y.id
                && x.status == y.status
                && x.started_at == y.started_at
                && x.family == y.family
                && x.host == y.host
                && x.summary == y.summary
        })
}

/// At most [`KEEP`] values by run id, weighing at most `budget` together,
/// the oldest put dropped first.
struct Kept<T> {
    map: HashMap<i64, (Instant, T, usize)>,
    order: VecDeque<i64>,
    weight: usize,
    budget: usize,
}

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept::within(usize::MAX)
    }
}

impl<T> Kept<T> {
    fn within(budget: usize) -> Self {
        Kept {
            map: HashMap::new(),
            order: VecDeque::new(),
            weight: 0,
            budget,
        }
    }
}

impl<T: Clone> Kept<T> {
    fn get(&self, id: i64, fresh: Duration) -> Option<T> {
        self.map
            .get(&id)
            .filter(|(at, _, _)| at.elapsed() < fresh)
            .map(|(_, v, _)| v.clone())
    }

    fn put(&mut self, id: i64, v: T) {
        self.put_weighed(id, v, 0);
    }

    /// Keep `v`, weighing `weight`; a value heavier than the whole budget
    /// is not kept.
    fn put_weighed(&mut self, id: i64, v: T, weight: usize) {
        if weight > self.budget {
            return;
        }
        match self.map.insert(id, (Instant::now(), v, weight)) {
            None => self.order.push_back(id),
            Some((_, _, old)) => self.weight -= old,
        }
        self.weight += weight;
        while self.order.len() > KEEP || self.weight > self.budget {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some((_, _, w)) = self.map.remove(&old) {
                self.weight -= w;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_values_are_bounded_and_expire() {
        let mut k: Kept<i64> = Kept::default();
        for i in 0..(KEEP as i64 + 10) {
            k.put(i, i);
        }
        assert_eq!(k.map.len(), KEEP);
        assert_eq!(k.get(0, Duration::from_secs(60)), None);
        assert_eq!(
            k.get(KEEP as i64 + 9, Duration::from_secs(60)),
            Some(KEEP as i64 + 9)
        );
        assert_eq!(k.get(KEEP as i64 + 9, Duration::ZERO), None);
    }

    #[test]
    fn kept_values_stay_within_their_weight() {
        let mut k: Kept<i64> = Kept::within(100);
        k.put_weighed(1, 1, 60);
        k.put_weighed(2, 2, 30);
        // Put again, lighter: its old weight is given back.
        k.put_weighed(1, 1, 10);
        assert_eq!(k.weight, 40);
        // Over the budget: the oldest put goes first.
        k.put_weighed(3, 3, 70);
        assert_eq!(k.get(1, Duration::from_secs(60)), None);
        assert_eq!(k.get(2, Duration::from_secs(60)), Some(2));
        assert_eq!(k.weight, 100);
        k.put_weighed(4, 4, 101);
        assert_eq!(k.get(4, Duration::from_secs(60)), None, "too heavy to keep");
        assert_eq!(k.weight, 100);
    }
}
