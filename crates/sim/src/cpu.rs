//! Host processors and units of work (simulator layer; spec 2.3 ordering,
//! 2.5 CPU, 6.2 "Host stack", 7.2 VSE turbo dispatcher).
//!
//! A host has N processors and one FIFO of ready units of work (z/OS SRBs,
//! application dispatches). A unit is a list of steps; a processor runs one
//! unit to completion, step by step, each step taking CPU time. Units run
//! concurrently on different processors — which is exactly how two units
//! processing consecutive batches of one connection can finish out of order.
//! A unit may carry a *serialization key*: while a unit with that key runs or
//! waits, later units with the same key wait behind it (the BULKDATA queue,
//! VSE's non-parallel work, a peer NIC's NAPI context).

use std::collections::{BTreeMap, VecDeque};

/// A unit of work.
#[derive(Debug)]
pub struct Unit<S> {
    pub steps: VecDeque<S>,
    pub serial: Option<u64>,
}

impl<S> Unit<S> {
    pub fn new(serial: Option<u64>) -> Self {
        Unit {
            steps: VecDeque::new(),
            serial,
        }
    }
}

/// The processors of one host.
#[derive(Debug)]
pub struct Cpu<S> {
    running: Vec<Option<Unit<S>>>,
    runq: VecDeque<Unit<S>>,
    /// Keys held by a running or queued unit, with units parked behind them.
    serial: BTreeMap<u64, VecDeque<Unit<S>>>,
    pub busy_ns: Vec<u64>,
    pub units_run: u64,
    pub max_runq: usize,
}

