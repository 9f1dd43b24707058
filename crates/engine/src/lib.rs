//! # softosa-engine — the sans-IO adapter engine
//!
//! This crate is the software OSA-Express (QDIO) and HiperSockets adapter of
//! softosa, plus the stack-side agent that z/OS runs beside it (spec parts
//! 01 adapter, 02 inbound, 03 outbound and forwarding). It performs **no
//! I/O**: it never reads a clock, sleeps, spawns or touches a socket. Every
//! call takes `now` ([`Instant`], nanoseconds from the driver's origin), and
//! the engine answers with what to do and when it next needs to be called.
//! Three drivers run it: the simulator (virtual time), the live data plane
//! (wall clock, real packets) and the capture replayer (pcap timestamps).
//!
//! ## Call order
//! ```text
//! let mut e = Engine::new(config)?;            // activates every interface
//! loop {
//!     // inputs, in time order, each with the current `now`:
//!     e.handle_wire_frame(now, port, frame);    // from the LAN
//!     e.handle_host_send(now, iface, pkt, meta);// from a stack
//!     e.handle_timeout(now);                    // when poll_timeout() is due
//!     // outputs, drained after every input:
//!     while let Some(p) = e.poll_presentation() {   // batches for the host
//!         e.begin_service(now, p.iface, p.queue);
//!         for f in e.batch_frames(p.batch) { /* hand to the stack */ }
//!         e.complete_batch(now, p.batch);           // buffers back
//!         e.end_service(now, p.iface, p.queue);
//!     }
//!     while let Some(tx) = e.poll_transmit(now, port, &mut buf) { /* wire */ }
//!     while let Some(ev) = e.poll_event() { /* log, plot */ }
//!     let next = e.poll_timeout();              // sleep or schedule until then
//! }
//! ```
//! `handle_timeout` may be called early or twice: it only acts on expired
//! timers. A host may hold a batch (not call `complete_batch`) while its
//! unit of work runs; the buffers stay with the host and, if it holds too
//! many, frames are dropped and counted as NOREADS.
//!
//! ## Invariants
//! - Nothing is lost silently: [`Engine::accounting`] satisfies
//!   `frames in + copies = presented + held + forwarded + handled + dropped`,
//!   drops counted by [`counters::DropReason`].
//! - Memory is bounded by configuration: read storage per queue, write
//!   queue depth, registration and tracking tables, the event queue.
//! - Deterministic: no hash-order or clock leaks; same inputs, same outputs.
//!
//! ## Modules
//! - [`config`]: typed configuration (what a profile becomes).
//! - [`wire`]: frame parsing into [`wire::FrameInfo`], builders, checksums.
//! - [`inbound`]: input queues and LAN-idle timers, the DYNAMIC tuner, the
//!   bulk detector.
//! - [`outbound`]: write-queue selection and segmentation offload.
//! - [`engine`]: the [`Engine`] tying it together (data router, IWQ,
//!   OLM, accelerator, ARP offload).
//! - [`counters`]: every counter the displays show.

pub mod bench_support;
pub mod config;
pub mod counters;
pub mod engine;
pub mod inbound;
pub mod outbound;
pub mod time;
pub mod util;
pub mod wire;

pub use config::SystemConfig;
pub use engine::{
    Accounting, ActivateError, BatchId, Disposition, Engine, Event, IfaceId, Interface, InvalidAt,
    PortId, Presentation, PresentedFrame, SendMeta, SendOutcome, StackId, TxMeta, VmacOrigin,
};
pub use inbound::{PresentCause, QueueKind};
pub use outbound::WlmClass;
pub use time::Instant;
pub use wire::Frame;
