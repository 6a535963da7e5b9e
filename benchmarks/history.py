#!/usr/bin/env python3
"""Latency of the medication list and a filtered history page as history grows.

Starts `pillbox serve` on a fresh data directory, creates one user with 20 medications
through the API, then seeds dose history straight into the SQLite file in steps up to
1,000,000 entries, and after each step times GET /api/medications and a filtered history
page (p50/p99 over sequential requests on loopback).

    python3 benchmarks/history.py [path/to/pillbox] [--requests 300]
"""
import argparse
import os
import shutil
import sqlite3
import statistics
import sys
import time
from datetime import datetime, timedelta, timezone

from common import request, start_server

STEPS = [10_000, 100_000, 1_000_000]
MEDICATIONS = 20


def timed(conn, path, token, count):
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        request(conn, "GET", path, token)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99) - 1]


def seed(db_path, user_id, meds, start, end):
    now = datetime.now(timezone.utc)
    rows = []
    statuses = ("taken", "taken", "taken", "skipped", "missed")
    for i in range(start, end):
        med_id, name = meds[i % len(meds)]
        taken = (now - timedelta(minutes=30 * i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        rows.append((user_id, med_id, name, "mg", statuses[i % 5], taken, 500_000, "mg", 0, taken))
    db = sqlite3.connect(db_path, timeout=30)
    db.execute("PRAGMA busy_timeout = 30000")
    with db:
        db.executemany(
            "INSERT INTO dose_history_rows (user_id, medication_id, medication_name, medication_unit, status, taken_at,"
            " quantity, dosage_unit, affect_inventory, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
    db.execute("PRAGMA optimize")
    db.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default="target/release/pillbox")
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    server, port, data_dir, conn = start_server(args.binary, 3950)
    try:
        token = request(conn, "POST", "/api/auth/register", body={"email": "bench@example.org", "password": "benchmark"})["data"]["token"]
        user_id = request(conn, "GET", "/api/auth/me", token)["data"]["id"]
        meds = []
        for n in range(MEDICATIONS):
            body = {"name": f"Medication {n:02d}", "unit": "mg", "default_quantity": 500,
                    "inventory": {"enabled": True, "inventory_type": "discrete", "container_type": "box",
                                  "container_quantity": 10, "item_quantity": 30, "item_strength": 500, "item_unit": "tablets"}}
            med = request(conn, "POST", "/api/medications", token, body)["data"]
            meds.append((med["id"], med["name"]))
        db_path = os.path.join(data_dir, "pillbox.sqlite3")
        target_med = meds[0][0]  # every 20th entry; status taken
        history_path = f"/api/medications/history?status=taken&medicationId={target_med}&page=2&limit=20"
        seeded = 0
        print(f"{'entries':>10} | {'GET /api/medications p50/p99 ms':>32} | {'filtered history page p50/p99 ms':>34}"
              f" | {'unfiltered page 1 p50/p99 ms':>30}")
        for step in STEPS:
            seed(db_path, user_id, meds, seeded, step)
            seeded = step
            timed(conn, "/api/medications", token, 20)  # warm caches
            list_p50, list_p99 = timed(conn, "/api/medications", token, args.requests)
            hist_p50, hist_p99 = timed(conn, history_path, token, args.requests)
            all_p50, all_p99 = timed(conn, "/api/medications/history", token, args.requests)
            print(f"{step:>10} | {list_p50:>15.2f} / {list_p99:<14.2f} | {hist_p50:>16.2f} / {hist_p99:<15.2f}"
                  f" | {all_p50:>14.2f} / {all_p99:<13.2f}", flush=True)
        total = request(conn, "GET", history_path, token)["pagination"]["total"]
        print(f"(filtered history total at the last step: {total})")
    finally:
        server.terminate()
        server.wait(timeout=30)
        # A 1M-entry database is several hundred MB.
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
