//! Counters (layer: engine, observation; spec 05 §5.2).
//!
//! Plain structs, so the simulator, the live plane, the replayer and the
//! displays all observe the engine the same way. Every field a display shows
//! lives here. Counters are `u64`; the VTAM display splits them into an
//! overflow word and a 32-bit count.

use serde::{Deserialize, Serialize};

/// Why a frame (inbound) or packet (outbound) was not delivered. Serialized
/// as its [`DropReason::id`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// Headers could not be read (FRINVCT).
    InvalidFrame,
    /// No empty read buffer (NOREADS).
    NoReadBuffer,
    /// Larger than one SBAL can hold.
    FrameTooLarge,
    /// Addressed to a MAC no interface owns.
    UnknownMac,
    /// VLAN tag matched no interface.
    VlanMismatch,
    /// Unicast IP no stack registered, and no PRIROUTER/SECROUTER.
    NoRoute,
    /// ROUTELCL VMAC got traffic for an address it has not registered.
    NotLocal,
    /// Protocol the interface does not take (layer 3 gets IP and ARP only).
    UnsupportedProtocol,
    /// ARP not for any registered address.
    ArpNotForUs,
    /// Injected frame error (live plane CRC-error emulation).
    InjectedError,
    /// A write queue was full.
    WriteQueueFull,
    /// Waiting too long, or too many waiting, for ARP resolution.
    ArpUnresolved,
    /// ISOLATE forbade delivery between sharing stacks.
    Isolated,
    /// A stack sent on an interface that is not active.
    InterfaceInactive,
    /// Sent packet could not be parsed.
    InvalidSend,
}

impl DropReason {
    pub const ALL: [DropReason; 15] = [
        DropReason::InvalidFrame,
        DropReason::NoReadBuffer,
        DropReason::FrameTooLarge,
        DropReason::UnknownMac,
        DropReason::VlanMismatch,
        DropReason::NoRoute,
        DropReason::NotLocal,
        DropReason::UnsupportedProtocol,
        DropReason::ArpNotForUs,
        DropReason::InjectedError,
        DropReason::WriteQueueFull,
        DropReason::ArpUnresolved,
        DropReason::Isolated,
        DropReason::InterfaceInactive,
        DropReason::InvalidSend,
    ];
    pub fn index(self) -> usize {
        self as usize
    }
    /// The reason's stable identifier in JSON output (`invalid_frame`):
    /// snake_case, kept when the Rust name or the label changes.
    pub fn id(self) -> &'static str {
        match self {
            DropReason::InvalidFrame => "invalid_frame",
            DropReason::NoReadBuffer => "no_read_buffer",
            DropReason::FrameTooLarge => "frame_too_large",
            DropReason::UnknownMac => "unknown_mac",
            DropReason::VlanMismatch => "vlan_mismatch",
            DropReason::NoRoute => "no_route",
            DropReason::NotLocal => "not_local",
            DropReason::UnsupportedProtocol => "unsupported_protocol",
            DropReason::ArpNotForUs => "arp_not_for_us",
            DropReason::InjectedError => "injected_error",
            DropReason::WriteQueueFull => "write_queue_full",
            DropReason::ArpUnresolved => "arp_unresolved",
            DropReason::Isolated => "isolated",
            DropReason::InterfaceInactive => "interface_inactive",
            DropReason::InvalidSend => "invalid_send",
        }
    }
    /// The reason in words, for reports (and the key the replay's and the
    /// lab's JSON use).
    pub fn label(self) -> &'static str {
        match self {
            DropReason::InvalidFrame => "invalid frame",
            DropReason::NoReadBuffer => "no read buffer (NOREADS)",
            DropReason::FrameTooLarge => "frame larger than an SBAL",
            DropReason::UnknownMac => "unknown destination MAC",
            DropReason::VlanMismatch => "VLAN matches no interface",
            DropReason::NoRoute => "no stack registered the address and no router stack",
            DropReason::NotLocal => "ROUTELCL: address not registered",
            DropReason::UnsupportedProtocol => "protocol not taken by a layer-3 interface",
            DropReason::ArpNotForUs => "ARP for an unregistered address",
            DropReason::InjectedError => "injected frame error",
            DropReason::WriteQueueFull => "write queue full",
            DropReason::ArpUnresolved => "next hop not resolved by ARP",
            DropReason::Isolated => "ISOLATE: no forwarding between sharing stacks",
            DropReason::InterfaceInactive => "interface not active",
            DropReason::InvalidSend => "sent packet could not be parsed",
        }
    }
}

