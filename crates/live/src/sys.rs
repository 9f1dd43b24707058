//! Thin, checked wrappers over the Linux system calls the live driver needs
//! (spec 8.1): multi-queue TAP/TUN devices with the virtio-net header,
//! AF_PACKET sockets with batched `recvmmsg`/`sendmmsg`, `poll`, eventfd,
//! and entering a network namespace on the calling thread.
//!
//! Every `unsafe` block is a single system call on buffers this module owns
//! or borrows for the duration of the call.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use crate::vnet::VNET_HDR_LEN;

const IFF_TUN: libc::c_short = 0x0001;
const IFF_TAP: libc::c_short = 0x0002;
const IFF_NO_PI: libc::c_short = 0x1000;
const IFF_MULTI_QUEUE: libc::c_short = 0x0100;
const IFF_VNET_HDR: libc::c_short = 0x4000;
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const TUNSETOFFLOAD: libc::c_ulong = 0x4004_54d0;
const TUNSETVNETHDRSZ: libc::c_ulong = 0x4004_54d8;
/// `TUN_F_CSUM`: the device accepts partial checksums from the kernel side.
pub const TUN_F_CSUM: libc::c_uint = 0x01;
/// `TUN_F_TSO4`.
pub const TUN_F_TSO4: libc::c_uint = 0x02;
/// `TUN_F_TSO6`.
pub const TUN_F_TSO6: libc::c_uint = 0x04;
const PACKET_ADD_MEMBERSHIP: libc::c_int = 1;
const PACKET_MR_PROMISC: libc::c_ushort = 1;
const PACKET_VNET_HDR: libc::c_int = 15;
const PACKET_QDISC_BYPASS: libc::c_int = 20;
const PACKET_FANOUT: libc::c_int = 18;
/// Fan-out mode: each frame to the member socket of the CPU that handled it.
const PACKET_FANOUT_CPU: libc::c_int = 2;
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn cvt_size(r: isize) -> io::Result<usize> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

#[repr(C)]
struct IfReqFlags {
    name: [libc::c_char; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// Layer 2 TAP or layer 3 TUN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TunKind {
    Tap,
    Tun,
}

/// Open `queues` queues of the multi-queue TAP/TUN device `name` (created in
/// the calling thread's network namespace if it does not exist), each with
/// the virtio-net header, and enable checksum and TSO offload so the stack
/// behind it hands over large segments.
pub fn open_tun_queues(name: &str, kind: TunKind, queues: usize) -> io::Result<Vec<OwnedFd>> {
    if name.len() >= libc::IFNAMSIZ || name.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "bad interface name",
        ));
    }
    let path = CString::new("/dev/net/tun").map_err(io::Error::other)?;
    let mut out = Vec::with_capacity(queues);
    for _ in 0..queues.max(1) {
        // SAFETY: plain open(2) of a constant NUL-terminated path.
        let fd = cvt(unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) })?;
        // SAFETY: fd was just returned by open and is owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let mut req = IfReqFlags {
            name: [0; libc::IFNAMSIZ],
            flags: IFF_NO_PI
                | IFF_MULTI_QUEUE
                | IFF_VNET_HDR
                | if kind == TunKind::Tap {
                    IFF_TAP
                } else {
                    IFF_TUN
                },
            _pad: [0; 22],
        };
        for (d, s) in req.name.iter_mut().zip(name.bytes()) {
            *d = s as libc::c_char;
        }
        // SAFETY: TUNSETIFF reads/writes a struct ifreq, which IfReqFlags lays out.
        cvt(unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF, &mut req) })?;
        let sz: libc::c_int = VNET_HDR_LEN as libc::c_int;
        // SAFETY: TUNSETVNETHDRSZ reads an int.
        cvt(unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETVNETHDRSZ, &sz) })?;
        let off: libc::c_uint = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;
        // SAFETY: TUNSETOFFLOAD takes the flags by value.
        cvt(unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETOFFLOAD, off as libc::c_ulong) })?;
        out.push(fd);
    }
    Ok(out)
}

/// Interface index of `name` in the calling thread's namespace.
pub fn ifindex(name: &str) -> io::Result<u32> {
    let c = CString::new(name).map_err(io::Error::other)?;
    // SAFETY: if_nametoindex reads a NUL-terminated string.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(i)
    }
}

