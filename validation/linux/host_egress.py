#!/usr/bin/env python3
"""Kernel comparison of the host egress path: short responses behind a bulk flow from the same sender, and a
web-search star, on this machine's Linux kernel in network namespaces with TSO, GSO and GRO on, side by side with
the model's `linux` host.

What this kernel can run decides the set-up (kernel_limits() reads /proc/config.gz; the report names what lacks): it
is built without the fq, fq_codel and RED qdiscs and without DCTCP, and without loadable modules. The senders'
egress therefore runs the kernel's own TCP pacing (SO_MAX_PACING_RATE set to unlimited turns it on: the same pacing
rate fq's departure times would enforce, applied by TCP's hrtimer) or no pacing, on noqueue veths; the bottleneck is
a tbf with a bfifo child (drop-tail); the transport is CUBIC.

Kernel set-up (root; namespaces cmsw<pid>-*, deleted on exit):
  - a switch namespace with a Linux bridge, one namespace per host joined to it by a veth pair; TSO, GSO and GRO
    on at every veth end (the sender hands 64 KB skbs down; the bottleneck segments them), receive processing
    steered by RPS over all CPUs by flow hash, tcp_no_metrics_save = 1;
  - each bridge port toward a host is a bottleneck: tbf at --rate-mbit (overhead 24: a full frame is 1538 B on
    the wire; burst 10 frames) with a bfifo child of B bytes;
  - validation/linux/flow_node.c: every flow is a connection of its own (as the model's workload makes one per
    flow), TCP_NODELAY; its completion time runs from the first write after the handshake to the last byte read,
    both on CLOCK_MONOTONIC, which the namespaces share.

Experiment rpc-behind-bulk: host 1 sends one bulk CUBIC flow to host 0 for the whole run and, from the same
host, 10 KB responses at Poisson times (--rpc-per-s a second) to host 0; each response a fresh connection
(IW 10 covers it). Reported: the responses' completion time p50 and p99 after a 1 s warm-up, the bulk flow's
goodput, the bottleneck's drops; --reps repetitions of --duration s for each buffer and pacing mode.

Experiment web-search: a --web-hosts star (16), every host's link --web-rate-mbit (100) each way: a tbf at that
rate on the host's own egress (its NIC, with a FIFO in front that TCP small queues keep short) and on its bridge
port (drop-tail bfifo of --web-buffer-kb); flows arrive at each host as a Poisson process giving its link the load
in application bytes, web-search sizes (data/flow_sizes/web-search.csv, linear between the points, as the model
samples them), destinations uniform over the other hosts; --web-duration s of arrivals and --web-drain s more.
Reported: p50 and p99 FCT of flows up to 100 KB, of 100 KB - 1 MB and over 1 MB, the share completed, the drops.
The model runs the same workload (its own draw of it) on a star of the same links.

Model set-up of rpc-behind-bulk (build/cmswitch-sim workload): a star with host 0 on a downlink at rate x 1500/1538
and the sender as an uplink host at 10 Gb/s (the veth moves the sender's skbs far faster than the bottleneck),
static port buffer B x 1500/1514 KB (the same number of full frames), each link delayed a quarter of the measured
base RTT; `--bulk-flows 1` and the 10 KB flows as Poisson flows of the uplink host to host 0 (one-size CDF); host
profile linux with fq and pacing on or off as the kernel's, no BQL (a veth has none), no receive moderation and no
GRO merging (each frame reaches a veth 40 us after the one before at 300 Mbit/s: a poll finds one); transport cubic.

Usage: sudo python3 validation/linux/host_egress.py [--experiment rpc|web-search|all] [--reps 5] [--model-only]
       [--rate-mbit 300] [--duration 10] [--buffers 64,256] [--rpc-per-s 100]
       [--web-hosts 16] [--web-rate-mbit 100] [--web-loads 0.3] [--web-buffer-kb 128] [--web-duration 30]
Kernel results are cached in validation/linux/host_egress_kernel.csv (a model change re-runs only the model);
writes validation/linux/host_egress_rpc_<rate>mbit.csv and host_egress_web_search_<rate>mbit.csv and prints the
markdown tables docs/validation.md carries.
"""

import argparse
import atexit
import csv
import gzip
import json
import os
import platform
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from differential import COUNTERS, kernel_tools, namespace_counters, sh  # noqa: E402

