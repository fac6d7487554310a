#!/usr/bin/env python3
"""Differential check of cmswitch's `linux` host profile against this machine's Linux kernel: the Devkota & Reddy 2010 barrier
incast on real TCP in network namespaces, side by side with the model on the same set-up.

Kernel set-up (root; everything lives in namespaces named cmsw<pid>-*, deleted on exit, also on Ctrl-C):
  - a switch namespace with a Linux bridge; a client namespace and up to 64 server namespaces, each joined to the
    bridge by a veth pair; addresses 10.77.0.0/24 inside the namespaces only;
  - the bridge's port toward the client is the bottleneck: tbf at 1 Gbit/s (overhead 24: preamble, IFG and FCS, so
    a full frame is 1538 B on the wire; burst 10 frames, the least that reaches line rate with this VM's timers)
    with a bfifo child of B bytes (it counts skb->len, 1514 B a full frame);
  - TSO, GSO and GRO off on every veth end (one frame per packet, MSS 1448 with timestamps), receive processing of
    every veth end steered by RPS over all CPUs by the flow's hash (one CPU per flow: in order; without RPS one
    flow's packets were reordered between the CPUs its sender ran on), softnet drops counted (packets the CPUs'
    receive backlogs, 1000 by default, dropped before the bottleneck: the testbed's CPUs, not its bottleneck, were
    then the limit),
    tcp_no_metrics_save = 1 in every namespace (no connection inherits a cached ssthresh or RTT);
  - minimum RTO by `ip route ... rto_min` in every server namespace; the congestion control (reno or cubic) per
    socket (TCP_CONGESTION); the rest is Linux's defaults (SACK, D-SACK, timestamps, RACK-TLP, IW 10, delayed
    ACKs with quick-ACK, byte counting, cwnd validation). The veths have no qdisc (noqueue): senders neither pace nor
    meet their small-queue limit.
  - validation/linux/incast_node.c (compiled here): servers answer each 4-byte request with one SRU (256 KB,
    TCP_NODELAY); the client requests from every server back to back and starts the next round when all SRUs have
    arrived; goodput = SRU bytes received / time. Counters from each server namespace's /proc/net/{netstat,snmp}
    (nstat's), the bottleneck's tc -s, /proc/net/softnet_stat, and the machine's CPU use from /proc/stat.
  - measured first: the base RTT (TCP ping-pong between the client and a server through the bridge), and what the
    veths and the bridge move unshaped (8 flows; the bottleneck opened to 40 Gbit/s), the rate of the path all the
    senders share (their CPUs); and with every point, how far apart in time the servers started answering in each
    round (each server stamps its response with the time it read the request), the "start spread".

Model set-up (build/cmswitch-sim incast): the same flows, SRU and minimum RTO; host_profile linux with host_qdisc fifo,
small_queues off, gso_max_kb 0, rx_coalesce_us 0 and gro_max_kb 0 (the kernel's noqueue veths, TSO/GSO/GRO off
there, no interrupt moderation); the client's link at rate x 1500/1538
(a 1500-byte frame takes as long as a 1538-byte one on the wire), the servers at 10 Gb/s each behind one shared link
at the measured unshaped rate (server_uplink_gbps: the CPUs all senders share); buffer B x 1500/1514 (the same
number of full frames); each of the 3 links a flow crosses each way delayed a sixth of the measured median RTT; each server's
request offset drawn every round up to the point's measured start spread (request_timing spread); transport
newreno for reno, cubic for cubic.

Grid: flows {1,2,4,8,16,32,64} x buffer {32,64,128,256} KB x minRTO {200,10} ms at a bottleneck of --rate-mbit
(1000 by default; at 1000 on this 2-core VM the CPUs' receive backlogs overflow before the bottleneck with many
senders: the softnet drops say where, and 300 gives the CPUs room), `--reps` repetitions of
`--duration` s each (the kernel is noisy on this 2-core VM: every figure is a mean with its spread). Kernel results
are cached in validation/linux/kernel_cache.csv (keyed by kernel release, congestion control, rate, point, duration
and repetition), so a model change re-runs only the model. Writes validation/linux/differential_<cc>_<rate>.csv
and prints the markdown tables docs/validation.md carries.

Usage: sudo python3 validation/linux/differential.py [--cc reno|cubic] [--rate-mbit 1000] [--reps 3]
       [--duration 5] [--quick] [--model-only] [--model-arg=--jitter-ns=20000 ...] [--tag NAME]
       [--server-links fixed|share] [--kernel RELEASE (with --model-only: another kernel's cached results)]
"""
import argparse
import atexit
import csv
import itertools
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CACHE = os.path.join(HERE, "kernel_cache.csv")
FLOWS = [1, 2, 4, 8, 16, 32, 64]
BUFFERS = [32, 64, 128, 256]
MIN_RTO = [200, 10]
SRU = 256 * 1024
PORT = 5001
PREFIX = f"cmsw{os.getpid() % 100000}"
COUNTERS = {   # nstat name -> (file, section, field)
    "timeouts": ("netstat", "TcpExt", "TCPTimeouts"),
    "loss_probes": ("netstat", "TcpExt", "TCPLossProbes"),
    "loss_probe_recoveries": ("netstat", "TcpExt", "TCPLossProbeRecovery"),
    "retransmitted_segments": ("snmp", "Tcp", "RetransSegs"),
    "sack_recoveries": ("netstat", "TcpExt", "TCPSackRecovery"),
    "dsacks_received": ("netstat", "TcpExt", "TCPDSACKRecv"),
    "spurious_rtos": ("netstat", "TcpExt", "TCPSpuriousRTOs"),
}


