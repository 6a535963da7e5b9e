#!/usr/bin/env python3
"""A month of reminders without one lost or doubled (issue 26): a release check, not CI.

    python3 benchmarks/month.py target/release/pillbox [--days 31] [--people 20] [--rate 6000]

Runs the release build under libfaketime (Debian's `faketime` package; the binary must be
linked against glibc, which LD_PRELOAD needs) with its clock sped up RATE times (the accounts
and medications are made at 60x on the evening of 28 February), through DAYS simulated days
of March 2026, for PEOPLE people with real
schedules in Europe/Berlin, Europe/London and America/New_York, whose daylight-saving changes
(8 and 29 March) fall inside the month: fixed times on the wall clock, every 8 hours on the
elapsed clock, an as-needed medication, a course that ends, a taper, e-mail-only people, a
person with two devices, and two dependents whose doses escalate to carers (one dose nobody
ever takes; one the carer takes once alerted).

A local push endpoint decrypts every push (RFC 8291) and a local SMTP server (aiosmtpd)
takes every mail; each person takes a dose through the take link of the first reminder
that reaches them, as a person tapping "Take" would. Meanwhile: a restart every 3 days, a
`kill -9` while a push is being sent, the SMTP server down for an hour, the push endpoint
answering 500 for two hours, and a power cut: the server boots with the clock it saved
40 minutes earlier, which NTP sets forward 2 minutes later.

Afterwards it reads the SQLite file (reminders, deliveries, escalations, dose_history) and
prints: reminders due (planned doses from the schedules, computed here, not read from the
server), delivered on time or on recovery after an outage, delivered twice, never
delivered, doses recorded missed that a reminder should have prevented, escalations sent
and withdrawn. It exits non-zero when a target is missed: every reminder delivered, none
twice (same reminder and round on the same device, or the same mail twice), none lost.

Time. libfaketime divides epoll_wait's timeouts by RATE and speeds up CLOCK_MONOTONIC with
the wall clock (both checked at start), so the dispatcher's sleep until the next reminder
ends on time in simulated time. Work, however, runs at the machine's speed: a pass's commits,
the encryption and the local POST take milliseconds, which at RATE 6000 are tens of simulated
seconds, and a machine that stalls the server for half a second moves it an hour. "Within 5 s
of simulated time" cannot be judged at a speed that runs a month in 10 minutes (it would need
RATE 250 on a quiet machine: three hours). So lateness is measured on the server's own clock
(the delivery's `attempted_at` less the reminder's time, both written by the server) and
judged in real time: a reminder is on time when it was handed over within `--allowance-ms`
(default 1000) real milliseconds of the moment the server's clock reached its time, which is
what a person would see at real speed, but for the timer's own error, which libfaketime
divides by RATE; that part is printed on its own line (when the pass that sent a reminder
woke), and at real speed it is `benchmarks/reminders.py --lateness`'s measurement. A reminder
planned at a wrong time (an hour off at a daylight-saving change) is not a late one here but
a lost one: the planned doses are computed from the schedules by this script and a reminder
counts only for the dose time it was planned for. Timeouts the server counts in simulated
time and that bound waits on this script's endpoints are raised (see `Month.env`).

libfaketime moves CLOCK_MONOTONIC together with the wall clock when its setting changes, so
the power cut's jump looks to the server like time passing (a suspend), not like a set
clock: the engine's jump detection is not exercised here (tests/engine_faults.rs and
tests/health.rs cover it with the test clock); what is exercised is what a jump does to
reminders that fell due in it.

Counting. A reminder is delivered when its first round reached a device or a mailbox; on
recovery when its time fell in an outage (a restart, the kill, the power cut, the mail
server's hour, the push endpoint's two hours) and it was handed over within
`--recovery-minutes` of the outage's end. Twice means the same round of the same reminder
reached the same device or mailbox twice; a resend with the same Topic after a kill -9 (the
server cannot know that a push it was killed during went out: the push service and the
notification's tag show it once), or after the server's own send timeout while the endpoint
had taken it (at 6000x the 300 s limit is 50 ms of a busy machine's time), is counted
apart, not as doubled. Never delivered: a planned dose with no reminder row for its time,
or whose first round reached nobody.
"""
import argparse
import base64
import email
import hashlib
import http.client
import http.server
import json
import os
import queue
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from common import send, start_server
from reminders import PushServer, free_port

LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"
UTC = timezone.utc
SIM_START = datetime(2026, 2, 28, 20, 0, tzinfo=UTC)
SETUP_RATE = 60
MONTH_START = datetime(2026, 3, 1, 0, 0, tzinfo=UTC)
PASSWORD = "correct-horse-battery"
LEAD_MINUTES = 15
GRACE_MINUTES = 120


# --- Schedules --------------------------------------------------------------------------------