fn setsockopt_int(
    fd: RawFd,
    level: libc::c_int,
    opt: libc::c_int,
    v: libc::c_int,
) -> io::Result<()> {
    // SAFETY: setsockopt reads sizeof(int) bytes from &v.
    cvt(unsafe {
        libc::setsockopt(
            fd,
            level,
            opt,
            (&v as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    })
    .map(|_| ())
}

/// An AF_PACKET socket bound to one interface (the wire side), with the
/// virtio-net header on, our own transmissions ignored, the qdisc bypassed
/// and the interface promiscuous.
pub fn open_packet_socket(ifname: &str) -> io::Result<OwnedFd> {
    let idx = ifindex(ifname)?;
    let proto = (libc::ETH_P_ALL as u16).to_be();
    // SAFETY: socket(2) with constant arguments.
    let fd = cvt(unsafe {
        libc::socket(
            libc::AF_PACKET,
            libc::SOCK_RAW | libc::SOCK_CLOEXEC,
            libc::c_int::from(proto),
        )
    })?;
    // SAFETY: fd was just created and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let raw = fd.as_raw_fd();
    setsockopt_int(raw, libc::SOL_PACKET, PACKET_VNET_HDR, 1)?;
    setsockopt_int(raw, libc::SOL_PACKET, PACKET_QDISC_BYPASS, 1)?;
    // Older kernels lack PACKET_IGNORE_OUTGOING; then outgoing frames are
    // filtered by packet type on receive.
    let _ = setsockopt_int(raw, libc::SOL_PACKET, PACKET_IGNORE_OUTGOING, 1);
    let _ = setsockopt_int(raw, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, 32 << 20);
    let _ = setsockopt_int(raw, libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, 32 << 20);
    // SAFETY: sockaddr_ll is plain data; zeroed is a valid value.
    let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    sll.sll_family = libc::AF_PACKET as u16;
    sll.sll_protocol = proto;
    sll.sll_ifindex = idx as i32;
    // SAFETY: bind reads sizeof(sockaddr_ll) bytes from &sll.
    cvt(unsafe {
        libc::bind(
            raw,
            (&sll as *const libc::sockaddr_ll).cast(),
            std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
        )
    })?;
    // SAFETY: packet_mreq is plain data; zeroed is a valid value.
    let mut mreq: libc::packet_mreq = unsafe { std::mem::zeroed() };
    mreq.mr_ifindex = idx as i32;
    mreq.mr_type = PACKET_MR_PROMISC;
    // SAFETY: setsockopt reads sizeof(packet_mreq) bytes from &mreq.
    cvt(unsafe {
        libc::setsockopt(
            raw,
            libc::SOL_PACKET,
            PACKET_ADD_MEMBERSHIP,
            (&mreq as *const libc::packet_mreq).cast(),
            std::mem::size_of::<libc::packet_mreq>() as libc::socklen_t,
        )
    })?;
    Ok(fd)
}

/// Join packet socket `fd` to fan-out group `group` in CPU mode: frames the
/// kernel handles on CPU k go to the group's k-th member (modulo members).
pub fn join_fanout_cpu(fd: RawFd, group: u16) -> io::Result<()> {
    setsockopt_int(
        fd,
        libc::SOL_PACKET,
        PACKET_FANOUT,
        libc::c_int::from(group) | (PACKET_FANOUT_CPU << 16),
    )
}

/// Put a file descriptor into non-blocking mode.
pub fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor the caller owns.
    let fl = cvt(unsafe { libc::fcntl(fd, libc::F_GETFL) })?;
    // SAFETY: as above.
    cvt(unsafe { libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK) }).map(|_| ())
}

/// Wait until one of `fds` is readable or `timeout_ms` passes (-1: forever).
/// Returns the readiness of each descriptor.
pub fn poll_readable(fds: &[RawFd], timeout_ms: i32, ready: &mut Vec<bool>) -> io::Result<usize> {
    let mut pfds: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: poll reads/writes exactly pfds.len() pollfd entries.
    let r = unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, timeout_ms) };
    ready.clear();
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            ready.extend(pfds.iter().map(|_| false));
            return Ok(0);
        }
        return Err(e);
    }
    ready.extend(
        pfds.iter()
            .map(|p| p.revents & (libc::POLLIN | libc::POLLERR) != 0),
    );
    Ok(r as usize)
}

/// An eventfd used to wake a thread sleeping in `poll`.
pub struct EventFd(OwnedFd);

