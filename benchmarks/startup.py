#!/usr/bin/env python3
"""Time from `pillbox serve` to a healthy /health, and the resident memory of an idle server.

    python3 benchmarks/startup.py [path/to/pillbox] [--runs 20]

"first start" runs in a fresh data directory (creates the database, runs the migrations,
generates the keys); "restart" reuses it. Memory is VmRSS after 5 idle seconds, and again
after 200 requests to the web app and API.
"""
import argparse
import http.client
import os
import statistics
import subprocess
import tempfile
import time


def wait_healthy(port, deadline=30.0):
    start = time.perf_counter()
    while time.perf_counter() - start < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.001)
    raise SystemExit("server did not become healthy")


def start(binary, data_dir, port):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PILLBOX_")}
    env["PILLBOX_LOG_LEVEL"] = "warn"
    began = time.perf_counter()
    proc = subprocess.Popen([binary, "serve", "--data-dir", data_dir, "--bind", f"127.0.0.1:{port}"],
                            env=env, stderr=subprocess.DEVNULL)
    wait_healthy(port)
    return proc, (time.perf_counter() - began) * 1000


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default="target/release/pillbox")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    port = 3990
    first, restart = [], []
    for _ in range(args.runs):
        data_dir = tempfile.mkdtemp(prefix="pillbox-start-")
        proc, ms = start(args.binary, data_dir, port)
        first.append(ms)
        proc.terminate(); proc.wait()
        proc, ms = start(args.binary, data_dir, port)
        restart.append(ms)
        proc.terminate(); proc.wait()
    for name, samples in (("first start", first), ("restart", restart)):
        samples.sort()
        print(f"{name:>12}: median {statistics.median(samples):.1f} ms, max {samples[-1]:.1f} ms over {len(samples)} runs")

    proc, _ = start(args.binary, tempfile.mkdtemp(prefix="pillbox-idle-"), port)
    time.sleep(5)
    idle = rss_kib(proc.pid)
    conn = http.client.HTTPConnection("127.0.0.1", port)
    for i in range(200):
        conn.request("GET", ["/", "/api/version", "/health", "/sw.js"][i % 4], headers={"Accept-Encoding": "br"})
        conn.getresponse().read()
    busy = rss_kib(proc.pid)
    proc.terminate(); proc.wait()
    print(f"{'idle RSS':>12}: {idle / 1024:.1f} MiB (after 200 requests: {busy / 1024:.1f} MiB)")


if __name__ == "__main__":
    main()
