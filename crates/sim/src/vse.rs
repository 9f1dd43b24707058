//! The VSE host model (simulator layer; spec 7.2 "VSE/ESA (z/VSE) as a host").
//!
//! Three mechanisms distinguish a VSE system from a z/OS one:
//!
//! * **Partitions.** The turbo dispatcher dispatches *partitions*, and a
//!   partition runs on one CPU at a time. The TCP/IP stack is one partition
//!   (all its work — device input, TCP, timers, the socket requests of the
//!   applications — is serialized on one key), each application workload
//!   runs in a partition of its own.
//! * **Non-parallel work.** At most one non-parallel unit runs in the whole
//!   system at a time; another CPU that needs one spins until it is free.
//!   Every step of a partition has a non-parallel share (the stack's work is
//!   largely non-parallel, an application's socket call partly: the
//!   supervisor call and the hand-off). With one CPU this never costs
//!   anything; with more it caps the useful CPUs near 1 / share and burns
//!   spin time — the reason more CPUs add overhead without capacity.
//! * **The TCP/IP partition's dispatch cycle.** The stack's internal
//!   dispatcher runs cycles while it has work. Device input (a HiperSockets
//!   or adapter interrupt) posts it at once, but an application's socket
//!   request is only put on the stack's request queue: the stack finds it at
//!   the end of its current cycle when busy, or at the end of its idle wait
//!   (`stack_wait_ns`) when it had gone to sleep. A lightly loaded
//!   request/response connection therefore waits about one idle wait per
//!   transaction, while under load the stack never sleeps and the wait
//!   vanishes; each idle cycle costs a look at empty queues (`poll_ns`).
//!
//! This module holds the state and the arithmetic; `world.rs` routes a VSE
//! host's units through it.

use crate::event::Ns;
use std::collections::VecDeque;

/// Serialization key of a VSE host's TCP/IP partition.
pub fn tcpip_key(host: usize) -> u64 {
    (1 << 42) | host as u64
}

/// Serialization key of the partition running workload `wl` on a VSE host.
pub fn app_key(host: usize, wl: usize) -> u64 {
    (1 << 43) | ((host as u64) << 20) | (wl as u64 & 0xf_ffff)
}

/// Which partition a key belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partition {
    Tcpip,
    App,
    Other,
}

/// Classify a unit's key for host `host`.
pub fn partition_of(host: usize, key: Option<u64>) -> Partition {
    match key {
        Some(k) if k == tcpip_key(host) => Partition::Tcpip,
        Some(k) if k & (1 << 43) != 0 && (k >> 20) & 0x3f_ffff == host as u64 => Partition::App,
        _ => Partition::Other,
    }
}

/// Counters of the turbo dispatcher and the stack's dispatch cycle
/// (what `QUERY TD` and the stack's statistics would show).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct VseStats {
    /// CPU time spent in non-parallel work, ns.
    pub np_ns: u64,
    /// CPU time spent spinning for the non-parallel lock, ns.
    pub spin_ns: u64,
    /// Stack cycles started by the end of an idle wait.
    pub timer_cycles: u64,
    /// Of those, cycles that found no socket request waiting.
    pub empty_cycles: u64,
    /// Socket requests the stack took from its request queue.
    pub requests: u64,
}

impl VseStats {
    /// These counters less those of an earlier instant.
    pub fn since(&self, b: &VseStats) -> VseStats {
        VseStats {
            np_ns: self.np_ns.saturating_sub(b.np_ns),
            spin_ns: self.spin_ns.saturating_sub(b.spin_ns),
            timer_cycles: self.timer_cycles.saturating_sub(b.timer_cycles),
            empty_cycles: self.empty_cycles.saturating_sub(b.empty_cycles),
            requests: self.requests.saturating_sub(b.requests),
        }
    }
}

/// Dispatcher state of one VSE host. `R` is the socket request type.
#[derive(Debug)]
pub struct VseState<R> {
    /// Non-parallel lock: free from this instant on.
    np_free_at: Ns,
    /// TCP/IP partition units submitted and not finished.
    pub tcpip_units: u32,
    /// The stack sleeps in its idle wait (no unit outstanding).
    pub waiting: bool,
    /// Generation of the idle wait, so a wait cut short by device input
    /// does not fire later.
    pub wait_gen: u64,
    /// Socket requests handed over by application partitions.
    pub pending: VecDeque<R>,
    pub stats: VseStats,
}

impl<R> Default for VseState<R> {
    fn default() -> Self {
        VseState {
            np_free_at: 0,
            tcpip_units: 0,
            waiting: false,
            wait_gen: 0,
            pending: VecDeque::new(),
            stats: VseStats::default(),
        }
    }
}

