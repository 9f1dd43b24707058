//! Workload for the inbound-path benchmark (layer: engine, tooling; issue
//! "inbound path with 10,000 registered bulk connections"). Shared by the
//! criterion bench and the callgrind example so both measure the same thing.

use crate::config::*;
use crate::wire::build::{eth_tcp, EthSpec, IpSpec, Payload, TcpSpec};
use crate::{Engine, Frame, IfaceId, Instant, PortId};
use std::net::{IpAddr, Ipv4Addr};

/// An engine with one IWQ interface and `conns` registered bulk connections,
/// and one header-only frame per connection (1514 bytes on the wire).
pub struct InboundBench {
    pub engine: Engine,
    pub frames: Vec<Vec<u8>>,
    pub now_ns: u64,
    next: usize,
}

impl InboundBench {
    pub fn new(conns: usize) -> Self {
        let port = PortConfig {
            name: "BENCH".into(),
            chpid: 1,
            port_num: 0,
            kind: PortKind::Osa {
                generation: OsaGeneration::Express6S,
                speed_mbps: 10_000,
                chpid_type: ChpidType::Osd,
            },
            physical_mac: Mac([0x64, 0x3b, 0x88, 0, 0, 1]),
            lan_mtu: None,
        };
        let mut i = InterfaceConfig::new("BENCH1", 0, 0);
        i.addresses.push(IpNet {
            addr: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
            prefix: 8,
        });
        i.inbperf = InbPerf::Dynamic;
        i.workloadq = true;
        i.vmac = Some(VmacConfig::default());
        let mut tuning = Tuning::default();
        // Register a connection on its first full segment, keep the headers only.
        tuning.bulk.run_bytes = 1;
        tuning.bulk.max_tracked = conns * 2;
        tuning.bulk_table_capacity = conns * 2;
        tuning.store_bytes = Some(64);
        let engine = Engine::new(SystemConfig {
            ports: vec![port],
            stacks: vec![StackConfig::new("BENCH")],
            interfaces: vec![i],
            tuning,
        })
        .expect("benchmark configuration is valid");
        let mac = engine.interfaces()[0].mac;
        let frames: Vec<Vec<u8>> = (0..conns)
            .map(|c| {
                let mut f = Vec::new();
                eth_tcp(
                    &mut f,
                    &EthSpec {
                        dst: mac,
                        src: Mac([2, 0, 0, 0, 0, 9]),
                        vlan: None,
                    },
                    &IpSpec::new(
                        IpAddr::V4(Ipv4Addr::new(10, 1, (c >> 8) as u8, c as u8)),
                        IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
                    ),
                    &TcpSpec {
                        src_port: 1024 + (c % 60_000) as u16,
                        dst_port: 20,
                        flags: 0x10,
                        ..TcpSpec::default()
                    },
                    Payload::Len(1460),
                );
                f
            })
            .collect();
        let mut b = InboundBench {
            engine,
            frames,
            now_ns: 0,
            next: 0,
        };
        // One pass registers every connection.
        b.run(conns);
        b
    }

    /// Registered BULKDATA connections.
    pub fn registered(&self) -> usize {
        self.engine.interfaces()[0].bulk_table.len()
    }

    /// Push `n` frames through classify + queue + timers, 1 µs apart, acting
    /// as a host that completes every batch at once.
    pub fn run(&mut self, n: usize) -> u64 {
        let mut presented = 0;
        for _ in 0..n {
            let f = &self.frames[self.next];
            self.next = (self.next + 1) % self.frames.len();
            self.now_ns += 1_000;
            let now = Instant::from_nanos(self.now_ns);
            if self.engine.poll_timeout().is_some_and(|d| d <= now) {
                self.engine.handle_timeout(now);
            }
            self.engine.handle_wire_frame(
                now,
                PortId(0),
                Frame {
                    data: f,
                    wire_len: 1514,
                },
            );
            while let Some(p) = self.engine.poll_presentation() {
                presented += u64::from(p.frames);
                self.engine.complete_batch(now, p.batch);
            }
        }
        let _ = IfaceId(0);
        presented
    }
}
