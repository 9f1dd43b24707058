//! What a display needs that the engine does not hold (layer: displays;
//! spec 05 §5.1 TRLE statement, §5.2 `D NET,TRL` and VTAM tuning statistics).
//!
//! The engine knows ports, stacks and interfaces; VTAM's view of them — the
//! TRLE names and the READ/WRITE/DATAPATH device numbers — lives in the TRL
//! member the profile crate parses, and the operator's wall-clock time lives
//! with the driver. Callers fill a [`DisplayContext`]; anything left empty
//! gets a deterministic default derived from the port (documented on
//! [`DisplayContext::devices`]), so a display never needs a TRL member.

use serde::Serialize;
use softosa_engine::config::PortConfig;
use softosa_engine::engine::Interface;
use softosa_engine::Engine;

/// One VTAM transport resource list element (`name TRLE LNCTL=MPC,...`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TrleInfo {
    pub name: String,
    /// `PORTNAME=(name,num)`: matched (case-insensitively) to the port name.
    pub portname: String,
    pub portnum: u8,
    /// `READ=(dev)`.
    pub read: u16,
    /// `WRITE=(dev)`.
    pub write: u16,
    /// `DATAPATH=(dev,dev,...)`: one per interface on the port, of every
    /// stack the TRLE serves (each interface has a data device of its own).
    pub datapath: Vec<u16>,
    /// The stack (LPAR) whose VTAM owns this TRLE; `None`: every stack.
    pub stack: Option<String>,
}

/// Wall-clock stamp for `IST1230I TIME = hhmmssth DATE = yyddd`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ClockStamp {
    pub year: u16,
    /// Day of the year, 1-based (the `ddd` of `yyddd`).
    pub day_of_year: u16,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub hundredths: u8,
}

impl Default for ClockStamp {
    /// 2000, day 001, 00:00:00.00 — a fixed stamp so output is reproducible.
    fn default() -> Self {
        ClockStamp {
            year: 2000,
            day_of_year: 1,
            hour: 0,
            minute: 0,
            second: 0,
            hundredths: 0,
        }
    }
}

/// The last second a display stamp can show: 9999-12-31 23:59:59 UTC (the
/// day count is walked a year at a time, so it must stay bounded).
pub const MAX_UNIX_SECONDS: u64 = 253_402_300_799;

impl ClockStamp {
    /// From seconds and nanoseconds since the Unix epoch (UTC); a time past
    /// [`MAX_UNIX_SECONDS`] shows as that second.
    pub fn from_unix(secs: u64, nanos: u32) -> Self {
        let secs = secs.min(MAX_UNIX_SECONDS);
        let days = secs / 86_400;
        let rem = secs % 86_400;
        let (year, day_of_year) = year_and_day(days);
        ClockStamp {
            year,
            day_of_year,
            hour: (rem / 3600) as u8,
            minute: ((rem % 3600) / 60) as u8,
            second: (rem % 60) as u8,
            hundredths: (nanos / 10_000_000).min(99) as u8,
        }
    }

    /// `hhmmssth`, eight digits.
    pub fn time_field(&self) -> String {
        format!(
            "{:02}{:02}{:02}{:02}",
            self.hour, self.minute, self.second, self.hundredths
        )
    }

    /// `yyddd`, five digits.
    pub fn date_field(&self) -> String {
        format!("{:02}{:03}", self.year % 100, self.day_of_year)
    }

    /// `hh:mm:ss` for Netstat headers.
    pub fn hms(&self) -> String {
        format!("{:02}:{:02}:{:02}", self.hour, self.minute, self.second)
    }
}