def person_plan(count):
    """The people: (zone, channel, devices, medications). A medication is a dict with the API
    body and `taker`: who takes it on a reminder ("self", "carer" once alerted, or None)."""
    berlin, london, new_york = "Europe/Berlin", "Europe/London", "America/New_York"

    def daily(name, times, **rules):
        return {"name": name, "frequency": "daily", "schedule": {"times": times, **rules}}

    plans = [
        (berlin, "push", 1, [daily("Ramipril", ["08:00", "20:00"])]),
        (berlin, "push", 1, [daily("Metformin", ["07:00", "13:00", "19:00"])]),
        (berlin, "push", 1, [daily("Amoxicillin", ["06:00"], interval_hours=8, clock="elapsed")]),
        (berlin, "push", 1, [daily("Prednisolone", ["09:00"], start_date="2026-03-02",
                                   steps=[{"days": 5, "quantity": 3}, {"days": 5, "quantity": 2},
                                          {"days": 5, "quantity": 1}])]),
        (berlin, "push", 1, [daily("Doxycycline", ["21:00"], end_date="2026-03-10")]),
        (berlin, "push", 1, [daily("Levothyroxine", ["06:30"]),
                             {"name": "Ibuprofen", "frequency": "as_needed"}]),
        (berlin, "email", 0, [daily("Atorvastatin", ["07:30", "19:30"])]),
        (berlin, "push", 2, [daily("Insulin", ["10:00", "22:00"])]),
        (new_york, "push", 1, [daily("Lisinopril", ["08:00", "20:00"])]),
        (new_york, "push", 1, [daily("Cefalexin", ["07:00"], interval_hours=8, clock="elapsed")]),
        (new_york, "email", 0, [daily("Sertraline", ["09:00"])]),
        (new_york, "push", 1, [daily("Dexamethasone", ["08:30"], start_date="2026-03-05",
                                     steps=[{"days": 7, "quantity": 2}, {"days": 7, "quantity": 1}])]),
        (london, "push", 1, [daily("Omeprazole", ["07:45"])]),
        (london, "push", 1, [daily("Nitrofurantoin", ["08:00", "20:00"], end_date="2026-03-20")]),
        (berlin, "push", 1, [daily("Clarithromycin", ["00:30"], interval_hours=8, clock="elapsed")]),
        (berlin, "push", 1, [daily("Warfarin", ["18:00"])]),
        (berlin, "push", 1, [daily("Bisoprolol", ["12:00"])]),
        (berlin, "push", 1, [daily("Amlodipine", ["09:00"])]),
        # The owner of Opa, whose "Digoxin" nobody takes: carers 17 and 18 are alerted.
        (berlin, "push", 1, [daily("Vitamin D", ["09:15"])]),
        # The owner of Oma, whose "Furosemide" the owner ignores and carer 17 takes once alerted.
        (berlin, "push", 1, [daily("Magnesium", ["11:00"])]),
    ]
    return plans[:count]


def day_range(first, last):
    d = first
    while d <= last:
        yield d
        d += timedelta(days=1)


def planned_doses(body, zone, until):
    """The instants (UTC) a scheduled medication's doses fall on from its start to `until`,
    as a person reads the schedule: wall-clock times each local day (a course to its end
    date, a taper for its steps' days), or every N hours from the first dose."""
    schedule = body.get("schedule")
    if body.get("frequency") == "as_needed" or not schedule:
        return []
    tz = ZoneInfo(zone)
    start = date.fromisoformat(schedule.get("start_date", "2026-02-28"))
    last = until.astimezone(tz).date()
    if "end_date" in schedule:
        last = min(last, date.fromisoformat(schedule["end_date"]))
    if "steps" in schedule:
        last = min(last, start + timedelta(days=sum(s["days"] for s in schedule["steps"]) - 1))
    doses = []
    if schedule.get("clock") == "elapsed":
        first = datetime.combine(start, datetime.strptime(schedule["times"][0], "%H:%M").time(), tz)
        at = first.astimezone(UTC)
        while at < until:
            doses.append(at)
            at += timedelta(hours=schedule["interval_hours"])
        return doses
    for day in day_range(start, last):
        for text in schedule["times"]:
            doses.append(datetime.combine(day, datetime.strptime(text, "%H:%M").time(), tz).astimezone(UTC))
    return [d for d in doses if d < until]


# --- Time under libfaketime ----------------------------------------------------------------

class SimClock:
    """The simulated time as the running server reads it: the instant its libfaketime was
    started at, run on at RATE from the real instant it started."""

    def __init__(self, rate):
        self.rate = rate
        self.base_sim = SIM_START
        self.base_real = time.time()
        # Every (real, simulated, rate) the clock was set to, to read real instants back.
        self.history = []

    def now(self):
        return self.base_sim + timedelta(seconds=(time.time() - self.base_real) * self.rate)

    def rebase(self, sim):
        self.base_sim, self.base_real = sim, time.time()
        self.history.append((self.base_real, sim, self.rate))

    def sim_at(self, real):
        """The server's time at a real instant (to a few simulated seconds: libfaketime
        starts counting when the process starts, a millisecond or so after the rebase)."""
        base_real, base_sim, rate = max((h for h in self.history if h[0] <= real), key=lambda h: h[0])
        return base_sim + timedelta(seconds=(real - base_real) * rate)

    def real_at(self, sim):
        return self.base_real + (sim - self.base_sim).total_seconds() / self.rate

    def sleep_until(self, sim):
        time.sleep(max(0.0, self.real_at(sim) - time.time()))