SENDER_COUNTERS = {
    **COUNTERS,
    "lost_retransmits": ("netstat", "TcpExt", "TCPLostRetransmit"),
    "fast_retransmits": ("netstat", "TcpExt", "TCPFastRetrans"),
}

CACHE = os.path.join(HERE, "host_egress_kernel.csv")
PREFIX = f"cmsw{os.getpid() % 100000}"
RTT_PORT, FLOW_PORT = 5001, 5002
RPC_BYTES = 10 * 1024
BULK_BYTES = 1 << 50
WARMUP_S = 1.0
WANTED = {  # what item 9 of the host-stack issue asks for, and whether this kernel has it
    "CONFIG_NET_SCH_FQ": "fq qdisc",
    "CONFIG_NET_SCH_FQ_CODEL": "fq_codel qdisc",
    "CONFIG_NET_SCH_RED": "RED qdisc (step ECN marking)",
    "CONFIG_TCP_CONG_DCTCP": "DCTCP",
    "CONFIG_MODULES": "loadable modules",
}


def kernel_limits():
    """What of WANTED this kernel lacks (names), from /proc/config.gz."""
    try:
        text = gzip.open("/proc/config.gz", "rt").read()
    except OSError:
        return ["(no /proc/config.gz)"]
    return [what for key, what in WANTED.items() if not re.search(rf"^{key}=[ym]", text, re.M)]


