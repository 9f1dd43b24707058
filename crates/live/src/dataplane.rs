//! The live data plane's threads (spec 8.1): wall clock in, frames between
//! the wire socket, the engine and the host devices.
//!
//! ```text
//!  thread sosa-wq<i>.0 (first input queue; also the wire reader and timer)
//!     ppoll(packet fd, timer eventfd, its device queue fd, its mailbox; deadline)
//!     recvmmsg ─┐                                       lock core:
//!     read fd  ─┼─ handle_wire_frame…, handle_host_send…, complete_batch,
//!               │  handle_timeout, poll_presentation → mailboxes (own: written at once),
//!               └─ poll_transmit (paced) → sendmmsg after the lock
//!  thread sosa-q<i>.<q> (every other input queue)
//!     ppoll(its device queue fd, its mailbox) → write presented batches,
//!     read host frames, same locked section
//! ```
//!
//! **Locking, not a dedicated engine thread.** The engine is one object
//! behind a `Mutex`. Each engine call is short (microseconds for a batch),
//! so contention is low, and whichever I/O thread holds the data calls the
//! engine directly: no extra thread hop (a futex wake of several µs on this
//! kind of machine) on either path, which is what the round-trip target
//! needs. Frames are copied out of the engine under the lock into pooled
//! buffers and written after it is released, so device and socket I/O never
//! happen under the lock.
//!
//! **One thread per input queue.** Each presented batch goes to the mailbox
//! of the thread owning that input queue, which writes it frame by frame on
//! its own queue fd of the multi-queue TAP/TUN device and then returns the
//! buffers (`complete_batch`), so queues are serviced concurrently as on
//! z/OS. The same thread reads the host's outbound frames from that fd (the
//! kernel spreads the host's flows over the queues).
//!
//! **Sleeping.** The timer-serving thread sleeps in `ppoll` with a
//! nanosecond timeout computed from the engine's next deadline (timer slack
//! 1 ns, SCHED_FIFO), and is woken by an eventfd when another thread's
//! engine call moved the deadline earlier. Any thread whose engine call makes
//! a timer due at once serves it in the same locked section (zero timers).
//! A presentation on the thread's own queue is written at once, before
//! its buffers are returned (no extra pass before the stack sees it).
//!
//! **Per-CPU mode** (`PlaneConfig::per_cpu_wires`, one interface with one
//! input queue): one thread per CPU, pinned, each with its own wire socket
//! (a `PACKET_FANOUT_CPU` group: the frames the kernel handled on CPU k)
//! and its own queue of the TUN/TAP device. A thread presents what it
//! drains on its own device queue, and the device's flow steering sends
//! the stack's answers back on the queue that carried the flow's last
//! frame: a request/response flow stays on the CPU of the task that sent
//! it, and every hand-off is a wake-up on the same CPU.
//!
//! **Wake-up latency.** While frames flow, the plane can hold a 0 µs CPU
//! wake-up latency request, so idle CPUs poll instead of halting and the
//! stacks' tasks (and these threads) are woken without a vCPU wake-up.
//! Optional: a dedicated timer thread, and an adaptive spin ([`Spinner`])
//! that polls instead of sleeping right after activity (both measured
//! slower on a shared 2-core machine; see docs/live.md).

use std::collections::VecDeque;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::control::{DisplayRequest, Metric, Refusal, StatusSource};
use crate::fault::FaultInjector;
use crate::sys::{self, EventFd, RecvBatch};
use crate::vnet::{self, Framing, VnetHdr, VNET_HDR_LEN};

/// Largest frame handled (a 64 KB GSO segment plus headers).
pub const MAX_FRAME: usize = 65_536 + 256;
/// Frames received from the wire per `recvmmsg`.
pub const WIRE_BATCH: usize = 32;
/// Host frames read per queue-thread wakeup before the engine is called.
pub const HOST_BATCH: usize = 32;

/// The monotonic clock of a run: nanoseconds since start.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    start: std::time::Instant,
}

impl Clock {
    pub fn new() -> Clock {
        Clock {
            start: std::time::Instant::now(),
        }
    }
    pub fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

impl Default for Clock {
    fn default() -> Self {
        Clock::new()
    }
}

/// A presented batch copied out of the core, for one input queue thread.
#[derive(Debug, Default)]
pub struct OutBatch {
    /// Engine interface index.
    pub iface: usize,
    /// Input queue index within the interface.
    pub queue: usize,
    /// Opaque handle to return with [`Core::complete`].
    pub handle: u64,
    pub frames: Vec<Vec<u8>>,
    pub len: usize,
}

impl OutBatch {
    /// Append a frame, reusing pooled buffers.
    pub fn push(&mut self, data: &[u8]) {
        if self.len == self.frames.len() {
            self.frames.push(Vec::with_capacity(data.len()));
        }
        let b = &mut self.frames[self.len];
        b.clear();
        b.extend_from_slice(data);
        self.len += 1;
    }
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

/// What the threads drive: the engine (see `engine_core`) or the plain
/// passthrough bridge used to measure the plumbing alone.
pub trait Core: Send + 'static {
    /// A frame from the LAN on `port`.
    fn wire_frame(&mut self, now: u64, port: usize, frame: &[u8]);
    /// A frame the stack behind `iface` sent; `last` ends one read batch
    /// (the host's write signal).
    fn host_send(&mut self, now: u64, iface: usize, frame: &[u8], last: bool);
    /// Timers due at `now`.
    fn timeout(&mut self, now: u64);
    /// When the core next needs [`Core::timeout`].
    fn deadline(&self) -> Option<u64>;
    /// Copy the next presented batch into `out`; false if none.
    fn presentation(&mut self, now: u64, out: &mut OutBatch) -> bool;
    /// The host has processed batch `handle` of `iface`.
    fn complete(&mut self, now: u64, iface: usize, handle: u64);
    /// Copy the next frame to send on `port` into `out`; false if none.
    fn transmit(&mut self, now: u64, port: usize, out: &mut Vec<u8>) -> bool;
    /// Whether frames wait to be transmitted on `port`.
    fn tx_pending(&self, port: usize) -> bool;
    /// A frame the driver could not deliver (device or socket error).
    fn driver_drop(&mut self, reason: DriverDrop);
    /// The frame accounting identity's terms.
    fn accounting(&self) -> Accounting;
    /// Render a display (`softosa display KIND [--intf NAME]`).
    fn display(&self, req: &DisplayRequest) -> Result<String, Refusal>;
    /// Core metric samples.
    fn metrics(&self) -> Vec<Metric>;
    /// Which input queue each TCP connection's inbound packets use now, and
    /// when it was first seen on BULKDATA (ns since start).
    fn placements(&self) -> Vec<Placement>;
}

/// Terms of "frames in = presented + forwarded + handled + dropped".
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Accounting {
    pub frames_in: u64,
    pub presented: u64,
    pub forwarded: u64,
    pub handled: u64,
    /// Inbound drops by reason (engine reasons and the injected CRC errors).
    pub dropped: Vec<(String, u64)>,
    /// Frames still held in input queues (zero after a quiet period).
    pub held: u64,
    /// Outbound frames (from the stacks) dropped, by reason: a full write
    /// queue, a failed wire send. Not part of the inbound identity.
    pub dropped_out: Vec<(String, u64)>,
}

impl Accounting {
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().map(|d| d.1).sum()
    }
    /// Whether every frame is accounted for.
    pub fn balanced(&self) -> bool {
        self.frames_in
            == self.presented + self.forwarded + self.handled + self.dropped_total() + self.held
    }
}

