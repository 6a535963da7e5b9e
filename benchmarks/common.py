"""Helpers the benchmark scripts share: a JSON request on one connection, and a
`pillbox serve` on a fresh data directory that is ready to answer."""
import http.client
import json
import os
import random
import subprocess
import tempfile
import time


def send(conn, method, path, token=None, body=None):
    """One JSON request; answers the status and the raw body, whatever the status."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = conn.getresponse()
    return response.status, response.read()


def request(conn, method, path, token=None, body=None):
    status, data = send(conn, method, path, token, body)
    if status >= 400:
        raise SystemExit(f"{method} {path}: {status} {data[:200]!r}")
    return json.loads(data)


def start_server(binary, first_port, extra_env=None, stderr=None, data_dir=None, ready_path="/health"):
    """Starts `binary serve` on `data_dir` (a fresh one when not given) and waits until
    `ready_path` answers; returns (process, port, data_dir, conn). `stderr` takes the log
    (e.g. subprocess.DEVNULL when a benchmark logs every request)."""
    data_dir = data_dir or tempfile.mkdtemp(prefix="pillbox-bench-")
    port = first_port + random.randint(0, 40)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PILLBOX_")}
    env["PILLBOX_LOG_LEVEL"] = "warn"
    env.update(extra_env or {})
    server = subprocess.Popen([binary, "serve", "--data-dir", data_dir, "--bind", f"127.0.0.1:{port}"], env=env, stderr=stderr)
    for _ in range(100):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            request(conn, "GET", ready_path)
            return server, port, data_dir, conn
        except (ConnectionRefusedError, OSError):
            time.sleep(0.05)
    server.terminate()
    raise SystemExit("pillbox did not start")


def status_kib(pid, field):
    """A figure in KiB from /proc/PID/status (VmRSS, VmHWM)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def reset_peak(pid):
    """Sets a process's VmHWM (peak resident memory) back to its current RSS."""
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")