class Testbed:
    def __init__(self, hosts, rate_mbit, node, flow_node, shape_hosts=False):
        self.sw = f"{PREFIX}-sw"
        self.hosts = [f"{PREFIX}-h{i}" for i in range(hosts)]
        self.procs = []
        atexit.register(self.teardown)
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, lambda *_: sys.exit(130))
        for ns in [self.sw] + self.hosts:
            sh(["ip", "netns", "add", ns])
            sh(["ip", "link", "set", "lo", "up"], ns=ns)
            sh(["sysctl", "-qw", "net.ipv4.tcp_no_metrics_save=1"], ns=ns)
        sh(["ip", "link", "add", "br0", "type", "bridge"], ns=self.sw)
        sh(["ip", "link", "set", "br0", "up"], ns=self.sw)
        mask = format((1 << (os.cpu_count() or 1)) - 1, "x")
        for i, ns in enumerate(self.hosts):
            port = f"p{i}"
            sh(["ip", "link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", port, "netns", self.sw])
            sh(["ip", "link", "set", port, "master", "br0"], ns=self.sw)
            for where, dev in ((ns, "eth0"), (self.sw, port)):
                sh(["ethtool", "-K", dev, "tso", "on", "gso", "on", "gro", "on"], ns=where)
                sh(["ip", "link", "set", dev, "up"], ns=where)
                sh(["sh", "-c", f"echo {mask} > /sys/class/net/{dev}/queues/rx-0/rps_cpus"], ns=where)
            sh(["ip", "addr", "add", f"{self.addr(i)}/24", "dev", "eth0"], ns=ns)
            sh(
                [
                    "tc",
                    "qdisc",
                    "replace",
                    "dev",
                    port,
                    "root",
                    "handle",
                    "1:",
                    "tbf",
                    "rate",
                    f"{rate_mbit}mbit",
                    "burst",
                    "15140",
                    "limit",
                    "100000000",
                    "overhead",
                    "24",
                ],
                ns=self.sw,
            )
            sh(
                ["tc", "qdisc", "add", "dev", port, "parent", "1:1", "handle", "10:", "bfifo", "limit", "65536"],
                ns=self.sw,
            )
            if shape_hosts:  # the host's own link: its NIC at the rate, a FIFO in front (TSQ keeps it short)
                sh(
                    [
                        "tc",
                        "qdisc",
                        "replace",
                        "dev",
                        "eth0",
                        "root",
                        "handle",
                        "1:",
                        "tbf",
                        "rate",
                        f"{rate_mbit}mbit",
                        "burst",
                        "15140",
                        "limit",
                        "10000000",
                        "overhead",
                        "24",
                    ],
                    ns=ns,
                )
        self.node, self.flow_node = node, flow_node
        self.procs.append(
            subprocess.Popen(["ip", "netns", "exec", self.hosts[0], node, "server", str(RTT_PORT), "16", "cubic"])
        )
        time.sleep(0.3)

    @staticmethod
    def addr(i):
        return f"10.77.0.{10 + i}"

    def set_buffer(self, kb):
        for i in range(len(self.hosts)):
            sh(
                [
                    "tc",
                    "qdisc",
                    "change",
                    "dev",
                    f"p{i}",
                    "parent",
                    "1:1",
                    "handle",
                    "10:",
                    "bfifo",
                    "limit",
                    str(int(kb * 1024)),
                ],
                ns=self.sw,
            )

    def counters(self, i):
        """The TCP counters of host i's namespace (nstat's names in SENDER_COUNTERS)."""
        return namespace_counters([self.hosts[i]], SENDER_COUNTERS)

    def drops(self):
        return sum(self.bottleneck(i)[1] for i in range(len(self.hosts)))

    def bottleneck(self, i):
        out = sh(["tc", "-s", "qdisc", "show", "dev", f"p{i}"], ns=self.sw)
        m = re.findall(r"bfifo 10:.*?Sent (\d+) bytes (\d+) pkt \(dropped (\d+)", out, re.S)
        return int(m[0][0]), int(m[0][2])

    def rtt(self):
        return json.loads(sh([self.node, "rtt", "2000", f"{self.addr(0)}:{RTT_PORT}"], ns=self.hosts[1]))

    def run_flows(self, schedules, seconds, pacing, drain=0.0):
        """schedules: {host index: [(start_us, dst index, bytes)]}; returns the completed flows
        [(src-less) t0_ns, t1_ns, size] relative to the epoch, per receiving host."""
        tmp = tempfile.mkdtemp()
        servers = []
        for i, ns in enumerate(self.hosts):
            out = open(os.path.join(tmp, f"recv{i}.txt"), "w")
            servers.append(
                (
                    subprocess.Popen(["ip", "netns", "exec", ns, self.flow_node, "server", str(FLOW_PORT)], stdout=out),
                    out,
                )
            )
        time.sleep(0.3)
        epoch = time.clock_gettime_ns(time.CLOCK_MONOTONIC) + 300_000_000
        clients = []
        for i, flows in schedules.items():
            path = os.path.join(tmp, f"sched{i}.txt")
            with open(path, "w") as f:
                for start_us, dst, size in flows:
                    f.write(f"{start_us:.3f} {self.addr(dst)} {FLOW_PORT} {size}\n")
            clients.append(
                subprocess.Popen(
                    [
                        "ip",
                        "netns",
                        "exec",
                        self.hosts[i],
                        self.flow_node,
                        "client",
                        path,
                        str(epoch),
                        "cubic",
                        "1" if pacing else "0",
                    ]
                )
            )
        time.sleep(0.3 + seconds + drain)
        for p in clients:
            p.kill()
            p.wait()
        time.sleep(0.2)
        for p, out in servers:
            p.kill()
            p.wait()
            out.close()
        got = {}
        for i in range(len(self.hosts)):
            rows = []
            for ln in open(os.path.join(tmp, f"recv{i}.txt")):
                t0, t1, size = (int(x) for x in ln.split())
                rows.append(((t0 - epoch) / 1e3, (t1 - t0) / 1e3, size))
            got[i] = rows
        return got

    def teardown(self):
        for p in self.procs:
            p.kill()
            p.wait()
        self.procs = []
        for ns in sh(["ip", "netns", "list"], check=False).split("\n"):
            name = ns.split(" ")[0]
            if name.startswith(PREFIX + "-"):
                sh(["ip", "netns", "del", name], check=False)


def rpc_schedule(seconds, per_s, seed):
    """The bulk flow at 0 and 10 KB responses at Poisson times (the kernel's own draw, the model draws its own)."""
    rnd = random.Random(seed)
    flows, t = [(0.0, 0, BULK_BYTES)], 0.0
    while True:
        t += rnd.expovariate(per_s)
        if t >= seconds:
            return flows
        flows.append((t * 1e6, 0, RPC_BYTES))


def web_search_cdf():
    pts = []
    for ln in open(os.path.join(ROOT, "data", "flow_sizes", "web-search.csv")):
        ln = ln.strip()
        if ln and not ln.startswith("#") and not ln.startswith("size"):
            size, cdf = ln.split(",")
            pts.append((float(size), float(cdf) / 100))
    return pts


def sample_size(pts, rnd):
    """As the model's flow_size_distribution: linear between the CDF's points."""
    u = rnd.random()
    for (s0, c0), (s1, c1) in zip(pts, pts[1:]):
        if u < c1:
            return max(16, round(s0 + (s1 - s0) * (u - c0) / (c1 - c0)))
    return round(pts[-1][0])


