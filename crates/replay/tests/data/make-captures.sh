#!/usr/bin/env bash
# Records the small test captures used by softosa-replay's tests.
#
# Two network namespaces ("host" = the side whose OSA adapter softosa models,
# "peer" = a LAN partner) joined by a veth pair, documentation addresses only:
#   host: 192.0.2.1/24 2001:db8::1/64  MAC 02:00:5e:00:00:01 (veth-host)
#   peer: 192.0.2.2/24 2001:db8::2/64  MAC 02:00:5e:00:00:02 (veth-peer)
# Capture runs in the host namespace on veth-host (both directions seen).
# Offloads are switched off so every captured frame is a real wire-sized frame.
#
# Needs root, iproute2, ethtool, tcpdump, dumpcap, editcap, tshark, capinfos,
# iperf3, sockperf. Usage: sudo ./make-captures.sh [OUTDIR]   (default: here)
# The namespaces are removed on exit, whatever happens.
set -euo pipefail

OUT=$(cd "${1:-$(dirname "$0")}" && pwd)
HOST=softosa-rp-host-$$
PEER=softosa-rp-peer-$$
SNAP=128
PIDS=()

cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    ip netns del "$HOST" 2>/dev/null || true
    ip netns del "$PEER" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

# Reference counts from tshark (not our reader) for the tests to check against.
write_counts() {
    local files="iperf3-tcp.pcap sockperf-rr.pcap mix.pcap ipv6-tcp.pcapng rr-nano.pcapng sll2.pcap sll.pcap sll2-micro.pcapng tls-ssh.pcap"
    {
        echo "# file packets   (tshark's frame count; written by make-captures.sh)"
        for f in $files; do
            echo "$f $(tshark -r "$OUT/$f" -T fields -e frame.number 2>/dev/null | wc -l)"
        done
    } >"$OUT/expected-counts.txt"
    {
        echo "# file src_ip src_port dst_ip dst_port packets   (TCP, per direction, from tshark)"
        for f in $files; do
            tshark -r "$OUT/$f" -Y tcp -T fields -E separator=, \
                -e ip.src -e ipv6.src -e tcp.srcport -e ip.dst -e ipv6.dst -e tcp.dstport 2>/dev/null |
                awk -F, '{print $1 $2, $3, $4 $5, $6}' | sort | uniq -c |
                awk -v f="$f" '{print f, $2, $3, $4, $5, $1}'
        done
    } >"$OUT/expected-flows.txt"
    {
        echo "# TLS ServerHellos and SSH banners as tshark decodes them: server_port kind value"
        tshark -r "$OUT/tls-ssh.pcap" -Y "tls.handshake.type == 2" -T fields -E separator=' ' \
            -e tcp.srcport -e tls.handshake.ciphersuite 2>/dev/null | awk '{print $1, "cipher", $2}'
        tshark -r "$OUT/tls-ssh.pcap" -d tcp.port==2222,ssh -Y "ssh.protocol" -T fields -E separator=" " \
            -e tcp.dstport -e ssh.protocol 2>/dev/null | awk '{p = $1; $1 = ""; print p, "ssh" $0}'
    } >"$OUT/expected-tls.txt"
}
# STAGES picks what to record: "base" (a-g) and/or "tls" (h); default both.
want() { case " ${STAGES:-base tls} " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# COUNTS_ONLY=1 ./make-captures.sh recomputes the reference counts only.
if [ "${COUNTS_ONLY:-0}" = 1 ]; then write_counts; exit 0; fi


inh() { ip netns exec "$HOST" "$@"; }
inp() { ip netns exec "$PEER" "$@"; }

ip netns add "$HOST"
ip netns add "$PEER"
ip link add veth-host netns "$HOST" address 02:00:5e:00:00:01 type veth \
    peer name veth-peer netns "$PEER" address 02:00:5e:00:00:02
for ns in "$HOST" "$PEER"; do ip -n "$ns" link set lo up; done
ip -n "$HOST" addr add 192.0.2.1/24 dev veth-host
ip -n "$HOST" addr add 2001:db8::1/64 dev veth-host nodad
ip -n "$PEER" addr add 192.0.2.2/24 dev veth-peer
ip -n "$PEER" addr add 2001:db8::2/64 dev veth-peer nodad
ip -n "$HOST" link set veth-host up
ip -n "$PEER" link set veth-peer up
inh ethtool -K veth-host tso off gso off gro off >/dev/null
inp ethtool -K veth-peer tso off gso off gro off >/dev/null
# Neighbour entries fixed so no ARP/ND exchange lands mid-capture.
inh ip neigh replace 192.0.2.2 lladdr 02:00:5e:00:00:02 dev veth-host nud permanent
inh ip -6 neigh replace 2001:db8::2 lladdr 02:00:5e:00:00:02 dev veth-host nud permanent
inp ip neigh replace 192.0.2.1 lladdr 02:00:5e:00:00:01 dev veth-peer nud permanent
inp ip -6 neigh replace 2001:db8::1 lladdr 02:00:5e:00:00:01 dev veth-peer nud permanent

# Servers live in the host namespace: data streams INTO the modelled host.
ip netns exec "$HOST" iperf3 -s -B 192.0.2.1 -p 5201 >/dev/null 2>&1 & PIDS+=($!)
ip netns exec "$HOST" iperf3 -s -B 2001:db8::1 -p 5202 >/dev/null 2>&1 & PIDS+=($!)
ip netns exec "$HOST" sockperf sr --tcp -i 192.0.2.1 -p 11111 >/dev/null 2>&1 & PIDS+=($!)
sleep 1

CAP_PID=
# start_cap FILE TOOL-ARGS...: capture on veth-host until stop_cap.
start_cap() {
    local file=$1; shift
    # Started directly (not via a function) so $! is the capture process.
    ip netns exec "$HOST" "$@" -w "$OUT/$file.tmp" >/dev/null 2>"$OUT/$file.log" &
    CAP_PID=$!
    sleep 1.5
}
stop_cap() {
    local file=$1
    sleep 0.5
    kill -TERM "$CAP_PID"
    wait "$CAP_PID" || true
    rm -f "$OUT/$file.log"
}
tcpdump_cap() { start_cap "$1" tcpdump -i veth-host -s "$SNAP" -U "${@:2}"; }

if want base; then
    # (a) iperf3 TCP stream peer -> host, data connection from port 40001.
    tcpdump_cap iperf3-tcp.pcap
    inp iperf3 -c 192.0.2.1 -p 5201 --cport 40001 -n 1536K -b 200M >/dev/null
    stop_cap iperf3-tcp.pcap
    mv "$OUT/iperf3-tcp.pcap.tmp" "$OUT/iperf3-tcp.pcap"

    # (b) sockperf TCP ping-pong (request/response), client port 40002.
    tcpdump_cap sockperf-rr.pcap
    inp sockperf pp --tcp -i 192.0.2.1 -p 11111 --client_port 40002 -t 1 --mps 400 -m 64 >/dev/null
    stop_cap sockperf-rr.pcap
    mv "$OUT/sockperf-rr.pcap.tmp" "$OUT/sockperf-rr.pcap"

    # (c) both at once: stream from 40003, ping-pong from 40004.
    tcpdump_cap mix.pcap
    inp sockperf pp --tcp -i 192.0.2.1 -p 11111 --client_port 40004 -t 1 --mps 400 -m 64 >/dev/null &
    SP=$!
    sleep 0.2
    inp iperf3 -c 192.0.2.1 -p 5201 --cport 40003 -n 1M -b 16M >/dev/null
    wait "$SP"
    stop_cap mix.pcap
    mv "$OUT/mix.pcap.tmp" "$OUT/mix.pcap"

    # (d) IPv6 iperf3 stream, written by dumpcap as pcapng (nanosecond stamps).
    start_cap ipv6-tcp.pcapng dumpcap -q -i veth-host -s "$SNAP"
    inp iperf3 -6 -c 2001:db8::1 -p 5202 --cport 40005 -n 1M -b 200M >/dev/null
    stop_cap ipv6-tcp.pcapng
    mv "$OUT/ipv6-tcp.pcapng.tmp" "$OUT/ipv6-tcp.pcapng"

    # (e) nanosecond pcapng: tcpdump nano pcap converted by editcap.
    tcpdump_cap rr-nano.pcapng --time-stamp-precision=nano
    inp sockperf pp --tcp -i 192.0.2.1 -p 11111 --client_port 40006 -t 1 --mps 200 -m 200 >/dev/null
    stop_cap rr-nano.pcapng
    editcap -F pcapng "$OUT/rr-nano.pcapng.tmp" "$OUT/rr-nano.pcapng"
    rm -f "$OUT/rr-nano.pcapng.tmp"

    # (f) Linux cooked captures of short ping-pong runs: SLL2 ("any" device) and SLL.
    start_cap sll2.pcap tcpdump -i any -s "$SNAP" -U -y LINUX_SLL2
    inp sockperf pp --tcp -i 192.0.2.1 -p 11111 --client_port 40007 -t 1 --mps 100 -m 64 >/dev/null
    stop_cap sll2.pcap
    mv "$OUT/sll2.pcap.tmp" "$OUT/sll2.pcap"
    start_cap sll.pcap tcpdump -i any -s "$SNAP" -U -y LINUX_SLL
    inp sockperf pp --tcp -i 192.0.2.1 -p 11111 --client_port 40008 -t 1 --mps 100 -m 64 >/dev/null
    stop_cap sll.pcap
    mv "$OUT/sll.pcap.tmp" "$OUT/sll.pcap"
    # (g) a microsecond-resolution pcapng (editcap keeps the source's precision).
    editcap -F pcapng "$OUT/sll2.pcap" "$OUT/sll2-micro.pcapng"
    chmod 644 "$OUT"/*.pcap "$OUT"/*.pcapng
fi

# (h) TLS 1.2 and 1.3 handshakes (openssl s_server/s_client) and an OpenSSH
#     client's version exchange, snap length 256 so the ServerHello's cipher
#     suite is kept. Server ports: 4433 (TLS), 2222 (SSH; the listener only
#     accepts, so the client sends its banner and gives up).
if want tls; then
    TLSDIR=$(mktemp -d)
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TLSDIR/key.pem" \
        -out "$TLSDIR/cert.pem" -days 2 -subj /CN=host.example >/dev/null 2>&1
    ip netns exec "$HOST" openssl s_server -accept 4433 -cert "$TLSDIR/cert.pem" \
        -key "$TLSDIR/key.pem" -quiet -naccept 2 >/dev/null 2>&1 &
    PIDS+=($!)
    ip netns exec "$HOST" python3 -c 'import socket,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("192.0.2.1", 2222)); s.listen(1); c, _ = s.accept(); time.sleep(1); c.close()' &
    PIDS+=($!)
    sleep 1
    start_cap tls-ssh.pcap tcpdump -i veth-host -s 256 -U
    echo | inp openssl s_client -connect 192.0.2.1:4433 -tls1_2 \
        -cipher ECDHE-RSA-AES128-GCM-SHA256 >/dev/null 2>&1 || true
    echo | inp openssl s_client -connect 192.0.2.1:4433 -tls1_3 >/dev/null 2>&1 || true
    inp timeout 5 ssh -o BatchMode=yes -o StrictHostKeyChecking=no \
        -o UserKnownHostsFile=/dev/null -o ConnectTimeout=3 -p 2222 192.0.2.1 true \
        >/dev/null 2>&1 || true
    stop_cap tls-ssh.pcap
    mv "$OUT/tls-ssh.pcap.tmp" "$OUT/tls-ssh.pcap"
    chmod 644 "$OUT/tls-ssh.pcap"
    rm -rf "$TLSDIR"
fi

write_counts
ls -l "$OUT"/*.pcap "$OUT"/*.pcapng