/// Counts by [`DropReason`]. Serialized as an object of every reason's
/// [`DropReason::id`] to its count, zeros included, in the order of
/// [`DropReason::ALL`] (`{"invalid_frame": 0, "no_read_buffer": 2, ...}`);
/// read back from one, a reason it leaves out counting 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DropCounts(pub [u64; DropReason::ALL.len()]);

impl Serialize for DropCounts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(DropReason::ALL.len()))?;
        for r in DropReason::ALL {
            m.serialize_entry(r.id(), &self.get(r))?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for DropCounts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m = std::collections::BTreeMap::<DropReason, u64>::deserialize(d)?;
        let mut c = DropCounts::default();
        for (r, n) in m {
            c.0[r.index()] = n;
        }
        Ok(c)
    }
}

impl DropCounts {
    pub fn add(&mut self, r: DropReason) {
        self.0[r.index()] += 1;
    }
    pub fn get(&self, r: DropReason) -> u64 {
        self.0[r.index()]
    }
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
    /// Non-zero reasons, in a fixed order.
    pub fn nonzero(&self) -> impl Iterator<Item = (DropReason, u64)> + '_ {
        DropReason::ALL
            .iter()
            .map(|r| (*r, self.get(*r)))
            .filter(|(_, n)| *n > 0)
    }
}

/// VTAM tuning statistics of one read (input) queue (`DIR = RD/n`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadQueueCounters {
    /// Real interrupts (PCIREAL).
    pub pcireal: u64,
    /// Presentations the host found while already servicing the queue (PCIVIRT).
    pub pcivirt: u64,
    /// Presentations forced by the buffer threshold (PCITHRSH).
    pub pcithrsh: u64,
    /// Interrupts that found nothing to do (PCIUNPRD).
    pub pciunprd: u64,
    /// OLM early interrupts (EARLYINT).
    pub earlyint: u64,
    /// Read processing deferred (RPROCDEF): presentations made while the
    /// host still held an earlier batch of this queue.
    pub rprocdef: u64,
    /// Read buffer replenishment deferred (RREPLDEF): frames that arrived
    /// while fewer than a quarter of the read buffers were empty.
    pub rrepldef: u64,
    /// No read buffer available: frames dropped (NOREADS).
    pub noreads: u64,
    /// SBALs filled (SBALCNT).
    pub sbalcnt: u64,
    /// Packets presented (PACKCNT).
    pub packcnt: u64,
    /// Bytes presented (BYTECNT).
    pub bytecnt: u64,
    /// Invalid frames (FRINVCT).
    pub frinvct: u64,
    /// Packets forwarded by the accelerator (PKTIQD).
    pub pktiqd: u64,
    /// Bytes forwarded by the accelerator (BYTIQD).
    pub bytiqd: u64,
    /// Presentations by cause (ours, for reports).
    pub presentations_gap: u64,
    pub presentations_block: u64,
    pub presentations_immediate: u64,
    /// Sum of hold delays (presentation − arrival) in nanoseconds.
    pub hold_ns_total: u64,
    /// Timer retunes by the DYNAMIC tuner.
    pub retunes: u64,
}

impl ReadQueueCounters {
    /// Every presentation (interrupt or not).
    pub fn presentations(&self) -> u64 {
        self.pcireal + self.pcivirt
    }
}

/// Statistics of one write (output) queue (`DIR = WR/n`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteQueueCounters {
    pub bytecnt: u64,
    pub packcnt: u64,
    pub sbalcnt: u64,
    /// Write signals from the host (SIGA-w).
    pub sigas: u64,
    /// Writes the adapter found without a signal (OLM SIGA reduction).
    pub sigas_avoided: u64,
    /// Refused because the queue was full.
    pub discards: u64,
    /// Deepest the queue has been, in frames.
    pub max_depth: u64,
}

/// Segmentation offload totals (session report of spec 03 §3.2).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OffloadCounters {
    pub sends: u64,
    pub segments: u64,
    pub bytes: u64,
    /// Large segments the engine had to cut although offload did not apply
    /// (to a sharing stack, IPsec, multipath): the stack would have segmented.
    pub excluded: u64,
}