impl EventFd {
    pub fn new() -> io::Result<EventFd> {
        // SAFETY: eventfd(2) with constant flags.
        let fd = cvt(unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) })?;
        // SAFETY: fd was just created.
        Ok(EventFd(unsafe { OwnedFd::from_raw_fd(fd) }))
    }
    pub fn raw(&self) -> RawFd {
        self.0.as_raw_fd()
    }
    /// Wake the waiter (never blocks; a saturated counter is still a wake).
    pub fn signal(&self) {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from &one.
        let _ = unsafe { libc::write(self.raw(), (&one as *const u64).cast(), 8) };
    }
    /// Reset after a wake; true if it had been signalled.
    pub fn drain(&self) -> bool {
        let mut v: u64 = 0;
        // SAFETY: reads 8 bytes into &mut v.
        unsafe { libc::read(self.raw(), (&mut v as *mut u64).cast(), 8) == 8 }
    }
}

/// I/O vectors for a header then a frame (read-only use: the kernel's
/// type asks for mutable pointers).
fn iov_pair(hdr: &[u8], frame: &[u8]) -> [libc::iovec; 2] {
    [
        libc::iovec {
            iov_base: hdr.as_ptr() as *mut libc::c_void,
            iov_len: hdr.len(),
        },
        libc::iovec {
            iov_base: frame.as_ptr() as *mut libc::c_void,
            iov_len: frame.len(),
        },
    ]
}

/// Write `hdr` then `frame` as one packet (TAP/TUN queue or packet socket).
pub fn write2(fd: RawFd, hdr: &[u8], frame: &[u8]) -> io::Result<usize> {
    let iov = iov_pair(hdr, frame);
    // SAFETY: writev reads the two borrowed buffers.
    cvt_size(unsafe { libc::writev(fd, iov.as_ptr(), 2) })
}

/// Read one packet into `buf`.
pub fn read(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: read writes at most buf.len() bytes into buf.
    cvt_size(unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) })
}

/// Reusable buffers for `recvmmsg`: up to `n` packets of `size` bytes.
pub struct RecvBatch {
    bufs: Vec<Vec<u8>>,
    lens: Vec<usize>,
    outgoing: Vec<bool>,
    count: usize,
    // The call's descriptors, kept between calls so a receive allocates
    // nothing; their pointers are set afresh before every call.
    iovs: Vec<libc::iovec>,
    addrs: Vec<libc::sockaddr_ll>,
    msgs: Vec<libc::mmsghdr>,
}

impl RecvBatch {
    pub fn new(n: usize, size: usize) -> RecvBatch {
        RecvBatch {
            bufs: (0..n).map(|_| vec![0u8; size]).collect(),
            lens: vec![0; n],
            outgoing: vec![false; n],
            count: 0,
            iovs: Vec::with_capacity(n),
            // SAFETY: sockaddr_ll is plain data; all zeroes is valid.
            addrs: vec![unsafe { std::mem::zeroed() }; n],
            // SAFETY: mmsghdr is plain data; all zeroes is valid.
            msgs: vec![unsafe { std::mem::zeroed() }; n],
        }
    }

    /// Receive up to the batch size without blocking; returns the count
    /// (0 when nothing is waiting).
    pub fn recv(&mut self, fd: RawFd) -> io::Result<usize> {
        let n = self.bufs.len();
        self.iovs.clear();
        self.iovs.extend(self.bufs.iter_mut().map(|b| libc::iovec {
            iov_base: b.as_mut_ptr().cast(),
            iov_len: b.len(),
        }));
        let (iovs, addrs, msgs) = (&mut self.iovs, &mut self.addrs, &mut self.msgs);
        for i in 0..n {
            // SAFETY: as above, all zeroes is a valid mmsghdr.
            msgs[i] = unsafe { std::mem::zeroed() };
            msgs[i].msg_hdr.msg_iov = &mut iovs[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
            msgs[i].msg_hdr.msg_name = (&mut addrs[i] as *mut libc::sockaddr_ll).cast();
            msgs[i].msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_ll>() as u32;
        }
        // SAFETY: every msghdr points at buffers alive for this call.
        let r = unsafe {
            libc::recvmmsg(
                fd,
                msgs.as_mut_ptr(),
                n as libc::c_uint,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
            )
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            self.count = 0;
            return match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(0),
                _ => Err(e),
            };
        }
        let r = r as usize;
        for i in 0..r {
            self.lens[i] = msgs[i].msg_len as usize;
            self.outgoing[i] = addrs[i].sll_pkttype == libc::PACKET_OUTGOING;
        }
        self.count = r;
        Ok(r)
    }

