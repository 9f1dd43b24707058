//! One QDIO input queue (layer: engine, inbound; spec 01 §1.2, 02 §2.1).
//!
//! Read storage is a number of SBALs (16 × 4 KB on OSA, the MFS on
//! HiperSockets). Arriving frames are *packed* into the SBAL being filled; a
//! frame that does not fit closes it and opens the next empty one. Frames held
//! and not yet presented form the *pending batch*. It is presented when:
//! - the inter-packet **gap timer** expires (restarted by every frame),
//! - the **block hold timer** expires (started by the batch's first frame),
//! - the batch reaches the buffer **threshold** (PCITHRSH), or a frame
//!   finds every SBAL full (see [`InputQueue::full`]),
//! - or at once when the timers are zero, on HiperSockets, or under OLM.
//!
//! Presented SBALs belong to the host until it returns them; when no empty
//! SBAL is left an arriving frame is dropped and counted (NOREADS).
//!
//! Frame bytes live in one arena per batch, recycled through a pool, so the
//! steady state allocates nothing per frame.

use super::{PresentCause, QueueKind};
use crate::config::TimerPair;
use crate::counters::{DropReason, ReadQueueCounters};
use crate::time::Instant;

/// Whom a frame was addressed to, as the interface statistics count it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cast {
    Unicast,
    Multicast,
    Broadcast,
}

/// What the stack counts of a held frame once it is presented.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameTag {
    /// Packet was an accelerator or internal delivery (not from this port's wire).
    pub internal: bool,
    pub cast: Cast,
    /// A TCP segment (Netstat STATS counts those presented on BULKDATA).
    pub tcp: bool,
}

impl FrameTag {
    /// A unicast frame from the wire.
    pub const WIRE: FrameTag = FrameTag {
        internal: false,
        cast: Cast::Unicast,
        tcp: false,
    };
}

/// One held frame inside a batch.
#[derive(Clone, Copy, Debug)]
pub struct HeldFrame {
    pub offset: u32,
    pub stored: u32,
    pub wire_len: u32,
    pub arrival: Instant,
    pub tag: FrameTag,
}

/// Frames and bytes of one batch.
#[derive(Clone, Debug, Default)]
pub struct BatchBuf {
    pub frames: Vec<HeldFrame>,
    pub bytes: Vec<u8>,
    pub sbals: u16,
    pub wire_bytes: u64,
}

impl BatchBuf {
    pub fn clear(&mut self) {
        self.frames.clear();
        self.bytes.clear();
        self.sbals = 0;
        self.wire_bytes = 0;
    }
}

/// An input queue's state.
#[derive(Debug)]
pub struct InputQueue {
    pub kind: QueueKind,
    /// Read storage in SBALs.
    pub capacity: u16,
    /// Empty SBALs owned by the adapter.
    pub free: u16,
    sbal_bytes: u32,
    /// Bytes in the SBAL being filled (0: none open).
    fill: u32,
    pub pending: BatchBuf,
    gap_deadline: Option<Instant>,
    block_deadline: Option<Instant>,
    /// Current LAN-idle timer values.
    pub timers: TimerPair,
    threshold_sbals: u16,
    pub counters: ReadQueueCounters,
}

/// What an accepted frame asks of the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AcceptOutcome {
    /// Held; timers run.
    Held,
    /// Held, and the batch must be presented now for this cause.
    PresentNow(PresentCause),
}

impl InputQueue {
    pub fn new(
        kind: QueueKind,
        capacity: u16,
        sbal_bytes: u32,
        timers: TimerPair,
        threshold_sbals: u16,
    ) -> Self {
        InputQueue {
            kind,
            capacity,
            free: capacity,
            sbal_bytes,
            fill: 0,
            pending: BatchBuf::default(),
            gap_deadline: None,
            block_deadline: None,
            timers,
            threshold_sbals: threshold_sbals.max(1),
            counters: ReadQueueCounters::default(),
        }
    }

    pub fn sbal_bytes(&self) -> u32 {
        self.sbal_bytes
    }

    /// No empty SBAL left and frames held. Asked when a frame was refused
    /// for want of room, when the last SBAL is thus full: the adapter then
    /// presents what it holds (counted with the threshold's), so that the
    /// host returns buffers sooner; with read storage smaller than the
    /// threshold, waiting for a timer would only drop more of what arrives.
    pub fn full(&self) -> bool {
        self.free == 0 && !self.pending.frames.is_empty()
    }