impl<S> Cpu<S> {
    pub fn new(processors: usize) -> Self {
        let n = processors.max(1);
        Cpu {
            running: (0..n).map(|_| None).collect(),
            runq: VecDeque::new(),
            serial: BTreeMap::new(),
            busy_ns: vec![0; n],
            units_run: 0,
            max_runq: 0,
        }
    }
    pub fn processors(&self) -> usize {
        self.running.len()
    }
    /// Make a unit ready (or park it behind a unit with the same key).
    pub fn submit(&mut self, u: Unit<S>) {
        if let Some(k) = u.serial {
            if let Some(w) = self.serial.get_mut(&k) {
                w.push_back(u);
                return;
            }
            self.serial.insert(k, VecDeque::new());
        }
        self.runq.push_back(u);
        self.max_runq = self.max_runq.max(self.runq.len());
    }
    /// Assign ready units to idle processors; returns the processors that
    /// just started a unit (the caller then runs their first step).
    pub fn dispatch(&mut self, started: &mut Vec<usize>) {
        for (p, slot) in self.running.iter_mut().enumerate() {
            if slot.is_none() {
                match self.runq.pop_front() {
                    Some(u) => {
                        *slot = Some(u);
                        self.units_run += 1;
                        started.push(p);
                    }
                    None => break,
                }
            }
        }
    }
    /// Next step of the unit on processor `p` (None: the unit is finished
    /// and has been retired; its key released).
    pub fn next_step(&mut self, p: usize) -> Option<S> {
        let slot = self.running.get_mut(p)?;
        let u = slot.as_mut()?;
        if let Some(s) = u.steps.pop_front() {
            return Some(s);
        }
        let done = slot.take()?;
        if let Some(k) = done.serial {
            let next = self.serial.get_mut(&k).and_then(|w| w.pop_front());
            match next {
                Some(n) => self.runq.push_back(n),
                None => {
                    self.serial.remove(&k);
                }
            }
        }
        None
    }
    /// Insert steps at the front of the running unit on `p` (work caused by
    /// the step just completed, done before the rest of the unit).
    pub fn push_front(&mut self, p: usize, steps: impl DoubleEndedIterator<Item = S>) {
        if let Some(Some(u)) = self.running.get_mut(p) {
            for s in steps.rev() {
                u.steps.push_front(s);
            }
        }
    }
    /// Insert steps into the running unit on `p` after its first `at`
    /// steps, in the order given: work that must follow what the same step
    /// put at the front before (see [`Cpu::push_front`]).
    pub fn insert_front(&mut self, p: usize, at: usize, steps: impl Iterator<Item = S>) {
        if let Some(Some(u)) = self.running.get_mut(p) {
            for (i, s) in (at.min(u.steps.len())..).zip(steps) {
                u.steps.insert(i, s);
            }
        }
    }
    pub fn charge(&mut self, p: usize, ns: u64) {
        if let Some(b) = self.busy_ns.get_mut(p) {
            *b += ns;
        }
    }
    /// The last unit of serialization key `key` that has not started yet
    /// (waiting for the key or for a processor), if any.
    pub fn waiting_mut(&mut self, key: u64) -> Option<&mut Unit<S>> {
        if let Some(u) = self.serial.get_mut(&key).and_then(|w| w.back_mut()) {
            return Some(u);
        }
        self.runq.iter_mut().rev().find(|u| u.serial == Some(key))
    }
    /// The running unit of serialization key `key`, if any.
    pub fn running_mut(&mut self, key: u64) -> Option<&mut Unit<S>> {
        self.running
            .iter_mut()
            .flatten()
            .find(|u| u.serial == Some(key))
    }
    /// Serialization key of the unit running on `p`, if any.
    pub fn serial_of(&self, p: usize) -> Option<u64> {
        self.running.get(p)?.as_ref()?.serial
    }
    pub fn is_idle(&self, p: usize) -> bool {
        self.running.get(p).is_none_or(|s| s.is_none())
    }
    pub fn total_busy_ns(&self) -> u64 {
        self.busy_ns.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(steps: &[u32], serial: Option<u64>) -> Unit<u32> {
        let mut u = Unit::new(serial);
        u.steps.extend(steps.iter().copied());
        u
    }

    #[test]
    fn units_run_concurrently_on_idle_processors() {
        let mut c = Cpu::new(2);
        c.submit(unit(&[1, 2], None));
        c.submit(unit(&[3], None));
        c.submit(unit(&[4], None));
        let mut st = Vec::new();
        c.dispatch(&mut st);
        assert_eq!(st, vec![0, 1]);
        assert_eq!(c.next_step(0), Some(1));
        assert_eq!(c.next_step(1), Some(3));
        assert_eq!(c.next_step(1), None, "unit on p1 retired");
        st.clear();
        c.dispatch(&mut st);
        assert_eq!(st, vec![1]);
        assert_eq!(c.next_step(1), Some(4));
    }

    #[test]
    fn serialized_units_wait_for_each_other() {
        let mut c = Cpu::new(2);
        c.submit(unit(&[1], Some(9)));
        c.submit(unit(&[2], Some(9)));
        c.submit(unit(&[3], None));
        let mut st = Vec::new();
        c.dispatch(&mut st);
        assert_eq!(st, vec![0, 1]);
        assert_eq!(c.next_step(0), Some(1));
        assert_eq!(c.next_step(1), Some(3), "the second key-9 unit waits");
        assert_eq!(c.next_step(1), None);
        st.clear();
        c.dispatch(&mut st);
        assert!(st.is_empty());
        assert_eq!(c.next_step(0), None, "first key-9 unit retires");
        c.dispatch(&mut st);
        assert_eq!(st, vec![0]);
        assert_eq!(c.next_step(0), Some(2));
    }

    #[test]
    fn waiting_finds_only_units_not_started() {
        let mut c = Cpu::new(1);
        c.submit(unit(&[1], Some(4)));
        assert!(c.waiting_mut(4).is_some(), "queued for a processor");
        let mut st = Vec::new();
        c.dispatch(&mut st);
        assert!(c.waiting_mut(4).is_none(), "running: not waiting");
        c.submit(unit(&[2], Some(4)));
        c.submit(unit(&[3], Some(4)));
        let w = c.waiting_mut(4).map(|u| u.steps.clone());
        assert_eq!(w, Some([3].into_iter().collect()), "the last one waiting");
        assert!(c.waiting_mut(5).is_none());
    }

    #[test]
    fn push_front_keeps_order() {
        let mut c = Cpu::new(1);
        c.submit(unit(&[9], None));
        let mut st = Vec::new();
        c.dispatch(&mut st);
        c.push_front(0, [1, 2, 3].into_iter());
        let got: Vec<u32> = std::iter::from_fn(|| c.next_step(0)).collect();
        assert_eq!(got, vec![1, 2, 3, 9]);
    }

    #[test]
    fn insert_front_goes_after_what_was_put_first() {
        let mut c = Cpu::new(1);
        c.submit(unit(&[9], None));
        let mut st = Vec::new();
        c.dispatch(&mut st);
        c.insert_front(0, 0, [1, 2].into_iter());
        c.insert_front(0, 2, [3, 4].into_iter());
        // a position past the end appends
        c.insert_front(0, 99, [5].into_iter());
        let got: Vec<u32> = std::iter::from_fn(|| c.next_step(0)).collect();
        assert_eq!(got, vec![1, 2, 3, 4, 9, 5]);
    }
}