def web_search_schedules(hosts, seconds, load, rate_mbit, seed):
    """Poisson arrivals at each host giving its link `load` in application bytes, web-search sizes, destinations
    uniform over the other hosts (the model's workload, drawn here by Python's generator)."""
    pts = web_search_cdf()
    mean = sum((s0 + s1) / 2 * (c1 - c0) for (s0, c0), (s1, c1) in zip(pts, pts[1:]))
    per_s = load * rate_mbit * 1e6 / 8 / mean
    rnd = random.Random(seed)
    out = {}
    for h in range(hosts):
        t, flows = 0.0, []
        while True:
            t += rnd.expovariate(per_s)
            if t >= seconds:
                break
            dst = rnd.randrange(hosts - 1)
            flows.append((t * 1e6, dst + (dst >= h), sample_size(pts, rnd)))
        out[h] = flows
    return out


BUCKETS = [("small", 0, 100 * 1024), ("medium", 100 * 1024, 1024 * 1024), ("large", 1024 * 1024, float("inf"))]


def bucket_stats(rows):
    """rows: (size, fct_us); p50 and p99 FCT by size bucket, and their counts."""
    res = {}
    for name, lo, hi in BUCKETS:
        fct = [f for size, f in rows if lo < size <= hi]
        res[f"{name}_p50_us"], res[f"{name}_p99_us"], res[f"{name}_n"] = pct(fct, 0.5), pct(fct, 0.99), len(fct)
    return res


def kernel_web_point(tb, hosts, seconds, drain, load, rate_mbit, pacing, seed):
    scheds = web_search_schedules(hosts, seconds, load, rate_mbit, seed)
    d0 = tb.drops()
    got = tb.run_flows(scheds, seconds, pacing, drain)
    started = sum(len(v) for v in scheds.values())
    rows = [(size, fct) for i in got for _, fct, size in got[i]]
    return {**bucket_stats(rows), "started": started, "completed": len(rows), "drops": tb.drops() - d0}


def model_host_args(a, pacing):
    """The hosts of both model set-ups: linux with fq, CUBIC, pacing as the kernel's, no BQL (a veth has none) and
    receive aggregation only with --model-rx-frames."""
    rx = (
        ["--rx-coalesce-us", "200", "--rx-coalesce-frames", str(a.model_rx_frames), "--gro-max-kb", "64"]
        if a.model_rx_frames
        else ["--rx-coalesce-us", "0", "--gro-max-kb", "0"]
    )
    return [
        "--transport",
        "cubic",
        "--host-profile",
        "linux",
        "--pacing=" + ("true" if pacing else "false"),
        "--bql=false",
        *rx,
    ]


def model_web_args(a, load, pacing, seed, rtt_us):
    return [
        a.sim,
        "workload",
        "--topology",
        "star",
        "--hosts",
        str(a.web_hosts),
        "--link-gbps",
        repr(a.web_rate_mbit / 1000 * 1500 / 1538),
        "--load",
        repr(load),
        "--flow-sizes",
        "web-search",
        *model_host_args(a, pacing),
        "--buffer-policy",
        "static",
        "--buffer-kb",
        repr(a.web_buffer_kb * 1500 / 1514),
        "--delay-us",
        repr(rtt_us / 4),
        "--duration-s",
        str(a.web_duration),
        "--drain-ms",
        str(a.web_drain * 1e3),
        "--seed",
        str(seed),
        "--flow-table",
        "--min-rto-ms",
        "200",
        "--quiet",
    ]


def run_model_web(args):
    d = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    fl = d["tables"]["flows"]
    return {
        **bucket_stats(list(zip(fl["size_bytes"], fl["fct_us"]))),
        "started": d["flows_started"],
        "completed": d["flows_completed"],
        "drops": d["drops"],
    }


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def kernel_rpc_point(tb, seconds, per_s, pacing, seed):
    sent0, drop0 = tb.bottleneck(0)
    c0 = tb.counters(1)
    got = tb.run_flows({1: rpc_schedule(seconds, per_s, seed)}, seconds, pacing)
    sent1, drop1 = tb.bottleneck(0)
    c1 = tb.counters(1)
    fct = [d for start, d, size in got[0] if size == RPC_BYTES and start >= WARMUP_S * 1e6]
    rpc_bytes = sum(size for _, _, size in got[0] if size == RPC_BYTES)
    # the bfifo counts frames as skb->len (1514 B a full frame): the bulk flow's payload is 1448 of each
    bulk_wire = max(0, (sent1 - sent0) - rpc_bytes * 1514 / 1448)
    return {
        "fct_p50_us": pct(fct, 0.5),
        "fct_p99_us": pct(fct, 0.99),
        "rpcs": len(fct),
        "rpcs_over_100ms": sum(d > 100e3 for d in fct),
        "bulk_mbps": bulk_wire * 1448 / 1514 * 8 / seconds / 1e6,
        "drops": drop1 - drop0,
        **{k: c1[k] - c0[k] for k in ("timeouts", "loss_probes", "fast_retransmits", "lost_retransmits")},
    }


