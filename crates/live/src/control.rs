//! Operating a running instance (spec 8.1 "Operation while running"): a unix
//! control socket answering `display KIND` requests (what `softosa display`
//! sends), and Prometheus metrics in the text exposition format on a local
//! TCP port. Both serve from a [`StatusSource`] the data plane implements.
//!
//! Protocol of the control socket: the client writes one line, the server
//! answers and closes the connection.
//!
//! - `display <KIND> [json] [intf=<NAME>]`: the rendered display. The words
//!   after the kind are options, and a server passes over words it does not
//!   know: a request of an older client is answered as it always was, and
//!   options can be added. `intf=NAME` selects what to show as `softosa
//!   display --intf` does for a profile. An older server would pass over it
//!   and show everything, so a server that honours it begins its answer
//!   with the line `intf=NAME` as sent; the client checks and removes it
//!   ([`decode_reply`]).
//! - `metrics`: the samples in the Prometheus text format.
//!
//! A request that cannot be served gets a line starting `error:`; it is
//! `error: usage: ` when the request asked for something the lab does not
//! have (a display, an interface), which `softosa display` treats as a
//! usage error, as it does for the same mistake against a profile.
//! Each client is served on its own short-lived thread (at most
//! [`MAX_CLIENTS`] at once), so a client that connects and sends nothing
//! does not hold up `softosa display` or a metrics scrape behind it.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// One metric sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    pub name: String,
    pub help: &'static str,
    /// "counter" or "gauge".
    pub kind: &'static str,
    pub labels: Vec<(&'static str, String)>,
    pub value: f64,
}

/// What `softosa display` asks a running lab for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisplayRequest {
    /// The display, as typed (the server matches it case-insensitively).
    /// One word: the request line is split at blanks.
    pub kind: String,
    /// JSON instead of the z/OS layout.
    pub json: bool,
    /// What to show (`--intf`): an interface (`NAME` or `STACK/NAME`), a
    /// TRLE or a stack, as the display takes it; `None` shows everything.
    /// One word, like the kind.
    pub target: Option<String>,
    /// OSAINFO's `MAX=` (`--max`); `None`: z/OS's default.
    pub max: Option<softosa_display::cli::OsaInfoMax>,
}

impl DisplayRequest {
    /// The whole of display `kind` in text.
    pub fn text(kind: &str) -> DisplayRequest {
        DisplayRequest {
            kind: kind.to_string(),
            json: false,
            target: None,
            max: None,
        }
    }

    /// The request line, without its newline.
    pub fn line(&self) -> String {
        let mut s = format!("display {}", self.kind);
        if self.json {
            s.push_str(" json");
        }
        if let Some(t) = &self.target {
            s.push_str(" intf=");
            s.push_str(t);
        }
        if let Some(m) = self.max {
            s.push_str(&format!(" max={m}"));
        }
        s
    }

    /// The request on `line`, if it is a display request. Words after the
    /// kind that are not options of this version are passed over.
    pub fn parse(line: &str) -> Option<DisplayRequest> {
        let mut words = line.split_whitespace();
        if words.next() != Some("display") {
            return None;
        }
        let mut req = DisplayRequest::text(words.next()?);
        for w in words {
            match w.split_once('=') {
                None if w.eq_ignore_ascii_case("json") => req.json = true,
                Some((key, value)) if key.eq_ignore_ascii_case("intf") && !value.is_empty() => {
                    req.target.get_or_insert_with(|| value.to_string());
                }
                Some((key, value)) if key.eq_ignore_ascii_case("max") => {
                    if let Ok(m) = softosa_display::cli::parse_max(value) {
                        req.max.get_or_insert(m);
                    }
                }
                _ => {}
            }
        }
        Some(req)
    }

    /// The line a served answer to this request begins with: the target,
    /// so the client knows it was honoured.
    fn ack(&self) -> Option<String> {
        self.target.as_ref().map(|t| format!("intf={t}"))
    }
}

/// Why a running lab did not show a display.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The request asked for something the lab does not have: a display,
    /// an interface, a target for a display of the whole adapter. A usage
    /// error (`softosa display` exits 2), as against a profile.
    #[error("{0}")]
    Usage(String),
    /// The lab could not answer (too many clients at once, ...).
    #[error("{0}")]
    Failed(String),
    /// The answer shows everything, not the target asked for: the lab runs
    /// a softosa older than `intf=`.
    #[error(
        "the lab answered with everything instead of {target} alone: it runs an older \
         softosa, which does not take --intf; ask without --intf, or run the lab with this softosa"
    )]
    TargetIgnored { target: String },
}

impl Refusal {
    /// Whether `softosa display` should exit 2 (a usage error) for it.
    pub fn is_usage(&self) -> bool {
        matches!(self, Refusal::Usage(_))
    }
}