def sh(cmd, check=True, ns=None):
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    return subprocess.run(cmd, check=check, capture_output=True, text=True).stdout


class Testbed:
    """The namespaces, veths, bridge and bottleneck; torn down on exit whatever happens."""

    def __init__(self, servers, cc, node, rate_mbit):
        self.n = servers
        self.sw, self.cl = f"{PREFIX}-sw", f"{PREFIX}-c"
        self.srv = [f"{PREFIX}-s{i}" for i in range(servers)]
        self.procs = []
        atexit.register(self.teardown)
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, lambda *_: sys.exit(130))
        self.rate = f"{rate_mbit}mbit"
        for ns in [self.sw, self.cl] + self.srv:
            sh(["ip", "netns", "add", ns])
            sh(["ip", "link", "set", "lo", "up"], ns=ns)
            sh(["sysctl", "-qw", "net.ipv4.tcp_no_metrics_save=1"], ns=ns)
        sh(["ip", "link", "add", "br0", "type", "bridge"], ns=self.sw)
        sh(["ip", "link", "set", "br0", "up"], ns=self.sw)
        # receive processing by RPS over every CPU, chosen by the flow's hash: each flow's packets on one CPU (in
        # order; without RPS a flow's packets were reordered between the CPUs its sender ran on) and the flows
        # spread over all of them (steered to one CPU, that CPU became the bottleneck at 64 senders: its backlog,
        # not the bfifo, held the queue)
        mask = format((1 << (os.cpu_count() or 1)) - 1, "x")
        hosts = [(self.cl, "pc", "10.77.0.1", mask)] + \
            [(ns, f"p{i}", f"10.77.0.{10 + i}", mask) for i, ns in enumerate(self.srv)]
        for ns, port, addr, mask in hosts:
            sh(["ip", "link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", port, "netns", self.sw])
            sh(["ip", "link", "set", port, "master", "br0"], ns=self.sw)
            for where, dev in ((ns, "eth0"), (self.sw, port)):
                sh(["ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off"], ns=where)
                sh(["ip", "link", "set", dev, "up"], ns=where)
                sh(["sh", "-c", f"echo {mask} > /sys/class/net/{dev}/queues/rx-0/rps_cpus"], ns=where)
            sh(["ip", "addr", "add", f"{addr}/24", "dev", "eth0"], ns=ns)
        # the bottleneck: the bridge port toward the client
        self.shape(self.rate)
        sh(["tc", "qdisc", "add", "dev", "pc", "parent", "1:1", "handle", "10:", "bfifo", "limit", "65536"], ns=self.sw)
        for ns in self.srv:
            self.procs.append(subprocess.Popen(["ip", "netns", "exec", ns, node, "server", str(PORT), str(SRU), cc]))
        time.sleep(0.5)

    def teardown(self):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()
        self.procs = []
        for ns in sh(["ip", "netns", "list"], check=False).split("\n"):
            name = ns.split(" ")[0]
            if name.startswith(PREFIX + "-"):
                sh(["ip", "netns", "del", name], check=False)

    def shape(self, rate, burst=15140):
        sh(["tc", "qdisc", "replace", "dev", "pc", "root", "handle", "1:", "tbf", "rate", rate, "burst", str(burst),
            "limit", "1000000", "overhead", "24"], ns=self.sw)

    def set_buffer(self, kb):
        sh(["tc", "qdisc", "change", "dev", "pc", "parent", "1:1", "handle", "10:", "bfifo", "limit",
            str(int(kb * 1024))], ns=self.sw)

    def set_min_rto(self, ms):
        for ns in self.srv:
            sh(["ip", "route", "replace", "10.77.0.0/24", "dev", "eth0", "proto", "kernel", "scope", "link",
                "rto_min", f"{ms}ms"], ns=ns)

    def counters(self, servers):
        return namespace_counters(self.srv[:servers], COUNTERS)

    def bottleneck(self):
        out = sh(["tc", "-s", "qdisc", "show", "dev", "pc"], ns=self.sw)
        m = re.findall(r"bfifo 10:.*?Sent (\d+) bytes (\d+) pkt \(dropped (\d+)", out, re.S)
        return {"sent_bytes": int(m[0][0]), "drops": int(m[0][2])}


