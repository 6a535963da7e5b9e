#!/usr/bin/env python3
"""The reminder engine under load.

    python3 benchmarks/reminders.py [path/to/pillbox] [--users 10000] [--due 1000]

1. Planner: seeds USERS accounts with 3 daily medications each (at 2, 3 and 4 hours from now
   in their local time, in a mix of time zones, so none is due during the run) straight into
   a migrated database, starts `pillbox serve`, and reports the time its start-up planning
   takes to fill 7 days (from the server's own log line). The reference, measured in the same
   run on a copy of the seeded database: Python's sqlite3 inserting the same number of rows
   (3 × 7 per user) into the same reminders table, with the same pragmas (WAL,
   synchronous=FULL), in one transaction — SQLite's own insert cost with nothing planned.
   `--planning-only` stops after this part.
2. Dispatcher: adds DUE one-off reminders due now for DUE users, each with e-mail and one
   push subscription, against a local SMTP server (aiosmtpd) and a local push endpoint that
   answers 201, and reports how long the tick that hands them to the push endpoint takes
   (the server's own log line; e-mails go through the queue and are not part of the pass),
   with the peak resident memory over that tick (VmHWM, reset before it).
   Reference, measured first in the same run: the same endpoint receiving DUE pre-encrypted
   POSTs of the same size from a simple Python client (32 keep-alive connections): what
   the endpoint itself allows.
3. Memory: the server's peak resident memory (VmHWM) and its RSS after both.

`--channels` replaces part 2 with issue 24's load: DUE reminders due at once, split in three
between push, ntfy (JSON publishing) and signed webhooks, all answered by one local endpoint,
plus one more person whose ntfy server accepts the connection and never answers. It reports
the time from the first message any endpoint received to the last one of the others (all
handed over: the target is 2 s), and whether the silent server held anything up. Reference:
the same endpoint receiving DUE POSTs from the simple client, as in part 2.

`--lateness` measures instead how late reminders leave (issue 26: within 1 s of their time):
a fresh server (tick at its default, 30 s) gets LATE one-off reminders through the API, due
one every 0.7 s from 5 s on, each for its own medication, and the local push endpoint notes
when each arrives; it prints the lateness (arrival less due time) p50, p99 and max, then the
server's CPU over 30 s with nothing due (idle: at most 0.1%). Reference, in the same run: a
Python thread that sleeps until each due time and POSTs to the same endpoint (the floor a
timer and a local HTTP request give). Exits non-zero when a reminder is missing or one left
more than 1 s late.
"""
import argparse
import base64
import http.server
import os
import re
import secrets
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from common import request, start_server

ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stamp(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % int((t % 1) * 1000)


class PushHandler(http.server.BaseHTTPRequestHandler):
    """A push endpoint that answers 201 and notes when each POST arrived (wall clock)."""
    # Keep-alive, as push services do: the reference and the server both reuse connections.
    protocol_version = "HTTP/1.1"
    arrivals = []
    lock = threading.Lock()

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        with PushHandler.lock:
            PushHandler.arrivals.append(time.time())
        self.send_response(201)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


REFERENCE_CLIENT = """
import http.client, os, sys, threading, time
port, count, size, connections = (int(a) for a in sys.argv[1:5])
body = os.urandom(size)
headers = {"Content-Encoding": "aes128gcm", "TTL": "14400", "Content-Type": "application/octet-stream"}
todo = list(range(count))
lock = threading.Lock()
def worker():
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while True:
        with lock:
            if not todo:
                break
            i = todo.pop()
        conn.request("POST", f"/push/ref{i}", body=body, headers=headers)
        conn.getresponse().read()
    conn.close()
threads = [threading.Thread(target=worker) for _ in range(connections)]
began = time.perf_counter()
for t in threads:
    t.start()
for t in threads:
    t.join()
print(time.perf_counter() - began)
"""


class ChannelHandler(http.server.BaseHTTPRequestHandler):
    """Push, ntfy and webhook receiver in one: counts what arrives, by path, with times."""
    protocol_version = "HTTP/1.1"
    arrivals = []
    lock = threading.Lock()

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        kind = "push" if self.path.startswith("/push/") else "ntfy" if self.path.startswith("/ntfy") else "webhook"
        with ChannelHandler.lock:
            ChannelHandler.arrivals.append((time.perf_counter(), kind))
        status = 201 if kind == "push" else 200
        body = b'{"id":"m"}' if kind == "ntfy" else b""
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def silent_server(port):
    """Accepts connections and never answers (a server that hangs)."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    held = []

    def accept():
        while True:
            conn, _ = listener.accept()
            held.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    return held


class PushServer(http.server.ThreadingHTTPServer):
    # The default listen backlog (5) drops the SYNs of a burst of connections, which then
    # wait a second for their retry: the figures would measure that second.
    request_queue_size = 1024
    daemon_threads = True


def reference_posts(port, count, size=400, connections=32):
    """Seconds for a simple client (its own process, as the server is) to POST `count`
    pre-encrypted bodies to the endpoint over `connections` keep-alive connections."""
    out = subprocess.run([sys.executable, "-c", REFERENCE_CLIENT, str(port), str(count), str(size),
                          str(connections)], check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


def p256_public_key():
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives import serialization
    key = ec.generate_private_key(ec.SECP256R1())
    raw = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def local_times(zone, now):
    local = datetime.fromtimestamp(now, ZoneInfo(zone))
    return [(local + timedelta(hours=h)).strftime("%H:00") for h in (2, 3, 4)]


def seed(db, users, now):
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    created = stamp(now)
    today = time.strftime("%Y-%m-%d", time.gmtime(now))
    with conn:
        conn.executemany(
            "INSERT INTO users (id, email, password_hash, email_verified, created_at, updated_at) "
            "VALUES (?, ?, 'x', 1, ?, ?)",
            ((i, f"user{i}@bench.test", created, created) for i in range(1, users + 1)))
        conn.executemany(
            # Daily exports off: that job (10,000 export files) would overlap the measurements.
            "INSERT INTO user_settings (user_id, timezone, preferences) VALUES (?, ?, '{\"autoBackup\": false}')",
            ((i, ZONES[i % len(ZONES)]) for i in range(1, users + 1)))
        conn.executemany(
            "INSERT INTO medications (user_id, name, unit, frequency, color, icon, default_quantity, "
            "schedule_times, start_date, created_at, updated_at) VALUES (?, ?, 'tablets', 'daily', 'blue', "
            "'pill-symbolic', 1000, ?, ?, ?, ?)",
            ((i, f"Med {m}", f'["{t}"]', today, created, created)
             for i in range(1, users + 1) for m, t in enumerate(local_times(ZONES[i % len(ZONES)], now))))
    conn.close()


def reference_insert(db, users, now):
    """Seconds Python's sqlite3 takes to insert 21 reminders per user into a copy of the
    seeded database in one transaction (the rows the planner writes, computed beforehand)."""
    copy = db + ".reference"
    source = sqlite3.connect(db)
    target = sqlite3.connect(copy)
    source.backup(target)
    source.close()
    target.execute("PRAGMA journal_mode=WAL")
    target.execute("PRAGMA synchronous=FULL")
    target.execute("PRAGMA foreign_keys=ON")
    meds = target.execute("SELECT id, user_id, name FROM medications ORDER BY user_id, id").fetchall()
    created = stamp(now)
    rows = []
    for n, (med_id, user_id, name) in enumerate(meds):
        for day in range(7):
            due = stamp(now + 3600 * (2 + day * 24 + n % 3))
            rows.append((user_id, med_id, name, due, due, due, created))
    began = time.perf_counter()
    with target:
        target.executemany(
            "INSERT INTO reminders (user_id, medication_id, medication_name, scheduled_time, reminder_time, "
            "next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    elapsed = time.perf_counter() - began
    target.close()
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(copy + suffix):
            os.remove(copy + suffix)
    return len(rows), elapsed


def cpu_seconds(pid):
    """User and system CPU time a process has used so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def columns(conn, table):
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def lateness_run(binary, count):
    """`--lateness`: see the module's text."""
    endpoint_port = free_port()
    endpoint = PushServer(("127.0.0.1", endpoint_port), PushHandler)
    threading.Thread(target=endpoint.serve_forever, daemon=True).start()
    server, _, _, conn = start_server(binary, 18000, {
        "PILLBOX_SIGNUPS": "open", "PILLBOX_BACKUP_DAILY": "false",
        "PILLBOX_PUSH_ALLOW_ENDPOINTS": f"http://127.0.0.1:{endpoint_port}/",
    }, stderr=subprocess.DEVNULL)
    try:
        token = request(conn, "POST", "/api/auth/register",
                    body={"email": "late@bench.test", "password": "correct-horse-battery"})["data"]["token"]
        auth = base64.urlsafe_b64encode(secrets.token_bytes(16)).rstrip(b"=").decode()
        request(conn, "POST", "/api/notifications/push/register", token, {
            "subscription": {"endpoint": f"http://127.0.0.1:{endpoint_port}/push/phone",
                             "keys": {"p256dh": p256_public_key(), "auth": auth}}})
        medications = [request(conn, "POST", "/api/medications", token, {
            "name": f"Med {i}", "unit": "tablets", "frequency": "as_needed", "default_quantity": 1,
        })["data"]["id"] for i in range(count)]
        start = time.time() + 5
        dues = [start + 0.7 * i for i in range(count)]
        for medication, due in zip(medications, dues):
            request(conn, "POST", "/api/notifications", token, {
                "medication_id": medication, "reminder_minutes_before": 0,
                "scheduled_time": datetime.fromtimestamp(due, ZoneInfo("UTC")).isoformat(timespec="milliseconds"),
            })
        # The server stamps times to the millisecond: compare with the same.
        dues = [int(due * 1000) / 1000 for due in dues]
        deadline = dues[-1] + 40
        while len(PushHandler.arrivals) < count and time.time() < deadline:
            time.sleep(0.1)
        arrivals = sorted(PushHandler.arrivals)
        if len(arrivals) != count:
            raise SystemExit(f"{len(arrivals)} of {count} reminders arrived")
        late = [(arrived - due) * 1000 for arrived, due in zip(arrivals, dues)]

        # Reference: a thread that sleeps until each due time and POSTs itself.
        PushHandler.arrivals.clear()
        import http.client
        connection = http.client.HTTPConnection("127.0.0.1", endpoint_port, timeout=30)
        ref_dues = [time.time() + 1 + 0.7 * i for i in range(count)]
        for due in ref_dues:
            time.sleep(max(0.0, due - time.time()))
            connection.request("POST", "/push/reference", body=b"x" * 400)
            connection.getresponse().read()
        ref_late = [(arrived - due) * 1000 for arrived, due in zip(sorted(PushHandler.arrivals), ref_dues)]

        idle_from = cpu_seconds(server.pid)
        time.sleep(30)
        idle_share = (cpu_seconds(server.pid) - idle_from) / 30 * 100

        print(f"lateness of {count} reminders, due one every 0.7 s, tick 30 s:")
        print(f"  pillbox:   p50 {percentile(late, 0.5):.0f} ms, p99 {percentile(late, 0.99):.0f} ms, "
              f"max {max(late):.0f} ms, earliest {min(late):.0f} ms")
        print(f"  reference: p50 {percentile(ref_late, 0.5):.1f} ms, p99 {percentile(ref_late, 0.99):.1f} ms "
              f"(a thread sleeping until each time and POSTing)")
        print(f"  pillbox p99 - reference p99: {percentile(late, 0.99) - percentile(ref_late, 0.99):.0f} ms")
        print(f"idle CPU over 30 s with nothing due: {idle_share:.3f}%")
        if max(late) > 1000 or min(late) < -5:
            raise SystemExit("a reminder left more than 1 s late, or before its time")
    finally:
        server.terminate()
        server.wait(20)
        endpoint.shutdown()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default="target/release/pillbox")
    parser.add_argument("--users", type=int, default=10000)
    parser.add_argument("--due", type=int, default=1000)
    parser.add_argument("--planning-only", action="store_true")
    parser.add_argument("--channels", action="store_true",
                        help="part 2 over push, ntfy and webhooks, with one channel that never answers")
    parser.add_argument("--lateness", type=int, metavar="LATE", nargs="?", const=40,
                        help="how late LATE reminders (default 40) leave their time; nothing else")
    args = parser.parse_args()
    if args.lateness:
        lateness_run(args.binary, args.lateness)
        return

    work = tempfile.mkdtemp(prefix="pillbox-bench-")
    data = os.path.join(work, "data")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PILLBOX_")}
    env.update({"PILLBOX_DATA_DIR": data, "PILLBOX_LOG_LEVEL": "info"})
    subprocess.run([args.binary, "migrate"], env=env, check=True, capture_output=True)
    db = os.path.join(data, "pillbox.sqlite3")
    cols = columns(sqlite3.connect(db), "users")
    if "updated_at" not in cols:
        print("unexpected users table:", cols, file=sys.stderr)
    now = time.time()
    began = time.perf_counter()
    seed(db, args.users, now)
    print(f"seeded {args.users} users x 3 daily medications in {time.perf_counter() - began:.1f} s")
    reference_rows, reference_s = reference_insert(db, args.users, now)
    print(f"reference: Python's sqlite3 inserts {reference_rows} reminders in one transaction in "
          f"{reference_s * 1000:.0f} ms")

    # Local push endpoint and SMTP server.
    push_port = free_port()
    push = PushServer(("127.0.0.1", push_port), PushHandler)
    threading.Thread(target=push.serve_forever, daemon=True).start()
    smtp_port = free_port()
    maildir = os.path.join(work, "maildir")
    smtp = subprocess.Popen([sys.executable, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{smtp_port}",
                             "-c", "aiosmtpd.handlers.Mailbox", maildir],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    port = free_port()
    channel_port = free_port()
    env.update({
        "PILLBOX_SMTP_HOST": "127.0.0.1", "PILLBOX_SMTP_PORT": str(smtp_port), "PILLBOX_SMTP_TLS": "none",
        "PILLBOX_SMTP_FROM": "Pillbox <pillbox@bench.test>",
        "PILLBOX_PUSH_ALLOW_ENDPOINTS": f"http://127.0.0.1:{push_port}/,http://127.0.0.1:{channel_port}/push/",
        "PILLBOX_CHANNELS_ALLOW_NETWORKS": "127.0.0.1",
        "PILLBOX_REMINDERS_TICK_SECONDS": "5",
        # The daily snapshot is another job; it would overlap the measurements too.
        "PILLBOX_BACKUP_DAILY": "false",
    })
    log_lines = []
    server = subprocess.Popen([args.binary, "serve", "--bind", f"127.0.0.1:{port}"], env=env,
                              stderr=subprocess.PIPE, text=True)
    planned = threading.Event()
    planning_cpu = []
    ticked = threading.Event()
    tick_ms = []

    def read_log():
        for line in server.stderr:
            log_lines.append(line)
            if "planned" in line and "new reminders" in line:
                planning_cpu.append(cpu_seconds(server.pid))
                planned.set()
            m = re.search(r"dispatcher handled (\d+) reminders in (\d+) ms", line)
            if m:
                tick_ms.append((int(m.group(1)), int(m.group(2))))
                ticked.set()

    threading.Thread(target=read_log, daemon=True).start()
    if not planned.wait(600):
        print("".join(log_lines[-20:]), file=sys.stderr)
        raise SystemExit("planning did not finish")
    line = next(l for l in log_lines if "new reminders" in l)
    print("planner:", line.split("INFO")[-1].strip())
    planned_ms = int(re.search(r"in (\d+) ms", line).group(1))
    print(f"planner / reference: {planned_ms / (reference_s * 1000):.2f} "
          f"(server CPU time from start to the end of planning: {planning_cpu[0]:.2f} s)")
    conn = sqlite3.connect(db)
    print("reminders in the database:", conn.execute("SELECT count(*) FROM reminders").fetchone()[0])
    if args.planning_only:
        server.terminate()
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
        smtp.terminate()
        push.shutdown()
        return

    if args.channels:
        channels_run(args, server, conn, channel_port, tick_ms, ticked, log_lines)
        smtp.terminate()
        push.shutdown()
        return

    # Reference: the endpoint's own pace for the same number of POSTs (best of 3).
    reference = min(reference_posts(push_port, args.due) for _ in range(3))
    PushHandler.arrivals.clear()
    print(f"reference: {args.due} pre-encrypted POSTs from a simple client in {reference:.2f} s")

    # 1000 reminders due at the same minute, each user with e-mail and push. The peak
    # memory is measured over the dispatch alone (writing 5 to clear_refs resets VmHWM).
    with open(f"/proc/{server.pid}/status") as status:
        before = next(l.split(":")[1].strip() for l in status if l.startswith("VmRSS"))
    print(f"server memory before the dispatch: {before}")
    try:
        with open(f"/proc/{server.pid}/clear_refs", "w") as f:
            f.write("5")
    except OSError as e:
        print("cannot reset the peak memory, it covers the whole run:", e, file=sys.stderr)
    key = p256_public_key()
    # Cleared before the reminders exist: a tick may take them within a second.
    tick_ms.clear()
    ticked.clear()
    due = stamp(time.time())
    with conn:
        conn.executemany(
            "INSERT INTO notification_preferences (user_id, email_enabled, delivery_methods) VALUES (?, 1, 'push,email')",
            ((i,) for i in range(1, args.due + 1)))
        conn.executemany(
            "INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?)",
            ((i, f"http://127.0.0.1:{push_port}/push/{i}", key,
              base64.urlsafe_b64encode(secrets.token_bytes(16)).rstrip(b"=").decode(), due)
             for i in range(1, args.due + 1)))
        conn.executemany(
            "INSERT INTO reminders (user_id, medication_id, medication_name, kind, scheduled_time, reminder_time, "
            "next_attempt_at, created_at) SELECT user_id, id, name, 'one_off', ?, ?, ?, ? FROM medications "
            "WHERE user_id = ? AND name = 'Med 0'",
            ((due, due, due, due, i) for i in range(1, args.due + 1)))
    if not ticked.wait(600):
        server.kill()
        smtp.terminate()
        raise SystemExit("the dispatcher did not run")
    handled, ms = tick_ms[0]
    with open(f"/proc/{server.pid}/status") as status:
        dispatch_peak = next(l.split(":")[1].strip() for l in status if l.startswith("VmHWM"))
    pushes = len(PushHandler.arrivals)
    mails = len(os.listdir(os.path.join(maildir, "new"))) if os.path.isdir(os.path.join(maildir, "new")) else 0
    print(f"dispatcher: one tick handed {handled} due reminders to the push endpoint in {ms} ms "
          f"({pushes} pushes received; {mails} e-mails received so far)")
    print(f"dispatcher: {ms / 1000:.2f} s = {ms / 1000 / reference:.2f}x the reference; "
          f"peak memory during the dispatch {dispatch_peak}")
    sent = conn.execute("SELECT count(*) FROM reminders WHERE kind = 'one_off' AND status = 'sent'").fetchone()[0]
    print(f"reminders marked sent: {sent}")
    with open(f"/proc/{server.pid}/status") as status:
        mem = {l.split(":")[0]: l.split(":")[1].strip() for l in status if l.startswith(("VmHWM", "VmRSS"))}
    print(f"server memory: peak {mem['VmHWM']}, now {mem['VmRSS']}")
    server.terminate()
    stopping = time.perf_counter()
    try:
        server.wait(20)
    except subprocess.TimeoutExpired:
        server.kill()
        print("".join(log_lines[-15:]), file=sys.stderr)
        raise SystemExit("pillbox did not stop within 20 s of SIGTERM")
    print(f"stopped {time.perf_counter() - stopping:.1f} s after SIGTERM")
    smtp.terminate()
    push.shutdown()


def channels_run(args, server, conn, port, tick_ms, ticked, log_lines):
    """Part 2 over push, ntfy and webhooks (see the module's text)."""
    endpoint = PushServer(("127.0.0.1", port), ChannelHandler)
    threading.Thread(target=endpoint.serve_forever, daemon=True).start()
    reference = min(reference_posts(port, args.due) for _ in range(3))
    ChannelHandler.arrivals.clear()
    print(f"reference: {args.due} POSTs from a simple client in {reference:.2f} s")
    silent_port = free_port()
    silent_server(silent_port)
    key = p256_public_key()
    due = stamp(time.time())
    third = args.due // 3
    users = list(range(1, args.due + 1))
    silent_user = args.due + 1
    secret = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    tick_ms.clear()
    ticked.clear()
    with conn:
        rows = []
        for i in users + [silent_user]:
            if i == silent_user:
                kind, config = "ntfy", f'{{"server_url":"http://127.0.0.1:{silent_port}","topic":"silent"}}'
            elif i <= third:
                continue
            elif i <= 2 * third:
                kind, config = "ntfy", f'{{"server_url":"http://127.0.0.1:{port}/ntfy","topic":"u{i}"}}'
            else:
                kind, config = "webhook", f'{{"url":"http://127.0.0.1:{port}/hook","events":["reminder.due"]}}'
            rows.append((i, i, kind, config, secret if kind == "webhook" else None, due))
        conn.executemany(
            "INSERT INTO channels (id, user_id, kind, name, config, secret, created_at) VALUES (?, ?, ?, 'bench', ?, ?, ?)",
            rows)
        conn.executemany(
            "INSERT INTO notification_preferences (user_id, delivery_methods) VALUES (?, ?)",
            [(i, "push" if i <= third else f"channel:{i}") for i in users + [silent_user]])
        conn.executemany(
            "INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?)",
            ((i, f"http://127.0.0.1:{port}/push/{i}", key,
              base64.urlsafe_b64encode(secrets.token_bytes(16)).rstrip(b"=").decode(), due)
             for i in users if i <= third))
        conn.executemany(
            "INSERT INTO reminders (user_id, medication_id, medication_name, kind, scheduled_time, reminder_time, "
            "next_attempt_at, created_at) SELECT user_id, id, name, 'one_off', ?, ?, ?, ? FROM medications "
            "WHERE user_id = ? AND name = 'Med 0'",
            ((due, due, due, due, i) for i in users + [silent_user]))
    if not ticked.wait(600):
        server.kill()
        raise SystemExit("the dispatcher did not run")
    deadline = time.perf_counter() + 60
    while len(ChannelHandler.arrivals) < args.due and time.perf_counter() < deadline:
        time.sleep(0.01)
    arrivals = sorted(ChannelHandler.arrivals)
    kinds = {k: sum(1 for _, kind in arrivals if kind == k) for k in ("push", "ntfy", "webhook")}
    handed = arrivals[-1][0] - arrivals[0][0] if arrivals else float("nan")
    handled, ms = tick_ms[0]
    print(f"dispatcher tick: {handled} reminders planned and pushed in {ms} ms")
    print(f"received: {kinds} of {args.due} (the silent server holds 1 more)")
    print(f"all handed over in {handed:.2f} s from the first arrival = {handed / reference:.2f}x the reference "
          f"(target: 2 s; the silent channel waits out channels.timeout_seconds on its own)")
    waiting = conn.execute(
        "SELECT count(*) FROM channel_sends WHERE delivered_at IS NULL AND failed_at IS NULL").fetchone()[0]
    print(f"channel messages not yet settled: {waiting} (the silent one, retried later)")
    server.terminate()
    try:
        server.wait(20)
    except subprocess.TimeoutExpired:
        server.kill()
        print("".join(log_lines[-15:]), file=sys.stderr)
        raise SystemExit("pillbox did not stop within 20 s of SIGTERM")
    endpoint.shutdown()


if __name__ == "__main__":
    main()
