#!/usr/bin/env python3
"""Kernel capture: when does this machine's Linux acknowledge the last segment of a write?

The question behind the model's receiver rule (tcp_receiver::measure_rcv_mss): with delayed ACKs, a write's last
segment that is short (below the receiver's MSS estimate) or full with PSH is acknowledged as soon as the
application has read everything (Linux tcp_measure_rcv_mss and tcp_cleanup_rbuf), not after the 40 ms delayed-ACK
timer. Without that rule, a sender with a 10 ms minimum RTO sent such a segment again by a tail loss probe.

Set-up (root; namespaces cmswda<pid>-{a,b}, deleted on exit): a veth pair between a sender namespace and a receiver
namespace, TSO, GSO and GRO off on both ends (one frame per segment), no delay beyond the veths' own (this
machine's kernel has no netem), MSS 1448 (timestamps on). The receiver reads continuously; the sender writes `--writes` times, `--gap-ms` apart (longer
than the RTO, so that every write starts a fresh quick-ACK period as the model's flows do): 18 full segments and a
last one of `--last` bytes (1448: a full last segment, the write a multiple of the MSS). Linux quick-ACKs the first
16 segments of each write, then ACKs every second full segment, so that the 17th and 18th are acknowledged
together and the last segment is alone: its ACK comes either at once (the rule) or 40 ms later (the timer).
tcpdump on the receiver's veth records the arrival of each write's last data segment and the first ACK covering
it; the script prints the delays (median and max over the writes) and the kernel release.

Usage: sudo python3 validation/linux/delayed_ack_capture.py [--writes 10] [--gap-ms 300] [--last 700]
Needs iproute2, ethtool and tcpdump (installed with apt-get if missing).
"""
import argparse
import atexit
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

MSS = 1448


def sh(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(args, check=check, capture_output=True, text=True)


def ns(name: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return sh("ip", "netns", "exec", name, *args, check=check)


def set_up(a: str, b: str) -> None:
    for n in (a, b):
        sh("ip", "netns", "add", n)
    sh("ip", "link", "add", "da0", "netns", a, "type", "veth", "peer", "name", "da1", "netns", b)
    for n, dev, addr in ((a, "da0", "10.78.0.1/24"), (b, "da1", "10.78.0.2/24")):
        ns(n, "ip", "addr", "add", addr, "dev", dev)
        ns(n, "ip", "link", "set", dev, "up")
        ns(n, "ip", "link", "set", "lo", "up")
        ns(n, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off", check=False)
        ns(n, "sysctl", "-qw", "net.ipv4.tcp_no_metrics_save=1")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--writes", type=int, default=10)
    ap.add_argument("--gap-ms", type=float, default=300)
    ap.add_argument("--last", type=int, default=700, help="bytes of each write's last segment (1..1448)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("needs root (network namespaces)")
    if not shutil.which("tcpdump") or not shutil.which("ethtool"):
        subprocess.run(["apt-get", "install", "-y", "-qq", "tcpdump", "ethtool", "iproute2"], check=True,
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    a, b = f"cmswda{os.getpid()}-a", f"cmswda{os.getpid()}-b"
    atexit.register(lambda: [sh("ip", "netns", "del", n, check=False) for n in (a, b)])
    set_up(a, b)
    pcap = f"/tmp/cmswda{os.getpid()}.txt"
    dump = subprocess.Popen(["ip", "netns", "exec", b, "tcpdump", "-i", "da1", "-n", "-tt", "-l", "-S", "tcp"],
                            stdout=open(pcap, "w"), stderr=subprocess.DEVNULL)
    time.sleep(1)
    reader = subprocess.Popen(["ip", "netns", "exec", b, sys.executable, "-c",
                               "import socket\ns=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
                               "s.bind(('10.78.0.2', 5001)); s.listen(1); c, _ = s.accept()\n"
                               "while c.recv(1 << 20): pass\n"])
    time.sleep(0.5)
    write = 18 * MSS + args.last
    sender = ["ip", "netns", "exec", a, sys.executable, "-c",
              "import socket, time\ns = socket.create_connection(('10.78.0.2', 5001))\n"
              f"for _ in range({args.writes}):\n    s.sendall(b'x' * {write}); time.sleep({args.gap_ms / 1000})\n"
              "s.close()\n"]
    subprocess.run(sender, check=True)
    time.sleep(0.5)
    reader.wait(timeout=5)
    dump.terminate()
    dump.wait()
    delays = []
    ends: list[int] = []
    data_at: dict[int, float] = {}
    acked = alone = 0
    for line in open(pcap):
        f = line.split()
        if len(f) < 8 or "10.78.0.1." not in f[2] and "10.78.0.2." not in f[2]:
            continue
        t = float(f[0])
        if f[2].startswith("10.78.0.1.") and "[S]," in f:   # the SYN: byte 1 of the stream is ISN + 1
            isn = int(f[f.index("seq") + 1].rstrip(","))
            ends = [(isn + 1 + (k + 1) * write) % (1 << 32) for k in range(args.writes)]
        if f[2].startswith("10.78.0.1.") and "seq" in f:   # data, sender -> receiver: seq A:B
            rng = f[f.index("seq") + 1].rstrip(",")
            if ":" in rng:
                end = int(rng.split(":")[1])
                if end in ends and end not in data_at:
                    data_at[end] = t
                    alone += acked == int(rng.split(":")[0])   # everything before it acknowledged already
        if f[2].startswith("10.78.0.2.") and "ack" in f:
            ack = int(f[f.index("ack") + 1].rstrip(","))
            acked = max(acked, ack)
            for end, t0 in list(data_at.items()):
                if ack >= end and t0 is not None:
                    delays.append((t - t0) * 1e3)
                    data_at[end] = None  # type: ignore[assignment]
    if delays and not os.environ.get("KEEP_CAPTURE"):
        os.unlink(pcap)
    else:
        print(f"capture kept: {pcap}")
    print(f"kernel {platform.release()}: writes of 18 x {MSS} + {args.last} B, {len(delays)} of {args.writes} "
          f"last segments acknowledged ({alone} alone: everything before them acknowledged on their arrival); delay "
          f"from its arrival to its ACK: median {statistics.median(delays):.3f} ms, max {max(delays):.3f} ms"
          if delays else "no ACK matched: see the capture")


if __name__ == "__main__":
    main()