def faketime_spec(sim, rate):
    return f"@{sim.strftime('%Y-%m-%d %H:%M:%S')} x{rate}"


def check_faketime(rate):
    """libfaketime must speed up the wall clock, CLOCK_MONOTONIC and epoll_wait's timeouts
    alike, or the engine's timers would not end on simulated time."""
    probe = ("import select, time\n"
             "w, m = time.time(), time.monotonic()\n"
             "select.epoll().poll(600.0)\n"
             "print(time.time() - w, time.monotonic() - m)\n")
    env = dict(os.environ, LD_PRELOAD=LIBFAKETIME, FAKETIME=faketime_spec(SIM_START, rate))
    began = time.time()
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    real = time.time() - began
    wall, mono = (float(x) for x in out.stdout.split())
    if not (590 < wall < 900 and 590 < mono < 900 and real < 1.5):
        raise SystemExit(f"libfaketime does not speed up epoll_wait with both clocks: a 600 s wait took "
                         f"{wall:.0f} s of wall clock, {mono:.0f} s of monotonic clock, {real:.2f} s real")


# --- The push endpoint -------------------------------------------------------------------------

def decrypt_push(body, private_key, auth_secret):
    """RFC 8291 (aes128gcm, one record): the JSON payload a service worker would read."""
    salt, idlen = body[:16], body[20]
    sender = body[21:21 + idlen]
    ciphertext = body[21 + idlen:]
    shared = private_key.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender))
    receiver = private_key.public_key().public_bytes(serialization.Encoding.X962,
                                                     serialization.PublicFormat.UncompressedPoint)
    ikm = HKDF(hashes.SHA256(), 32, auth_secret, b"WebPush: info\x00" + receiver + sender).derive(shared)
    key = HKDF(hashes.SHA256(), 16, salt, b"Content-Encoding: aes128gcm\x00").derive(ikm)
    nonce = HKDF(hashes.SHA256(), 12, salt, b"Content-Encoding: nonce\x00").derive(ikm)
    plain = AESGCM(key).decrypt(nonce, ciphertext, None).rstrip(b"\x00")
    return json.loads(plain[:-1])


class Device:
    def __init__(self, name):
        self.name = name
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = secrets.token_bytes(16)

    def subscription(self, port):
        public = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                    serialization.PublicFormat.UncompressedPoint)
        b64 = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
        return {"endpoint": f"http://127.0.0.1:{port}/push/{self.name}",
                "keys": {"p256dh": b64(public), "auth": b64(self.auth)}}


class Endpoint(http.server.BaseHTTPRequestHandler):
    """Web Push service: answers 201 (or 500 while `failing`; holds the answer while
    `holding`), decrypts each push and notes it with its Topic and the real time."""
    protocol_version = "HTTP/1.1"
    devices = {}
    received = []
    failing = False
    holding = None  # an Event a held request waits on; `held` is set once one waits
    held = threading.Event()
    lock = threading.Lock()
    on_push = None

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        arrived = time.time()
        name = self.path.rsplit("/", 1)[-1]
        topic = self.headers.get("Topic", "")
        if Endpoint.failing:
            with Endpoint.lock:
                Endpoint.received.append((arrived, name, topic, 500, None))
            return self.answer(500)
        device = Endpoint.devices[name]
        gate = Endpoint.holding
        if gate is not None and topic.startswith("r"):
            Endpoint.held.set()
            gate.wait(30)
        # Answered before the decryption: the server's push timeout (15 s) is 2.5 ms of
        # real time at 6000x.
        self.answer(201)
        payload = decrypt_push(body, device.key, device.auth)
        with Endpoint.lock:
            Endpoint.received.append((arrived, name, topic, 201, payload))
        if Endpoint.on_push:
            Endpoint.on_push(name, topic, payload)

    def answer(self, status):
        try:
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()
        except OSError:
            pass  # the server was killed while it waited

    def log_message(self, *args):
        pass


# --- The SMTP server -------------------------------------------------------------------------

class MailSink:
    """aiosmtpd on a fixed port that can be stopped and started again (the mail server's
    outage); notes every message with the real time it arrived."""

    def __init__(self, on_mail):
        self.port = free_port()
        self.received = []
        self.on_mail = on_mail
        self.controller = None

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.original_content or envelope.content)
        text = ""
        for part in message.walk():
            if part.get_content_type() == "text/plain":
                text = part.get_payload(decode=True).decode("utf-8", "replace")
                break
        mail = {"at": time.time(), "to": envelope.rcpt_tos[0], "subject": message["Subject"],
                "message_id": (message["Message-ID"] or "").strip(), "text": text}
        self.received.append(mail)
        self.on_mail(mail)
        return "250 OK"

    def start(self):
        from aiosmtpd.controller import Controller
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self):
        self.controller.stop()
        self.controller = None


