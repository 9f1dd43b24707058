//! Write-queue selection (layer: engine, outbound; spec 03 §3.1, 02 §2.4).
//!
//! In order: an active QoS policy maps the masked TOS byte; else
//! `WLMPRIORITYQ` maps the sender's WLM importance (for TOS 0 and, with FWD,
//! forwarded packets); else the configured defaults. OLM folds queues 1–3
//! into queue 1. HiperSockets has a single write queue.

use super::WlmClass;
use crate::config::{StackConfig, TosPolicy};

/// Queue (1–4) for a packet with `tos`, sent by an application of class `wlm`
/// (or forwarded), on an OSA interface with or without OLM.
pub fn select(
    stack: &StackConfig,
    tos: u8,
    wlm: Option<WlmClass>,
    forwarded: bool,
    olm: bool,
) -> u8 {
    let q = base_queue(stack, tos, wlm, forwarded).clamp(1, 4);
    if olm && q <= 3 {
        1
    } else {
        q
    }
}

fn base_queue(stack: &StackConfig, tos: u8, wlm: Option<WlmClass>, forwarded: bool) -> u8 {
    if let Some(p) = &stack.tos_policy {
        if let Some(q) = by_tos(p, tos) {
            return q;
        }
    }
    if let Some(m) = &stack.wlm_priorityq {
        if forwarded {
            return m.forwarded_queue;
        }
        if tos == 0 {
            match wlm {
                Some(WlmClass::System) => return 1,
                Some(c) => {
                    if let Some(v) = c.control_value() {
                        return m.queue_for[v];
                    }
                }
                None => {}
            }
        }
    }
    if forwarded {
        stack.default_forward_queue
    } else {
        stack.default_queue
    }
}

/// The first `PriorityTosMapping` whose pattern equals the masked TOS.
pub fn by_tos(p: &TosPolicy, tos: u8) -> Option<u8> {
    let masked = tos & p.mask;
    p.mappings
        .iter()
        .find(|(_, pattern)| pattern & p.mask == masked)
        .map(|(q, _)| *q)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::WlmPriorityMap;

    #[test]
    fn default_tos_table() {
        let p = TosPolicy::default();
        for (tos, q) in [
            (0xe0, 1),
            (0xc0, 1),
            (0xa0, 1),
            (0x80, 1),
            (0x60, 2),
            (0x40, 3),
            (0x20, 4),
            (0x00, 4),
        ] {
            assert_eq!(by_tos(&p, tos | 0x1f), Some(q), "tos {tos:#x}");
        }
    }

    #[test]
    fn policy_wins_over_wlm_and_defaults() {
        let mut s = StackConfig::new("TCPCS1");
        assert_eq!(
            select(&s, 0x60, Some(WlmClass::Importance(5)), false, false),
            1
        );
        assert_eq!(select(&s, 0, None, true, false), 4);
        s.wlm_priorityq = Some(WlmPriorityMap::default());
        assert_eq!(
            select(&s, 0, Some(WlmClass::Importance(2)), false, false),
            3
        );
        assert_eq!(
            select(&s, 0, Some(WlmClass::Importance(3)), false, false),
            3
        );
        assert_eq!(
            select(&s, 0, Some(WlmClass::Importance(1)), false, false),
            2
        );
        assert_eq!(select(&s, 0, Some(WlmClass::SysStc), false, false), 1);
        assert_eq!(select(&s, 0, Some(WlmClass::System), false, false), 1);
        assert_eq!(
            select(&s, 0, Some(WlmClass::Discretionary), false, false),
            4
        );
        assert_eq!(select(&s, 0, None, true, false), 4);
        // WLM applies only to TOS 0.
        assert_eq!(
            select(&s, 0x60, Some(WlmClass::Importance(5)), false, false),
            1
        );
        s.tos_policy = Some(TosPolicy::default());
        assert_eq!(
            select(&s, 0x60, Some(WlmClass::Importance(5)), false, false),
            2
        );
    }

    #[test]
    fn olm_folds_one_to_three() {
        let mut s = StackConfig::new("TCPCS1");
        s.tos_policy = Some(TosPolicy::default());
        assert_eq!(select(&s, 0x40, None, false, true), 1);
        assert_eq!(select(&s, 0x60, None, false, true), 1);
        assert_eq!(select(&s, 0x00, None, false, true), 4);
    }
}