def namespace_counters(namespaces, counters):
    """The sum over the namespaces of the TCP counters named in counters (name -> (file, section, field))."""
    total = dict.fromkeys(counters, 0)
    for ns in namespaces:
        text = {f: sh(["cat", f"/proc/net/{f}"], ns=ns) for f in ("netstat", "snmp")}
        for key, (f, section, field) in counters.items():
            lines = [ln.split() for ln in text[f].splitlines() if ln.startswith(section + ":")]
            for head, vals in zip(lines[0::2], lines[1::2]):
                if field in head:
                    total[key] += int(vals[head.index(field)])
    return total


def softnet_drops():
    return sum(int(ln.split()[1], 16) for ln in open("/proc/net/softnet_stat"))


def cpu_times():
    v = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return v[3] + v[4], sum(v)   # idle + iowait, all


def kernel_tools(extra=(), hint=""):
    """What the kernel runs need: root, ethtool (and `extra` tools) installed, incast_node.c compiled into a
    temporary directory; returns the program's path."""
    if os.geteuid() != 0:
        sys.exit(f"the kernel runs need root (namespaces, tc, sysctl): run with sudo{hint}")
    for tool in ("ethtool",) + tuple(extra):
        if not shutil.which(tool):
            subprocess.run(["apt-get", "install", "-y", "-qq", tool], check=True)
    node = os.path.join(tempfile.mkdtemp(), "incast_node")
    subprocess.run(["gcc", "-O2", "-o", node, os.path.join(HERE, "incast_node.c")], check=True)
    return node


def run_kernel_point(tb, node, n, seconds):
    before = tb.counters(n)
    b0, sn0, (idle0, all0) = tb.bottleneck(), softnet_drops(), cpu_times()
    targets = [f"10.77.0.{10 + i}:{PORT}" for i in range(n)]
    out = json.loads(sh([node, "client", str(seconds), str(SRU)] + targets, ns=tb.cl))
    idle1, all1 = cpu_times()
    after, b1 = tb.counters(n), tb.bottleneck()
    starts = out["start_us"]
    spreads = [max(starts[i:i + n]) - min(starts[i:i + n]) for i in range(0, len(starts) - n + 1, n)]
    res = {"goodput_mbps": out["bytes"] * 8 / out["seconds"] / 1e6, "rounds": out["rounds"],
           "start_spread_us": statistics.median(spreads) if spreads else 0.0,
           "round_p50_ms": statistics.median(out["round_us"]) / 1e3 if out["round_us"] else 0.0,
           "drops": b1["drops"] - b0["drops"], "softnet_drops": softnet_drops() - sn0,
           "cpu_busy": 1 - (idle1 - idle0) / max(1, all1 - all0)}
    for k in COUNTERS:
        res[k] = after[k] - before[k]
    return res


KEY = ["kernel", "cc", "rate_mbit", "flows", "buffer_kb", "min_rto_ms", "duration_s", "rep"]


def load_cache():
    rows = {}
    if os.path.exists(CACHE):
        with open(CACHE) as f:
            for r in csv.DictReader(f):
                key = (r["kernel"], r["cc"], float(r["rate_mbit"]), int(r["flows"]), float(r["buffer_kb"]),
                       float(r["min_rto_ms"]), float(r["duration_s"]), int(r["rep"]))
                rows[key] = {k: float(v) for k, v in r.items() if k not in KEY and v != ""}
    return rows