/// Queue placement of one TCP connection.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Placement {
    /// Local (stack) port and remote (client) port.
    pub local_port: u16,
    pub remote_port: u16,
    /// Queue label of its most recent inbound packet (PRIMARY, BULKDATA, ...).
    pub queue: String,
    /// When its inbound packets first went to BULKDATA (ns), if ever.
    pub bulk_since: Option<u64>,
    /// Inbound packets per input queue (PRIMARY, BULKDATA, SYSDIST, EE, IPSEC).
    pub per_queue: [u64; 5],
    /// Time its inbound packets waited in the adapter (arrival from the
    /// wire to presentation), median and 99th percentile, µs (1 µs buckets).
    pub hold_p50_us: Option<f64>,
    pub hold_p99_us: Option<f64>,
    /// Time its single-frame sends waited on a write queue (host send to
    /// transmission), median and 99th percentile, µs.
    pub out_wait_p50_us: Option<f64>,
    pub out_wait_p99_us: Option<f64>,
    /// Its sends the adapter refused (write queue full).
    pub out_refused: u64,
    /// When it was first seen (ns).
    pub first_seen: u64,
}

/// Frames the driver itself lost, by reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DriverDrop {
    /// Injected frame error (CRC).
    Crc,
    /// A wire frame whose virtio-net header offsets do not fit the frame.
    BadOffload,
    /// Writing a presented frame to the host device failed.
    HostWrite,
    /// Sending on the wire failed.
    WireSend,
    /// A frame larger than the wire MTU that could not be segmented.
    WireOversize,
}

impl DriverDrop {
    /// The reason as both cores' accounting names it.
    pub fn label(self) -> &'static str {
        match self {
            // The engine core counts the same drop under this reason.
            DriverDrop::Crc => softosa_engine::counters::DropReason::InjectedError.label(),
            DriverDrop::BadOffload => "bad virtio-net header (driver)",
            DriverDrop::HostWrite => "host write failed (driver)",
            DriverDrop::WireSend => "wire send failed (driver)",
            DriverDrop::WireOversize => "too large for the wire (driver)",
        }
    }
}

/// Driver-side counters (atomics, read by metrics while running).
#[derive(Debug, Default)]
pub struct DriverStats {
    pub wire_rx_frames: AtomicU64,
    pub wire_rx_bytes: AtomicU64,
    pub wire_rx_batches: AtomicU64,
    pub crc_dropped: AtomicU64,
    pub wire_tx_frames: AtomicU64,
    pub wire_tx_bytes: AtomicU64,
    pub wire_tx_errors: AtomicU64,
    pub wire_tx_segmented: AtomicU64,
    pub host_rx_frames: AtomicU64,
    pub host_rx_bytes: AtomicU64,
    /// Host sends dropped by the driver (unusable virtio-net header).
    pub host_rx_bad: AtomicU64,
    pub host_tx_frames: AtomicU64,
    pub host_tx_bytes: AtomicU64,
    pub host_tx_batches: AtomicU64,
    pub host_tx_errors: AtomicU64,
    pub wakeups: AtomicU64,
    pub timer_wakeups: AtomicU64,
    /// Sum and maximum of how late timers were served (ns).
    pub timer_late_ns_total: AtomicU64,
    pub timer_late_ns_max: AtomicU64,
    /// Times the CPU wake-up latency request was (re)asserted.
    pub qos_holds: AtomicU64,
    /// Non-blocking polls made while spinning, and those that found work.
    pub spin_polls: AtomicU64,
    pub spin_hits: AtomicU64,
}

impl DriverStats {
    fn add(c: &AtomicU64, v: u64) {
        c.fetch_add(v, Ordering::Relaxed);
    }
    pub fn get(c: &AtomicU64) -> u64 {
        c.load(Ordering::Relaxed)
    }
}

/// Device queue of one host interface.
pub struct HostQueue {
    pub iface: usize,
    pub queue: usize,
    pub fd: OwnedFd,
}

/// What to run.
pub struct PlaneConfig {
    /// AF_PACKET socket on the wire veth end (port 0).
    pub wire: OwnedFd,
    /// Per-CPU mode: more wire sockets, in one `PACKET_FANOUT_CPU` group
    /// with `wire`, so socket k receives the frames the kernel handled on
    /// CPU k. Thread k then reads wire socket k and owns device queue k
    /// (`hosts[k]`, all of one interface) and runs on CPU k: a frame is
    /// handed on on the CPU of the task that sent it, and the TUN device's
    /// flow steering returns the stack's answers on the queue (thread, CPU)
    /// that wrote the flow's last frame. Empty: the normal layout.
    pub per_cpu_wires: Vec<OwnedFd>,
    pub hosts: Vec<HostQueue>,
    /// Framing of the host devices (TAP: Ethernet, TUN: IP).
    pub host_framing: Framing,
    /// IP MTU of the wire and of the host devices.
    pub mtu: usize,
    pub fault_rate: f64,
    pub fault_seed: u64,
    /// Adaptive spin: after any work, keep polling the descriptors without
    /// sleeping for this long (and spin toward a deadline nearer than
    /// this) before going back to `ppoll` (zero: always sleep).
    pub busy_poll: Duration,
    /// Hold a 0 µs CPU wake-up latency request (idle CPUs poll instead of
    /// halting) while frames flowed within this long (None: never).
    pub wake_qos: Option<Duration>,
    /// Pace the wire at this many bits per second (0: unpaced), so the
    /// engine's write queues fill as on a real, slower LAN.
    pub wire_bps: u64,
    /// SCHED_FIFO priority of the plane's threads (0: normal scheduling).
    pub realtime_prio: i32,
    /// Nice value of the plane's threads when they are not real-time.
    pub nice: i32,
    /// CPUs the plane's threads may run on (empty: any).
    pub cpus: Vec<usize>,
    /// Serve timers on their own thread (else the wire thread serves them).
    pub timer_thread: bool,
}

/// Burst the pacer lets through ahead of the line rate.
const PACE_BURST_NS: u64 = 100_000;

struct Mailbox {
    q: Mutex<VecDeque<OutBatch>>,
    wake: EventFd,
}

/// Emptied batches kept for reuse, at most this many. One pool for every
/// thread: a batch is filled by whichever thread drains the engine and
/// emptied by the thread owning its device queue, so per-thread pools
/// would drain on one side and grow without bound on the other (and every
/// new batch's buffers fault in fresh pages).
const BATCH_POOL_MAX: usize = 16;

/// The shared pool of emptied batches (see `BATCH_POOL_MAX`).
#[derive(Debug, Default)]
pub struct BatchPool {
    v: Mutex<Vec<OutBatch>>,
}

