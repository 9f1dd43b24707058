//! Outbound path (layer: engine; spec 03): which of the four write queues a
//! packet uses, and TCP segmentation offload.

pub mod prio;
pub mod tso;

use serde::{Deserialize, Serialize};

/// The WLM service class of the sending application (spec 03 §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WlmClass {
    /// SYSTEM: always queue 1.
    System,
    /// SYSSTC: control value 0.
    SysStc,
    /// Importance 1–5: control values 1–5.
    Importance(u8),
    /// Discretionary: control value 6.
    Discretionary,
}

impl WlmClass {
    /// The WLMPRIORITYQ control value (None for SYSTEM).
    pub fn control_value(self) -> Option<usize> {
        match self {
            WlmClass::System => None,
            WlmClass::SysStc => Some(0),
            WlmClass::Importance(i) => Some(usize::from(i.clamp(1, 5))),
            WlmClass::Discretionary => Some(6),
        }
    }
}