    /// Frames held, not yet presented.
    pub fn held(&self) -> usize {
        self.pending.frames.len()
    }

    /// The earliest timer deadline of this queue (none while nothing is held).
    pub fn deadline(&self) -> Option<Instant> {
        if self.pending.frames.is_empty() {
            return None;
        }
        match (self.gap_deadline, self.block_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Which timer has expired at `now`, if any (block wins a tie: it is the
    /// bound under a continuous stream).
    pub fn expired(&self, now: Instant) -> Option<PresentCause> {
        if self.pending.frames.is_empty() {
            return None;
        }
        if self.block_deadline.is_some_and(|d| d <= now) {
            return Some(PresentCause::BlockTimer);
        }
        if self.gap_deadline.is_some_and(|d| d <= now) {
            return Some(PresentCause::GapTimer);
        }
        None
    }

    /// Hold one frame. `store` is the part of the frame kept (whole frame, or
    /// headers), `wire_len` the length that occupies buffer space.
    pub fn accept(
        &mut self,
        now: Instant,
        store: &[u8],
        wire_len: u32,
        tag: FrameTag,
    ) -> Result<AcceptOutcome, DropReason> {
        if wire_len > self.sbal_bytes {
            return Err(DropReason::FrameTooLarge);
        }
        if self.fill == 0 || self.fill + wire_len > self.sbal_bytes {
            if self.free == 0 {
                self.counters.noreads += 1;
                return Err(DropReason::NoReadBuffer);
            }
            self.free -= 1;
            self.pending.sbals += 1;
            self.fill = 0;
        }
        self.fill += wire_len;
        // Fewer than a quarter of the read buffers empty: the host is late
        // returning them (RREPLDEF).
        if u32::from(self.free) * 4 < u32::from(self.capacity) {
            self.counters.rrepldef += 1;
        }
        let first = self.pending.frames.is_empty();
        let offset = self.pending.bytes.len() as u32;
        self.pending.bytes.extend_from_slice(store);
        self.pending.frames.push(HeldFrame {
            offset,
            stored: store.len() as u32,
            wire_len,
            arrival: now,
            tag,
        });
        self.pending.wire_bytes += u64::from(wire_len);
        if first {
            self.block_deadline = Some(now + self.timers.block);
        }
        self.gap_deadline = Some(now + self.timers.gap);
        if self.timers.gap.is_zero() || self.timers.block.is_zero() {
            return Ok(AcceptOutcome::PresentNow(PresentCause::Immediate));
        }
        if self.pending.sbals >= self.threshold_sbals {
            return Ok(AcceptOutcome::PresentNow(PresentCause::Threshold));
        }
        Ok(AcceptOutcome::Held)
    }

    /// Close the pending batch for presentation at `now`: swap it with `spare`
    /// (an empty buffer from the pool) and count it. The SBALs now belong to
    /// the host.
    pub fn take(&mut self, now: Instant, cause: PresentCause, spare: BatchBuf) -> BatchBuf {
        let batch = core::mem::replace(&mut self.pending, spare);
        self.fill = 0;
        self.gap_deadline = None;
        self.block_deadline = None;
        let c = &mut self.counters;
        c.sbalcnt += u64::from(batch.sbals);
        c.packcnt += batch.frames.len() as u64;
        c.bytecnt += batch.wire_bytes;
        for f in &batch.frames {
            c.hold_ns_total += now.saturating_duration_since(f.arrival).as_nanos() as u64;
        }
        match cause {
            PresentCause::GapTimer => c.presentations_gap += 1,
            PresentCause::BlockTimer => c.presentations_block += 1,
            PresentCause::Threshold => c.pcithrsh += 1,
            PresentCause::Early => c.earlyint += 1,
            PresentCause::Immediate => c.presentations_immediate += 1,
        }
        batch
    }

    /// Discard every held frame (the interface stopped); returns how many.
    /// Their SBALs go back to the adapter and the timers stop.
    pub fn discard_pending(&mut self) -> usize {
        let n = self.pending.frames.len();
        self.free = (self.free + self.pending.sbals).min(self.capacity);
        self.pending.clear();
        self.fill = 0;
        self.gap_deadline = None;
        self.block_deadline = None;
        n
    }

    /// The host returned `sbals` buffers.
    pub fn replenish(&mut self, sbals: u16) {
        self.free = (self.free + sbals).min(self.capacity);
    }

    /// New timer values (INBPERF change or the DYNAMIC tuner). A running gap
    /// timer keeps its deadline; the next frame uses the new values.
    pub fn set_timers(&mut self, t: TimerPair) {
        self.timers = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::time::Duration;

    fn q(gap: u64, block: u64) -> InputQueue {
        InputQueue::new(QueueKind::Primary, 64, 65536, TimerPair::us(gap, block), 16)
    }

    #[test]
    fn frames_pack_into_sbals() {
        let mut q = q(20, 1000);
        for i in 0..50 {
            q.accept(Instant::from_micros(i), &[0; 54], 1500, FrameTag::WIRE)
                .unwrap();
        }
        // 43 frames of 1500 fit one 64 KB SBAL; 50 frames need two.
        assert_eq!(q.pending.sbals, 2);
        assert_eq!(q.free, 62);
    }

    #[test]
    fn no_read_buffer_drops_and_counts() {
        let mut q = InputQueue::new(QueueKind::Primary, 2, 65536, TimerPair::us(20, 40), 16);
        assert!(q.accept(Instant::ZERO, &[], 65536, FrameTag::WIRE).is_ok());
        assert!(q.accept(Instant::ZERO, &[], 65536, FrameTag::WIRE).is_ok());
        assert_eq!(
            q.accept(Instant::ZERO, &[], 100, FrameTag::WIRE),
            Err(DropReason::NoReadBuffer)
        );
        assert_eq!(q.counters.noreads, 1);
        let b = q.take(Instant::ZERO, PresentCause::GapTimer, BatchBuf::default());
        // Still no room until the host returns the buffers.
        assert!(q.accept(Instant::ZERO, &[], 100, FrameTag::WIRE).is_err());
        q.replenish(b.sbals);
        assert!(q.accept(Instant::ZERO, &[], 100, FrameTag::WIRE).is_ok());
    }

    #[test]
    fn threshold_forces_presentation() {
        let mut q = InputQueue::new(QueueKind::Primary, 64, 65536, TimerPair::us(20, 1000), 2);
        assert_eq!(
            q.accept(Instant::ZERO, &[], 60000, FrameTag::WIRE),
            Ok(AcceptOutcome::Held)
        );
        assert_eq!(
            q.accept(Instant::ZERO, &[], 60000, FrameTag::WIRE),
            Ok(AcceptOutcome::PresentNow(PresentCause::Threshold))
        );
    }

    #[test]
    fn the_last_sbal_fills_before_the_queue_is_full() {
        // Two SBALs of storage and a threshold of sixteen: frames pack into
        // the last SBAL until one does not fit; only then is it full.
        let mut q = InputQueue::new(QueueKind::Primary, 2, 65536, TimerPair::us(100, 1000), 16);
        for _ in 0..2 * 43 {
            assert_eq!(
                q.accept(Instant::ZERO, &[], 1500, FrameTag::WIRE),
                Ok(AcceptOutcome::Held)
            );
        }
        assert_eq!(
            q.accept(Instant::ZERO, &[], 1500, FrameTag::WIRE),
            Err(DropReason::NoReadBuffer)
        );
        assert!(q.full());
    }

    #[test]
    fn oversized_frames_are_refused() {
        let mut q = q(20, 40);
        assert_eq!(
            q.accept(Instant::ZERO, &[], 70000, FrameTag::WIRE),
            Err(DropReason::FrameTooLarge)
        );
    }

    #[test]
    fn gap_restarts_block_does_not() {
        let mut q = q(20, 100);
        q.accept(Instant::from_micros(0), &[], 100, FrameTag::WIRE)
            .unwrap();
        q.accept(Instant::from_micros(15), &[], 100, FrameTag::WIRE)
            .unwrap();
        assert_eq!(q.deadline(), Some(Instant::from_micros(35)));
        for t in (30..100).step_by(15) {
            q.accept(Instant::from_micros(t), &[], 100, FrameTag::WIRE)
                .unwrap();
        }
        // Last frame at 90 → gap at 110, but block expires at 100.
        assert_eq!(q.deadline(), Some(Instant::from_micros(100)));
        assert_eq!(
            q.expired(Instant::from_micros(100)),
            Some(PresentCause::BlockTimer)
        );
        let _ = Duration::ZERO;
    }
}
