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
//! - [`unusable`]: why a frame's headers cannot be replayed (cut by the
//!   snap length, malformed), each counted under its own reason.
//! - [`config`]: profile (via softosa-profile) to engine configuration.
//! - [`replay`]: drives the engine with the capture, one run per INBPERF mode.
//! - [`stats`]: bounded histograms and time series for the reports.
//! - [`report`]: text (modes side by side) and JSON reports.
//! - [`html`]: self-contained HTML report with SVG charts and timelines.
//! - [`cli`]: `softosa replay` arguments and entry point.
//! - [`annotate`]: the annotated pcapng (packet comments) writer.
//! - [`smcat`], [`zert`]: SMC applicability and encryption readiness from
//!   the same replay (spec 04 §4.5, §4.3).

pub mod annotate;
pub mod capture;
pub mod cli;
pub mod config;
pub mod html;
pub mod replay;
pub mod report;
pub mod smcat;
pub mod stats;
pub mod unusable;
pub mod zert;