    /// Packet `i` of the last receive (vnet header included), unless it was
    /// our own transmission looped back.
    pub fn packet_mut(&mut self, i: usize) -> Option<&mut [u8]> {
        if i >= self.count || self.outgoing[i] {
            return None;
        }
        let len = self.lens[i].min(self.bufs[i].len());
        Some(&mut self.bufs[i][..len])
    }
}

/// The descriptors of a `sendmmsg` call, kept between calls so sending
/// allocates nothing once warmed up.
#[derive(Default)]
pub struct SendScratch {
    iovs: Vec<[libc::iovec; 2]>,
    msgs: Vec<libc::mmsghdr>,
}

/// Send many `(header, frame)` packets with one `sendmmsg` call where
/// possible. Returns how many were accepted.
pub fn send_batch<'a>(
    fd: RawFd,
    scratch: &mut SendScratch,
    pkts: impl IntoIterator<Item = (&'a [u8], &'a [u8])>,
) -> io::Result<usize> {
    let SendScratch { iovs, msgs } = scratch;
    iovs.clear();
    iovs.extend(pkts.into_iter().map(|(h, f)| iov_pair(h, f)));
    if iovs.is_empty() {
        return Ok(0);
    }
    msgs.clear();
    for iov in iovs.iter_mut() {
        // SAFETY: mmsghdr is plain data; all zeroes is valid.
        let mut m: libc::mmsghdr = unsafe { std::mem::zeroed() };
        m.msg_hdr.msg_iov = iov.as_mut_ptr();
        m.msg_hdr.msg_iovlen = 2;
        msgs.push(m);
    }
    let mut sent = 0usize;
    while sent < msgs.len() {
        // SAFETY: the msghdrs point at `iovs` and at the packets borrowed
        // for this call; nothing keeps the pointers after it returns.
        let r = unsafe {
            libc::sendmmsg(
                fd,
                msgs[sent..].as_mut_ptr(),
                (msgs.len() - sent) as libc::c_uint,
                0,
            )
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            if sent == 0 {
                return Err(e);
            }
            return Ok(sent);
        }
        if r == 0 {
            break;
        }
        sent += r as usize;
    }
    Ok(sent)
}

/// Run `f` on a fresh thread that has entered network namespace `ns`
/// (`/run/netns/<ns>`), so sockets and devices it creates live there.
pub fn in_netns<T: Send + 'static>(
    ns: &str,
    f: impl FnOnce() -> io::Result<T> + Send + 'static,
) -> io::Result<T> {
    let path = format!("/run/netns/{ns}");
    std::thread::spawn(move || {
        let file = std::fs::File::open(&path)?;
        // SAFETY: setns on an open namespace file; affects this thread only.
        cvt(unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) })?;
        f()
    })
    .join()
    .map_err(|_| io::Error::other("namespace thread panicked"))?
}

