//! Simulator speed report (run with `cargo bench -p softosa-sim --bench speed`).
//!
//! The reference case: a 1 GbE link, one bulk TCP stream plus 30
//! request/response connections (100/1000 bytes), 2 simulated seconds.
//! Reports simulated link packets per wall-clock second and simulated seconds
//! per wall second. A report, not a test: timings vary with the machine.

use softosa_sim::scenario::Scenario;
use std::time::Instant;

const CASE: &str = r#"
name = "speed: 1 GbE, STR1 + RR30(100/1000), 2 s"
duration_ms = 2000
warmup_ms = 0
seed = 1
[[host]]
name = "zos"
type = "zos"
machine = "z10"
ip = "192.0.2.1"
adapter = "osa-express3"
speed = "1g"
inbperf = "DYNAMIC"
[[host]]
name = "peer"
type = "linux"
ip = "192.0.2.2"
speed = "1g"
[[workload]]
type = "STR"
connections = 1
request = 1
response = 20000000
client = "zos"
server = "peer"
[[workload]]
type = "RR"
connections = 30
request = 100
response = 1000
client = "peer"
server = "zos"
"#;

fn main() {
    let sc = match Scenario::parse("speed", CASE) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return;
        }
    };
    let variants = match sc.variants() {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{e}");
            return;
        }
    };
    for v in variants {
        let t0 = Instant::now();
        match softosa_sim::run_setup(&v.setup, |_, _| {}) {
            Ok((r, w)) => {
                let wall = t0.elapsed().as_secs_f64();
                let sim_s = (v.setup.duration_ns + v.setup.warmup_ns) as f64 / 1e9;
                println!("case: {}", sc.file.name.clone().unwrap_or_default());
                println!("wall time            {wall:.3} s");
                println!("link packets         {}", w.link_frames);
                println!("events               {}", w.events);
                println!("link packets / wall s {:.0}", w.link_frames as f64 / wall);
                println!("events / wall s       {:.0}", w.events as f64 / wall);
                println!("simulated s / wall s  {:.3}", sim_s / wall);
                for wl in &r.workloads {
                    println!(
                        "  {}: {:.0} trans/s, {:.1} MB/s, mean {:.1} us",
                        wl.name, wl.transactions_per_s, wl.mb_per_s, wl.latency_mean_us
                    );
                }
            }
            Err(e) => eprintln!("{e}"),
        }
    }
}
