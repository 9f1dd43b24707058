//! Operating a running instance (spec 8.1 "Operation while running"): a unix
//! control socket answering `display KIND` requests (what `softosa display`
//! sends), and Prometheus metrics in the text exposition format on a local
//! TCP port. Both serve from a [`StatusSource`] the data plane implements.
//!
//! Protocol of the control socket: the client writes one line
//! `display <KIND> [json]`, the server answers with the rendered display and
//! closes the connection. An unknown kind gets a line starting `error:`.
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

/// What the control socket and metrics endpoint read from.
pub trait StatusSource: Send + Sync + 'static {
    /// Render display `kind` (text, or JSON if `json`); `Err` names the
    /// problem (unknown kind).
    fn display(&self, kind: &str, json: bool) -> Result<String, String>;
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
    socket: Option<PathBuf>,
    pub metrics_addr: Option<SocketAddr>,
}

/// The control socket and metrics port, bound but not yet served: the lab
/// binds them before it builds anything, so a name or port another
/// instance holds is refused at once and nothing is torn down for it.
pub struct Listeners {
    control: Option<(UnixListener, PathBuf)>,
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
            u.set_nonblocking(true).map_err(bind_err(what))?;
            l.control = Some((u, path.to_path_buf()));
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
        if let Some((l, path)) = control {
            // Owned from here on: removed when `s` is dropped, also if a
            // thread cannot be started below.
            s.socket = Some(path);
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
        if let Some((_, p)) = self.control.take() {
            let _ = std::fs::remove_file(p);
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
        if let Some(p) = self.socket.take() {
            // Under the directory's lock, and only while the file is still
            // ours: once our listener is closed another run may claim the
            // name, and its socket must not be removed.
            let _claim = lock_dir(dir_of(&p));
            if UnixStream::connect(&p).is_err() {
                let _ = std::fs::remove_file(p);
            }
        }
    }
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
    let _ = c.set_timeout(Duration::from_millis(100));
    let mut sink = [0u8; 4096];
    let _ = c.read(&mut sink);
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
        let words: Vec<&str> = line.split_whitespace().collect();
        let reply = match words.as_slice() {
            ["display", kind, rest @ ..] => {
                let json = rest.iter().any(|w| w.eq_ignore_ascii_case("json"));
                match src.display(kind, json) {
                    Ok(t) => t,
                    Err(e) => format!("error: {e}\n"),
                }
            }
            ["metrics"] => render_metrics(&src.metrics()),
            _ => "error: expected `display KIND [json]` or `metrics`\n".to_string(),
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
    c.write_all(line.as_bytes())?;
    c.write_all(b"\n")?;
    let mut s = String::new();
    c.read_to_string(&mut s)?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake;
    impl StatusSource for Fake {
        fn display(&self, kind: &str, json: bool) -> Result<String, String> {
            match kind {
                "COUNTERS" if json => Ok("{\"frames\":3}\n".into()),
                "COUNTERS" => Ok("FRAMES 3\n".into()),
                _ => Err(format!("unknown display {kind}")),
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
        assert!(request(&sock, "display NOPE")
            .unwrap()
            .starts_with("error:"));
        let body = scrape(std::net::TcpStream::connect(s.metrics_addr.unwrap()).unwrap());
        assert!(body.starts_with("HTTP/1.0 200 OK"));
        assert!(body.contains("softosa_frames_total{port=\"P1\"} 3"));
        drop(s);
        assert!(!sock.exists());
        let _ = std::fs::remove_dir(dir);
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
        drop(UnixListener::bind(dir.join("dead.sock")).unwrap());
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
        let stale = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        drop(stale); // the file stays, nobody listens
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
        drop(std::os::unix::net::UnixListener::bind(&dead).unwrap());
        std::fs::write(&other, "x").unwrap();
        assert_eq!(clean_stale_sockets(&dir), vec![dead.clone()]);
        assert!(live.exists() && other.exists() && !dead.exists());
        drop(s);
        let _ = std::fs::remove_file(other);
        let _ = std::fs::remove_dir(dir);
    }
}