/// CPU seconds (user + system) used by each thread of this process, from
/// `/proc/self/task/*/stat`, with the thread names.
pub fn thread_cpu() -> Vec<(String, f64)> {
    // SAFETY: sysconf with a constant argument.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return out;
    };
    for e in dir.flatten() {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        if let Some(v) = parse_stat_cpu(&stat) {
            out.push((v.0, v.1 / hz));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Parse `comm` and utime+stime (clock ticks) from a `/proc/*/stat` line.
pub fn parse_stat_cpu(stat: &str) -> Option<(String, f64)> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat.get(open + 1..close)?.to_string();
    let rest: Vec<&str> = stat.get(close + 1..)?.split_whitespace().collect();
    // After the comm: state(0) ppid(1) ... utime is field 14 overall => index 11.
    let ut: f64 = rest.get(11)?.parse().ok()?;
    let st: f64 = rest.get(12)?.parse().ok()?;
    Some((comm, ut + st))
}

/// A CPU wake-up latency request (`/dev/cpu_dma_latency`, the kernel's
/// PM QoS interface). While a request of 0 µs is held, idle CPUs wait in
/// the cpuidle POLL state instead of halting, so waking a task on another
/// CPU needs neither an inter-processor interrupt nor, in a VM, the
/// hypervisor rescheduling a halted vCPU. The request lives as long as the
/// file is open: closing it (drop, or the process dying) removes it.
pub struct CpuLatencyQos {
    file: std::fs::File,
    held: bool,
}

/// The PM QoS "no constraint" value (`PM_QOS_DEFAULT_VALUE`, µs).
const PM_QOS_NO_CONSTRAINT: i32 = 2_000_000_000;

impl CpuLatencyQos {
    /// Open the request, initially without a constraint: opening the file
    /// adds a request at the default value (no constraint) by itself, so
    /// nothing needs writing until `hold`.
    pub fn open() -> io::Result<CpuLatencyQos> {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/cpu_dma_latency")?;
        Ok(CpuLatencyQos { file, held: false })
    }

    fn write(&mut self, us: i32) -> io::Result<()> {
        use std::io::Write;
        // The interface takes a native-endian 32-bit value, written whole.
        self.file.write_all(&us.to_ne_bytes())
    }

    /// Ask for 0 µs wake-up latency (idle CPUs poll).
    pub fn hold(&mut self) -> io::Result<()> {
        if !self.held {
            self.write(0)?;
            self.held = true;
        }
        Ok(())
    }

    /// Drop the constraint (idle CPUs may halt again).
    pub fn relax(&mut self) -> io::Result<()> {
        if self.held {
            self.write(PM_QOS_NO_CONSTRAINT)?;
            self.held = false;
        }
        Ok(())
    }
}

/// Seconds all CPUs together have spent in the cpuidle POLL state (idle,
/// but spinning instead of halting), from
/// `/sys/devices/system/cpu/cpu*/cpuidle/state*/time` of the state named
/// POLL. `None` if the kernel does not expose it.
pub fn idle_poll_secs() -> Option<f64> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu").ok()?;
    let mut total_us = 0u64;
    let mut found = false;
    for cpu in dir.flatten() {
        // cpu0, cpu1, ... (not cpufreq, cpuidle).
        let name = cpu.file_name();
        let is_cpu = name
            .to_str()
            .and_then(|n| n.strip_prefix("cpu"))
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
        if !is_cpu {
            continue;
        }
        let Ok(states) = std::fs::read_dir(cpu.path().join("cpuidle")) else {
            continue;
        };
        for st in states.flatten() {
            let is_poll =
                std::fs::read_to_string(st.path().join("name")).is_ok_and(|x| x.trim() == "POLL");
            if !is_poll {
                continue;
            }
            if let Some(t) = std::fs::read_to_string(st.path().join("time"))
                .ok()
                .and_then(|x| x.trim().parse::<u64>().ok())
            {
                total_us += t;
                found = true;
            }
        }
    }
    found.then_some(total_us as f64 / 1e6)
}

/// Restrict the calling thread to `cpus`.
pub fn set_affinity(cpus: &[usize]) -> io::Result<()> {
    let set = cpu_set(cpus)?;
    // SAFETY: sched_setaffinity on the calling thread (0) reads the set.
    cvt(unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) })
        .map(|_| ())
}

/// The kernel's CPU set holding `cpus`.
pub fn cpu_set(cpus: &[usize]) -> io::Result<libc::cpu_set_t> {
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        if c >= libc::CPU_SETSIZE as usize {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "CPU number too large",
            ));
        }
        // SAFETY: c is within the set's size.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    Ok(set)
}

/// Make the process `c` starts run only on `cpus` (and what it execs
/// after it, e.g. `ip netns exec` running a tool). Empty: no change.
pub fn pin_command(c: &mut std::process::Command, cpus: &[usize]) -> io::Result<()> {
    use std::os::unix::process::CommandExt;
    if cpus.is_empty() {
        return Ok(());
    }
    let set = cpu_set(cpus)?;
    // SAFETY: the closure runs in the child between fork and exec; it only
    // makes one system call on a set built beforehand and allocates
    // nothing (last_os_error does not allocate).
    unsafe {
        c.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(())
            }
        });
    }
    Ok(())
}

/// The CPUs the calling thread may run on, in increasing order.
pub fn allowed_cpus() -> io::Result<Vec<usize>> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: the pointer and size describe `set`.
    cvt(unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) })?;
    // SAFETY: CPU_ISSET reads the set within its size.
    Ok((0..libc::CPU_SETSIZE as usize)
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect())
}

/// Whether the calling process is root.
pub fn is_root() -> bool {
    // SAFETY: geteuid never fails.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_parse_handles_spaces_in_comm() {
        let s = "1234 (sosa rx 0) S 1 1 1 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 1 0";
        let (c, t) = parse_stat_cpu(s).unwrap();
        assert_eq!(c, "sosa rx 0");
        assert_eq!(t, 325.0);
        assert!(parse_stat_cpu("garbage").is_none());
    }

    #[test]
    fn own_threads_have_cpu_entries() {
        let v = thread_cpu();
        assert!(!v.is_empty());
    }
}