/// The server's answer to `req`: the display, after the acknowledgement of
/// its target if it has one, or an `error:` line.
pub fn encode_reply(req: &DisplayRequest, shown: Result<String, Refusal>) -> String {
    match shown {
        Ok(body) => match req.ack() {
            Some(ack) => format!("{ack}\n{body}"),
            None => body,
        },
        Err(Refusal::Usage(m)) => format!("error: usage: {m}\n"),
        Err(e) => format!("error: {e}\n"),
    }
}

/// The display in a server's answer to `req`, or why there is none.
pub fn decode_reply(req: &DisplayRequest, reply: &str) -> Result<String, Refusal> {
    if let Some(e) = reply.strip_prefix("error:") {
        let e = e.trim();
        return Err(match e.strip_prefix("usage:") {
            Some(m) => Refusal::Usage(m.trim_start().to_string()),
            None => Refusal::Failed(e.to_string()),
        });
    }
    let (Some(ack), Some(target)) = (req.ack(), &req.target) else {
        return Ok(reply.to_string());
    };
    match reply.split_once('\n') {
        Some((first, body)) if first == ack => Ok(body.to_string()),
        _ => Err(Refusal::TargetIgnored {
            target: target.clone(),
        }),
    }
}

/// What the control socket and metrics endpoint read from.
pub trait StatusSource: Send + Sync + 'static {
    /// Render the display `req` asks for; `Err` says why not.
    fn display(&self, req: &DisplayRequest) -> Result<String, Refusal>;
    /// Current metric samples.
    fn metrics(&self) -> Vec<Metric>;
}

/// Render samples in the Prometheus text exposition format (version 0.0.4).
pub fn render_metrics(samples: &[Metric]) -> String {
    let mut out = String::new();
    let mut last = "";
    for m in samples {
        if m.name != last {
            out.push_str(&format!(
                "# HELP {} {}\n# TYPE {} {}\n",
                m.name, m.help, m.name, m.kind
            ));
            last = &m.name;
        }
        out.push_str(&m.name);
        if !m.labels.is_empty() {
            let l: Vec<String> = m
                .labels
                .iter()
                .map(|(k, v)| {
                    let v = v
                        .replace('\\', "\\\\")
                        .replace('"', "\\\"")
                        .replace('\n', "\\n");
                    format!("{k}=\"{v}\"")
                })
                .collect();
            out.push('{');
            out.push_str(&l.join(","));
            out.push('}');
        }
        out.push_str(&format!(" {}\n", m.value));
    }
    out
}

/// Where instances' control sockets live.
pub const SOCKET_DIR: &str = "/run/softosa";

/// The default control socket path of an instance.
pub fn socket_path(instance: &str) -> PathBuf {
    Path::new(SOCKET_DIR).join(format!("{instance}.sock"))
}

/// Background servers; stopped and the socket file removed on drop.
pub struct Servers {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    socket: Option<SocketFile>,
    pub metrics_addr: Option<SocketAddr>,
}

/// The control socket and metrics port, bound but not yet served: the lab
/// binds them before it builds anything, so a name or port another
/// instance holds is refused at once and nothing is torn down for it.
pub struct Listeners {
    control: Option<(UnixListener, SocketFile)>,
    metrics: Option<TcpListener>,
}

/// Why the control socket or metrics port cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum BindError {
    #[error(
        "instance {name:?} is already running (its control socket {} answers); \
         stop it or pick another --instance name",
        path.display()
    )]
    InstanceRunning { name: String, path: PathBuf },
    #[error(
        "metrics port {port} on 127.0.0.1 is in use (another lab or program); \
         pick another --metrics-port, or 0 for a free one"
    )]
    PortInUse { port: u16 },
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: io::Error,
    },
}

fn bind_err(what: String) -> impl FnOnce(io::Error) -> BindError {
    move |source| BindError::Io { what, source }
}