impl<R> VseState<R> {
    /// A step of `cost` ns with non-parallel share `share` starts at `now`:
    /// its non-parallel part needs the system-wide lock. Returns (elapsed
    /// time of the step, spin time before it got the lock). The spin burns
    /// CPU; the non-parallel part is taken at the start of the step.
    pub fn np_reserve(&mut self, now: Ns, cost: u64, share: f64) -> (u64, u64) {
        let share = if share.is_finite() {
            share.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let np = (cost as f64 * share) as u64;
        if np == 0 {
            return (cost, 0);
        }
        let start = self.np_free_at.max(now);
        let spin = start - now;
        self.np_free_at = start + np;
        self.stats.np_ns += np;
        self.stats.spin_ns += spin;
        (spin + cost, spin)
    }

    /// Device input (or any stack work) arrives: the stack is awake with one
    /// more unit. Returns true if this cut an idle wait short.
    pub fn stack_unit_submitted(&mut self) -> bool {
        self.tcpip_units += 1;
        let woke = self.waiting;
        if woke {
            self.waiting = false;
            self.wait_gen += 1;
        }
        woke
    }

    /// A stack unit finished. Returns what the stack does next.
    pub fn stack_unit_finished(&mut self) -> Next {
        self.tcpip_units = self.tcpip_units.saturating_sub(1);
        if self.tcpip_units > 0 {
            return Next::Busy;
        }
        if !self.pending.is_empty() {
            return Next::ServeRequests;
        }
        self.waiting = true;
        self.wait_gen += 1;
        Next::Sleep(self.wait_gen)
    }

    /// The idle wait `gen` ended. True if it is still current (the stack
    /// then runs a cycle).
    pub fn wait_ended(&mut self, gen: u64) -> bool {
        if !self.waiting || gen != self.wait_gen {
            return false;
        }
        self.stats.timer_cycles += 1;
        if self.pending.is_empty() {
            self.stats.empty_cycles += 1;
        }
        true
    }

    /// Take every waiting socket request (the cycle serves them in order).
    pub fn take_requests(&mut self) -> Vec<R> {
        self.stats.requests += self.pending.len() as u64;
        self.pending.drain(..).collect()
    }
}

/// What the TCP/IP partition does after one of its units finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// More stack units are queued.
    Busy,
    /// No unit left but socket requests wait: serve them in a new cycle now.
    ServeRequests,
    /// Nothing to do: sleep until the idle wait of this generation ends.
    Sleep(u64),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_name_their_partition() {
        assert_eq!(partition_of(3, Some(tcpip_key(3))), Partition::Tcpip);
        assert_eq!(partition_of(3, Some(app_key(3, 7))), Partition::App);
        assert_eq!(partition_of(4, Some(app_key(3, 7))), Partition::Other);
        assert_eq!(partition_of(3, Some(tcpip_key(4))), Partition::Other);
        assert_eq!(partition_of(3, None), Partition::Other);
        assert_ne!(app_key(3, 1), app_key(3, 2));
    }

    #[test]
    fn one_non_parallel_unit_at_a_time() {
        let mut s: VseState<()> = VseState::default();
        // CPU 0 starts a 100 ns step, 80 % non-parallel, at t=0.
        assert_eq!(s.np_reserve(0, 100, 0.8), (100, 0));
        // CPU 1 starts one at t=10: it spins until t=80, then runs 100 ns.
        assert_eq!(s.np_reserve(10, 100, 0.8), (170, 70));
        // A fully parallel step never waits.
        assert_eq!(s.np_reserve(20, 100, 0.0), (100, 0));
        // Later, the lock is free again.
        assert_eq!(s.np_reserve(1_000, 50, 0.5), (50, 0));
        assert_eq!(s.stats.spin_ns, 70);
        assert_eq!(s.stats.np_ns, 80 + 80 + 25);
    }

    #[test]
    fn sequential_steps_never_spin() {
        // One CPU: each step starts when the previous one ended.
        let mut s: VseState<()> = VseState::default();
        let mut t = 0;
        for _ in 0..100 {
            let (dur, spin) = s.np_reserve(t, 37, 0.9);
            assert_eq!(spin, 0);
            t += dur;
        }
        assert_eq!(s.stats.spin_ns, 0);
    }

    #[test]
    fn requests_wait_for_the_cycle_unless_the_stack_is_busy() {
        let mut s: VseState<u32> = VseState::default();
        assert!(!s.stack_unit_submitted(), "not sleeping yet");
        // An application hands over a request while the stack works.
        s.pending.push_back(1);
        assert_eq!(s.stack_unit_finished(), Next::ServeRequests);
        assert_eq!(s.take_requests(), vec![1]);
        s.stack_unit_submitted();
        // Nothing left: the stack sleeps; a request now waits for the wait.
        let Next::Sleep(g) = s.stack_unit_finished() else {
            panic!("expected sleep");
        };
        s.pending.push_back(2);
        assert!(s.waiting);
        assert!(s.wait_ended(g));
        assert_eq!(s.take_requests(), vec![2]);
        assert_eq!(s.stats.timer_cycles, 1);
        assert_eq!(s.stats.empty_cycles, 0);
    }

    #[test]
    fn device_input_cuts_the_wait_short() {
        let mut s: VseState<u32> = VseState::default();
        s.stack_unit_submitted();
        let Next::Sleep(g) = s.stack_unit_finished() else {
            panic!("expected sleep");
        };
        assert!(s.stack_unit_submitted(), "an interrupt wakes the stack");
        assert!(!s.wait_ended(g), "the stale wait does not fire");
        assert_eq!(s.stats.timer_cycles, 0);
    }
}