def model_rpc_args(a, buf, pacing, seconds, seed, rtt_us, cdf):
    load = a.rpc_per_s * RPC_BYTES * 8 / 10e9
    return [
        a.sim,
        "workload",
        "--topology",
        "star",
        "--hosts",
        "2",
        "--uplinks",
        "1",
        "--uplink-gbps",
        "10",
        "--link-gbps",
        repr(a.rate_mbit / 1000 * 1500 / 1538),
        "--load",
        "0",
        "--uplink-load",
        repr(load),
        "--flow-destinations",
        "0",
        "--bulk-flows",
        "1",
        "--flow-sizes",
        cdf,
        *model_host_args(a, pacing),
        "--buffer-policy",
        "static",
        "--buffer-kb",
        repr(buf * 1500 / 1514),
        "--delay-us",
        repr(rtt_us / 4),
        "--duration-s",
        str(seconds),
        "--drain-ms",
        "20",
        "--warmup-ms",
        str(WARMUP_S * 1e3),
        "--seed",
        str(seed),
        "--flow-table",
        "--min-rto-ms",
        "200",
        "--quiet",
    ]


def run_model_rpc(args):
    d = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    fl = d["tables"]["flows"] if "tables" in d else d["flows"]
    fct = fl["fct_us"] if isinstance(fl, dict) else [row["fct_us"] for row in fl]
    return {
        "fct_p50_us": pct(fct, 0.5),
        "fct_p99_us": pct(fct, 0.99),
        "rpcs": len(fct),
        "rpcs_over_100ms": sum(x > 100e3 for x in fct),
        "rpcs_retransmitting": sum(x > 0 for x in fl["retransmitted_bytes"]) / len(fct),
        "bulk_mbps": d["bulk_goodput_mbps"],
        "drops": d["drops"],
        "timeouts": d["timeouts"],
        "loss_probes": d["retransmitted_bytes_probe"] / 1448,
        "fast_retransmits": float("nan"),
        "lost_retransmits": float("nan"),
    }


KEY = ["kernel", "experiment", "rate_mbit", "buffer_kb", "pacing", "duration_s", "rep"]


def load_cache():
    rows = {}
    if os.path.exists(CACHE):
        with open(CACHE) as f:
            for r in csv.DictReader(f):
                key = (
                    r["kernel"],
                    r["experiment"],
                    float(r["rate_mbit"]),
                    float(r["buffer_kb"]),
                    int(r["pacing"]),
                    float(r["duration_s"]),
                    int(r["rep"]),
                )
                rows[key] = {k: float(v) for k, v in r.items() if k not in KEY and v != ""}
    return rows