# --- The simulation ----------------------------------------------------------------------------

class Api:
    """JSON calls to whichever server process runs now; a call made while it is down waits
    for the next one."""

    def __init__(self):
        self.port = None
        self.up = threading.Event()
        self.local = threading.local()

    def call(self, method, path, token=None, body=None, wait=True):
        for _ in range(400):
            if wait:
                self.up.wait(120)
            port = self.port
            conn = getattr(self.local, "conn", None)
            if conn is None or self.local.port != port:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                self.local.conn, self.local.port = conn, port
            try:
                status, data = send(conn, method, path, token, body)
            except (OSError, http.client.HTTPException):
                conn.close()
                self.local.conn = None
                time.sleep(0.02)
                continue
            if status == 429:
                time.sleep(0.05)
                continue
            return status, json.loads(data) if data else {}
        raise SystemExit(f"{method} {path}: the server never answered")

    def ok(self, method, path, token=None, body=None):
        status, answer = self.call(method, path, token, body)
        if status >= 400:
            raise SystemExit(f"{method} {path}: {status} {answer}")
        return answer


class Month:
    def __init__(self, args):
        self.args = args
        self.rate = args.rate
        self.clock = SimClock(args.rate)
        self.api = Api()
        self.data_dir = tempfile.mkdtemp(prefix="pillbox-month-")
        self.log_path = os.path.join(self.data_dir, "server.log")
        self.server = None
        self.push_port = free_port()
        self.mail = MailSink(self.on_mail)
        self.takes = queue.Queue()
        self.people = []
        self.medications = {}  # id -> {"name", "taker", "person", "zone", "body"}
        self.windows = []  # (name, sim start, sim end): outages a reminder may wait out
        self.killed_at = None

    # The server process.

    def env(self, spec_file=None):
        env = {
            "LD_PRELOAD": LIBFAKETIME,
            "PILLBOX_LOG_LEVEL": "info",
            "PILLBOX_SIGNUPS": "open",
            "PILLBOX_PUBLIC_URL": "http://pillbox.test",
            "PILLBOX_PUSH_ALLOW_ENDPOINTS": f"http://127.0.0.1:{self.push_port}/",
            "PILLBOX_SMTP_HOST": "127.0.0.1", "PILLBOX_SMTP_PORT": str(self.mail.port),
            "PILLBOX_SMTP_TLS": "none", "PILLBOX_SMTP_FROM": "Pillbox <pillbox@month.test>",
            "PILLBOX_REMINDERS_TICK_SECONDS": str(self.args.tick),
            # Waits on the push endpoint, the mail server and this script's requests are
            # bounded in simulated time: at 6000x their defaults (10-15 s) are 2 ms of real
            # time, so they are raised to their largest (300 s: 50 ms).
            "PILLBOX_SMTP_TIMEOUT_SECONDS": "600",
            "PILLBOX_PUSH_TIMEOUT_SECONDS": "300",
            "PILLBOX_HTTP_HEADER_TIMEOUT_SECONDS": "300",
            "PILLBOX_HTTP_IDLE_TIMEOUT_SECONDS": "3600",
            "PILLBOX_HTTP_BODY_TIMEOUT_SECONDS": "3600",
        }
        if self.args.retry_attempts:
            env["PILLBOX_REMINDERS_RETRY_ATTEMPTS"] = str(self.args.retry_attempts)
        if spec_file:
            env.update(FAKETIME_TIMESTAMP_FILE=spec_file, FAKETIME_NO_CACHE="1")
        return env

    def start(self, at, spec_file=None, rate=None):
        """Starts the server with its clock reading `at` (simulated), sped up `rate` times
        (the run's rate when not given)."""
        env = self.env(spec_file)
        self.clock.rate = rate or self.rate
        if not spec_file:
            env["FAKETIME"] = faketime_spec(at, self.clock.rate)
        log = open(self.log_path, "a")
        log.write(f"--- start at {at.isoformat()} (real {time.time():.3f})\n")
        log.flush()
        self.clock.rebase(at)
        self.server = None
        self.server, port, _, conn = start_server(self.args.binary, 19000, env, stderr=log, data_dir=self.data_dir,
                                                  # /health's write probe allows 3 s: 0.5 ms here.
                                                  ready_path="/api/notifications/push/public-key")
        conn.close()
        self.api.port = port
        self.api.up.set()

    def stop(self, kill=False):
        self.api.up.clear()
        if kill:
            self.server.send_signal(signal.SIGKILL)
        else:
            self.server.terminate()
        self.server.wait(30)
        return self.clock.now()

    def restart(self, name, kill=False):
        down = self.stop(kill)
        # The clock runs on while the server is down; a start takes real time too.
        self.start(self.clock.now() + timedelta(seconds=1))
        self.windows.append((name, down, self.clock.now()))

    def cli(self, *args, stdin=None):
        # At the server's time, not sped up: SQLite's busy timeout (5 s) waits for the server's
        # writer in real time.
        at = self.clock.now().strftime("%Y-%m-%d %H:%M:%S")
        env = dict(os.environ, LD_PRELOAD=LIBFAKETIME, FAKETIME=f"@{at}")
        env = {k: v for k, v in env.items() if not k.startswith("PILLBOX_")}
        done = subprocess.run([self.args.binary, *args, "--data-dir", self.data_dir], input=stdin, env=env,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"pillbox {' '.join(args)}: {done.stderr.strip()}")

    # The people.

    def setup(self):
        plans = person_plan(self.args.people)
        for i, (zone, channel, devices, meds) in enumerate(plans, start=1):
            address = f"person{i}@month.test"
            self.cli("create-user", "--email", address, "--password-stdin", stdin=PASSWORD + "\n")
            token = self.api.ok("POST", "/api/auth/login", body={"email": address, "password": PASSWORD})["data"]["token"]
            self.api.ok("PUT", "/api/settings", token, {"timezone": zone, "timeFormat": "24h"})
            me = self.api.ok("GET", "/api/auth/me", token)["data"]
            person = {"index": i, "email": address, "token": token, "zone": zone, "id": me["id"], "devices": []}
            if channel == "email":
                self.api.ok("PUT", "/api/notifications/preferences", token, {
                    "email_notifications_enabled": True, "push_notifications_enabled": False,
                    "default_delivery_methods": ["email"]})
            for d in range(devices):
                device = Device(f"p{i}d{d}")
                Endpoint.devices[device.name] = device
                self.api.ok("POST", "/api/notifications/push/register", token,
                            {"subscription": device.subscription(self.push_port), "userAgent": "month"})
                person["devices"].append(device.name)
            self.people.append(person)
            for med in meds:
                self.add_medication(person, dict(med), taker="self" if med["frequency"] != "as_needed" else None)
        if len(self.people) >= 20:
            self.dependents()

    def add_medication(self, person, body, taker, person_id=None, escalation=None):
        body.update(unit="tablets", default_quantity=1)
        if "schedule" in body:
            body["schedule"] = {"start_date": "2026-02-28", "grace_minutes": GRACE_MINUTES, **body["schedule"]}
        if person_id:
            body["person_id"] = person_id
        if escalation:
            body["escalation"] = escalation
        created = self.api.ok("POST", "/api/medications", person["token"], body)["data"]
        self.medications[created["id"]] = {"name": body["name"], "taker": taker, "person": person,
                                           "zone": person["zone"], "body": body}

    def dependents(self):
        """Persons 19 and 20 each care for a dependent; persons 17 and 18 are carers."""
        anna, ben, olga, uwe = self.people[16], self.people[17], self.people[18], self.people[19]
        for owner, name, carers in ((olga, "Opa", (anna, ben)), (uwe, "Oma", (anna, ben))):
            person = self.api.ok("POST", "/api/people", owner["token"], {"name": name})["data"]["id"]
            for carer in carers:
                invited = self.api.ok("POST", f"/api/people/{person}/carers", owner["token"],
                                      {"email": carer["email"], "role": "record"})["data"]
                token = invited["invite_url"].rsplit("/", 1)[-1]
                self.api.ok("POST", f"/api/invitations/{token}/accept", carer["token"], {})
            escalation = {"after_minutes": 30, "carers": [c["id"] for c in carers]}
            if name == "Opa":
                self.add_medication(owner, {"name": "Digoxin", "frequency": "daily",
                                            "schedule": {"times": ["08:00"]}}, None, person, escalation)
            else:
                self.add_medication(owner, {"name": "Furosemide", "frequency": "daily",
                                            "schedule": {"times": ["14:00"]}}, "carer", person, escalation)

    # What people do with what reaches them.

    def on_push(self, device, topic, payload):
        if payload.get("kind") == "withdraw" or not payload.get("takeUrl"):
            return
        self.takes.put((topic, payload["takeUrl"]))

    def on_mail(self, mail):
        for word in mail["text"].split():
            if "/notifications/take/" in word:
                self.takes.put(("mail:" + mail["message_id"], word))
                return

    def taker(self):
        """Takes each dose the way its person would: its own person on the first reminder;
        a carer on the first alert of a dose the owner leaves; nobody for Digoxin."""
        seen = set()
        db = None
        while True:
            item = self.takes.get()
            if item is None:
                return
            key, link = item
            token = link.rsplit("/", 1)[-1]
            if token in seen:
                continue
            seen.add(token)
            if db is None:
                db = sqlite3.connect(f"file:{self.database()}?mode=ro", uri=True, timeout=30)
            row = db.execute("SELECT r.medication_id FROM take_tokens t JOIN reminders r ON r.id = t.reminder_id "
                             "WHERE t.token_hash = ?", (hashlib.sha256(token.encode()).hexdigest(),)).fetchone()
            if row is None:
                continue
            med = self.medications.get(row[0])
            if med is None or med["taker"] is None:
                continue
            alert = key.startswith("e")
            if (med["taker"] == "self") == alert:
                continue
            self.api.call("POST", f"/api/notifications/take/{token}", body={"status": "taken"})

    def database(self):
        return os.path.join(self.data_dir, "pillbox.sqlite3")

    # The month.

    def run(self):
        check_faketime(self.rate)
        endpoint = PushServer(("127.0.0.1", self.push_port), Endpoint)
        threading.Thread(target=endpoint.serve_forever, daemon=True).start()
        Endpoint.on_push = self.on_push
        self.mail.start()
        began = time.time()
        # The accounts and medications are made at 60x (argon2 and 40 requests would take
        # hours of simulated time at full speed), then the server restarts at full speed.
        self.start(SIM_START, rate=SETUP_RATE)
        self.setup()
        self.start(self.stop() + timedelta(seconds=1))
        threading.Thread(target=self.taker, daemon=True).start()
        end = MONTH_START + timedelta(days=self.args.days)
        for at, name, action in self.timeline(end):
            if self.clock.now() > at:
                print(f"  {name}: {(self.clock.now() - at).total_seconds():.0f} s late (simulated)")
            self.clock.sleep_until(at)
            action(name)
        # Repeats, escalations and missed doses of the last day settle, then the server stops.
        self.clock.sleep_until(end + timedelta(hours=4))
        self.stop()
        self.takes.put(None)
        self.mail.stop()
        endpoint.shutdown()
        return time.time() - began, end

    def timeline(self, end):
        events = []
        berlin = ZoneInfo("Europe/Berlin")
        local = lambda day, hh, mm: datetime(2026, 3, day, hh, mm, tzinfo=berlin).astimezone(UTC)
        for day in range(3, 32, 3):
            events.append((local(day, 3, 10), f"restart on 3/{day}", self.restart))
        events.append((local(12, 7, 44), "kill -9 during a send", self.kill_during_send))
        events.append((local(15, 7, 0), "SMTP server down for an hour", self.smtp_down))
        events.append((local(20, 6, 30), "push endpoint answers 500 for two hours", self.push_failing))
        events.append((local(25, 7, 30), "power cut; boots with a clock 40 min behind", self.power_cut))
        for day in range(1, 32):
            events.append((local(day, 16, 0), f"an as-needed dose on 3/{day}", self.as_needed))
        return sorted(e for e in events if e[0] < end)

    def kill_during_send(self, name):
        Endpoint.held.clear()
        Endpoint.holding = threading.Event()
        if not Endpoint.held.wait(2):
            print(f"  {name}: no push came to hold")
        down = self.stop(kill=True)
        Endpoint.holding.set()
        Endpoint.holding = None
        self.start(self.clock.now() + timedelta(seconds=1))
        self.windows.append((name, down, self.clock.now()))

    def smtp_down(self, name):
        self.mail.stop()
        began = self.clock.now()
        self.clock.sleep_until(began + timedelta(hours=1))
        self.mail.start()
        self.windows.append((name, began, self.clock.now()))

    def push_failing(self, name):
        Endpoint.failing = True
        began = self.clock.now()
        self.clock.sleep_until(began + timedelta(hours=2))
        Endpoint.failing = False
        self.windows.append((name, began, self.clock.now()))

    def power_cut(self, name):
        saved = self.stop(kill=True)
        self.clock.sleep_until(saved + timedelta(minutes=40))
        truth = self.clock.now()
        spec = os.path.join(self.data_dir, "faketime.rc")
        with open(spec, "w") as f:
            f.write(faketime_spec(saved, self.rate))
        self.start(saved, spec_file=spec)
        # The server's clock reads `saved`; the real (simulated) time is `truth` on.
        offset = truth - saved
        booted = self.clock.now()
        self.clock.sleep_until(booted + timedelta(minutes=2))
        with open(spec, "w") as f:
            f.write(faketime_spec(self.clock.now() + offset, self.rate))
        self.clock.rebase(self.clock.now() + offset)
        self.windows.append((name, saved, self.clock.now()))

    def as_needed(self, name):
        for med_id, med in self.medications.items():
            if med["body"]["frequency"] == "as_needed":
                self.api.call("POST", f"/api/medications/{med_id}/doses", med["person"]["token"], {})


