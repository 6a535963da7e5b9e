#!/usr/bin/env python3
"""The shipped binaries side by side: size, idle memory, start-up time and throughput of a
release build against a static (musl) one, with an axum hello world as the reference, in one run.

For each binary given: its size and linkage (`file`); the resident memory of an idle server
on a fresh data directory, `--settle` seconds after /health answers and again at `--steady`
seconds (past the dispatcher's first timed pass at 30 s, when the allocator has handed back
what start-up used and freed): VmRSS and its anonymous part (the rest is pages of the binary
itself, shared with the page cache); the time from `pillbox serve` to the first healthy /health (median over `--starts` fresh data directories); then requests per second
of /health and of GET /api/medications (one person with 20 medications, seeded as in
medications.py), with wrk, alternating the binaries and the hello world for `--rounds` rounds
(medians). The script builds nothing: the glibc build is `cargo build --release` (with
`--example hello` for the reference), the static one `cargo build --release --target
x86_64-unknown-linux-musl` or packaging/release.sh.

Needs wrk (`apt-get install -y wrk`).

    python3 benchmarks/release.py target/release/pillbox \\
        target/x86_64-unknown-linux-musl/release/pillbox [--hello target/release/examples/hello]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from types import SimpleNamespace

from common import request, start_server
from medications import MEDICATIONS, seed, wrk
from startup import start as start_timed


def memory_kib(pid):
    """VmRSS and RssAnon of a process, in KiB."""
    values = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "RssAnon"):
                values[key] = int(rest.split()[0])
    return values["VmRSS"], values["RssAnon"]


def linkage(binary):
    if not shutil.which("file"):
        return "?"
    out = subprocess.run(["file", "-L", binary], capture_output=True, text=True).stdout
    if "statically linked" in out or "static-pie" in out:
        return "static"
    return "dynamic" if "dynamically linked" in out else "?"


def idle_memory(binary, settle, steady, port):
    """(VmRSS, RssAnon) after `settle` seconds, and after `steady` seconds."""
    data_dir = tempfile.mkdtemp(prefix="pillbox-idle-")
    try:
        proc, _ = start_timed(binary, data_dir, port)
        try:
            time.sleep(settle)
            early = memory_kib(proc.pid)
            time.sleep(max(0.0, steady - settle))
            return early, memory_kib(proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def start_to_healthy(binary, starts, port):
    samples = []
    for _ in range(starts):
        data_dir = tempfile.mkdtemp(prefix="pillbox-start-")
        try:
            proc, ms = start_timed(binary, data_dir, port)
            samples.append(ms)
            proc.terminate()
            proc.wait(timeout=30)
        finally:
            shutil.rmtree(data_dir, ignore_errors=True)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binaries", nargs="+", help="pillbox binaries: the glibc build first, then the static one")
    parser.add_argument("--hello", help="the hello-world binary (default: examples/hello beside the first binary)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--steady", type=float, default=40.0)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("needs wrk: apt-get install -y wrk")
    hello_bin = args.hello or os.path.join(os.path.dirname(args.binaries[0]), "examples", "hello")
    if not os.path.exists(hello_bin):
        raise SystemExit(f"{hello_bin} is missing: cargo build --release --example hello")
    for binary in args.binaries:
        if not os.path.exists(binary):
            raise SystemExit(f"{binary} is missing")
    load = SimpleNamespace(threads=args.threads, connections=args.connections, seconds=args.seconds)

    facts = {}
    for binary in args.binaries:
        early, steady = idle_memory(binary, args.settle, args.steady, 4390)
        facts[binary] = {
            "size": os.path.getsize(binary),
            "linkage": linkage(binary),
            "early": early,
            "steady": steady,
            "start_ms": start_to_healthy(binary, args.starts, 4391),
        }

    servers = []
    hello = None
    try:
        for i, binary in enumerate(args.binaries):
            server, port, data_dir, conn = start_server(binary, 4400 + 50 * i, {"PILLBOX_BACKUP_DAILY": "false"},
                                                        stderr=subprocess.DEVNULL)
            servers.append((binary, server, port, data_dir))
            token = request(conn, "POST", "/api/auth/register",
                            body={"email": "bench@example.org", "password": "benchmark"})["data"]["token"]
            seed(conn, token)
            assert len(request(conn, "GET", "/api/medications", token)["data"]) == MEDICATIONS
            conn.close()
            facts[binary]["token"] = token
        hello_port = 4380
        hello = subprocess.Popen([hello_bin, f"127.0.0.1:{hello_port}"])
        time.sleep(0.5)
        rates = {"hello": []}
        for binary in args.binaries:
            rates[(binary, "health")] = []
            rates[(binary, "list")] = []
        for _ in range(args.rounds):
            rates["hello"].append(wrk(f"http://127.0.0.1:{hello_port}/", hello.pid, load)[0])
            for binary, server, port, _ in servers:
                base = f"http://127.0.0.1:{port}"
                rates[(binary, "health")].append(wrk(f"{base}/health", server.pid, load)[0])
                auth = f"Authorization: Bearer {facts[binary]['token']}"
                rates[(binary, "list")].append(wrk(f"{base}/api/medications", server.pid, load, [auth])[0])
    finally:
        if hello:
            hello.terminate()
            hello.wait(timeout=30)
        for _, server, _, data_dir in servers:
            server.terminate()
            server.wait(timeout=30)
            shutil.rmtree(data_dir, ignore_errors=True)

    hello_rate = statistics.median(rates["hello"])
    first = args.binaries[0]
    print(f"wrk -t{args.threads} -c{args.connections} -d{args.seconds}s, medians of {args.rounds} rounds; "
          f"start-up median of {args.starts}")
    print(f"axum hello world ({hello_bin}): {hello_rate:,.0f} req/s")
    print(f"| binary | linkage | size | idle RSS (anonymous) after {args.settle:g} s / {args.steady:g} s "
          "| start to healthy | /health req/s (× hello) | GET /api/medications req/s (× hello) "
          "| × first binary (/health, list) |")
    print("|---|---|---|---|---|---|---|---|")
    for binary in args.binaries:
        f = facts[binary]
        health = statistics.median(rates[(binary, "health")])
        listing = statistics.median(rates[(binary, "list")])
        first_health = statistics.median(rates[(first, "health")])
        first_list = statistics.median(rates[(first, "list")])
        (rss, anon), (steady_rss, steady_anon) = f["early"], f["steady"]
        print(f"| {binary} | {f['linkage']} | {f['size'] / 1e6:.1f} MB "
              f"| {rss / 1024:.1f} ({anon / 1024:.1f}) / {steady_rss / 1024:.1f} ({steady_anon / 1024:.1f}) MiB "
              f"| {f['start_ms']:.0f} ms "
              f"| {health:,.0f} ({health / hello_rate:.2f}) | {listing:,.0f} ({listing / hello_rate:.3f}) "
              f"| {health / first_health:.2f}, {listing / first_list:.2f} |")


if __name__ == "__main__":
    sys.exit(main())
