//! # softosa-replay — capture replay (spec 08 §8.2)
//!
//! Layer: a driver of the sans-IO engine, like the simulator and the live
//! data plane. It reads a packet capture (pcap or pcapng) as a stream, treats
//! it as the traffic an OSA adapter would have seen, and runs it through the
//! engine under the capture's own timestamps once per INBPERF setting, so a
//! user can see side by side how each mode would have sorted and batched it.
//!
//! Modules:
//! - [`capture`]: streaming pcap/pcapng reader, normalising every record to
//!   an Ethernet frame plus timestamp.

pub mod capture;
