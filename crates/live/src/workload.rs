//! Real workloads for the lab (spec 8.1 "Lab command"): iperf3 for streams
//! (STR), sockperf TCP ping-pong for request/response (RR), run inside the
//! lab's namespaces as child processes, and the parsing of their reports.
//!
//! Every child is held by a [`ChildGuard`] that kills and reaps it on drop,
//! so an error or Ctrl-C never leaves a server running.

use std::io;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A child process killed and reaped when dropped.
pub struct ChildGuard {
    child: Option<Child>,
    pub what: String,
}

impl ChildGuard {
    /// Spawn `cmd`; the child is killed if this process dies (even by
    /// SIGKILL), so a crashed lab leaves no workload running.
    pub fn spawn(mut cmd: Command, what: &str) -> io::Result<ChildGuard> {
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure runs in the forked child before exec and only
        // calls prctl, which is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(
                    libc::PR_SET_PDEATHSIG,
                    libc::SIGKILL as libc::c_ulong,
                    0,
                    0,
                    0,
                ) != 0
                {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn()?;
        Ok(ChildGuard {
            child: Some(child),
            what: what.to_string(),
        })
    }

    /// The child's process id, while it has not been reaped.
    pub fn id(&self) -> Option<u32> {
        self.child.as_ref().map(|c| c.id())
    }