impl Listeners {
    /// Bind the control socket at `sock` (if given) and the metrics
    /// endpoint on `127.0.0.1:<port>` (if given; 0 picks a free port). A
    /// socket file nobody answers on (left by a killed run) is replaced; one
    /// a running instance answers on is not touched.
    pub fn bind(sock: Option<&Path>, metrics_port: Option<u16>) -> Result<Listeners, BindError> {
        let mut l = Listeners {
            control: None,
            metrics: None,
        };
        if let Some(path) = sock {
            let what = format!("control socket {}", path.display());
            let dir = dir_of(path);
            std::fs::create_dir_all(dir)
                .map_err(bind_err(format!("creating {}", dir.display())))?;
            // Check, replace and bind under the directory's lock: two runs
            // of one name starting together would otherwise both find no
            // answer, and the second would unlink the first's fresh socket.
            let _claim = lock_dir(dir).map_err(bind_err(what.clone()))?;
            match UnixStream::connect(path) {
                Ok(_) => {
                    let name = path
                        .file_stem()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    return Err(BindError::InstanceRunning {
                        name,
                        path: path.to_path_buf(),
                    });
                }
                // Nobody listens (a killed run's file), or no file at all.
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                    let _ = std::fs::remove_file(path);
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                // Anything else (no permission, ...) may be a live
                // instance's socket: never remove it.
                Err(e) => return Err(bind_err(what)(e)),
            }
            let u = UnixListener::bind(path).map_err(bind_err(what.clone()))?;
            // Known from here on, so that any failure below removes it.
            let file = match SocketFile::bound(path, &u) {
                Ok(f) => f,
                Err(e) => {
                    let _ = std::fs::remove_file(path);
                    return Err(bind_err(what)(e));
                }
            };
            l.control = Some((u, file));
            if let Some((u, _)) = &l.control {
                u.set_nonblocking(true).map_err(bind_err(what))?;
            }
        }
        if let Some(port) = metrics_port {
            let t = TcpListener::bind(("127.0.0.1", port)).map_err(|e| {
                if e.kind() == io::ErrorKind::AddrInUse {
                    BindError::PortInUse { port }
                } else {
                    BindError::Io {
                        what: format!("metrics port {port}"),
                        source: e,
                    }
                }
            })?;
            t.set_nonblocking(true)
                .map_err(bind_err(format!("metrics port {port}")))?;
            l.metrics = Some(t);
        }
        Ok(l)
    }

    /// Serve displays and metrics from `src` on what was bound.
    pub fn serve(mut self, src: Arc<dyn StatusSource>) -> io::Result<Servers> {
        let stop = Arc::new(AtomicBool::new(false));
        let mut s = Servers {
            stop: stop.clone(),
            threads: Vec::new(),
            socket: None,
            metrics_addr: None,
        };
        let (control, metrics) = (self.control.take(), self.metrics.take());
        if let Some((l, file)) = control {
            // Owned from here on: removed when `s` is dropped, also if a
            // thread cannot be started below.
            s.socket = Some(file);
            let (src, stop) = (src.clone(), stop.clone());
            s.threads.push(
                std::thread::Builder::new()
                    .name("sosa-control".into())
                    .spawn(move || control_loop(l, src, stop))?,
            );
        }
        if let Some(l) = metrics {
            s.metrics_addr = Some(l.local_addr()?);
            let (src, stop) = (src.clone(), stop.clone());
            s.threads.push(
                std::thread::Builder::new()
                    .name("sosa-metrics".into())
                    .spawn(move || metrics_loop(l, src, stop))?,
            );
        }
        Ok(s)
    }
}

impl Drop for Listeners {
    fn drop(&mut self) {
        // Bound but never served (the run failed before): remove the file.
        if let Some((l, file)) = self.control.take() {
            drop(l);
            file.remove_if_ours();
        }
    }
}

impl Servers {
    /// Bind ([`Listeners::bind`]) and serve at once.
    pub fn start(
        src: Arc<dyn StatusSource>,
        sock: Option<&Path>,
        metrics_port: Option<u16>,
    ) -> io::Result<Servers> {
        Listeners::bind(sock, metrics_port)
            .map_err(io::Error::other)?
            .serve(src)
    }
}

/// Remove control sockets under `dir` that no running instance answers on
/// (left by a run that was killed). Returns the paths removed.
pub fn clean_stale_sockets(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return removed;
    };
    // A run claiming a name replaces a stale file under this lock; without
    // it, its fresh socket could be taken for the stale one and removed.
    let Ok(_claim) = lock_dir(dir) else {
        return removed;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "sock") {
            continue;
        }
        let refused = matches!(
            UnixStream::connect(&p),
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused
        );
        if refused && std::fs::remove_file(&p).is_ok() {
            removed.push(p);
        }
    }
    removed
}

/// The instances whose control socket under `dir` answers, by name,
/// sorted: the labs `softosa display --instance NAME` can ask now.
pub fn running_instances(dir: &Path) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "sock"))
        .filter(|p| UnixStream::connect(p).is_ok())
        .filter_map(|p| Some(p.file_stem()?.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}

impl Drop for Servers {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        if let Some(file) = self.socket.take() {
            file.remove_if_ours();
        }
    }
}

/// A control socket file this run bound, known by the identity the file
/// system gave it, so that it is removed at the end only while it is still
/// this run's.
///
/// Once our listener is closed another run may claim the name (it finds
/// nobody answering, unlinks our file and binds its own), and that socket
/// must not be removed. Asking whether the file still answers cannot tell
/// the two apart: a child process forked by any thread of ours holds a
/// copy of the listening descriptor until it execs, and for that moment a
/// connect to our own closed-down socket succeeds, so the file was left
/// behind. Instead we keep a copy of the listener open until the file is
/// removed: while it is open nobody can claim the name (it answers), and
/// the bound socket keeps its file's inode allocated, so no other file can
/// have the device and inode number we noted. (The number of a freed inode
/// is soon given to the next file, so they are compared only while ours is
/// held.)
struct SocketFile {
    path: PathBuf,
    id: FileId,
    hold: UnixListener,
}

