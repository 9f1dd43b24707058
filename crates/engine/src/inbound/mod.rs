//! Inbound path (layer: engine; spec 02): input queues with their LAN-idle
//! timers, the DYNAMIC tuner, and the stack-side bulk detector that drives
//! inbound workload queueing.

pub mod bulk;
pub mod queue;
pub mod tuner;

use serde::{Deserialize, Serialize};

/// The input queues of one interface (spec 02 §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum QueueKind {
    Primary,
    BulkData,
    SysDist,
    Ee,
    Ipsec,
}

impl QueueKind {
    pub const ALL: [QueueKind; 5] = [
        QueueKind::Primary,
        QueueKind::BulkData,
        QueueKind::SysDist,
        QueueKind::Ee,
        QueueKind::Ipsec,
    ];
    /// Queue number as displays show it (`RD/1` ... `RD/5`, `Queue ID: 2`).
    pub fn id(self) -> u8 {
        self as u8 + 1
    }
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn label(self) -> &'static str {
        match self {
            QueueKind::Primary => "PRIMARY",
            QueueKind::BulkData => "BULKDATA",
            QueueKind::SysDist => "SYSDIST",
            QueueKind::Ee => "EE",
            QueueKind::Ipsec => "IPSEC",
        }
    }
}

/// Why a batch was presented.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PresentCause {
    /// The inter-packet gap timer expired.
    GapTimer,
    /// The block hold timer expired.
    BlockTimer,
    /// The batch filled its buffer threshold (PCITHRSH).
    Threshold,
    /// OLM early interrupt on the first frame of a batch.
    Early,
    /// Presented on arrival: zero timers, HiperSockets, or a host that is
    /// polling the queue (OLM).
    Immediate,
}