fn is_leap(y: u64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// Year and 1-based day of year of a day count since 1970-01-01.
fn year_and_day(mut days: u64) -> (u16, u16) {
    let mut year = 1970u64;
    loop {
        let len = if is_leap(year) { 366 } else { 365 };
        if days < len {
            return (year.min(u64::from(u16::MAX)) as u16, days as u16 + 1);
        }
        days -= len;
        year += 1;
    }
}

/// Everything a display needs besides the engine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DisplayContext {
    /// TRLEs from the TRL member; empty: defaults derived from the ports.
    pub trles: Vec<TrleInfo>,
    /// `OSA CODE LEVEL` shown by `D NET,TRL` and OSAINFO (four hex digits).
    pub osa_code_level: String,
    /// Time of the display; `None`: [`ClockStamp::default`].
    pub clock: Option<ClockStamp>,
    /// Stack (TCP/IP procedure) names by stack index, overriding the names
    /// in the engine's configuration; empty entries keep the configured name.
    pub stack_names: Vec<String>,
    /// The sysplex distributor's connection routing table, where the
    /// driver keeps one (the simulator's distributor does; the engine does
    /// not): Netstat VCRT lists these connections. `None`: not known.
    pub vcrt: Option<Vec<VcrtRoute>>,
    /// OSAINFO's `MAX=`: how many lines of each interface's report to show
    /// ([`OSAINFO_DEFAULT_MAX`] by default, as on z/OS); `None` is `MAX=*`,
    /// everything up to z/OS's limit of [`OSAINFO_LINE_LIMIT`] lines.
    pub osainfo_max: Option<u32>,
}

/// The most lines z/OS shows of one OSAINFO report, whatever `MAX=` says.
pub const OSAINFO_LINE_LIMIT: u32 = 65_533;
/// OSAINFO's `MAX=` when the command gives none.
pub const OSAINFO_DEFAULT_MAX: u32 = 200;

/// One connection of a distributed DVIPA and the target it is routed to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VcrtRoute {
    pub dvipa: std::net::IpAddr,
    pub port: u16,
    pub source: std::net::IpAddr,
    pub source_port: u16,
    /// The target stack's dynamic XCF address.
    pub dest_xcf: std::net::IpAddr,
}

impl Default for DisplayContext {
    fn default() -> Self {
        DisplayContext {
            trles: Vec::new(),
            osa_code_level: "0001".to_string(),
            clock: None,
            stack_names: Vec::new(),
            vcrt: None,
            osainfo_max: Some(OSAINFO_DEFAULT_MAX),
        }
    }
}

/// The devices VTAM uses for one interface.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Devices {
    /// TRLE name (`IUTIQDxx` for HiperSockets, as VTAM generates it).
    pub trle: String,
    pub read: u16,
    pub write: u16,
    pub datapath: u16,
    /// Unit address of the data device relative to the TRLE's first device.
    pub real_addr: u16,
    /// Port number from the TRLE (or the port's configuration).
    pub portnum: u8,
    /// Whether the numbers come from a TRLE the caller gave (false: defaults).
    pub from_trle: bool,
    /// Every DATAPATH device of the TRLE, for `D NET,TRL`.
    pub all_datapaths: Vec<u16>,
}

impl DisplayContext {
    /// The name a display shows for stack `idx`.
    pub fn stack_name<'a>(&'a self, engine: &'a Engine, idx: usize) -> &'a str {
        match self.stack_names.get(idx) {
            Some(n) if !n.is_empty() => n,
            _ => engine
                .stacks()
                .get(idx)
                .map(|s| s.cfg.name.as_str())
                .unwrap_or("TCPIP"),
        }
    }

    pub fn clock(&self) -> ClockStamp {
        self.clock.unwrap_or_default()
    }

    /// The TRLE serving an interface, if the caller gave one.
    pub fn trle_for(&self, engine: &Engine, iface: &Interface) -> Option<&TrleInfo> {
        let port = engine.ports().get(iface.cfg.port)?;
        let stack = self.stack_name(engine, iface.cfg.stack);
        self.trles.iter().find(|t| {
            t.portname.eq_ignore_ascii_case(&port.cfg.name)
                && t.stack
                    .as_deref()
                    .is_none_or(|s| s.eq_ignore_ascii_case(stack))
        })
    }