/// Device and inode number of a file.
type FileId = (u64, u64);

fn file_id(path: &Path) -> io::Result<FileId> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path)?;
    Ok((m.dev(), m.ino()))
}

impl SocketFile {
    /// The socket `listener` just bound at `path` (called under the
    /// directory's lock).
    fn bound(path: &Path, listener: &UnixListener) -> io::Result<SocketFile> {
        Ok(SocketFile {
            path: path.to_path_buf(),
            id: file_id(path)?,
            hold: listener.try_clone()?,
        })
    }

    /// Remove the file if it is still the one bound, under the directory's
    /// lock, then close our copy of the listener.
    fn remove_if_ours(self) {
        let _claim = lock_dir(dir_of(&self.path));
        if file_id(&self.path).is_ok_and(|id| id == self.id) {
            let _ = std::fs::remove_file(&self.path);
        }
        drop(self.hold);
    }
}

/// A socket file nobody listens on, as a killed run leaves: made without
/// ever binding a socket, so no process (not a child another test thread
/// forks at that moment) can hold it open and answer on it.
#[cfg(test)]
pub(crate) fn dead_socket(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).expect("path without NUL");
    // SAFETY: mknod on a NUL-terminated path this function owns.
    let r = unsafe { libc::mknod(c.as_ptr(), libc::S_IFSOCK | 0o600, 0) };
    assert_eq!(
        r,
        0,
        "mknod {}: {}",
        path.display(),
        io::Error::last_os_error()
    );
}

