#!/usr/bin/env python3
"""A 1,000,000-entry account: is every screen still interactive?

Starts `pillbox serve` on a fresh data directory and creates one user with 20 medications
through the API (stock, two times a day, so Today and the reminders are planned). Then seeds
dose history (one entry every 30 minutes going back, spread over the medications) and the
first medication's stock ledger (one row per 20 entries) straight into the SQLite file:
first 10,000 entries, the reference, then 1,000,000. At each size it times, sequentially on
one keep-alive connection, what the web app asks for:

- the medication list, Today, the adherence chart (GET /api/medications/adherence);
- history: page 1 unfiltered, page 2 filtered by medication and status, page 2 filtered by a
  60-day range, and page 500 unfiltered (an offset of 9,980);
- the stock ledger's pages 1 and 100 (GET /api/medications/{id}/inventory/ledger);
- the doctor report (GET /api/report) for the default 30 days and for a year;
- the export (GET /api/export): time to the first byte of the body, which is what a person
  waits for before the download runs, and, beside it, the time to the last byte.

Prints p50 and p99 (milliseconds) at both sizes and the ratio of the p50s.

    python3 benchmarks/account_1m.py [path/to/pillbox] [--requests 50] [--entries 1000000]
"""
import argparse
import http.client
import os
import shutil
import sqlite3
import statistics
import sys
import time
from datetime import date, datetime, timedelta, timezone

from common import request, start_server

MEDICATIONS = 20
REFERENCE = 10_000


def seed(db_path, user_id, meds, start, end, now):
    statuses = ("taken", "taken", "taken", "skipped", "missed")
    rows, ledger = [], []
    for i in range(start, end):
        med_id, name = meds[i % len(meds)]
        taken = (now - timedelta(minutes=30 * i + 1)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        rows.append((user_id, med_id, name, "mg", statuses[i % 5], taken, 500_000, "mg", 0, taken))
        if i % len(meds) == 0:
            ledger.append((med_id, -500, 1_000_000, "dose", taken))
    db = sqlite3.connect(db_path, timeout=60)
    with db:
        db.executemany(
            "INSERT INTO dose_history_rows (user_id, medication_id, medication_name, medication_unit, status, taken_at,"
            " quantity, dosage_unit, affect_inventory, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
        db.executemany(
            "INSERT INTO stock_ledger (medication_id, change, balance, kind, created_at) VALUES (?,?,?,?,?)", ledger
        )
    db.close()


def timed(conn, path, token, count):
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        request(conn, "GET", path, token)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[max(0, int(len(samples) * 0.99) - 1)]


def export_times(port, token, count):
    """Milliseconds to the first byte of the body and to the last, `count` times."""
    first, last = [], []
    for _ in range(count):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        start = time.perf_counter()
        conn.request("GET", "/api/export", headers={"Authorization": f"Bearer {token}"})
        response = conn.getresponse()
        if response.status != 200:
            raise SystemExit(f"GET /api/export: {response.status}")
        response.read(1)
        first.append((time.perf_counter() - start) * 1000)
        while response.read(1 << 16):
            pass
        last.append((time.perf_counter() - start) * 1000)
        conn.close()
    first.sort()
    last.sort()
    return (statistics.median(first), first[-1]), (statistics.median(last), last[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default="target/release/pillbox")
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--exports", type=int, default=3)
    parser.add_argument("--entries", type=int, default=1_000_000)
    args = parser.parse_args()
    # The daily jobs would back this account up while we measure: keep them out.
    server, port, data_dir, conn = start_server(args.binary, 3900, {"PILLBOX_BACKUP_DAILY": "false"})
    try:
        token = request(conn, "POST", "/api/auth/register",
                        body={"email": "bench@example.org", "password": "benchmark"})["data"]["token"]
        user_id = request(conn, "GET", "/api/auth/me", token)["data"]["id"]
        request(conn, "PUT", "/api/settings", token, {"autoBackup": False})
        meds = []
        for n in range(MEDICATIONS):
            body = {"name": f"Medication {n:02d}", "unit": "mg", "default_quantity": 500, "frequency": "twice_daily",
                    "schedule": {"times": ["08:00", "20:00"]},
                    "inventory": {"enabled": True, "inventory_type": "discrete", "container_type": "box",
                                  "container_quantity": 10, "item_quantity": 30, "item_strength": 500,
                                  "item_unit": "tablets"}}
            med = request(conn, "POST", "/api/medications", token, body)["data"]
            meds.append((med["id"], med["name"]))
        db_path = os.path.join(data_dir, "pillbox.sqlite3")
        first = meds[0][0]
        today = date.today()
        views = [
            ("medication list", "/api/medications"),
            ("Today", "/api/medications/today"),
            ("adherence chart", "/api/medications/adherence"),
            ("history page 1", "/api/medications/history"),
            ("history page 2, by medication and status",
             f"/api/medications/history?status=taken&medicationId={first}&page=2"),
            ("history page 2, a 60-day range",
             f"/api/medications/history?date_from={today - timedelta(days=60)}&date_to={today}&page=2"),
            ("history page 500", "/api/medications/history?page=500"),
            ("ledger page 1", f"/api/medications/{first}/inventory/ledger"),
            ("ledger page 100", f"/api/medications/{first}/inventory/ledger?page=100"),
            ("report, 30 days", "/api/report"),
            ("report, 1 year", f"/api/report?from={today - timedelta(days=364)}&to={today}"),
        ]
        now = datetime.now(timezone.utc)
        results = {}
        seeded = 0
        for size in (REFERENCE, args.entries):
            seed(db_path, user_id, meds, seeded, size, now)
            seeded = size
            for label, path in views:
                timed(conn, path, token, 3)  # warm caches
                results[(label, size)] = timed(conn, path, token, args.requests)
            ttfb, full = export_times(port, token, args.exports)
            results[("export, first byte", size)] = ttfb
            results[("export, last byte", size)] = full
            print(f"seeded {size:,} entries", file=sys.stderr, flush=True)

        big = args.entries
        print(f"| view | {REFERENCE:,} entries p50 / p99 ms | {big:,} entries p50 / p99 ms | ratio of p50s |")
        for label, _ in views + [("export, first byte", None), ("export, last byte", None)]:
            small_p50, small_p99 = results[(label, REFERENCE)]
            big_p50, big_p99 = results[(label, big)]
            print(f"| {label} | {small_p50:.2f} / {small_p99:.2f} | {big_p50:.2f} / {big_p99:.2f} "
                  f"| {big_p50 / small_p50:.2f} |")
    finally:
        server.terminate()
        server.wait(timeout=30)
        # A 1M-entry database is several hundred MB.
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
