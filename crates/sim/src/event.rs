//! Discrete-event core (simulator layer; spec 6.2 "Determinism").
//!
//! Virtual time is nanoseconds (`u64`). Events are ordered by
//! `(time, sequence number)`: two events at the same instant run in the order
//! they were scheduled, never by hash or memory order, so the same scenario and
//! seed give byte-identical results.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Virtual time in nanoseconds since the start of the run.
pub type Ns = u64;

struct Entry<E> {
    at: Ns,
    seq: u64,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.at == o.at && self.seq == o.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, o: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap, we want the earliest first.
        (o.at, o.seq).cmp(&(self.at, self.seq))
    }
}

/// A priority queue of events keyed by (time, insertion sequence).
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Ns,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(4096),
            seq: 0,
            now: 0,
        }
    }
    /// Current virtual time (time of the last event popped).
    pub fn now(&self) -> Ns {
        self.now
    }
    /// Schedule `ev` at `at`; times in the past are clamped to now.
    pub fn schedule(&mut self, at: Ns, ev: E) {
        let at = at.max(self.now);
        self.seq += 1;
        self.heap.push(Entry {
            at,
            seq: self.seq,
            ev,
        });
    }
    /// Pop the next event at or before `limit`, advancing time.
    pub fn pop_until(&mut self, limit: Ns) -> Option<(Ns, E)> {
        if self.heap.peek()?.at > limit {
            return None;
        }
        let e = self.heap.pop()?;
        self.now = e.at;
        Some((e.at, e.ev))
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    /// Keep only the events `keep` accepts (the others would have been
    /// popped and ignored). Each kept event keeps its time and sequence, so
    /// the order of what runs is unchanged.
    pub fn retain(&mut self, mut keep: impl FnMut(&E) -> bool) {
        self.heap.retain(|e| keep(&e.ev));
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn orders_by_time_then_sequence() {
        let mut q = EventQueue::new();
        q.schedule(10, 'a');
        q.schedule(5, 'b');
        q.schedule(10, 'c');
        q.schedule(5, 'd');
        let got: Vec<char> = std::iter::from_fn(|| q.pop_until(100).map(|x| x.1)).collect();
        assert_eq!(got, vec!['b', 'd', 'a', 'c']);
        assert_eq!(q.now(), 10);
    }
    #[test]
    fn retain_drops_events_and_keeps_the_order_of_the_rest() {
        let mut q = EventQueue::new();
        for (t, e) in [(30, 'a'), (10, 'x'), (10, 'b'), (20, 'x'), (30, 'c')] {
            q.schedule(t, e);
        }
        q.retain(|e| *e != 'x');
        assert_eq!(q.len(), 3);
        let got: Vec<char> = std::iter::from_fn(|| q.pop_until(100).map(|x| x.1)).collect();
        assert_eq!(got, vec!['b', 'a', 'c']);
    }
    #[test]
    fn respects_limit_and_clamps_past() {
        let mut q = EventQueue::new();
        q.schedule(50, 1);
        assert!(q.pop_until(49).is_none());
        assert_eq!(q.pop_until(50), Some((50, 1)));
        q.schedule(10, 2); // in the past: runs now
        assert_eq!(q.pop_until(60), Some((50, 2)));
    }
}