impl BatchPool {
    /// An emptied batch (with the buffers of an earlier one), or a new one.
    pub fn take(&self) -> OutBatch {
        let mut b = lock(&self.v).pop().unwrap_or_default();
        b.clear();
        b
    }

    /// Keep an emptied batch for reuse, if the pool has room.
    pub fn give(&self, b: OutBatch) {
        let mut v = lock(&self.v);
        if v.len() < BATCH_POOL_MAX {
            v.push(b);
        }
    }

    /// Batches held.
    pub fn len(&self) -> usize {
        lock(&self.v).len()
    }

    /// Whether no batch is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

struct Shared<C: Core> {
    core: Mutex<C>,
    stats: DriverStats,
    stop: AtomicBool,
    wire_fd: RawFd,
    /// Per-CPU mode: every thread presents on its own device queue.
    per_cpu: bool,
    wire_wake: EventFd,
    /// Deadline the wire thread sleeps toward (u64::MAX: none).
    armed: AtomicU64,
    clock: Clock,
    mailboxes: Vec<Mailbox>,
    /// Emptied batches to reuse (bounded by [`BATCH_POOL_MAX`]).
    batch_pool: BatchPool,
    /// (iface, queue) -> mailbox index.
    route: Vec<(usize, usize)>,
    host_framing: Framing,
    mtu: usize,
    fault: Mutex<FaultInjector>,
    busy_poll: Duration,
    /// The CPU wake-up latency request and how long it outlives traffic.
    qos: Option<Mutex<sys::CpuLatencyQos>>,
    qos_held: AtomicBool,
    qos_linger_ns: u64,
    /// When any thread last did work (ns), for the request's linger.
    last_activity: AtomicU64,
    wire_bps: u64,
    realtime_prio: i32,
    nice: i32,
    cpus: Vec<usize>,
    /// When the paced wire is next free (ns).
    pacer: Mutex<u64>,
}

/// A running data plane; stopped on drop.
pub struct Plane<C: Core> {
    shared: Arc<Shared<C>>,
    threads: Vec<JoinHandle<()>>,
    _wire: OwnedFd,
    _wires: Vec<OwnedFd>,
    _hosts: Vec<OwnedFd>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicked holder leaves the data usable (counters, queues).
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn set_timer_slack() {
    // SAFETY: prctl with integer arguments affects only this thread.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}

/// Run the calling thread under SCHED_FIFO at `prio` (the adapter's
/// microprocessor does not wait behind the workload's processes). The
/// threads block in `ppoll` between bursts, and the kernel's real-time
/// throttling still bounds them. Returns false if refused (not root).
fn set_realtime(prio: i32) -> bool {
    let p = libc::sched_param {
        sched_priority: prio,
    };
    // SAFETY: sched_setscheduler on the calling thread (pid 0) with a valid param.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) == 0 }
}

/// Give the calling thread nice value `nice` (Linux keeps the nice value
/// per thread; `who` 0 is the caller, as for `set_realtime`). Returns
/// false if refused.
fn set_nice(nice: i32) -> bool {
    // SAFETY: setpriority with integer arguments affects only this thread.
    unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, nice) == 0 }
}

/// `ppoll` on `fds` with a nanosecond timeout (`None`: wait forever).
fn ppoll(fds: &mut [libc::pollfd], timeout_ns: Option<u64>) {
    let ts;
    let tsp = match timeout_ns {
        Some(ns) => {
            ts = libc::timespec {
                tv_sec: (ns / 1_000_000_000) as libc::time_t,
                tv_nsec: (ns % 1_000_000_000) as libc::c_long,
            };
            &ts as *const libc::timespec
        }
        None => std::ptr::null(),
    };
    // SAFETY: fds and the timespec outlive the call.
    unsafe {
        libc::ppoll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            tsp,
            std::ptr::null(),
        );
    }
}

