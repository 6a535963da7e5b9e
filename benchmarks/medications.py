#!/usr/bin/env python3
"""Throughput and CPU cost of GET /api/medications against an axum hello world, in one run.

Starts `pillbox serve` on a fresh data directory (log level `info`, the default: every
request is logged, to /dev/null here) and creates one user with 20 medications through the
API, each with stock, a schedule of two times a day and a few logged doses. Starts the
reference, `examples/hello.rs` (axum's hello world on the same axum and tokio, built with
`cargo build --release --example hello`). Then, alternating for `--rounds` rounds, loads each
with wrk (same threads, connections and duration) and reads the server process's CPU time
(utime + stime from /proc/PID/stat) before and after. Prints medians: requests per second,
the ratio to hello world, and CPU microseconds per request.

The server keeps each person's list answer until anything is committed (src/http/list_cache.rs),
so wrk measures a kept answer. What the first list after a change costs (the app reloads the
list after every dose) is measured apart, sequentially: the median time of GET after a
logged dose, against the median of a repeated GET, over `--changes` pairs.

Needs wrk (`apt-get install -y wrk`). The load generator shares the machine with the server,
alike for both, which is why only the ratio carries over to other machines.

    python3 benchmarks/medications.py [path/to/pillbox] [--hello path] [--rounds 3] [--seconds 10]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

from common import request, start_server

MEDICATIONS = 20
DOSES_EACH = 6
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        # The command name may hold spaces; the fields after it are fixed.
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime


def wrk(url, pid, args, headers=()):
    command = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{args.seconds}s", "--latency"]
    for header in headers:
        command += ["-H", header]
    before = cpu_seconds(pid)
    out = subprocess.run(command + [url], check=True, capture_output=True, text=True).stdout
    cpu = cpu_seconds(pid) - before
    if "Non-2xx" in out or "Socket errors" in out:
        raise SystemExit(f"wrk saw failures against {url}:\n{out}")
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    return rate, cpu / requests * 1e6


def seed(conn, token):
    for n in range(MEDICATIONS):
        body = {"name": f"Medication {n:02d}", "unit": "mg", "default_quantity": 500, "frequency": "twice_daily",
                "color": "green", "notes": "with food",
                "schedule": {"times": ["08:00", "20:00"]},
                "inventory": {"enabled": True, "inventory_type": "discrete", "container_type": "box",
                              "container_quantity": 10, "item_quantity": 30, "item_strength": 500,
                              "item_unit": "tablets"}}
        med = request(conn, "POST", "/api/medications", token, body)["data"]
        for d in range(DOSES_EACH):
            request(conn, "POST", f"/api/medications/{med['id']}/doses", token,
                    {"status": "taken" if d % 3 else "skipped"})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default="target/release/pillbox")
    parser.add_argument("--hello", help="the hello-world binary (default: examples/hello beside the binary)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--changes", type=int, default=200)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("needs wrk: apt-get install -y wrk")
    hello_bin = args.hello or os.path.join(os.path.dirname(args.binary), "examples", "hello")
    if not os.path.exists(hello_bin):
        raise SystemExit(f"{hello_bin} is missing: cargo build --release --example hello")

    server, port, data_dir, conn = start_server(args.binary, 3950, {"PILLBOX_LOG_LEVEL": "info",
                                                            "PILLBOX_BACKUP_DAILY": "false"},
                                         stderr=subprocess.DEVNULL)
    hello_port = port + 100
    hello = subprocess.Popen([hello_bin, f"127.0.0.1:{hello_port}"])
    try:
        token = request(conn, "POST", "/api/auth/register",
                        body={"email": "bench@example.org", "password": "benchmark"})["data"]["token"]
        seed(conn, token)
        meds = request(conn, "GET", "/api/medications", token)["data"]
        assert len(meds) == MEDICATIONS and all(m["inventory"] and m["doses"] for m in meds)
        after_change, repeated = [], []
        for n in range(args.changes):
            request(conn, "POST", f"/api/medications/{meds[n % MEDICATIONS]['id']}/doses", token, {})
            for times in (after_change, repeated):
                started = time.perf_counter()
                request(conn, "GET", "/api/medications", token)
                times.append(time.perf_counter() - started)
        conn.close()
        time.sleep(0.5)
        auth = f"Authorization: Bearer {token}"
        api = f"http://127.0.0.1:{port}/api/medications"
        results = {"hello": [], "list": [], "list_gzip": []}
        for _ in range(args.rounds):
            results["hello"].append(wrk(f"http://127.0.0.1:{hello_port}/", hello.pid, args))
            results["list"].append(wrk(api, server.pid, args, [auth]))
            results["list_gzip"].append(wrk(api, server.pid, args, [auth, "Accept-Encoding: gzip, br"]))

        def med(name, i):
            return statistics.median(r[i] for r in results[name])

        hello_rate = med("hello", 0)
        print(f"wrk -t{args.threads} -c{args.connections} -d{args.seconds}s, {args.rounds} rounds (medians), "
              f"{MEDICATIONS} medications with stock, schedules and {DOSES_EACH} doses each")
        print("| what | requests/s | ratio to hello world | CPU µs per request |")
        print(f"| axum hello world (reference) | {hello_rate:,.0f} | 1.00 | {med('hello', 1):.0f} |")
        for name, label in (("list", "GET /api/medications"),
                            ("list_gzip", "GET /api/medications, Accept-Encoding: gzip, br")):
            rate = med(name, 0)
            print(f"| {label} | {rate:,.0f} | {rate / hello_rate:.3f} | {med(name, 1):.0f} |")
        first, kept = statistics.median(after_change) * 1e3, statistics.median(repeated) * 1e3
        print(f"GET /api/medications, one client, median of {args.changes}: first after a logged dose "
              f"{first:.2f} ms, repeated {kept:.2f} ms ({first / kept:.1f}×)")
    finally:
        hello.terminate()
        server.terminate()
        hello.wait(timeout=30)
        server.wait(timeout=30)
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
