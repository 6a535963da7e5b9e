#!/usr/bin/env python3
"""Exporting a long history: time and memory of GET /api/export (JSON and CSV).

Starts `pillbox serve` on a fresh data directory, creates one user with 20 medications
through the API, seeds 100,000 history entries straight into the SQLite file, then:

- reference: Python's sqlite3 reads the same rows and writes them as JSON to /dev/null
  (the floor for producing such a file on this machine, measured in the same run);
- GET /api/export and GET /api/export?format=csv, read to the end, timed;
- the server's resident memory: how much it grew during the JSON export (peak, from
  /proc/PID/status VmHWM after resetting it), against the size of the file it sent. A
  growth well under the file's size shows the file is streamed, never held whole.

    python3 benchmarks/export.py [path/to/pillbox] [--entries 100000] [--rounds 3]
"""
import argparse
import http.client
import json
import os
import sqlite3
import statistics
import sys
import time
from datetime import datetime, timedelta, timezone

from common import request, reset_peak, start_server, status_kib

MEDICATIONS = 20


def seed(db_path, user_id, meds, count):
    now = datetime.now(timezone.utc)
    statuses = ("taken", "taken", "taken", "skipped", "missed")
    rows = []
    for i in range(count):
        med_id, name = meds[i % len(meds)]
        taken = (now - timedelta(minutes=30 * i + 1)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        rows.append((user_id, med_id, name, "mg", statuses[i % 5], taken, 500_000, "mg", 0, taken))
    db = sqlite3.connect(db_path, timeout=30)
    with db:
        db.executemany(
            "INSERT INTO dose_history_rows (user_id, medication_id, medication_name, medication_unit, status, taken_at,"
            " quantity, dosage_unit, affect_inventory, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
    db.close()


def reference(db_path, user_id):
    """Reads the user's history rows and writes them as JSON, in Python."""
    start = time.perf_counter()
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    with open(os.devnull, "w") as out:
        for row in db.execute(
            "SELECT id, medication_id, medication_name, quantity, dosage_unit, status, taken_at, dosage,"
            " affect_inventory FROM dose_history WHERE user_id = ? ORDER BY taken_at, id",
            (user_id,),
        ):
            out.write(json.dumps({"id": row[0], "medication_id": row[1], "medication_name": row[2],
                                  "quantity": row[3] / 1000, "unit": row[4], "status": row[5],
                                  "taken": row[6], "note": row[7], "affect_inventory": bool(row[8])}))
            out.write(",\n")
    db.close()
    return time.perf_counter() - start


def download(port, path, token):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    start = time.perf_counter()
    conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
    response = conn.getresponse()
    size = 0
    while True:
        chunk = response.read(1 << 16)
        if not chunk:
            break
        size += len(chunk)
    elapsed = time.perf_counter() - start
    if response.status != 200:
        raise SystemExit(f"GET {path}: {response.status}")
    conn.close()
    return elapsed, size


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default="target/release/pillbox")
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    # The daily jobs would export this account too while we measure: keep them out.
    server, port, data_dir, conn = start_server(args.binary, 3990, {"PILLBOX_BACKUP_DAILY": "false"})
    try:
        token = request(conn, "POST", "/api/auth/register", body={"email": "bench@example.org", "password": "benchmark"})["data"]["token"]
        user_id = request(conn, "GET", "/api/auth/me", token)["data"]["id"]
        request(conn, "PUT", "/api/settings", token, {"autoBackup": False})
        meds = []
        for n in range(MEDICATIONS):
            body = {"name": f"Medication {n:02d}", "unit": "mg", "default_quantity": 500, "frequency": "daily"}
            med = request(conn, "POST", "/api/medications", token, body)["data"]
            meds.append((med["id"], med["name"]))
        db_path = os.path.join(data_dir, "pillbox.sqlite3")
        seed(db_path, user_id, meds, args.entries)

        ref, json_times, csv_times, growth = [], [], [], []
        size = csv_size = 0
        for _ in range(args.rounds):
            ref.append(reference(db_path, user_id))
            reset_peak(server.pid)
            before = status_kib(server.pid, "VmRSS")
            elapsed, size = download(port, "/api/export", token)
            growth.append(status_kib(server.pid, "VmHWM") - before)
            json_times.append(elapsed)
            elapsed, csv_size = download(port, "/api/export?format=csv", token)
            csv_times.append(elapsed)
        ref_s, json_s, csv_s = (statistics.median(v) for v in (ref, json_times, csv_times))
        peak_growth_mib = max(growth) / 1024
        size_mib = size / (1 << 20)
        print(f"entries: {args.entries}, rounds: {args.rounds} (medians)")
        print(f"| reference: Python reads the rows and writes JSON | {ref_s:.2f} s | 1.00 |")
        print(f"| GET /api/export (JSON, {size_mib:.1f} MiB) | {json_s:.2f} s | {json_s / ref_s:.2f} |")
        print(f"| GET /api/export?format=csv ({csv_size / (1 << 20):.1f} MiB) | {csv_s:.2f} s | {csv_s / ref_s:.2f} |")
        print(f"| server memory growth during the JSON export | {peak_growth_mib:.1f} MiB | "
              f"{peak_growth_mib / size_mib:.2f} of the file's size |")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