impl<C: Core> Plane<C> {
    /// Start the wire thread and one thread per host device queue.
    pub fn start(core: C, cfg: PlaneConfig) -> std::io::Result<Plane<C>> {
        sys::set_nonblocking(cfg.wire.as_raw_fd())?;
        for w in &cfg.per_cpu_wires {
            sys::set_nonblocking(w.as_raw_fd())?;
        }
        if !cfg.per_cpu_wires.is_empty()
            && (cfg.hosts.len() != cfg.per_cpu_wires.len() + 1
                || cfg.hosts.iter().any(|h| h.iface != cfg.hosts[0].iface)
                || cfg.timer_thread)
        {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "per-CPU mode needs one device queue per wire socket, one interface, no timer thread",
            ));
        }
        let mut mailboxes = Vec::new();
        let mut route = Vec::new();
        for h in &cfg.hosts {
            sys::set_nonblocking(h.fd.as_raw_fd())?;
            mailboxes.push(Mailbox {
                q: Mutex::new(VecDeque::new()),
                wake: EventFd::new()?,
            });
            route.push((h.iface, h.queue));
        }
        let qos = match cfg.wake_qos {
            Some(_) => match sys::CpuLatencyQos::open() {
                Ok(q) => Some(Mutex::new(q)),
                Err(e) => {
                    tracing::warn!(error = %e, "no CPU wake-up latency request (/dev/cpu_dma_latency)");
                    None
                }
            },
            None => None,
        };
        let shared = Arc::new(Shared {
            core: Mutex::new(core),
            stats: DriverStats::default(),
            stop: AtomicBool::new(false),
            wire_fd: cfg.wire.as_raw_fd(),
            per_cpu: !cfg.per_cpu_wires.is_empty(),
            wire_wake: EventFd::new()?,
            armed: AtomicU64::new(u64::MAX),
            clock: Clock::new(),
            mailboxes,
            batch_pool: BatchPool::default(),
            route,
            host_framing: cfg.host_framing,
            mtu: cfg.mtu,
            fault: Mutex::new(FaultInjector::new(cfg.fault_rate, cfg.fault_seed)),
            busy_poll: cfg.busy_poll,
            qos,
            qos_held: AtomicBool::new(false),
            qos_linger_ns: cfg
                .wake_qos
                .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
            last_activity: AtomicU64::new(0),
            wire_bps: cfg.wire_bps,
            realtime_prio: cfg.realtime_prio,
            nice: cfg.nice,
            cpus: cfg.cpus.clone(),
            pacer: Mutex::new(0),
        });
        let mut threads = Vec::new();
        let mut host_fds = Vec::new();
        // The timer thread serves the engine's deadlines only, so timer
        // precision does not depend on how busy the I/O threads are.
        let tt = cfg.timer_thread;
        if tt {
            let s = shared.clone();
            threads.push(
                std::thread::Builder::new()
                    .name("sosa-timer".into())
                    .spawn(move || io_thread(&s, None, true, None, None))?,
            );
        }
        if cfg.hosts.is_empty() {
            let s = shared.clone();
            threads.push(
                std::thread::Builder::new()
                    .name("sosa-wire".into())
                    .spawn(move || io_thread(&s, Some(s.wire_fd), !tt, None, None))?,
            );
        }
        let per_cpu = shared.per_cpu;
        let extra: Vec<RawFd> = cfg.per_cpu_wires.iter().map(|w| w.as_raw_fd()).collect();
        for (i, h) in cfg.hosts.into_iter().enumerate() {
            let s = shared.clone();
            let fd = h.fd.as_raw_fd();
            // The first queue's thread is also the wire reader and timer;
            // in per-CPU mode every thread reads its own wire socket.
            let wire = match i {
                0 => Some(s.wire_fd),
                _ if per_cpu => extra.get(i - 1).copied(),
                _ => None,
            };
            let name = match (wire.is_some(), per_cpu) {
                (true, true) => format!("sosa-cpu{i}"),
                (true, false) => format!("sosa-wq{}.{}", h.iface, h.queue),
                _ => format!("sosa-q{}.{}", h.iface, h.queue),
            };
            let cpu = per_cpu.then_some(i);
            threads.push(
                std::thread::Builder::new()
                    .name(name)
                    .spawn(move || io_thread(&s, wire, i == 0 && !tt, Some((i, fd)), cpu))?,
            );
            host_fds.push(h.fd);
        }
        Ok(Plane {
            shared,
            threads,
            _wire: cfg.wire,
            _wires: cfg.per_cpu_wires,
            _hosts: host_fds,
        })
    }

    /// Driver counters.
    pub fn stats(&self) -> &DriverStats {
        &self.shared.stats
    }

    /// Run `f` with the core locked (displays, counters).
    pub fn with_core<R>(&self, f: impl FnOnce(&mut C, u64) -> R) -> R {
        let now = self.shared.clock.now();
        f(&mut lock(&self.shared.core), now)
    }

    /// A status source for the control socket and metrics endpoint.
    pub fn status_source(&self) -> Arc<dyn StatusSource> {
        Arc::new(PlaneStatus {
            shared: self.shared.clone(),
        })
    }

    /// Nanoseconds since the plane started.
    pub fn now(&self) -> u64 {
        self.shared.clock.now()
    }

    /// Frames dropped by the injector.
    pub fn crc_errors(&self) -> u64 {
        lock(&self.shared.fault).crc_errors
    }

    /// Stop all threads and hand back the core.
    pub fn stop(mut self) -> C
    where
        C: Default,
    {
        self.halt();
        std::mem::take(&mut *lock(&self.shared.core))
    }

    fn halt(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.wire_wake.signal();
        for m in &self.shared.mailboxes {
            m.wake.signal();
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl<C: Core> Drop for Plane<C> {
    fn drop(&mut self) {
        self.halt();
    }
}

/// Frames copied out for sending on the wire after the lock is released.
#[derive(Default)]
struct TxList {
    frames: Vec<Vec<u8>>,
    len: usize,
    // Reused by every send: virtio-net headers, the frames sent as they
    // are, the pieces of oversize ones, the sendmmsg descriptors.
    hdrs: Vec<[u8; VNET_HDR_LEN]>,
    direct: Vec<usize>,
    seg_frames: Vec<Vec<u8>>,
    send: sys::SendScratch,
}

impl TxList {
    fn slot(&mut self) -> &mut Vec<u8> {
        if self.len == self.frames.len() {
            self.frames.push(Vec::with_capacity(2048));
        }
        self.len += 1;
        &mut self.frames[self.len - 1]
    }
}

impl<C: Core> Shared<C> {
    /// With the core locked: run due timers, hand presented batches to the
    /// queue threads, copy transmits out (bounded, and paced if asked).
    /// Returns when the core next needs draining again: `Some(now)` if the
    /// copy-out bound was hit, the pacer's next slot if frames wait for it.
    fn drain(
        &self,
        core: &mut C,
        now: u64,
        tx: &mut TxList,
        wake: &mut Vec<usize>,
        own: Option<usize>,
    ) -> Option<u64> {
        if core.deadline().is_some_and(|d| d <= now) {
            core.timeout(now);
        }
        loop {
            let mut b = self.batch_pool.take();
            if !core.presentation(now, &mut b) {
                self.batch_pool.give(b);
                break;
            }
            // Per-CPU mode: the calling thread's own device queue. Else
            // the batch's own queue thread, else the interface's first queue.
            let mine = own.filter(|&i| self.per_cpu && self.route[i].0 == b.iface);
            let target = mine.or_else(|| {
                self.route
                    .iter()
                    .position(|r| *r == (b.iface, b.queue))
                    .or_else(|| self.route.iter().position(|r| r.0 == b.iface))
            });
            match target {
                Some(i) => {
                    lock(&self.mailboxes[i].q).push_back(b);
                    if !wake.contains(&i) {
                        wake.push(i);
                    }
                }
                None => {
                    // No device for that interface: the frames cannot be delivered.
                    for _ in 0..b.len {
                        core.driver_drop(DriverDrop::HostWrite);
                    }
                    core.complete(now, b.iface, b.handle);
                }
            }
        }
        tx.len = 0;
        let mut pacer = (self.wire_bps > 0).then(|| lock(&self.pacer));
        loop {
            if let Some(p) = pacer.as_deref() {
                if *p > now + PACE_BURST_NS {
                    return core.tx_pending(0).then_some(*p - PACE_BURST_NS);
                }
            }
            let slot = tx.slot();
            slot.clear();
            if !core.transmit(now, 0, slot) {
                tx.len -= 1;
                return None;
            }
            if let Some(p) = pacer.as_deref_mut() {
                let bits = (slot.len() as u64 + 24) * 8;
                *p = (*p).max(now) + bits.saturating_mul(1_000_000_000) / self.wire_bps;
            }
            if tx.len >= 256 {
                return Some(now);
            }
        }
    }

    /// Send the copied-out frames (sendmmsg), segmenting oversize ones.
    fn send_tx(&self, tx: &mut TxList, drops: &mut Vec<DriverDrop>) {
        if tx.len == 0 {
            return;
        }
        let TxList {
            frames,
            len,
            hdrs,
            direct,
            seg_frames,
            send,
        } = tx;
        hdrs.clear();
        direct.clear();
        seg_frames.clear();
        let max_l2 = self.mtu + 18;
        for (i, f) in frames[..*len].iter().enumerate() {
            let h = vnet::egress_hdr(f, Framing::Ethernet, self.mtu);
            if f.len() > max_l2 && h.gso_type == vnet::GSO_NONE {
                let mut scratch = Vec::new();
                let mss = self.mtu.saturating_sub(40 + 20).max(536);
                let r = vnet::segment_tcp(f, Framing::Ethernet, mss, &mut scratch, |s| {
                    seg_frames.push(s.to_vec())
                });
                match r {
                    Some(n) => DriverStats::add(&self.stats.wire_tx_segmented, n as u64),
                    None => drops.push(DriverDrop::WireOversize),
                }
                continue;
            }
            let mut b = [0u8; VNET_HDR_LEN];
            h.write(&mut b);
            hdrs.push(b);
            direct.push(i);
        }
        let zero = [0u8; VNET_HDR_LEN];
        let total = direct.len() + seg_frames.len();
        let bytes: usize = direct.iter().map(|&i| frames[i].len()).sum::<usize>()
            + seg_frames.iter().map(Vec::len).sum::<usize>();
        let pkts = direct
            .iter()
            .zip(hdrs.iter())
            .map(|(&i, h)| (&h[..], &frames[i][..]))
            .chain(seg_frames.iter().map(|f| (&zero[..], &f[..])));
        match sys::send_batch(self.wire_fd, send, pkts) {
            Ok(n) => {
                DriverStats::add(&self.stats.wire_tx_frames, n as u64);
                DriverStats::add(&self.stats.wire_tx_bytes, bytes as u64);
                for _ in n..total {
                    drops.push(DriverDrop::WireSend);
                }
            }
            Err(_) => {
                for _ in 0..total {
                    drops.push(DriverDrop::WireSend);
                }
            }
        }
        if !drops.is_empty() {
            DriverStats::add(&self.stats.wire_tx_errors, drops.len() as u64);
        }
    }

    /// Traffic at `now`: (re)assert the CPU wake-up latency request.
    fn note_activity(&self, now: u64) {
        let Some(q) = &self.qos else {
            return;
        };
        self.last_activity.store(now, Ordering::Relaxed);
        if !self.qos_held.load(Ordering::Relaxed) {
            let mut g = lock(q);
            match g.hold() {
                Ok(()) => {
                    self.qos_held.store(true, Ordering::Relaxed);
                    DriverStats::add(&self.stats.qos_holds, 1);
                }
                Err(e) => tracing::debug!(error = %e, "CPU latency request refused"),
            }
        }
    }

    /// With the request held: relax it if traffic has been quiet for the
    /// linger, else return how long until it may be relaxed.
    fn qos_expiry(&self, now: u64) -> Option<u64> {
        let q = self.qos.as_ref()?;
        if !self.qos_held.load(Ordering::Relaxed) {
            return None;
        }
        let quiet = now.saturating_sub(self.last_activity.load(Ordering::Relaxed));
        if quiet < self.qos_linger_ns {
            return Some(self.qos_linger_ns - quiet);
        }
        let mut g = lock(q);
        if g.relax().is_ok() {
            self.qos_held.store(false, Ordering::Relaxed);
        }
        None
    }

    /// Tell the wire thread if the core's deadline is now earlier than the
    /// one it sleeps toward.
    fn rearm(&self, deadline: Option<u64>) {
        if let Some(d) = deadline {
            if d < self.armed.load(Ordering::Acquire) {
                self.wire_wake.signal();
            }
        }
    }
}

/// The adaptive spin window (the idea of the kernel's haltpoll governor,
/// applied to one thread): after work the thread polls without sleeping
/// for `window` ns. The window grows (doubling, up to `max`) when work came
/// within it or soon after a sleep, and halves when a spin ran out empty,
/// so a thread whose traffic comes back quickly (request/response) keeps
/// spinning and one with sparse traffic goes back to sleeping at once. A
/// poll pass that took far longer than a poll (the thread was descheduled:
/// the CPU is contended) ends the spin and halves the window too.
#[derive(Clone, Debug)]
pub struct Spinner {
    max: u64,
    window: u64,
    /// The window expired since the last work (counted once).
    expired: bool,
    /// The previous pass was an empty spin poll made at `last_check`.
    polled: bool,
    last_check: u64,
}

/// Smallest window the spinner grows from (ns).
const SPIN_MIN_NS: u64 = 5_000;
/// A poll pass longer than this means the thread lost its CPU (ns).
const SPIN_DESCHEDULED_NS: u64 = 30_000;

impl Spinner {
    pub fn new(max: u64) -> Spinner {
        Spinner {
            max,
            window: max,
            expired: true,
            polled: false,
            last_check: 0,
        }
    }

    /// The current window (ns).
    pub fn window(&self) -> u64 {
        self.window
    }

    fn shrink(&mut self) {
        self.window /= 2;
        if self.window < SPIN_MIN_NS {
            self.window = 0;
        }
    }

    fn grow(&mut self) {
        self.window = self.window.saturating_mul(2).max(SPIN_MIN_NS).min(self.max);
    }

    /// Whether to keep spinning at `now`, the last work having been at
    /// `last_work`.
    pub fn spinning(&mut self, now: u64, last_work: u64) -> bool {
        if self.max == 0 || self.expired {
            return false;
        }
        let gap = now.saturating_sub(self.last_check);
        if self.polled && gap > SPIN_DESCHEDULED_NS {
            // Descheduled between two polls: the CPU is wanted elsewhere.
            self.expired = true;
            self.polled = false;
            self.shrink();
            return false;
        }
        if now.saturating_sub(last_work) < self.window {
            self.polled = true;
            self.last_check = now;
            return true;
        }
        self.expired = true;
        self.polled = false;
        self.shrink();
        false
    }

    /// Work was found at `now`; the previous work was at `last_work`.
    pub fn worked(&mut self, now: u64, last_work: u64) {
        if self.max == 0 {
            return;
        }
        if !self.expired && now.saturating_sub(last_work) < self.window {
            // Caught by the spin: keep (and widen) the window.
            self.grow();
        }
        self.expired = false;
        self.polled = false;
    }

    /// A sleep of `ns` ended (by work or a timeout).
    pub fn slept(&mut self, ns: u64) {
        if self.max > 0 && ns < self.max {
            // The wake-up came within the longest window: spinning would
            // have caught it.
            self.grow();
        }
    }
}

fn min_opt(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

fn thread_setup<C: Core>(s: &Shared<C>, cpu: Option<usize>) {
    set_timer_slack();
    // Per-CPU mode: thread k on CPU k (of `cpus` if given).
    let cpus = match cpu {
        Some(k) if s.cpus.is_empty() => vec![k],
        Some(k) => vec![s.cpus[k % s.cpus.len()]],
        None => s.cpus.clone(),
    };
    if !cpus.is_empty() {
        if let Err(e) = sys::set_affinity(&cpus) {
            tracing::warn!(error = %e, cpus = ?s.cpus, "CPU affinity refused");
        }
    }
    if s.realtime_prio > 0 {
        if !set_realtime(s.realtime_prio) {
            tracing::warn!("SCHED_FIFO refused; running with normal scheduling");
        }
    } else if s.nice != 0 && !set_nice(s.nice) {
        tracing::warn!(nice = s.nice, "nice value refused");
    }
}

/// One I/O thread: the wire reader and timer (`wire`), the servicer of one
/// input queue's device fd (`queue`), or both. The first input queue's
/// thread also reads the wire, so a frame presented on that queue at once
/// is written without waking another thread.
fn io_thread<C: Core>(
    s: &Shared<C>,
    wire_fd: Option<RawFd>,
    timer: bool,
    queue: Option<(usize, RawFd)>,
    cpu: Option<usize>,
) {
    thread_setup(s, cpu);
    let wire = wire_fd.is_some();
    let mut rx = RecvBatch::new(
        if wire { WIRE_BATCH } else { 1 },
        if wire { MAX_FRAME + VNET_HDR_LEN } else { 1 },
    );
    let mut buf = vec![
        0u8;
        if queue.is_some() {
            MAX_FRAME + VNET_HDR_LEN
        } else {
            1
        }
    ];
    let mut host: Vec<Vec<u8>> = (0..HOST_BATCH).map(|_| Vec::new()).collect();
    let mut tx = TxList::default();
    let mut wake = Vec::new();
    let mut drops = Vec::new();
    let mut done: Vec<(usize, u64)> = Vec::new();
    let mut pfds: Vec<libc::pollfd> = Vec::new();
    let pfd = |fd| libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    if let Some(fd) = wire_fd {
        pfds.push(pfd(fd));
    }
    if timer {
        pfds.push(pfd(s.wire_wake.raw()));
    }
    let mb = queue.map(|(i, fd)| {
        pfds.push(pfd(fd));
        pfds.push(pfd(s.mailboxes[i].wake.raw()));
        (i, fd, &s.mailboxes[i])
    });
    // Index of each descriptor in `pfds`: only ready ones are read, so an
    // idle descriptor costs no system call per wake-up.
    let wire_at = wire.then_some(0);
    let timer_at = timer.then_some(usize::from(wire));
    let dev_at = mb.map(|_| usize::from(wire) + usize::from(timer));
    let ready = |p: &[libc::pollfd], at: Option<usize>| {
        at.and_then(|i| p.get(i))
            .is_some_and(|x| x.revents & (libc::POLLIN | libc::POLLERR) != 0)
    };
    let mut deadline: Option<u64> = None;
    let spin_ns = u64::try_from(s.busy_poll.as_nanos()).unwrap_or(u64::MAX);
    let mut spinner = Spinner::new(spin_ns);
    // A real-time thread's spin keeps every normal task off its CPU; a
    // normal one yields between polls so a task woken there runs first.
    let yield_in_spin = s.realtime_prio == 0;
    let mut last_work = 0u64;
    let mut again = false;
    let mut own_write_errors = 0u64;
    let mut host_burst = false;
    let mut prev_host_read = false;
    while !s.stop.load(Ordering::Relaxed) {
        let now = s.clock.now();
        let wait = if timer {
            s.armed
                .store(deadline.unwrap_or(u64::MAX), Ordering::Release);
            deadline.map(|d| d.saturating_sub(now))
        } else {
            None
        };
        // The timer thread also ends the wake-up latency request once
        // traffic has been quiet for its linger, so it wakes before then.
        let linger = if timer { s.qos_expiry(now) } else { None };
        // Spin (non-blocking checks) for the adaptive window after
        // activity or when a timer is due within it; otherwise sleep.
        let spin =
            spinner.spinning(now, last_work) || (spin_ns > 0 && wait.is_some_and(|w| w <= spin_ns));
        for p in pfds.iter_mut() {
            p.revents = 0;
        }
        let timeout = if again || spin || wait == Some(0) {
            Some(0)
        } else {
            Some(min_opt(wait, linger).unwrap_or(100_000_000))
        };
        if spin && yield_in_spin {
            // SAFETY: sched_yield has no arguments and cannot fail harmfully.
            unsafe { libc::sched_yield() };
        }
        ppoll(&mut pfds, timeout);
        if timeout != Some(0) {
            DriverStats::add(&s.stats.wakeups, 1);
            // The sleep began at `now` (only the linger and spin checks ran
            // since); read the clock again only if the spinner uses it.
            if spin_ns > 0 {
                spinner.slept(s.clock.now().saturating_sub(now));
            }
        } else if spin {
            DriverStats::add(&s.stats.spin_polls, 1);
        }
        again = false;
        let mut woken = false;
        if ready(&pfds, timer_at) {
            woken = s.wire_wake.drain();
        }
        if let Some((_, _, m)) = mb {
            if ready(&pfds, dev_at.map(|i| i + 1)) {
                m.wake.drain();
            }
        }
        // 1. Wire: receive a batch.
        let n = match wire_fd.filter(|_| ready(&pfds, wire_at)) {
            Some(fd) => match rx.recv(fd) {
                Ok(n) => n,
                Err(e) => {
                    tracing::warn!(error = %e, "wire receive failed");
                    0
                }
            },
            None => 0,
        };
        // 2. Present: write every waiting batch on this queue's fd (those
        // this thread presented itself are already written, in `done`).
        let mut write_errors = std::mem::take(&mut own_write_errors);
        let mut nhost = 0;
        if let Some((_, fd, m)) = mb {
            write_errors += present_batches(s, m, fd, &mut done);
            // 3. Read what the host sent on this queue. While the host sends
            // one packet at a time (request/response), take that one and
            // handle it at once: the read that would only find the queue
            // empty comes after it has gone out, off the round trip's path
            // (`again` polls once more without sleeping). Bursts are read
            // in batches.
            let readable = ready(&pfds, dev_at);
            let limit = if host_burst { HOST_BATCH } else { 1 };
            while readable && nhost < limit {
                match sys::read(fd, &mut buf) {
                    Ok(n) if n > VNET_HDR_LEN => {
                        let Some(h) = VnetHdr::parse(&buf) else {
                            DriverStats::add(&s.stats.host_rx_bad, 1);
                            continue;
                        };
                        let frame = &mut buf[VNET_HDR_LEN..n];
                        if !vnet::normalize_ingress(frame, &h, s.host_framing) {
                            DriverStats::add(&s.stats.host_rx_bad, 1);
                            continue;
                        }
                        let slot = &mut host[nhost];
                        slot.clear();
                        slot.extend_from_slice(frame);
                        nhost += 1;
                    }
                    Ok(_) => {
                        // Shorter than the virtio-net header: not a packet.
                        DriverStats::add(&s.stats.host_rx_bad, 1);
                        continue;
                    }
                    Err(_) => break,
                }
            }
            if readable {
                // A read that stopped at its limit may have more behind it:
                // look again at once. Packets in two passes running, or
                // several in one, mean a burst.
                again |= nhost == limit;
                host_burst = nhost > 1 || (nhost == 1 && prev_host_read);
            }
            prev_host_read = readable && nhost > 0;
        }
        let now = s.clock.now();
        let timer_due = timer && deadline.is_some_and(|d| d <= now);
        if n == 0 && !timer_due && !woken && done.is_empty() && nhost == 0 && write_errors == 0 {
            continue;
        }
        if spin {
            DriverStats::add(&s.stats.spin_hits, 1);
        }
        spinner.worked(now, last_work);
        last_work = now;
        s.note_activity(now);
        if let Some(d) = deadline.filter(|_| timer_due) {
            DriverStats::add(&s.stats.timer_wakeups, 1);
            let late = now - d;
            DriverStats::add(&s.stats.timer_late_ns_total, late);
            s.stats.timer_late_ns_max.fetch_max(late, Ordering::Relaxed);
        }
        let mut core = lock(&s.core);
        if n > 0 {
            DriverStats::add(&s.stats.wire_rx_batches, 1);
            let mut fault = lock(&s.fault);
            for i in 0..n {
                let Some(pkt) = rx.packet_mut(i) else {
                    continue;
                };
                DriverStats::add(&s.stats.wire_rx_frames, 1);
                let Some(h) = VnetHdr::parse(pkt) else {
                    core.driver_drop(DriverDrop::BadOffload);
                    continue;
                };
                let frame = &mut pkt[VNET_HDR_LEN..];
                DriverStats::add(&s.stats.wire_rx_bytes, frame.len() as u64);
                if fault.corrupt() {
                    DriverStats::add(&s.stats.crc_dropped, 1);
                    core.driver_drop(DriverDrop::Crc);
                    continue;
                }
                if !vnet::normalize_ingress(frame, &h, Framing::Ethernet) {
                    core.driver_drop(DriverDrop::BadOffload);
                    continue;
                }
                core.wire_frame(now, 0, frame);
            }
        }
        for _ in 0..write_errors {
            core.driver_drop(DriverDrop::HostWrite);
        }
        DriverStats::add(&s.stats.host_tx_errors, write_errors);
        for &(i, h) in &done {
            core.complete(now, i, h);
        }
        done.clear();
        if let Some((i, _, _)) = mb {
            let iface = s.route[i].0;
            for (k, f) in host[..nhost].iter().enumerate() {
                DriverStats::add(&s.stats.host_rx_frames, 1);
                DriverStats::add(&s.stats.host_rx_bytes, f.len() as u64);
                core.host_send(now, iface, f, k + 1 == nhost);
            }
        }
        wake.clear();
        let more = s.drain(&mut core, now, &mut tx, &mut wake, mb.map(|m| m.0));
        let dl = min_opt(more, core.deadline());
        drop(core);
        if timer {
            deadline = dl;
        } else {
            s.rearm(dl);
        }
        for &i in &wake {
            match mb {
                Some((own, fd, m)) if own == i => {
                    // Our own queue: write it now, no wake-up and no extra
                    // pass before the stack sees it; the buffers go back
                    // to the engine on the next pass, which does not wait.
                    own_write_errors += present_batches(s, m, fd, &mut done);
                    again = true;
                }
                _ => s.mailboxes[i].wake.signal(),
            }
        }
        drops.clear();
        s.send_tx(&mut tx, &mut drops);
        if !drops.is_empty() {
            let mut core = lock(&s.core);
            for d in &drops {
                core.driver_drop(*d);
            }
        }
    }
}

/// Write every batch waiting in mailbox `m` on device fd `fd` (one frame
/// per write, each with its virtio-net header); returns write failures and
/// collects the batches to complete.
fn present_batches<C: Core>(
    s: &Shared<C>,
    m: &Mailbox,
    fd: RawFd,
    done: &mut Vec<(usize, u64)>,
) -> u64 {
    let mut write_errors = 0;
    loop {
        let Some(b) = lock(&m.q).pop_front() else {
            break;
        };
        let mut bytes = 0u64;
        for f in &b.frames[..b.len] {
            let h = vnet::egress_hdr(f, s.host_framing, s.mtu);
            let mut hb = [0u8; VNET_HDR_LEN];
            h.write(&mut hb);
            match sys::write2(fd, &hb, f) {
                Ok(_) => bytes += f.len() as u64,
                Err(_) => write_errors += 1,
            }
        }
        DriverStats::add(&s.stats.host_tx_frames, b.len as u64);
        DriverStats::add(&s.stats.host_tx_bytes, bytes);
        DriverStats::add(&s.stats.host_tx_batches, 1);
        done.push((b.iface, b.handle));
        s.batch_pool.give(b);
    }
    write_errors
}

/// A core on its own serves its displays and metrics: what a lab's
/// control socket answers, less the driver's own (a running data plane's
/// [`Plane::status_source`] adds them).
/// `Arc::new(Mutex::new(core))` serves a core with no data plane around
/// it, as the tests of the control socket's clients do.
impl<C: Core> StatusSource for Mutex<C> {
    fn display(&self, req: &DisplayRequest) -> Result<String, Refusal> {
        lock(self).display(req)
    }
    fn metrics(&self) -> Vec<Metric> {
        lock(self).metrics()
    }
}

/// A running data plane's status: its core's, plus the driver's display
/// and metrics.
struct PlaneStatus<C: Core> {
    shared: Arc<Shared<C>>,
}

impl<C: Core> StatusSource for PlaneStatus<C> {
    fn display(&self, req: &DisplayRequest) -> Result<String, Refusal> {
        if req.kind.eq_ignore_ascii_case("DRIVER") {
            if let Some(t) = softosa_display::narrowing(req.target.as_deref()) {
                return Err(crate::displays::whole_adapter(&req.kind, t));
            }
            return Ok(driver_text(&self.shared.stats, req.json));
        }
        StatusSource::display(&self.shared.core, req)
    }
    fn metrics(&self) -> Vec<Metric> {
        let mut v = StatusSource::metrics(&self.shared.core);
        v.extend(driver_metrics(&self.shared.stats));
        v
    }
}

/// One driver counter: its key, what it counts, whether it is a gauge (a
/// largest value so far) rather than a count, and its value.
struct DriverValue {
    key: &'static str,
    help: &'static str,
    gauge: bool,
    value: u64,
}

fn driver_values(st: &DriverStats) -> Vec<DriverValue> {
    let g = DriverStats::get;
    let count = |key, help, value| DriverValue {
        key,
        help,
        gauge: false,
        value,
    };
    vec![
        count(
            "wire_rx_frames",
            "frames read from the wire side",
            g(&st.wire_rx_frames),
        ),
        count(
            "wire_rx_bytes",
            "bytes read from the wire side",
            g(&st.wire_rx_bytes),
        ),
        count(
            "wire_rx_batches",
            "reads from the wire side",
            g(&st.wire_rx_batches),
        ),
        count(
            "crc_dropped",
            "wire frames dropped as injected frame errors",
            g(&st.crc_dropped),
        ),
        count(
            "wire_tx_frames",
            "frames written to the wire side",
            g(&st.wire_tx_frames),
        ),
        count(
            "wire_tx_bytes",
            "bytes written to the wire side",
            g(&st.wire_tx_bytes),
        ),
        count(
            "wire_tx_errors",
            "failed writes to the wire side",
            g(&st.wire_tx_errors),
        ),
        count(
            "wire_tx_segmented",
            "wire frames the driver cut from large sends",
            g(&st.wire_tx_segmented),
        ),
        count(
            "host_rx_frames",
            "frames read from the host (TUN) side",
            g(&st.host_rx_frames),
        ),
        count(
            "host_rx_bytes",
            "bytes read from the host (TUN) side",
            g(&st.host_rx_bytes),
        ),
        count(
            "host_rx_bad",
            "host frames with a bad virtio-net header",
            g(&st.host_rx_bad),
        ),
        count(
            "host_tx_frames",
            "frames written to the host (TUN) side",
            g(&st.host_tx_frames),
        ),
        count(
            "host_tx_bytes",
            "bytes written to the host (TUN) side",
            g(&st.host_tx_bytes),
        ),
        count(
            "host_tx_batches",
            "presented batches written to the host side",
            g(&st.host_tx_batches),
        ),
        count(
            "host_tx_errors",
            "failed writes to the host side",
            g(&st.host_tx_errors),
        ),
        count("wakeups", "times the data plane woke", g(&st.wakeups)),
        count(
            "timer_wakeups",
            "wakeups for an engine timer",
            g(&st.timer_wakeups),
        ),
        count(
            "timer_late_ns_total",
            "nanoseconds timers ran late, summed",
            g(&st.timer_late_ns_total),
        ),
        DriverValue {
            key: "timer_late_ns_max",
            help: "the latest a timer ran, in nanoseconds",
            gauge: true,
            value: g(&st.timer_late_ns_max),
        },
        count(
            "qos_holds",
            "times the CPU wake-up latency request was (re)asserted",
            g(&st.qos_holds),
        ),
        count(
            "spin_polls",
            "polls while spinning before sleeping",
            g(&st.spin_polls),
        ),
        count(
            "spin_hits",
            "passes that found work while spinning",
            g(&st.spin_hits),
        ),
    ]
}

/// The driver's own counters as text or JSON.
pub fn driver_text(st: &DriverStats, json: bool) -> String {
    let values = driver_values(st);
    if json {
        let m: serde_json::Map<String, serde_json::Value> = values
            .into_iter()
            .map(|d| (d.key.to_string(), serde_json::Value::from(d.value)))
            .collect();
        return format!("{}\n", serde_json::Value::Object(m));
    }
    let mut out = String::from("SOFTOSA LIVE DRIVER COUNTERS\n");
    for d in values {
        out.push_str(&format!("  {:<22} {}\n", d.key.to_uppercase(), d.value));
    }
    out
}

fn driver_metrics(st: &DriverStats) -> Vec<Metric> {
    driver_values(st)
        .into_iter()
        .map(|d| Metric {
            // Prometheus: a counter's name ends in _total (once), a gauge's not.
            name: match (d.gauge, d.key.strip_suffix("_total")) {
                (true, _) => format!("softosa_driver_{}", d.key),
                (false, Some(k)) => format!("softosa_driver_{k}_total"),
                (false, None) => format!("softosa_driver_{}_total", d.key),
            },
            help: d.help,
            kind: if d.gauge { "gauge" } else { "counter" },
            labels: Vec::new(),
            value: d.value as f64,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{BatchPool, Core, OutBatch, Spinner, BATCH_POOL_MAX};
    use crate::control::{DisplayRequest, StatusSource};
    use std::sync::Mutex;

    const US: u64 = 1_000;

    #[test]
    fn driver_metrics_follow_prometheus_naming() {
        let st = super::DriverStats::default();
        super::DriverStats::add(&st.timer_late_ns_max, 7);
        let m = super::driver_metrics(&st);
        let mut helps = std::collections::BTreeSet::new();
        for x in &m {
            assert!(helps.insert(x.help), "{} repeats a help text", x.name);
            let totals = x.name.matches("_total").count();
            match x.kind {
                "counter" => assert!(x.name.ends_with("_total") && totals == 1, "{}", x.name),
                "gauge" => assert_eq!(totals, 0, "{}", x.name),
                k => panic!("{}: kind {k}", x.name),
            }
        }
        let max = m
            .iter()
            .find(|x| x.name == "softosa_driver_timer_late_ns_max")
            .expect("the largest lateness");
        assert_eq!((max.kind, max.value), ("gauge", 7.0));
        assert!(m
            .iter()
            .any(|x| x.name == "softosa_driver_timer_late_ns_total"));
    }

    #[test]
    fn a_core_alone_serves_its_own_displays_and_metrics() {
        let o = crate::lab::LabOptions::default();
        let core = crate::engine_core::EngineCore::for_lab(&o).expect("lab engine");
        let req = DisplayRequest::text("DEVLINKS");
        let (display, metrics) = (core.display(&req), core.metrics());
        assert!(!metrics.is_empty());
        let served = Mutex::new(core);
        assert_eq!(StatusSource::display(&served, &req), display);
        assert_eq!(StatusSource::metrics(&served), metrics);
        // The driver's display is the data plane's, not the core's.
        assert!(StatusSource::display(&served, &DisplayRequest::text("DRIVER")).is_err());
    }

    #[test]
    fn emptied_batches_are_reused_and_the_pool_stays_bounded() {
        let pool = BatchPool::default();
        // One thread fills batches, another empties them: everything given
        // back beyond the bound is let go.
        for _ in 0..10 * BATCH_POOL_MAX {
            let mut b = OutBatch::default();
            b.push(&[1u8; 9000]);
            pool.give(b);
        }
        assert_eq!(pool.len(), BATCH_POOL_MAX);
        // A taken batch is empty but keeps its frame buffers.
        let b = pool.take();
        assert_eq!(b.len, 0);
        assert!(b.frames.first().is_some_and(|f| f.capacity() >= 9000));
        assert_eq!(pool.len(), BATCH_POOL_MAX - 1);
    }

    #[test]
    fn spin_window_grows_with_quick_traffic_and_shrinks_without() {
        let mut sp = Spinner::new(100 * US);
        assert!(!sp.spinning(0, 0), "no spin before any work");
        sp.worked(1_000 * US, 0);
        // Quiet afterwards: the spin runs out and the window halves.
        assert!(sp.spinning(1_010 * US, 1_000 * US));
        assert!(!sp.spinning(1_200 * US, 1_000 * US));
        assert_eq!(sp.window(), 50 * US);
        // Runs out once only; the next spins stay off until new work.
        assert!(!sp.spinning(1_300 * US, 1_000 * US));
        assert_eq!(sp.window(), 50 * US);
        // Work caught within the window widens it again (to the maximum).
        sp.worked(2_000 * US, 1_300 * US);
        assert!(sp.spinning(2_010 * US, 2_000 * US));
        sp.worked(2_020 * US, 2_000 * US);
        assert_eq!(sp.window(), 100 * US);
        // Repeated empty spins close it; a short sleep reopens it.
        for k in 0..6u64 {
            let t = 3_000 * US + k * 1_000 * US;
            sp.worked(t, t - 500 * US);
            assert!(!sp.spinning(t + 150 * US, t));
        }
        assert_eq!(sp.window(), 0);
        sp.slept(20 * US);
        assert_eq!(sp.window(), 5 * US);
        sp.slept(500 * US);
        assert_eq!(sp.window(), 5 * US, "a long sleep is no reason to spin");
    }

    #[test]
    fn a_descheduled_spin_stops() {
        let mut sp = Spinner::new(200 * US);
        sp.worked(1_000 * US, 0);
        assert!(sp.spinning(1_002 * US, 1_000 * US));
        assert!(sp.spinning(1_003 * US, 1_000 * US));
        // 60 µs between two polls: the thread lost its CPU.
        assert!(!sp.spinning(1_063 * US, 1_000 * US));
        assert_eq!(sp.window(), 100 * US);
    }

    #[test]
    fn a_huge_maximum_saturates_instead_of_overflowing() {
        let mut sp = Spinner::new(u64::MAX);
        sp.slept(1);
        assert_eq!(sp.window(), u64::MAX);
    }

    #[test]
    fn zero_maximum_never_spins() {
        let mut sp = Spinner::new(0);
        sp.worked(10, 0);
        assert!(!sp.spinning(11, 10));
        sp.slept(1);
        assert_eq!(sp.window(), 0);
    }
}
