//! HiperSockets (IQD, "internal QDIO") LAN (simulator layer; spec 1.6, 3.1
//! "HiperSockets has no priority queueing", 7.2 VSE measurements).
//!
//! A HiperSockets CHPID is a LAN inside one machine. There is no adapter
//! microprocessor, no cable, no switch and no LAN-idle timer: the *sending*
//! CPU moves each frame from its output buffer into a free input buffer of
//! the receiving LPAR inside its write instruction (SIGA), synchronously, so
//! the move is CPU time of the sender (a fixed part per write plus a part per
//! byte). The receiver is then signalled and processes the frame like any
//! other inbound frame. If the receiver has no free input buffer the write
//! fails; the frame is counted as dropped and TCP recovers.
//!
//! The CHPID's maximum frame size (MFS: 16, 24, 40 or 64 KB) fixes the MTU
//! (8, 16, 32 or 56 KB).

use crate::params::IqdModel;

/// The IP MTU of a HiperSockets CHPID with maximum frame size `mfs_kb`
/// (None for a size the hardware does not offer).
pub fn mtu_for_mfs(mfs_kb: u32) -> Option<u32> {
    match mfs_kb {
        16 => Some(8 * 1024),
        24 => Some(16 * 1024),
        40 => Some(32 * 1024),
        64 => Some(56 * 1024),
        _ => None,
    }
}

/// A host's attachment to the HiperSockets LAN.
#[derive(Clone, Debug, PartialEq)]
pub struct IqdAttach {
    pub model: IqdModel,
    /// Maximum frame size of the CHPID, KB.
    pub mfs_kb: u32,
}

impl IqdAttach {
    /// Sender CPU for moving one frame of `frame_bytes` (IP packet plus the
    /// QDIO header). At least a nanosecond, as a frame on a link takes: a
    /// model with every cost at 0 would otherwise exchange requests and
    /// responses forever without virtual time moving.
    pub fn move_cost(&self, frame_bytes: u32) -> u64 {
        let copy = u64::from(frame_bytes).saturating_mul(self.model.byte_ps) / 1000;
        self.model.siga_ns.saturating_add(copy).max(1)
    }
}

/// Bytes one IP packet with `payload` TCP bytes occupies in an IQD buffer:
/// the 32-byte QDIO header, IPv4 and TCP headers, the payload.
pub fn frame_bytes(payload: u32) -> u32 {
    32 + 40 + payload
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moving_a_frame_takes_time_even_in_a_model_of_no_costs() {
        let free = IqdAttach {
            model: IqdModel {
                siga_ns: 0,
                byte_ps: 0,
                ..z800().model
            },
            mfs_kb: 16,
        };
        assert_eq!(free.move_cost(frame_bytes(1)), 1);
        let dear = IqdAttach {
            model: IqdModel {
                byte_ps: u64::MAX,
                ..z800().model
            },
            mfs_kb: 16,
        };
        assert_eq!(dear.move_cost(100), u64::MAX / 1000 + 10_000);
    }

    fn z800() -> IqdAttach {
        IqdAttach {
            model: IqdModel {
                siga_ns: 10_000,
                byte_ps: 500,
                zos_byte_ps: 0,
                latency_ns: 1_000,
                in_buffers: 126,
            },
            mfs_kb: 16,
        }
    }

    #[test]
    fn mfs_sets_the_mtu() {
        assert_eq!(mtu_for_mfs(16), Some(8192));
        assert_eq!(mtu_for_mfs(24), Some(16384));
        assert_eq!(mtu_for_mfs(40), Some(32768));
        assert_eq!(mtu_for_mfs(64), Some(57344));
        assert_eq!(mtu_for_mfs(32), None);
    }

    #[test]
    fn move_cost_grows_with_the_frame() {
        let a = z800();
        let small = a.move_cost(frame_bytes(100));
        let big = a.move_cost(frame_bytes(8152));
        assert_eq!(small, 10_000 + 172 * 500 / 1000);
        assert!(big > small);
        // Per byte, a big frame is far cheaper: the fixed write dominates
        // small frames.
        assert!(big as f64 / 8224.0 < small as f64 / 172.0 / 10.0);
    }
}