/// The directory a control socket `path` lives in.
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Hold an exclusive lock on directory `dir` (released when the returned
/// file is dropped): claiming and releasing a control socket name there is
/// then one step for every run of softosa.
fn lock_dir(dir: &Path) -> io::Result<std::fs::File> {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(dir)?;
    loop {
        // SAFETY: flock on a descriptor this function owns.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Ok(f);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Clients served at once per server; one more is answered "busy" and
/// closed, so a stuck or slow client can never hold up the next one for
/// long, and a flood of connections cannot start unbounded threads.
pub const MAX_CLIENTS: usize = 8;
/// How long a client may take to send its request line.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);

/// A connection either server accepts.
trait Client: Read + Write + Send + 'static {
    /// Blocking, with `t` as both read and write timeout.
    fn set_timeout(&self, t: Duration) -> io::Result<()>;
    fn shutdown_write(&self) -> io::Result<()>;
}

/// The two stream types have the same methods under the same names.
macro_rules! client_impl {
    ($t:ty) => {
        impl Client for $t {
            fn set_timeout(&self, t: Duration) -> io::Result<()> {
                self.set_nonblocking(false)?;
                self.set_read_timeout(Some(t))?;
                self.set_write_timeout(Some(t))
            }
            fn shutdown_write(&self) -> io::Result<()> {
                self.shutdown(std::net::Shutdown::Write)
            }
        }
    };
}
client_impl!(UnixStream);
client_impl!(std::net::TcpStream);

/// Tell a client there is no slot for it: write `busy`, then take in what
/// it sent (waiting at most 100 ms, which slows accepting only while every
/// slot is taken) so that closing does not reset the connection before it
/// has read the answer.
fn turn_away<C: Client>(mut c: C, busy: &[u8]) {
    let _ = c.write_all(busy);
    let _ = c.shutdown_write();
    // Take the request line (up to 100 ms) before closing, so that the
    // client's write does not meet a closed socket.
    let until = std::time::Instant::now() + Duration::from_millis(100);
    let mut sink = [0u8; 4096];
    loop {
        let left = until.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() || c.set_timeout(left).is_err() {
            break;
        }
        match c.read(&mut sink) {
            Ok(n @ 1..) if !sink[..n].contains(&b'\n') => {}
            _ => break,
        }
    }
}

/// Accept loop shared by both servers: each accepted client is served on a
/// thread of its own (at most [`MAX_CLIENTS`] at once) by `serve`, or is
/// turned away with `busy` when that many are being served.
fn accept_loop<L, C: Client>(
    accept: impl Fn(&L) -> io::Result<C>,
    l: L,
    stop: Arc<AtomicBool>,
    busy: &'static [u8],
    serve: impl Fn(C) + Send + Sync + Clone + 'static,
) {
    let active = Arc::new(AtomicUsize::new(0));
    while !stop.load(Ordering::Relaxed) {
        let c = match accept(&l).and_then(|c| c.set_timeout(CLIENT_TIMEOUT).map(|()| c)) {
            Ok(c) => c,
            Err(_) => {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        if active.fetch_add(1, Ordering::AcqRel) >= MAX_CLIENTS {
            active.fetch_sub(1, Ordering::AcqRel);
            turn_away(c, busy);
            continue;
        }
        let (serve, done) = (serve.clone(), active.clone());
        let spawned = std::thread::Builder::new()
            .name("sosa-client".into())
            .spawn(move || {
                serve(c);
                done.fetch_sub(1, Ordering::AcqRel);
            });
        if spawned.is_err() {
            active.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

fn control_loop(l: UnixListener, src: Arc<dyn StatusSource>, stop: Arc<AtomicBool>) {
    let accept = |l: &UnixListener| l.accept().map(|(c, _)| c);
    let busy = b"error: busy, too many clients at once; try again\n";
    accept_loop(accept, l, stop, busy, move |mut c: UnixStream| {
        let mut line = String::new();
        let mut r = BufReader::new(&c).take(4096);
        if r.read_line(&mut line).is_err() {
            return;
        }
        let reply = if let Some(req) = DisplayRequest::parse(&line) {
            encode_reply(&req, src.display(&req))
        } else if line.split_whitespace().eq(["metrics"]) {
            render_metrics(&src.metrics())
        } else {
            "error: expected `display KIND [json] [intf=NAME]` or `metrics`\n".to_string()
        };
        let _ = c.write_all(reply.as_bytes());
    });
}

fn metrics_loop(l: TcpListener, src: Arc<dyn StatusSource>, stop: Arc<AtomicBool>) {
    let accept = |l: &TcpListener| l.accept().map(|(c, _)| c);
    let busy = b"HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n";
    accept_loop(accept, l, stop, busy, move |mut c: std::net::TcpStream| {
        let mut buf = [0u8; 2048];
        let _ = c.read(&mut buf);
        let body = render_metrics(&src.metrics());
        let head = format!(
            "HTTP/1.0 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let _ = c.write_all(head.as_bytes());
        let _ = c.write_all(body.as_bytes());
    });
}

/// Ask a running instance for a display over its control socket.
pub fn request(sock: &Path, line: &str) -> io::Result<String> {
    let mut c = UnixStream::connect(sock)?;
    c.set_read_timeout(Some(Duration::from_secs(5)))?;
    // One write, and what the lab said is read even if the write failed: a
    // busy lab answers and closes without waiting for the request.
    let sent = c.write_all(format!("{line}\n").as_bytes());
    let mut s = String::new();
    let read = c.read_to_string(&mut s);
    // What arrived is the answer, even if the lab then reset the
    // connection (it closed with our request unread); a stall part way
    // (the read timeout) is an error, not a shorter answer.
    let reset = |e: &io::Error| {
        matches!(
            e.kind(),
            io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe
        )
    };
    match (sent, read) {
        (Ok(()), Ok(_)) => Ok(s),
        (_, Ok(_)) if !s.is_empty() => Ok(s),
        (_, Err(e)) if reset(&e) && !s.is_empty() => Ok(s),
        (Err(e), _) | (Ok(()), Err(e)) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake;
    impl StatusSource for Fake {
        fn display(&self, req: &DisplayRequest) -> Result<String, Refusal> {
            match (req.kind.as_str(), req.target.as_deref()) {
                ("COUNTERS", None) if req.json => Ok("{\"frames\":3}\n".into()),
                ("COUNTERS", None) => Ok("FRAMES 3\n".into()),
                ("QUEUES", None) => Ok("Q1\nQ2\n".into()),
                ("QUEUES", Some("Q2")) => Ok("Q2\n".into()),
                ("QUEUES", Some(t)) => Err(Refusal::Usage(format!("no {t}; there are Q1, Q2"))),
                _ => Err(Refusal::Usage(format!("unknown display {}", req.kind))),
            }
        }
        fn metrics(&self) -> Vec<Metric> {
            vec![
                Metric {
                    name: "softosa_frames_total".into(),
                    help: "frames",
                    kind: "counter",
                    labels: vec![("port", "P1".into())],
                    value: 3.0,
                },
                Metric {
                    name: "softosa_frames_total".into(),
                    help: "frames",
                    kind: "counter",
                    labels: vec![("port", "P\"2".into())],
                    value: 4.0,
                },
            ]
        }
    }

    #[test]
    fn exposition_format() {
        let t = render_metrics(&Fake.metrics());
        assert_eq!(
            t,
            "# HELP softosa_frames_total frames\n# TYPE softosa_frames_total counter\n\
             softosa_frames_total{port=\"P1\"} 3\nsoftosa_frames_total{port=\"P\\\"2\"} 4\n"
        );
    }

    #[test]
    fn display_requests_are_one_line_of_words() {
        let full = DisplayRequest {
            kind: "TUNING".into(),
            json: true,
            target: Some("TCPIP1/OSAQDIO1".into()),
            max: None,
        };
        assert_eq!(full.line(), "display TUNING json intf=TCPIP1/OSAQDIO1");
        assert_eq!(DisplayRequest::parse(&full.line()), Some(full.clone()));
        // OSAINFO's MAX= travels as max=N or max=*; a bad one is passed over.
        use softosa_display::cli::OsaInfoMax;
        for (max, word) in [
            (OsaInfoMax::Lines(50), "max=50"),
            (OsaInfoMax::All, "max=*"),
        ] {
            let r = DisplayRequest {
                max: Some(max),
                ..DisplayRequest::text("OSAINFO")
            };
            assert_eq!(r.line(), format!("display OSAINFO {word}"));
            assert_eq!(DisplayRequest::parse(&r.line()), Some(r));
        }
        let p = DisplayRequest::parse("display OSAINFO max=0");
        assert_eq!(p.map(|r| r.max), Some(None));
        let plain = DisplayRequest::text("devlinks");
        assert_eq!(plain.line(), "display devlinks");
        assert_eq!(DisplayRequest::parse("display devlinks\n"), Some(plain));
        // Options in any order and case; words of a later version are
        // passed over; an empty target is no target.
        assert_eq!(
            DisplayRequest::parse("display TUNING intf=TCPIP1/OSAQDIO1 colour=red JSON"),
            Some(full)
        );
        let p = DisplayRequest::parse("display QUEUES intf= json");
        assert_eq!(p.map(|r| (r.json, r.target)), Some((true, None)));
        // A name may hold '=' after the first one.
        let p = DisplayRequest::parse("display TRLE INTF=A=B");
        assert_eq!(p.and_then(|r| r.target).as_deref(), Some("A=B"));
        for not_display in ["", "display", "metrics", "DISPLAY TUNING", "show TUNING"] {
            assert_eq!(DisplayRequest::parse(not_display), None, "{not_display:?}");
        }
    }

    #[test]
    fn replies_carry_the_display_or_why_not() {
        let all = DisplayRequest::text("TUNING");
        let one = DisplayRequest {
            target: Some("OSAQDIO1".into()),
            ..all.clone()
        };
        let body = "IST1230I TIME = 1\nDIR = RD/1\n";
        // Without a target the answer is the display as it always was.
        let r = encode_reply(&all, Ok(body.into()));
        assert_eq!(r, body);
        assert_eq!(decode_reply(&all, &r).as_deref(), Ok(body));
        // With one, it is acknowledged first, and the client removes that.
        let r = encode_reply(&one, Ok(body.into()));
        assert_eq!(r, format!("intf=OSAQDIO1\n{body}"));
        assert_eq!(decode_reply(&one, &r).as_deref(), Ok(body));
        // An older lab's answer has no acknowledgement: it showed all.
        assert_eq!(
            decode_reply(&one, body),
            Err(Refusal::TargetIgnored {
                target: "OSAQDIO1".into()
            })
        );
        let unacked = decode_reply(&one, "intf=OTHER\nDIR = RD/1\n");
        assert!(matches!(unacked, Err(Refusal::TargetIgnored { .. })));
        // Errors of either class, several lines kept.
        let usage = Refusal::Usage("no interface named \"X\";\n  interfaces: A".into());
        let r = encode_reply(&one, Err(usage.clone()));
        assert_eq!(
            r,
            "error: usage: no interface named \"X\";\n  interfaces: A\n"
        );
        assert_eq!(decode_reply(&one, &r), Err(usage));
        let failed = Refusal::Failed("could not encode".into());
        let r = encode_reply(&all, Err(failed.clone()));
        assert_eq!(r, "error: could not encode\n");
        assert_eq!(decode_reply(&all, &r), Err(failed));
        // What an older lab or a busy one says is a failure, not usage.
        for old in [
            "error: unknown display \"NOPE\"\n",
            "error: busy, too many clients at once; try again\n",
        ] {
            let e = decode_reply(&one, old).unwrap_err();
            assert!(!e.is_usage(), "{e:?}");
        }
    }

    /// Ask the metrics endpoint on connection `c`; the whole HTTP answer.
    fn scrape(mut c: std::net::TcpStream) -> String {
        c.write_all(b"GET /metrics HTTP/1.0\r\n\r\n").unwrap();
        let mut body = String::new();
        c.read_to_string(&mut body).unwrap();
        body
    }

    #[test]
    fn control_socket_and_metrics_endpoint_answer() {
        let dir = std::env::temp_dir().join(format!("sosa-ctl-{}", std::process::id()));
        let sock = dir.join("t.sock");
        let s = Servers::start(Arc::new(Fake), Some(&sock), Some(0)).unwrap();
        assert_eq!(request(&sock, "display COUNTERS").unwrap(), "FRAMES 3\n");
        assert_eq!(
            request(&sock, "display COUNTERS json").unwrap(),
            "{\"frames\":3}\n"
        );
        assert_eq!(
            request(&sock, "display NOPE").unwrap(),
            "error: usage: unknown display NOPE\n"
        );
        // A target is acknowledged on the first line, and one the source
        // does not have is refused as a usage error.
        assert_eq!(
            request(&sock, "display QUEUES intf=Q2").unwrap(),
            "intf=Q2\nQ2\n"
        );
        let req = DisplayRequest {
            target: Some("BOGUS".into()),
            ..DisplayRequest::text("QUEUES")
        };
        let reply = request(&sock, &req.line()).unwrap();
        assert_eq!(
            decode_reply(&req, &reply),
            Err(Refusal::Usage("no BOGUS; there are Q1, Q2".into()))
        );
        assert!(request(&sock, "show QUEUES")
            .unwrap()
            .starts_with("error: expected `display KIND"));
        let body = scrape(std::net::TcpStream::connect(s.metrics_addr.unwrap()).unwrap());
        assert!(body.starts_with("HTTP/1.0 200 OK"));
        assert!(body.contains("softosa_frames_total{port=\"P1\"} 3"));
        drop(s);
        assert!(!sock.exists());
        let _ = std::fs::remove_dir(dir);
    }

    #[test]
    fn socket_file_is_removed_only_while_it_is_ours() {
        let dir = std::env::temp_dir().join(format!("sosa-own-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.sock");
        // Our listening socket still open elsewhere (as in a child forked
        // by another thread, before it execs): it answers, yet it is ours.
        let held = UnixListener::bind(&path).unwrap();
        let ours = SocketFile::bound(&path, &held).unwrap();
        assert!(UnixStream::connect(&path).is_ok());
        ours.remove_if_ours();
        assert!(!path.exists());
        drop(held);
        // The name was taken from under us (the file removed and bound
        // again): that socket stays. Many rounds, as a file system may
        // hand a freed inode number to the next file at once.
        for _ in 0..50 {
            let first = UnixListener::bind(&path).unwrap();
            let ours = SocketFile::bound(&path, &first).unwrap();
            drop(first);
            std::fs::remove_file(&path).unwrap();
            let theirs = UnixListener::bind(&path).unwrap();
            ours.remove_if_ours();
            assert!(path.exists());
            assert!(UnixStream::connect(&path).is_ok());
            drop(theirs);
            std::fs::remove_file(&path).unwrap();
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn running_instances_are_the_sockets_that_answer() {
        let dir = std::env::temp_dir().join(format!("sosa-running-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        assert!(running_instances(&dir).is_empty());
        // A live one, a killed run's (bound, then closed), and other files.
        let b = Servers::start(Arc::new(Fake), Some(&dir.join("beta.sock")), None).unwrap();
        let a = Servers::start(Arc::new(Fake), Some(&dir.join("alpha.sock")), None).unwrap();
        dead_socket(&dir.join("dead.sock"));
        std::fs::write(dir.join("notes.txt"), "x").unwrap();
        std::fs::write(dir.join("plain.sock"), "x").unwrap();
        assert_eq!(running_instances(&dir), ["alpha", "beta"]);
        drop((a, b));
        assert!(running_instances(&dir).is_empty());
        assert!(running_instances(&dir.join("absent")).is_empty());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_silent_client_does_not_hold_up_the_next_one() {
        let dir = std::env::temp_dir().join(format!("sosa-ctl2-{}", std::process::id()));
        let sock = dir.join("t.sock");
        let s = Servers::start(Arc::new(Fake), Some(&sock), Some(0)).unwrap();
        // Connected, request not sent yet: a one-at-a-time server would sit
        // in this client's read until its timeout, then drop it.
        let mut silent = UnixStream::connect(&sock).unwrap();
        let silent_http = std::net::TcpStream::connect(s.metrics_addr.unwrap()).unwrap();
        assert_eq!(request(&sock, "display COUNTERS").unwrap(), "FRAMES 3\n");
        let body = scrape(std::net::TcpStream::connect(s.metrics_addr.unwrap()).unwrap());
        assert!(body.starts_with("HTTP/1.0 200 OK"), "{body}");
        // The silent clients were served meanwhile by threads of their own
        // and are still being waited for: they get their answers now.
        silent.write_all(b"display COUNTERS\n").unwrap();
        let mut reply = String::new();
        silent.read_to_string(&mut reply).unwrap();
        assert_eq!(reply, "FRAMES 3\n");
        let body = scrape(silent_http);
        assert!(body.starts_with("HTTP/1.0 200 OK"), "{body}");
        drop(s);
        let _ = std::fs::remove_dir(dir);
    }

    #[test]
    fn too_many_clients_at_once_are_told_so() {
        let dir = std::env::temp_dir().join(format!("sosa-ctl3-{}", std::process::id()));
        let sock = dir.join("t.sock");
        let s = Servers::start(Arc::new(Fake), Some(&sock), None).unwrap();
        let held: Vec<UnixStream> = (0..MAX_CLIENTS)
            .map(|_| UnixStream::connect(&sock).unwrap())
            .collect();
        // Served in order of acceptance: once this one is answered, all
        // held connections have been accepted and occupy every slot.
        let reply = request(&sock, "display COUNTERS").unwrap();
        assert!(reply.starts_with("error: busy"), "{reply}");
        drop(held);
        // Slots come back as the held clients go away.
        let mut answered = false;
        for _ in 0..100 {
            if request(&sock, "display COUNTERS").unwrap() == "FRAMES 3\n" {
                answered = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(answered);
        drop(s);
        let _ = std::fs::remove_dir(dir);
    }

    #[test]
    fn a_running_instance_keeps_its_socket_and_a_stale_one_is_replaced() {
        let dir = std::env::temp_dir().join(format!("sosa-bind-{}", std::process::id()));
        let sock = dir.join("one.sock");
        let first = Servers::start(Arc::new(Fake), Some(&sock), None).unwrap();
        // A second instance of the same name is refused, and the first's
        // socket still answers afterwards.
        match Listeners::bind(Some(&sock), None) {
            Err(BindError::InstanceRunning { name, .. }) => assert_eq!(name, "one"),
            Err(e) => panic!("wrong error: {e}"),
            Ok(_) => panic!("second instance bound the same socket"),
        }
        assert_eq!(request(&sock, "display COUNTERS").unwrap(), "FRAMES 3\n");
        // A socket file nobody answers on (a killed run's) is replaced.
        drop(first);
        dead_socket(&sock); // the file stays, nobody listens
        assert!(sock.exists());
        let second = Servers::start(Arc::new(Fake), Some(&sock), None).unwrap();
        assert_eq!(request(&sock, "display COUNTERS").unwrap(), "FRAMES 3\n");
        drop(second);
        assert!(!sock.exists());
        // Bound but never served: the file goes with the listeners.
        let l = Listeners::bind(Some(&sock), None).unwrap();
        assert!(sock.exists());
        drop(l);
        assert!(!sock.exists());
        let _ = std::fs::remove_dir(dir);
    }

    #[test]
    fn instances_starting_together_get_the_name_once() {
        // Several runs of one instance name starting at the same moment:
        // exactly one may claim the socket, and the others must not have
        // replaced it (each saw no answer, removed the file, bound anew).
        let dir = std::env::temp_dir().join(format!("sosa-race-{}", std::process::id()));
        let sock = dir.join("race.sock");
        for _ in 0..40 {
            let gate = Arc::new(std::sync::Barrier::new(6));
            let claims: Vec<_> = (0..6)
                .map(|_| {
                    let (gate, sock) = (gate.clone(), sock.clone());
                    std::thread::spawn(move || {
                        gate.wait();
                        Listeners::bind(Some(&sock), None)
                    })
                })
                .collect();
            let won: Vec<Listeners> = claims
                .into_iter()
                .filter_map(|t| t.join().expect("thread").ok())
                .collect();
            assert_eq!(won.len(), 1, "one claim of the name wins");
            drop(won);
            assert!(!sock.exists());
        }
        let _ = std::fs::remove_dir(dir);
    }

    #[test]
    fn a_busy_metrics_port_is_named() {
        let held = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let port = held.local_addr().unwrap().port();
        match Listeners::bind(None, Some(port)) {
            Err(e @ BindError::PortInUse { .. }) => {
                assert!(e.to_string().contains(&port.to_string()), "{e}")
            }
            Err(e) => panic!("wrong error: {e}"),
            Ok(_) => panic!("bound a port in use"),
        }
    }

    #[test]
    fn stale_sockets_are_cleaned_and_live_ones_kept() {
        let dir = std::env::temp_dir().join(format!("sosa-stale-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let live = dir.join("live.sock");
        let dead = dir.join("dead.sock");
        let other = dir.join("notes.txt");
        let s = Servers::start(Arc::new(Fake), Some(&live), None).unwrap();
        dead_socket(&dead);
        std::fs::write(&other, "x").unwrap();
        assert_eq!(clean_stale_sockets(&dir), vec![dead.clone()]);
        assert!(live.exists() && other.exists() && !dead.exists());
        drop(s);
        let _ = std::fs::remove_file(other);
        let _ = std::fs::remove_dir(dir);
    }
}