def save_cache(rows):
    extra = sorted({k for v in rows.values() for k in v})
    tmp = CACHE + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(KEY + extra)
        for key, v in sorted(rows.items()):
            w.writerow(list(key) + [v.get(k, "") for k in extra])
    os.replace(tmp, CACHE)


def measure_testbed(tb, node):
    """The base RTT (TCP ping-pong through the bridge and the bottleneck) and what the veths and the bridge move
    unshaped (8 flows, the bottleneck at 40 Gbit/s): the rate of the senders' shared path into the bottleneck."""
    rtt = json.loads(sh([node, "rtt", "2000", f"10.77.0.10:{PORT}"], ns=tb.cl))
    tb.shape("40gbit", burst=1000000)
    tb.set_buffer(100000)
    unshaped = run_kernel_point(tb, node, min(8, tb.n), 3)["goodput_mbps"]
    tb.shape(tb.rate)
    return {**{f"rtt_{k}_us": v for k, v in rtt.items()}, "unshaped_mbps": unshaped}


def model_args(sim, a, n, buf, rto, seconds, seed, meta, spread_us):
    """The model's incast on the kernel testbed's set-up (see the module doc)."""
    return [sim, "incast", "--flows", str(n), "--buffer-kb", repr(buf * 1500 / 1514), "--min-rto-ms", str(rto),
            "--sru-kb", "256", "--duration-s", str(seconds), "--seed", str(seed),
            "--link-gbps", repr(a.rate_mbit / 1000 * 1500 / 1538), "--server-link-gbps",
            repr(meta["unshaped_mbps"] / 1000 / n) if a.server_links == "share" else "10",
            "--server-uplink-gbps", repr(meta["unshaped_mbps"] / 1000), "--delay-us", repr(meta["rtt_p50_us"] / 6),
            "--sample-us", "0", "--request-timing", "spread", "--request-spread-us", repr(spread_us),
            "--host-profile", "linux", "--host-qdisc", "fifo", "--small-queues=false", "--gso-max-kb", "0",
            "--rx-coalesce-us", "0", "--gro-max-kb", "0",
            "--transport", "newreno" if a.cc == "reno" else a.cc] + a.model_arg


def run_model(args):
    d = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return {"goodput_mbps": d["goodput_mbps"], "rounds": d["rounds_completed"], "drops": d["drops"],
            "timeouts": d["timeouts"], "loss_probes": d.get("loss_probes", 0),
            "loss_probe_recoveries": d.get("loss_probe_recoveries", 0),
            "retransmitted_segments": d.get("retransmitted_segments", 0), "sack_recoveries": d["fast_retransmits"],
            "dsacks_received": d.get("dsacks", 0), "round_p50_ms": d["round_time_p50_ms"]}


def mean_sd(xs):
    return (statistics.mean(xs), statistics.stdev(xs) if len(xs) > 1 else 0.0)


