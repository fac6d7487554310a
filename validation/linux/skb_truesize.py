#!/usr/bin/env python3
"""What this machine's kernel charges a TCP socket for one skb below it (sk_wmem_alloc, what TCP small queues
count): the source of the model's skb_truesize_bytes (model/nic/host_qdisc.h).

Two namespaces joined by a veth with TSO and GSO on; a connection between them. A tbf at 8 kbit/s with a 70,000-byte
bucket is put on the sender's veth, and a 65,160-byte write empties its bucket; the next write of N bytes then waits
in the tbf as one skb, and `ss -m` shows the socket's wmem_alloc (t) and its write queue (w). The head's charge is
t - N.

Usage: sudo python3 validation/linux/skb_truesize.py
"""

import os
import re
import socket
import subprocess
import sys
import time

PREFIX = f"tsz{os.getpid() % 100000}"
A, B = f"{PREFIX}-a", f"{PREFIX}-b"
SIZES = (1448, 2896, 14480)


def sh(args, ns=None):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + args
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def client():
    """Runs in namespace A: connects, drains the bucket, and prints N and the socket's t for each size."""
    for n in SIZES:
        s = socket.socket()
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.connect(("10.9.0.2", 7000))
        time.sleep(0.2)
        sh(
            [
                "tc",
                "qdisc",
                "replace",
                "dev",
                "eth0",
                "root",
                "tbf",
                "rate",
                "8kbit",
                "burst",
                "70000",
                "limit",
                "1000000",
            ]
        )
        s.send(b"y" * 65160)
        time.sleep(0.3)
        s.send(b"x" * n)
        time.sleep(0.3)
        out = sh(["ss", "-tmnH", "dst", "10.9.0.2"])
        wmem = [int(m) for m in re.findall(r"skmem:\(.*?,t(\d+),", out)]
        print(n, max(wmem), flush=True)
        sh(["tc", "qdisc", "del", "dev", "eth0", "root"])
        s.close()
        time.sleep(0.2)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "client":
        client()
        return
    try:
        for ns in (A, B):
            sh(["ip", "netns", "add", ns])
            sh(["ip", "link", "set", "lo", "up"], ns=ns)
        sh(["ip", "link", "add", "eth0", "netns", A, "type", "veth", "peer", "name", "eth0", "netns", B])
        for ns, addr in ((A, "10.9.0.1"), (B, "10.9.0.2")):
            sh(["ip", "addr", "add", f"{addr}/24", "dev", "eth0"], ns=ns)
            sh(["ethtool", "-K", "eth0", "tso", "on", "gso", "on"], ns=ns)
            sh(["ip", "link", "set", "eth0", "up"], ns=ns)
        server = subprocess.Popen(
            [
                "ip", "netns", "exec", B, sys.executable, "-c",
                "import socket,time\n"
                "s=socket.socket(); s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\n"
                "s.bind(('10.9.0.2',7000)); s.listen(8); c=[s.accept()[0] for _ in range(3)]; time.sleep(5)",
            ]
        )  # fmt: skip
        time.sleep(0.5)
        out = sh([sys.executable, os.path.abspath(__file__), "client"], ns=A)
        server.kill()
        print(f"kernel {os.uname().release}: one queued skb of N payload bytes charges its socket t bytes")
        print("| N | t | t - N |\n|---|---|---|")
        for ln in out.split("\n"):
            if ln:
                n, t = (int(x) for x in ln.split())
                print(f"| {n} | {t} | {t - n} |")
    finally:
        for ns in (A, B):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


if __name__ == "__main__":
    main()