def save_cache(rows):
    extra = sorted({k for v in rows.values() for k in v})
    with open(CACHE + ".tmp", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(KEY + extra)
        for key, v in sorted(rows.items()):
            w.writerow(list(key) + [v.get(k, "") for k in extra])
    os.replace(CACHE + ".tmp", CACHE)


def mean_sd(xs):
    if any(x != x for x in xs):  # a counter one side does not have
        return float("nan"), float("nan")
    return statistics.mean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--experiment", choices=["rpc", "web-search", "all"], default="all")
    ap.add_argument("--rate-mbit", type=float, default=300, help="rpc: the bottleneck's rate")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--duration", type=float, default=10.0, help="rpc: seconds per repetition")
    ap.add_argument("--buffers", default="64,256", help="rpc: bottleneck bfifo sizes, KB")
    ap.add_argument("--rpc-per-s", type=float, default=100)
    ap.add_argument("--web-hosts", type=int, default=16)
    ap.add_argument("--web-rate-mbit", type=float, default=100, help="web-search: every host link's rate")
    ap.add_argument("--web-loads", default="0.3", help="web-search: loads, comma-separated")
    ap.add_argument("--web-buffer-kb", type=float, default=128, help="web-search: each port's bfifo, KB")
    ap.add_argument("--web-duration", type=float, default=30.0, help="web-search: seconds of arrivals")
    ap.add_argument("--web-drain", type=float, default=10.0, help="web-search: seconds after the last arrival")
    ap.add_argument(
        "--model-rx-frames",
        type=int,
        default=0,
        help="the model's receivers merge this many frames per receive poll into one GRO aggregate and ACK "
        "(0: none, the tables' set-up); the kernel's veth receiver ACKs 5.3 segments on average (a capture)",
    )
    ap.add_argument("--model-only", action="store_true")
    ap.add_argument("--sim", default=os.path.join(ROOT, "build", "cmswitch-sim"))
    a = ap.parse_args()
    kernel = platform.release()
    cache = load_cache()
    tools = {}

    def testbed(hosts, rate, shape_hosts):
        if not tools:
            tools["node"] = kernel_tools(hint=", or --model-only")
            tools["flow"] = os.path.join(os.path.dirname(tools["node"]), "flow_node")
            subprocess.run(["gcc", "-O2", "-o", tools["flow"], os.path.join(HERE, "flow_node.c")], check=True)
        return Testbed(hosts, rate, tools["node"], tools["flow"], shape_hosts)

    def rtt(tb, meta_key):
        if meta_key not in cache:
            cache[meta_key] = {f"rtt_{k}_us": v for k, v in tb.rtt().items()}
            save_cache(cache)

    if a.experiment in ("rpc", "all"):
        buffers = [float(x) for x in a.buffers.split(",")]

        def key(buf, pacing, r):
            return (kernel, "rpc", float(a.rate_mbit), float(buf), int(pacing), float(a.duration), r)

        meta_key = key(0, 0, 0)
        points = [(buf, pacing) for buf in buffers for pacing in (1, 0)]
        todo = [(buf, pacing, r) for buf, pacing in points for r in range(a.reps) if key(buf, pacing, r) not in cache]
        if (todo or meta_key not in cache) and not a.model_only:
            tb = testbed(2, a.rate_mbit, False)
            rtt(tb, meta_key)
            for i, (buf, pacing, r) in enumerate(todo):
                tb.set_buffer(buf)
                res = kernel_rpc_point(tb, a.duration, a.rpc_per_s, pacing, 1000 + r)
                cache[key(buf, pacing, r)] = res
                save_cache(cache)
                print(
                    f"[{i + 1}/{len(todo)}] kernel buffer {buf:g} KB pacing {pacing} rep {r}: p50 "
                    f"{res['fct_p50_us']:.0f} us, p99 {res['fct_p99_us']:.0f} us, {res['rpcs']} responses, bulk "
                    f"{res['bulk_mbps']:.0f} Mbit/s, {res['drops']} drops",
                    file=sys.stderr,
                )
            tb.teardown()
        meta = cache[meta_key]
        cdf = os.path.join(tempfile.mkdtemp(), "rpc.csv")
        with open(cdf, "w") as f:
            f.write(f"# every flow {RPC_BYTES} B\n{RPC_BYTES},0\n{RPC_BYTES},100\n")
        runs = [(buf, pacing, r) for buf, pacing in points for r in range(a.reps)]
        with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            model = dict(
                zip(
                    runs,
                    pool.map(
                        lambda p: run_model_rpc(
                            model_rpc_args(a, p[0], p[1], a.duration, p[2] + 1, meta["rtt_p50_us"], cdf)
                        ),
                        runs,
                    ),
                )
            )
        report(a, cache, key, model, points, meta, kernel)

    if a.experiment in ("web-search", "all"):
        loads = [float(x) for x in a.web_loads.split(",")]

        def key(load, pacing, r):
            return (
                kernel,
                f"web-search-{load:g}",
                float(a.web_rate_mbit),
                float(a.web_buffer_kb),
                int(pacing),
                float(a.web_duration),
                r,
            )

        meta_key = (kernel, "web-search", float(a.web_rate_mbit), 0.0, 0, 0.0, 0)
        points = [(load, pacing) for load in loads for pacing in (1, 0)]
        todo = [(ld, pc, r) for ld, pc in points for r in range(a.reps) if key(ld, pc, r) not in cache]
        if (todo or meta_key not in cache) and not a.model_only:
            tb = testbed(a.web_hosts, a.web_rate_mbit, True)
            rtt(tb, meta_key)
            tb.set_buffer(a.web_buffer_kb)
            for i, (load, pacing, r) in enumerate(todo):
                res = kernel_web_point(
                    tb, a.web_hosts, a.web_duration, a.web_drain, load, a.web_rate_mbit, pacing, 2000 + r
                )
                cache[key(load, pacing, r)] = res
                save_cache(cache)
                print(
                    f"[{i + 1}/{len(todo)}] kernel web-search load {load:g} pacing {pacing} rep {r}: "
                    f"{res['completed']}/{res['started']} flows, small p50/p99 {res['small_p50_us']:.0f}/"
                    f"{res['small_p99_us']:.0f} us, large p50 {res['large_p50_us']:.0f} us, {res['drops']} drops",
                    file=sys.stderr,
                )
            tb.teardown()
        meta = cache[meta_key]
        runs = [(ld, pc, r) for ld, pc in points for r in range(a.reps)]
        with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            model = dict(
                zip(
                    runs,
                    pool.map(
                        lambda p: run_model_web(model_web_args(a, p[0], p[1], p[2] + 1, meta["rtt_p50_us"])), runs
                    ),
                )
            )
        report_web(a, cache, key, model, points, meta, kernel)


def report_web(a, cache, key, model, points, meta, kernel):
    rows = []
    for load, pacing in points:
        ks = [cache[key(load, pacing, r)] for r in range(a.reps)]
        ms = [model[(load, pacing, r)] for r in range(a.reps)]
        for name, _, _ in BUCKETS:
            row = {"load": load, "pacing": pacing, "bucket": name}
            for q in ("p50", "p99"):
                k = f"{name}_{q}_us"
                row[f"kernel_{q}_us"], row[f"kernel_{q}_us_sd"] = mean_sd([x[k] for x in ks])
                row[f"model_{q}_us"], row[f"model_{q}_us_sd"] = mean_sd([x[k] for x in ms])
                row[f"{q}_rel_error"] = (row[f"model_{q}_us"] - row[f"kernel_{q}_us"]) / row[f"kernel_{q}_us"]
            row["kernel_flows"] = statistics.mean(x[f"{name}_n"] for x in ks)
            row["model_flows"] = statistics.mean(x[f"{name}_n"] for x in ms)
            row["kernel_completed_share"] = statistics.mean(x["completed"] / x["started"] for x in ks)
            row["model_completed_share"] = statistics.mean(x["completed"] / x["started"] for x in ms)
            row["kernel_drops"], row["model_drops"] = (
                statistics.mean(x["drops"] for x in ks),
                statistics.mean(x["drops"] for x in ms),
            )
            rows.append(row)
    rx = f"_rx{a.model_rx_frames}" if a.model_rx_frames else ""
    out = os.path.join(HERE, f"host_egress_web_search_{a.web_rate_mbit:g}mbit{rx}.csv")
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(
        f"\nkernel {kernel}; web search on a {a.web_hosts}-host star, every host link {a.web_rate_mbit:g} Mbit/s "
        f"each way (tbf on the host's egress and on its bridge port, each port's bfifo {a.web_buffer_kb:g} KB); "
        f"CUBIC, drop-tail; {a.reps} repetitions of {a.web_duration:g} s of arrivals and {a.web_drain:g} s to "
        f"drain; base RTT p50 {meta['rtt_p50_us']:.0f} us\n"
    )
    print(
        "| load | sender pacing | flows | n kernel / model | p50 kernel / model (ms) | agrees? | "
        "p99 kernel / model (ms) | agrees? |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:

        def c(q, r=r):
            return (
                f"{r['kernel_' + q + '_us'] / 1e3:.2f} +- {r['kernel_' + q + '_us_sd'] / 1e3:.2f} / "
                f"{r['model_' + q + '_us'] / 1e3:.2f} +- {r['model_' + q + '_us_sd'] / 1e3:.2f}"
            )

        def ok(q, r=r):
            return "yes" if abs(r[q + "_rel_error"]) <= 0.25 else f"no ({r[q + '_rel_error']:+.0%})"

        size = {"small": "up to 100 KB", "medium": "100 KB - 1 MB", "large": "over 1 MB"}[r["bucket"]]
        print(
            f"| {r['load']:g} | {'TCP pacing' if r['pacing'] else 'none'} | {size} | {r['kernel_flows']:.0f} / "
            f"{r['model_flows']:.0f} | {c('p50')} | {ok('p50')} | {c('p99')} | {ok('p99')} |"
        )
    print("\n| load | sender pacing | flows completed kernel / model | drops kernel / model |")
    print("|---|---|---|---|")
    for r in rows[:: len(BUCKETS)]:
        print(
            f"| {r['load']:g} | {'TCP pacing' if r['pacing'] else 'none'} | {r['kernel_completed_share']:.1%} / "
            f"{r['model_completed_share']:.1%} | {r['kernel_drops']:.0f} / {r['model_drops']:.0f} |"
        )
    print(f"\nwritten: {os.path.relpath(out, ROOT)}")


def report(a, cache, key, model, points, meta, kernel):
    rows = []
    for buf, pacing in points:
        ks = [cache[key(buf, pacing, r)] for r in range(a.reps)]
        ms = [model[(buf, pacing, r)] for r in range(a.reps)]
        row = {"buffer_kb": buf, "pacing": pacing}
        for k in (
            "fct_p50_us",
            "fct_p99_us",
            "rpcs",
            "rpcs_over_100ms",
            "bulk_mbps",
            "drops",
            "timeouts",
            "loss_probes",
            "fast_retransmits",
            "lost_retransmits",
            "rpcs_retransmitting",
        ):
            row[f"kernel_{k}"], row[f"kernel_{k}_sd"] = mean_sd([x.get(k, float("nan")) for x in ks])
            row[f"model_{k}"], row[f"model_{k}_sd"] = mean_sd([x.get(k, float("nan")) for x in ms])
        for k in ("fct_p50_us", "fct_p99_us"):
            row[f"{k}_rel_error"] = (row[f"model_{k}"] - row[f"kernel_{k}"]) / row[f"kernel_{k}"]
        rows.append(row)
    rx = f"_rx{a.model_rx_frames}" if a.model_rx_frames else ""
    out = os.path.join(HERE, f"host_egress_rpc_{a.rate_mbit:g}mbit{rx}.csv")
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    lacks = kernel_limits()
    print(
        f"kernel {kernel} (built without: {', '.join(lacks) or 'nothing asked for'}); CUBIC; bottleneck tbf "
        f"{a.rate_mbit:g} Mbit/s with a bfifo; {a.reps} repetitions of {a.duration:g} s, {a.rpc_per_s:g} responses "
        f"of {RPC_BYTES // 1024} KB a second behind one bulk flow from the same sender, the first {WARMUP_S:g} s "
        f"left out; base RTT p50 {meta['rtt_p50_us']:.0f} us (model: {meta['rtt_p50_us'] / 4:.1f} us a link)\n"
    )
    print(
        "| buffer | sender pacing | p50 kernel / model (us) | agrees? | p99 kernel / model (us) | agrees? | "
        "responses over 100 ms kernel / model | bulk Mbit/s kernel / model | drops kernel / model |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:

        def c(k, r=r):
            return (
                f"{r['kernel_' + k]:.0f} +- {r['kernel_' + k + '_sd']:.0f} / {r['model_' + k]:.0f} +- "
                f"{r['model_' + k + '_sd']:.0f}"
            )

        def ok(k, r=r):
            return "yes" if abs(r[k + "_rel_error"]) <= 0.25 else f"no ({r[k + '_rel_error']:+.0%})"

        print(
            f"| {r['buffer_kb']:g} KB | {'TCP pacing' if r['pacing'] else 'none'} | {c('fct_p50_us')} | "
            f"{ok('fct_p50_us')} | {c('fct_p99_us')} | {ok('fct_p99_us')} | {c('rpcs_over_100ms')} | "
            f"{c('bulk_mbps')} | {c('drops')} |"
        )
    print(
        "\nThe sender's TCP counters (every flow of the run, the bulk one included; mean of the repetitions), "
        "kernel / model (the model's loss probes: its probe retransmissions' bytes / 1448):\n"
    )
    print(
        "| buffer | sender pacing | timeouts | loss probes | kernel: fast retransmits, lost retransmissions | "
        "model: responses that retransmitted |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:

        def c(k, r=r):
            return f"{r['kernel_' + k]:.0f} / {r['model_' + k]:.0f}"

        print(
            f"| {r['buffer_kb']:g} KB | {'TCP pacing' if r['pacing'] else 'none'} | {c('timeouts')} | "
            f"{c('loss_probes')} | {r['kernel_fast_retransmits']:.0f}, {r['kernel_lost_retransmits']:.0f} | "
            f"{r['model_rpcs_retransmitting']:.1%} |"
        )
    print(f"\nwritten: {os.path.relpath(out, ROOT)}")


if __name__ == "__main__":
    main()