# --- The figures -------------------------------------------------------------------------------

def parse_stamp(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def passes(log_path):
    """The dispatcher's passes that handled reminders, from the server's log: (start, end),
    simulated; the start is when the timer woke it."""
    found = []
    with open(log_path, errors="replace") as log:
        for line in log:
            if "dispatcher handled" not in line:
                continue
            stamp, _, rest = line.partition(" ")
            took = float(rest.rsplit(" in ", 1)[1].split()[0]) / 1000
            ended = datetime.strptime(stamp[:26], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=UTC)
            found.append((ended - timedelta(seconds=took), ended))
    return sorted(found)


def report(month, wall, end):
    db = sqlite3.connect(month.database())
    runs = passes(month.log_path)
    rows = db.execute("SELECT id, medication_id, kind, scheduled_time, reminder_time, status, failure_reason "
                      "FROM reminders WHERE kind = 'dose'").fetchall()
    reminder_of = {(r[1], parse_stamp(r[3])): r for r in rows}
    sent = {}
    for reminder_id, channel, attempted in db.execute(
            "SELECT reminder_id, channel, attempted_at FROM deliveries "
            "WHERE result = 'sent' AND kind = 'reminder' AND reminder_id IS NOT NULL ORDER BY attempted_at"):
        sent.setdefault(reminder_id, parse_stamp(attempted))
    # What reached the endpoint and the SMTP server: reminder id -> arrivals per (round, device).
    arrivals = {}
    for at, device, topic, status, payload in Endpoint.received:
        if status != 201 or payload.get("kind") == "withdraw" or not topic.startswith("r"):
            continue
        reminder_id, number = (int(x) for x in topic[1:].split("n"))
        arrivals.setdefault(reminder_id, {}).setdefault((number, device), []).append(at)
    # A reminder's mail is <reminder.ID.ROUND.random@host> (the outbox forgets done mails
    # after 7 days, the Message-ID stays).
    for mail in month.mail.received:
        parts = mail["message_id"].strip("<>").split(".")
        if parts[0] != "reminder" or len(parts) < 4:
            continue
        reminder_id, number = int(parts[1]), int(parts[2])
        arrivals.setdefault(reminder_id, {}).setdefault((number, "mail:" + mail["to"]), []).append(mail["at"])
    # A push resent after a kill -9 whose first copy reached the endpoint while the server
    # could not hear the answer: the same Topic, so the push service and the notification's
    # tag show it once. Every other repeat of a reminder's round on one device is doubled.
    kills = [(w[1], w[2]) for w in month.windows if w[0].startswith("kill") or w[0].startswith("power")]
    # Likewise a send the server gave up on at its own timeout while the endpoint took it:
    # sent again in a later round with the same Topic or Message-ID. At 6000x the timeouts
    # (300 s for a push, 600 s for a mail) are 50 and 100 ms of real time, which a busy
    # machine exceeds; at real speed it takes a push service or mail server that answers
    # after 15 or 30 s.
    timed_out = {(r, "mail" if c == "email" else "push") for r, c in db.execute(
        "SELECT reminder_id, channel FROM deliveries WHERE result = 'failed' AND "
        "(error LIKE '%timed out%' OR error LIKE '%did not finish within%')")}

    due, on_time, on_recovery, late, lost, doubled, resent = [], 0, 0, [], [], [], []
    recovered = {}
    lateness, wake_lateness = [], []
    for med_id, med in month.medications.items():
        for dose in planned_doses(med["body"], med["zone"], end):
            reminder_time = dose - timedelta(minutes=LEAD_MINUTES)
            if not (MONTH_START <= reminder_time < end):
                continue
            due.append((med_id, dose))
            row = reminder_of.get((med_id, dose))
            got = arrivals.get(row[0], {}) if row else {}
            for (number, device), times in got.items():
                if len(times) < 2:
                    continue
                channel = "mail" if device.startswith("mail:") else "push"
                killed = channel == "push" and any(
                    start - timedelta(minutes=30) <= reminder_time <= stop for start, stop in kills)
                why = "kill -9" if killed else "timeout" if (row[0], channel) in timed_out else None
                item = (med["name"], str(dose), number, device, len(times))
                if why:
                    resent.append((why,) + item)
                else:
                    doubled.append(item)
            first_round = [times for (number, _), times in got.items() if number == 0]
            if not row or not first_round:
                lost.append((med["name"], med["person"]["index"], str(dose), row[5:] if row else "no reminder row"))
                continue
            # When the server recorded the hand-over; when it never did (its send timed out, or
            # it was killed, before it heard the answer, and the dose was taken from that push
            # before it sent it again), when the first copy arrived.
            left = sent.get(row[0]) or month.clock.sim_at(min(t for times in first_round for t in times))
            window = next((w for w in month.windows if w[1] - timedelta(minutes=1) <= reminder_time <= w[2]), None)
            if window:
                if left <= window[2] + timedelta(minutes=month.args.recovery_minutes):
                    on_recovery += 1
                    recovered.setdefault(window[0], []).append(max(0.0, (left - window[2]).total_seconds()))
                    continue
            delay = (left - reminder_time).total_seconds()
            if delay * 1000 / month.rate <= month.args.allowance_ms:
                on_time += 1
                lateness.append(delay)
                woke = [start for start, ended in runs if start <= left <= ended + timedelta(seconds=1)]
                if woke:
                    wake_lateness.append((woke[-1] - reminder_time).total_seconds())
                continue
            late.append((med["name"], med["person"]["index"], str(dose), delay, window and window[0]))

    missed = db.execute(
        "SELECT medication_id, taken_at FROM dose_history WHERE status = 'missed' AND taken_at >= ? AND taken_at < ?",
        (MONTH_START.strftime("%Y-%m-%dT%H:%M:%S"), end.strftime("%Y-%m-%dT%H:%M:%S"))).fetchall()
    preventable = [(month.medications[m]["name"], t) for m, t in missed
                   if m in month.medications and month.medications[m]["taker"] is not None]
    expected_missed = sum(1 for m, _ in missed if m in month.medications and month.medications[m]["taker"] is None)
    escalations = dict(db.execute("SELECT status, count(*) FROM escalations GROUP BY status").fetchall())
    alert_topics = [r[2] for r in Endpoint.received
                    if r[3] == 201 and r[2].startswith("e") and r[4].get("kind") != "withdraw"]
    alerts = len(alert_topics)
    doubled_alerts = len(alert_topics) - len(set(alert_topics))
    withdrawals = sum(1 for r in Endpoint.received if r[3] == 201 and r[4] and r[4].get("kind") == "withdraw")
    failed_500 = sum(1 for r in Endpoint.received if r[3] == 500)

    def percentiles(values):
        values = sorted(values)
        return [values[min(len(values) - 1, int(share * (len(values) - 1)))] if values else 0
                for share in (0.5, 0.99, 1)]

    left_at, woke_at = percentiles(lateness), percentiles(wake_lateness)
    real_ms = lambda figures: " / ".join(f"{x * 1000 / month.rate:.0f}" for x in figures)
    sim_s = lambda figures: " / ".join(f"{x:.0f}" for x in figures)
    n = len(due)
    print(f"\n{month.args.days} simulated days, {len(month.people)} people, {len(month.medications)} medications, "
          f"{month.rate}x, tick {month.args.tick} s, retry attempts {month.args.retry_attempts or 'default'}; "
          f"wall time {wall:.0f} s")
    print(f"outages: " + "; ".join(f"{w[0]} ({(w[2] - w[1]).total_seconds() / 60:.0f} min)" for w in month.windows))
    print(f"reminders due:                         {n}")
    print(f"delivered on time:                     {on_time} (within {month.args.allowance_ms} ms real)")
    print(f"  handed over after their time, p50 / p99 / max: {sim_s(left_at)} s simulated = {real_ms(left_at)} ms real")
    print(f"  the pass that sent them woke after their time: {sim_s(woke_at)} s simulated = {real_ms(woke_at)} ms real")
    print(f"delivered on recovery after an outage: {on_recovery} (" + "; ".join(
        f"{name}: {len(v)}, all within {max(v) / 60:.0f} min of its end" for name, v in recovered.items()) + ")")
    print(f"delivered late:                        {len(late)}")
    by_kill = sum(1 for r in resent if r[0] == "kill -9")
    print(f"delivered twice:                       {len(doubled)} (besides: resent with the same Topic or "
          f"Message-ID after a kill -9: {by_kill}, after the server's own send timeout: {len(resent) - by_kill})")
    print(f"never delivered:                       {len(lost)}")
    print(f"doses recorded missed a reminder should have prevented: {len(preventable)} "
          f"(and {expected_missed} of the dose nobody takes)")
    print(f"escalations: {escalations.get('sent', 0)} sent, {escalations.get('withdrawn', 0)} withdrawn "
          f"({alerts} alerts reached carers' devices, {doubled_alerts} twice); "
          f"{withdrawals} withdrawals of handled reminders; {failed_500} pushes answered 500")
    for item in late[:10]:
        print("  late:", item)
    for item in lost[:20]:
        print("  never delivered:", item)
    for item in doubled[:20]:
        print("  twice:", item)
    for item in resent[:10]:
        print("  resent:", item)
    for item in preventable[:10]:
        print("  missed:", item)
    with open(os.path.join(month.data_dir, "received.json"), "w") as out:
        json.dump({"mails": month.mail.received,
                   "pushes": [(at, device, topic, status, payload) for at, device, topic, status, payload
                              in Endpoint.received]}, out, indent=1, default=str)
    print(f"data directory (server.log, received.json): {month.data_dir}")
    return bool(lost or doubled or late or preventable or doubled_alerts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary", nargs="?", default="target/release/pillbox")
    parser.add_argument("--days", type=int, default=31)
    parser.add_argument("--people", type=int, default=20)
    parser.add_argument("--rate", type=int, default=6000, help="simulated seconds per real second")
    parser.add_argument("--tick", type=int, default=30, help="reminders.tick_seconds")
    parser.add_argument("--allowance-ms", type=int, default=1000,
                        help="real milliseconds a reminder may leave after its time and count as on time")
    parser.add_argument("--recovery-minutes", type=int, default=15,
                        help="simulated minutes after an outage ends within which what it held up counts as delivered on recovery")
    parser.add_argument("--retry-attempts", type=int,
                        help="reminders.retry_attempts (the server's default, 5, when not given): "
                             "with the first wait of 60 s doubling, 5 rounds span 15 minutes of an outage")
    parser.add_argument("--keep", action="store_true", help="keep the data directory")
    args = parser.parse_args()
    if not os.path.exists(LIBFAKETIME):
        raise SystemExit("libfaketime is missing: apt-get install faketime")
    month = Month(args)
    try:
        wall, end = month.run()
        failed = report(month, wall, end)
    finally:
        if month.server and month.server.poll() is None:
            month.server.kill()
    if not args.keep and not failed:
        shutil.rmtree(month.data_dir, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