def onset(table, buf, rto, rate_mbit):
    """The first flow count whose mean goodput is below half the bottleneck's rate (None: none)."""
    for n in FLOWS:
        if (n, buf, rto) in table and table[(n, buf, rto)] < rate_mbit / 2:
            return n
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cc", choices=["reno", "cubic"], default="reno")
    ap.add_argument("--rate-mbit", type=float, default=1000, help="the bottleneck's rate (default 1000)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--duration", type=float, default=5.0)
    ap.add_argument("--quick", action="store_true", help="flows 1, 8, 64; buffers 32, 256; 1 repetition of 2 s")
    ap.add_argument("--model-only", action="store_true", help="use the cached kernel results only")
    ap.add_argument("--model-arg", action="append", default=[])
    ap.add_argument("--tag", default="")
    ap.add_argument("--sim", default=os.path.join(ROOT, "build", "cmswitch-sim"))
    ap.add_argument("--server-links", choices=["fixed", "share"], default="fixed",
                    help="the model's server links: fixed at 10 Gb/s (each server's window reaches the shared link "
                         "back to back), or share: each at the unshaped rate / flows (the senders' packets "
                         "interleaved on the shared path, as the CPUs move them)")
    ap.add_argument("--kernel", default=platform.release(),
                    help="the kernel release whose cached results to use (default: the running one)")
    a = ap.parse_args()
    flows, buffers = (FLOWS, BUFFERS) if not a.quick else ([1, 8, 64], [32, 256])
    reps, seconds = (a.reps, a.duration) if not a.quick else (1, 2.0)
    kernel = a.kernel
    if kernel != platform.release() and not a.model_only:
        sys.exit(f"--kernel {kernel}: not the running kernel ({platform.release()}); add --model-only")
    cache = load_cache()
    grid = list(itertools.product(MIN_RTO, buffers, flows))
    key = lambda n, buf, rto, r: (kernel, a.cc, float(a.rate_mbit), n, float(buf), float(rto), float(seconds), r)   # noqa: E731
    meta_key = key(0, 0, 0, 0)   # the testbed's own measurements
    todo = [(rto, buf, n, r) for rto, buf, n in grid for r in range(reps) if key(n, buf, rto, r) not in cache]
    if (todo or meta_key not in cache) and not a.model_only:
        node = kernel_tools(hint=", or --model-only")
        tb = Testbed(max(flows), a.cc, node, a.rate_mbit)
        if meta_key not in cache:
            cache[meta_key] = measure_testbed(tb, node)
            save_cache(cache)
        print(f"testbed: {cache[meta_key]}", file=sys.stderr)
        current = (None, None)
        for i, (rto, buf, n, r) in enumerate(todo):
            if current != (rto, buf):
                tb.set_min_rto(rto)
                tb.set_buffer(buf)
                current = (rto, buf)
            res = run_kernel_point(tb, node, n, seconds)
            cache[key(n, buf, rto, r)] = res
            print(f"[{i + 1}/{len(todo)}] kernel flows {n} buffer {buf} KB minRTO {rto} ms rep {r}: "
                  f"{res['goodput_mbps']:.0f} Mbps, {res['timeouts']} timeouts, {res['drops']} drops, "
                  f"cpu {res['cpu_busy']:.0%}, softnet drops {res['softnet_drops']}, start spread "
                  f"{res['start_spread_us']:.0f} us", file=sys.stderr)
            save_cache(cache)
        tb.teardown()
    if meta_key not in cache:
        sys.exit("no testbed measurements for this kernel, congestion control and rate: run without --model-only")
    meta = cache[meta_key]
    runs = [(rto, buf, n, r) for rto, buf, n in grid for r in range(reps)]
    spread = {(rto, buf, n): statistics.mean(cache[key(n, buf, rto, r)]["start_spread_us"] for r in range(reps))
              for rto, buf, n in grid}
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        model = dict(zip(runs, pool.map(lambda p: run_model(model_args(
            a.sim, a, p[2], p[1], p[0], seconds, p[3] + 1, meta, spread[(p[0], p[1], p[2])])), runs)))
    report(a, [cache[key(n, buf, rto, r)] for rto, buf, n in grid for r in range(reps)], meta, model, grid, reps,
           seconds, flows, buffers, kernel)