/// Interface statistics (Netstat DEVLINKS `INTERFACE STATISTICS`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterfaceCounters {
    pub bytes_in: u64,
    pub packets_in: u64,
    pub packets_in_error: u64,
    pub packets_in_discarded: u64,
    pub unicast_in: u64,
    pub multicast_in: u64,
    pub broadcast_in: u64,
    pub bytes_out: u64,
    pub packets_out: u64,
    pub packets_out_discarded: u64,
    pub unicast_out: u64,
    pub broadcast_out: u64,
    pub offload: OffloadCounters,
    /// Inbound TCP segments a BULKDATA queue presented (Netstat STATS).
    pub segments_on_bulk_queue: u64,
}

/// Per-stack counters of the stack-side agent (bulk detector, registrations).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackCounters {
    pub bulk_registrations: u64,
    pub bulk_deregistrations: u64,
    /// Registrations the adapter refused (table full).
    pub registrations_refused: u64,
    /// Connections not tracked because the tracking table was full.
    pub connections_not_tracked: u64,
    pub accel_routes_learned: u64,
    pub accel_routes_refused: u64,
}

/// Whole-engine totals; the accounting identity is checked over these.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineCounters {
    /// Frames handed to `handle_wire_frame` plus frames delivered internally
    /// (between sharing stacks, HiperSockets) into an input queue.
    pub frames_in: u64,
    /// Frames presented to a stack (counted once, however many copies).
    pub presented: u64,
    /// Extra copies of broadcast/multicast frames presented to more stacks.
    pub replicated: u64,
    /// Frames forwarded by the accelerator without the host.
    pub forwarded: u64,
    /// Frames answered or consumed by the adapter itself (ARP offload).
    pub handled: u64,
    /// Frames dropped, by reason (inbound).
    pub dropped_in: DropCounts,
    /// Packets the stacks sent.
    pub sends: u64,
    /// Frames put on a wire.
    pub transmitted: u64,
    /// Sent packets delivered inside the adapter to another stack.
    pub delivered_internally: u64,
    /// Sent packets dropped, by reason (outbound).
    pub dropped_out: DropCounts,
    /// Engine events the driver did not collect in time (oldest dropped).
    pub events_lost: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids are snake_case, one per reason, and what serde writes for it.
    #[test]
    fn drop_reason_ids_are_snake_case_unique_and_serialized() {
        let mut seen = Vec::new();
        for (i, r) in DropReason::ALL.iter().enumerate() {
            assert_eq!(r.index(), i);
            let id = r.id();
            assert!(
                !id.is_empty()
                    && id
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                    && !id.starts_with('_')
                    && !id.ends_with('_')
                    && !id.contains("__"),
                "{id}"
            );
            assert!(!seen.contains(&id), "{id} twice");
            seen.push(id);
            assert_eq!(
                serde_json::to_value(r).ok(),
                Some(serde_json::Value::from(id))
            );
            assert_eq!(
                serde_json::from_value::<DropReason>(serde_json::Value::from(id)).ok(),
                Some(*r)
            );
        }
        assert_eq!(DropReason::InvalidFrame.id(), "invalid_frame");
    }

    /// Drop counts are an object of every reason's id, zeros included, in
    /// the order of ALL, and read back as they were.
    #[test]
    fn drop_counts_serialize_by_id() {
        let mut c = DropCounts::default();
        c.add(DropReason::NoReadBuffer);
        c.add(DropReason::NoReadBuffer);
        c.add(DropReason::InvalidSend);
        let text = serde_json::to_string(&c).unwrap_or_default();
        let expected: Vec<String> = DropReason::ALL
            .iter()
            .map(|r| format!("\"{}\":{}", r.id(), c.get(*r)))
            .collect();
        assert_eq!(text, format!("{{{}}}", expected.join(",")));
        assert!(text.contains("\"no_read_buffer\":2"), "{text}");
        assert_eq!(
            serde_json::from_str::<DropCounts>(&text).ok(),
            Some(c.clone())
        );
        let few = serde_json::from_str::<DropCounts>(r#"{"invalid_send": 1}"#).ok();
        let mut one = DropCounts::default();
        one.add(DropReason::InvalidSend);
        assert_eq!(few, Some(one));
        assert!(serde_json::from_str::<DropCounts>(r#"{"InvalidSend": 1}"#).is_err());
        assert!(serde_json::from_str::<DropCounts>("[0, 1]").is_err());
    }
}