    /// Wait for the child to finish within `limit` and collect its stdout.
    /// Killed (and an error returned) if it overruns.
    pub fn wait_output(mut self, limit: Duration) -> io::Result<(bool, String, String)> {
        let Some(mut child) = self.child.take() else {
            return Err(io::Error::other("child already reaped"));
        };
        let start = std::time::Instant::now();
        loop {
            if let Some(_st) = child.try_wait()? {
                let out = child.wait_with_output()?;
                return Ok((
                    out.status.success(),
                    String::from_utf8_lossy(&out.stdout).into_owned(),
                    String::from_utf8_lossy(&out.stderr).into_owned(),
                ));
            }
            if crate::interrupted() {
                let _ = child.kill();
                let _ = child.wait();
                return Err(io::Error::new(io::ErrorKind::Interrupted, "interrupted"));
            }
            if start.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("{} did not finish in time", self.what),
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// What a failed tool said, for an error message: its `ERROR` / invalid
/// lines if it printed any, else its last non-empty lines, without
/// terminal colour codes or version banners.
pub fn tool_complaint(out: &str, err: &str) -> String {
    let clean: Vec<String> = err
        .lines()
        .chain(out.lines())
        .map(|l| strip_ansi(l).trim().to_string())
        .filter(|l| !l.is_empty() && !l.contains("== version #"))
        .collect();
    let errors: Vec<&String> = clean
        .iter()
        .filter(|l| {
            let u = l.to_ascii_uppercase();
            u.contains("ERROR") || u.contains("INVALID")
        })
        .collect();
    let pick: Vec<&String> = if errors.is_empty() {
        clean.iter().rev().take(2).rev().collect()
    } else {
        errors.into_iter().take(3).collect()
    };
    if pick.is_empty() {
        "(it printed nothing)".into()
    } else {
        pick.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    }
}

/// `ip netns exec <ns> <prog> <args...>` with output captured.
pub fn ns_command(ns: &str, prog: &str, args: &[String]) -> Command {
    let mut c = Command::new("ip");
    c.arg("netns").arg("exec").arg(ns).arg(prog).args(args);
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Whether process `pid`, running `prog`, has a TCP socket listening on
/// `port` in its network namespace (its own view of `/proc/PID/net`).
/// Until `ip netns exec` has entered the namespace and started `prog`, the
/// process is not yet the server, whatever its namespace holds.
pub fn listening(pid: u32, prog: &str, port: u16) -> bool {
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    if comm.trim_end() != prog {
        return false;
    }
    ["tcp", "tcp6"].iter().any(|t| {
        std::fs::read_to_string(format!("/proc/{pid}/net/{t}"))
            .is_ok_and(|table| tcp_table_listens(&table, port))
    })
}

/// Whether a `/proc/net/tcp`-format table has a socket in LISTEN (state
/// 0A) on local `port`.
fn tcp_table_listens(table: &str, port: u16) -> bool {
    table.lines().skip(1).any(|l| {
        let mut f = l.split_whitespace();
        let local = f.nth(1).unwrap_or("");
        let state = f.nth(1).unwrap_or("");
        state == "0A"
            && local
                .rsplit_once(':')
                .and_then(|(_, p)| u16::from_str_radix(p, 16).ok())
                == Some(port)
    })
}

/// Wait until every `(server, program, port)` listens, or `limit` passes
/// (or the run is interrupted); whether they all do. A fixed pause before
/// the clients start was too short for a busy machine: a client that
/// comes before its server fails the run.
pub fn wait_listening(servers: &[(&ChildGuard, &str, u16)], limit: Duration) -> bool {
    let start = std::time::Instant::now();
    loop {
        let ready = servers
            .iter()
            .all(|(g, prog, port)| g.id().is_some_and(|pid| listening(pid, prog, *port)));
        if ready {
            return true;
        }
        if crate::interrupted() || start.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Start an iperf3 server (one test, then exit) in `ns`.
pub fn iperf3_server(ns: &str, addr: &str, port: u16) -> io::Result<ChildGuard> {
    let args = vec![
        "-s".into(),
        "-1".into(),
        "-B".into(),
        addr.into(),
        "-p".into(),
        port.to_string(),
    ];
    let mut c = ns_command(ns, "iperf3", &args);
    c.stdout(Stdio::null()).stderr(Stdio::null());
    ChildGuard::spawn(c, "iperf3 server")
}

/// Start an iperf3 client: `streams` parallel TCP connections for `secs`
/// seconds, JSON report; `reverse` makes the server send.
pub fn iperf3_client(
    ns: &str,
    addr: &str,
    port: u16,
    secs: f64,
    streams: usize,
    reverse: bool,
) -> io::Result<ChildGuard> {
    let mut args: Vec<String> = vec![
        "-c".into(),
        addr.into(),
        "-p".into(),
        port.to_string(),
        "-t".into(),
        format!("{}", secs.max(1.0).ceil() as u64),
        "-P".into(),
        streams.max(1).to_string(),
        "-J".into(),
    ];
    if reverse {
        args.push("-R".into());
    }
    ChildGuard::spawn(ns_command(ns, "iperf3", &args), "iperf3 client")
}

/// Throughput (bits/s) received, from an iperf3 `-J` report (TCP:
/// `sum_received`; UDP: `sum`).
pub fn parse_iperf3(json: &str) -> Option<f64> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let end = v.get("end")?;
    end.get("sum_received")
        .or_else(|| end.get("sum"))?
        .get("bits_per_second")?
        .as_f64()
}

/// Start a sockperf TCP server in `ns` on `addr:port`, its packets marked
/// with IP TOS `tos` if given, running only on `cpus` (empty: anywhere).
pub fn sockperf_server(
    ns: &str,
    addr: &str,
    port: u16,
    tos: Option<u8>,
    cpus: &[usize],
) -> io::Result<ChildGuard> {
    let mut args: Vec<String> = vec![
        "server".into(),
        "--tcp".into(),
        "-i".into(),
        addr.into(),
        "-p".into(),
        port.to_string(),
    ];
    if let Some(t) = tos {
        args.push("--tos".into());
        args.push(t.to_string());
    }
    let mut c = ns_command(ns, "sockperf", &args);
    c.stdout(Stdio::null()).stderr(Stdio::null());
    crate::sys::pin_command(&mut c, cpus)?;
    ChildGuard::spawn(c, "sockperf server")
}

/// The arguments of a sockperf TCP client against `addr:port` for `secs`
/// with `msg_size`-byte messages. `mps` 0: `ping-pong` (one message in
/// flight, every round trip measured). Otherwise `under-load` at `mps`
/// messages per second whatever the answers do, each one answered and
/// measured (`--reply-every 1`): the latency of a connection carrying a
/// given transaction rate rather than as many as it can. `tos`: the IP TOS
/// byte of its packets.
pub fn sockperf_client_args(
    addr: &str,
    port: u16,
    secs: f64,
    msg_size: usize,
    mps: u32,
    tos: Option<u8>,
) -> Vec<String> {
    let mut args: Vec<String> = if mps == 0 {
        vec!["ping-pong".into()]
    } else {
        vec![
            "under-load".into(),
            "--mps".into(),
            mps.to_string(),
            "--reply-every".into(),
            "1".into(),
        ]
    };
    args.extend([
        "--tcp".into(),
        "-i".into(),
        addr.into(),
        "-p".into(),
        port.to_string(),
        "-t".into(),
        format!("{}", secs.max(1.0).ceil() as u64),
        "-m".into(),
        msg_size.max(14).to_string(),
        "--full-rtt".into(),
    ]);
    if let Some(t) = tos {
        args.push("--tos".into());
        args.push(t.to_string());
    }
    args
}

/// Round-trip statistics from a sockperf report (microseconds).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct RttStats {
    pub avg: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
    pub observations: u64,
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\u{1b}' {
            for d in it.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Parse the report of `sockperf ping-pong` or `under-load` with `--full-rtt`.
pub fn parse_sockperf(text: &str) -> Option<RttStats> {
    let text = strip_ansi(text);
    let mut s = RttStats::default();
    let mut have = 0;
    let num_after_eq = |l: &str| -> Option<f64> { l.rsplit('=').next()?.trim().parse().ok() };
    for l in text.lines() {
        if let Some(i) = l.find("avg-rtt=") {
            let t = &l[i + 8..];
            let end = t.find([' ', '(']).unwrap_or(t.len());
            s.avg = t[..end].trim().parse().ok()?;
            have |= 1;
        } else if l.contains("percentile 50.000") {
            s.p50 = num_after_eq(l)?;
            have |= 2;
        } else if l.contains("percentile 90.000") {
            s.p90 = num_after_eq(l)?;
        } else if l.contains("percentile 99.000") {
            s.p99 = num_after_eq(l)?;
        } else if l.contains("<MAX> observation") {
            s.max = num_after_eq(l)?;
        } else if l.contains("observations") && l.contains("Total") {
            let t = l.split_whitespace().skip_while(|w| *w != "Total").nth(1)?;
            s.observations = t.parse().ok()?;
        }
    }
    (have == 3).then_some(s)
}

/// Median of a list (NaN-free input); `None` if empty.
pub fn median(v: &[f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut w = v.to_vec();
    w.sort_by(|a, b| a.total_cmp(b));
    let m = w.len() / 2;
    Some(if w.len() % 2 == 1 {
        w[m]
    } else {
        (w[m - 1] + w[m]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listening_socket_is_found_in_the_process_table() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1451 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0000000000000000 100 0 0 10 0
   1: 0100007F:14B5 0100007F:1451 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0000000000000000 20 4 30 10 -1
";
        assert!(tcp_table_listens(table, 5201));
        // Established, not listening; and a port nobody has.
        assert!(!tcp_table_listens(table, 5301));
        assert!(!tcp_table_listens(table, 5202));
        assert!(!tcp_table_listens("", 5201));
        // This very process, by its own name; not under another name.
        let me = std::process::id();
        let comm = std::fs::read_to_string("/proc/self/comm").unwrap();
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert!(listening(me, comm.trim_end(), port));
        assert!(!listening(me, "iperf3", port));
        drop(l);
        assert!(!listening(me, comm.trim_end(), port));
    }

    const SOCKPERF: &str = "sockperf: \u{1b}[2;35m====> avg-rtt=59.290 (std-dev=23.784)\u{1b}[0m
sockperf: Summary: Round trip is 59.290 usec
sockperf: \u{1b}[2;35mTotal 26129 observations\u{1b}[0m; each percentile contains 261.29 observations
sockperf: ---> <MAX> observation = 2857.953
sockperf: ---> percentile 99.000 =   82.022
sockperf: ---> percentile 90.000 =   69.674
sockperf: ---> percentile 50.000 =   57.015
sockperf: ---> <MIN> observation =   12.979
";

    #[test]
    fn sockperf_report_parses() {
        let s = parse_sockperf(SOCKPERF).unwrap();
        assert_eq!(s.avg, 59.29);
        assert_eq!(s.p50, 57.015);
        assert_eq!(s.p99, 82.022);
        assert_eq!(s.max, 2857.953);
        assert_eq!(s.observations, 26129);
        assert!(parse_sockperf("sockperf: connection refused").is_none());
    }

    #[test]
    fn a_tool_failure_is_reported_by_its_error_line() {
        let out = "sockperf: \u{1b}[2;35m== version #3.7-no.git == \u{1b}[0m\n\
                   sockperf[CLIENT] send on:sockperf: ERROR: Can`t connect socket \
                   (errno=113 No route to host)\n";
        assert_eq!(
            tool_complaint(out, ""),
            "sockperf[CLIENT] send on:sockperf: ERROR: Can`t connect socket (errno=113 No route to host)"
        );
        let err = "sockperf: '-m' Invalid message size: 100000000 (max: 1048575)\n\
                   ping-pong (pp): Run sockperf client for latency test in ping pong mode.\n";
        assert_eq!(
            tool_complaint("", err),
            "sockperf: '-m' Invalid message size: 100000000 (max: 1048575)"
        );
        assert_eq!(tool_complaint("a\nb\nc\n", ""), "b | c");
        assert_eq!(tool_complaint("", "  \n"), "(it printed nothing)");
    }

    #[test]
    fn iperf3_report_parses() {
        let j = r#"{"end":{"sum_received":{"bits_per_second":1.5e10}}}"#;
        assert_eq!(parse_iperf3(j), Some(1.5e10));
        assert_eq!(parse_iperf3("{}"), None);
        let u = r#"{"end":{"sum":{"bits_per_second":2.5e8,"lost_percent":3.0}}}"#;
        assert_eq!(parse_iperf3(u), Some(2.5e8));
        assert_eq!(parse_iperf3("not json"), None);
    }

    #[test]
    fn median_odd_even() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