def report(a, kernel_rows, meta, model, grid, reps, seconds, flows, buffers, kernel):
    rows, kmean, mmean, errors = [], {}, {}, []
    for g, (rto, buf, n) in enumerate(grid):
        ks = kernel_rows[g * reps:(g + 1) * reps]
        ms = [model[(rto, buf, n, r)] for r in range(reps)]
        row = {"flows": n, "buffer_kb": buf, "min_rto_ms": rto}
        for k in ["goodput_mbps", "rounds", "timeouts", "loss_probes", "loss_probe_recoveries",
                  "retransmitted_segments", "sack_recoveries", "drops"]:
            row[f"kernel_{k}"], row[f"kernel_{k}_sd"] = mean_sd([x[k] for x in ks])
            row[f"model_{k}"], row[f"model_{k}_sd"] = mean_sd([x[k] for x in ms])
        row["kernel_cpu_busy"] = statistics.mean(x["cpu_busy"] for x in ks)
        row["start_spread_us"] = statistics.mean(x["start_spread_us"] for x in ks)
        row["kernel_softnet_drops"] = sum(x["softnet_drops"] for x in ks)
        kmean[(n, buf, rto)], mmean[(n, buf, rto)] = row["kernel_goodput_mbps"], row["model_goodput_mbps"]
        row["rel_error"] = (row["model_goodput_mbps"] - row["kernel_goodput_mbps"]) / row["kernel_goodput_mbps"]
        errors.append(abs(row["rel_error"]))
        rows.append(row)
    tag = a.tag or ("_share" if a.server_links == "share" else "")   # never over the tables' own file
    out = os.path.join(HERE, f"differential_{a.cc}_{a.rate_mbit:g}mbit{tag}.csv")
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"kernel {kernel}, {a.cc}, bottleneck {a.rate_mbit:g} Mbit/s; {reps} repetition(s) of {seconds:g} s per "
          f"point; base RTT p50 {meta['rtt_p50_us']:.0f} us (min {meta['rtt_min_us']:.0f}, p99 "
          f"{meta['rtt_p99_us']:.0f}); unshaped path {meta['unshaped_mbps']:.0f} Mbit/s; model: delay "
          f"{meta['rtt_p50_us'] / 6:.1f} us per link, senders' uplink {meta['unshaped_mbps'] / 1000:.2f} Gb/s, "
          f"server links {'the uplink / flows' if a.server_links == 'share' else '10 Gb/s'}, "
          f"each point's measured start spread; extra model args: {' '.join(a.model_arg) or '(none)'}\n")
    for rto in MIN_RTO:
        print(f"Goodput, Mbps, kernel / model (mean +- sd over {reps}), minRTO {rto} ms:\n")
        print("| buffer | " + " | ".join(f"{n} flows" for n in flows) + " |")
        print("|---" * (len(flows) + 1) + "|")
        for buf in buffers:
            cells = []
            for n in flows:
                r = next(x for x in rows if (x["flows"], x["buffer_kb"], x["min_rto_ms"]) == (n, buf, rto))
                cells.append(f"{r['kernel_goodput_mbps']:.0f}+-{r['kernel_goodput_mbps_sd']:.0f} / "
                             f"{r['model_goodput_mbps']:.0f}+-{r['model_goodput_mbps_sd']:.0f}")
            print(f"| {buf} KB | " + " | ".join(cells) + " |")
        print()
    print(f"Collapse onset (first flow count under {a.rate_mbit / 2:g} Mbps, half the rate), kernel / model:\n")
    print("| minRTO | " + " | ".join(f"{b} KB" for b in buffers) + " |")
    print("|---" * (len(buffers) + 1) + "|")
    within = 0
    for rto in MIN_RTO:
        cells = []
        for buf in buffers:
            k, m = onset(kmean, buf, rto, a.rate_mbit), onset(mmean, buf, rto, a.rate_mbit)
            ok = (k is None and m is None) or (k is not None and m is not None and
                                               abs(flows.index(k) - flows.index(m)) <= 1) or \
                (k is None and m == flows[-1]) or (m is None and k == flows[-1])
            within += ok
            cells.append(f"{k or '-'} / {m or '-'}{'' if ok else ' (no)'}")
        print(f"| {rto} ms | " + " | ".join(cells) + " |")
    bound = [r for r in rows if r["kernel_softnet_drops"] > 0]
    print(f"\nonset within one flow-count step: {within} of {len(MIN_RTO) * len(buffers)}; median relative goodput "
          f"error {statistics.median(errors):.1%}; points within 25 %: {sum(e <= 0.25 for e in errors)} of "
          f"{len(errors)}; kernel CPU busy {min(r['kernel_cpu_busy'] for r in rows):.0%}-"
          f"{max(r['kernel_cpu_busy'] for r in rows):.0%}; softnet drops "
          f"{sum(r['kernel_softnet_drops'] for r in rows):.0f} at {len(bound)} point(s)"
          + (": " + ", ".join(f"{r['flows']} flows {r['buffer_kb']} KB {r['min_rto_ms']} ms" for r in bound)
             if bound else ""))
    print("\nCounters per point (sum over the flows, mean over repetitions), kernel / model, where goodput differs by "
          "more than 25 %:\n")
    print("| flows | buffer | minRTO | goodput | timeouts | loss probes | probe recoveries | retransmitted segs | "
          "recoveries | drops |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if abs(r["rel_error"]) <= 0.25:
            continue
        c = lambda k, r=r: f"{r['kernel_' + k]:.0f} / {r['model_' + k]:.0f}"   # noqa: E731
        print(f"| {r['flows']} | {r['buffer_kb']} KB | {r['min_rto_ms']} ms | {c('goodput_mbps')} | {c('timeouts')} | "
              f"{c('loss_probes')} | {c('loss_probe_recoveries')} | {c('retransmitted_segments')} | "
              f"{c('sack_recoveries')} | {c('drops')} |")
    print(f"\nwritten: {os.path.relpath(out, ROOT)}")


if __name__ == "__main__":
    main()