    /// The interfaces served by the same TRLE as `iface` (the given TRLE, or
    /// the port's made-up one), of every stack, in activation order: they
    /// share its READ and WRITE devices and each takes a DATAPATH device
    /// of its own.
    pub fn trle_users<'a>(&self, engine: &'a Engine, iface: &Interface) -> Vec<&'a Interface> {
        let mine = self.trle_for(engine, iface);
        engine
            .port_interfaces(iface.cfg.port)
            .filter(|i| match (mine, self.trle_for(engine, i)) {
                (Some(a), Some(b)) => std::ptr::eq(a, b),
                (None, None) => true,
                _ => false,
            })
            .collect()
    }

    /// Devices of an interface. With a TRLE: its READ and WRITE devices and
    /// the k-th DATAPATH device, k being the interface's rank among all the
    /// interfaces the TRLE serves, of every stack (activation order; two
    /// stacks sharing a port never share a data device). Without one,
    /// numbers are made up from the CHPID: `cc00 + 0x10 × port number` is
    /// READ, the next WRITE, the following ones DATAPATH. When the TRLE
    /// lists too few DATAPATH devices, the interfaces beyond get the numbers
    /// after its last one (`from_trle` false; the profile check warns about
    /// such a TRLE). HiperSockets TRLEs are named `IUTIQDcc` as VTAM names
    /// its dynamic ones.
    pub fn devices(&self, engine: &Engine, iface: &Interface) -> Devices {
        let port = engine.ports().get(iface.cfg.port);
        let users = self.trle_users(engine, iface);
        let rank = users.iter().position(|i| i.id == iface.id).unwrap_or(0);
        let (chpid, portnum, default_name) = match port {
            Some(p) => (p.cfg.chpid, p.cfg.port_num, default_trle_name(&p.cfg)),
            None => (0, 0, "TRLE".to_string()),
        };
        let base = (u16::from(chpid) << 8) | (u16::from(portnum & 0x0f) << 4);
        if let Some(t) = self.trle_for(engine, iface) {
            let dp = t.datapath.get(rank).copied();
            // More interfaces than DATAPATH devices: continue after the last.
            let datapath = dp.unwrap_or_else(|| {
                let last = t.datapath.last().copied().unwrap_or(t.read.max(t.write));
                let beyond = rank + 1 - t.datapath.len();
                last.wrapping_add(beyond as u16)
            });
            let first = t.read.min(t.write);
            return Devices {
                trle: t.name.clone(),
                read: t.read,
                write: t.write,
                datapath,
                real_addr: datapath.wrapping_sub(first),
                portnum: t.portnum,
                from_trle: dp.is_some(),
                all_datapaths: t.datapath.clone(),
            };
        }
        let used = users.len().max(1);
        let datapath = base.wrapping_add(2 + rank as u16);
        Devices {
            trle: default_name,
            read: base,
            write: base.wrapping_add(1),
            datapath,
            real_addr: 2 + rank as u16,
            portnum,
            from_trle: false,
            all_datapaths: (0..used).map(|k| base.wrapping_add(2 + k as u16)).collect(),
        }
    }

    /// Every TRLE name a display can show: the given ones, then the default
    /// names of ports no given TRLE covers.
    pub fn trle_names(&self, engine: &Engine) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for i in engine.interfaces() {
            let n = self.devices(engine, i).trle;
            if !names.iter().any(|x| x.eq_ignore_ascii_case(&n)) {
                names.push(n);
            }
        }
        names
    }
}

/// VTAM's default-style TRLE name for a port without a TRLE.
pub fn default_trle_name(p: &PortConfig) -> String {
    if p.is_hipersockets() {
        format!("IUTIQD{:02X}", p.chpid)
    } else {
        p.name.chars().take(8).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_past_year_9999_is_held_there() {
        // Walking the years to u64::MAX seconds would never end.
        let last = ClockStamp::from_unix(MAX_UNIX_SECONDS, 0);
        assert_eq!((last.year, last.day_of_year), (9999, 365));
        assert_eq!(last.hms(), "23:59:59");
        assert_eq!(ClockStamp::from_unix(u64::MAX, 0), last);
    }

    #[test]
    fn clock_fields_follow_vtam_formats() {
        // 2010-01-13 16:40:08.74 UTC
        let c = ClockStamp::from_unix(1_263_400_808, 740_000_000);
        assert_eq!(c.date_field(), "10013");
        assert_eq!(c.time_field(), "16400874");
        let leap_last = ClockStamp::from_unix(1_483_142_400, 0); // 2016-12-31
        assert_eq!(leap_last.date_field(), "16366");
    }
}
