#!/usr/bin/env python3
"""Logging doses under concurrent load, against the fsync-bound ceiling of one commit per dose.

    python3 benchmarks/doses.py [path/to/pillbox] [--baseline path/to/other/pillbox]
                                [--medications 20] [--connections 64] [--seconds 10]

Needs `wrk` (`apt-get install -y wrk`); Python threads cannot post fast enough to load the
server.

1. Starts `pillbox serve` on a fresh data directory, registers one person with MEDICATIONS
   medications (each with an inventory, so every dose also moves the stock and writes a
   ledger row), and has wrk post `POST /api/medications/{id}/doses` over CONNECTIONS
   connections for SECONDS, each request for the next medication in turn.
2. Checks afterwards that every acknowledged dose (every 201 wrk counted) is in the
   database; a few more may be there, the ones in flight when wrk stopped.
3. Reference, measured in the same run on the same disk, for 5 s just before wrk and 5 s
   just after (the disk's fsync time varies with what else the machine does; the mean is
   the reference): Python's sqlite3 inserting dose rows into the dose_history_rows table of a
   copy of the database, one transaction per row, with the server's pragmas (WAL,
   synchronous=FULL) — the most doses per second that one commit (one fsync) per dose
   allows, with nothing else done per dose.
4. With --baseline, the same load against another binary in the same run (its reference
   samples join the mean), for a ratio to the version before.
"""
import argparse
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

from common import request, start_server

WRK_SCRIPT = """
paths = {}
tokens = {}
counter = 0
init = function(args)
  for i = 1, #args, 2 do
    paths[#paths + 1] = args[i]
    tokens[#tokens + 1] = args[i + 1]
  end
end
request = function()
  counter = counter + 1
  local n = counter % #paths + 1
  return wrk.format("POST", paths[n], {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. tokens[n],
  }, '{"quantity": 1, "dosage": "benchmark"}')
end
"""


def wrk(port, targets, connections, seconds):
    """Runs wrk; returns (requests completed, seconds, responses other than 2xx, socket errors, text)."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT)
    args = [a for path, token in targets for a in (path, token)]
    out = subprocess.run(
        ["wrk", "-t", "2", "-c", str(connections), "-d", f"{seconds}s", "--latency", "-s", script.name,
         f"http://127.0.0.1:{port}", "--", *args],
        capture_output=True, text=True, check=True).stdout
    os.remove(script.name)
    done, elapsed = re.search(r"(\d+) requests in ([\d.]+)s", out).groups()
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    return (int(done), float(elapsed), int(non_2xx.group(1)) if non_2xx else 0,
            sum(map(int, errors.groups())) if errors else 0, out)


def reference(db_path, row, seconds):
    """Doses per second of one-transaction-per-row inserts into a copy of the database."""
    work = tempfile.mkdtemp(prefix="pillbox-bench-ref-", dir=os.path.dirname(db_path))
    copy = os.path.join(work, "reference.sqlite3")
    source = sqlite3.connect(db_path)
    target = sqlite3.connect(copy, isolation_level=None)
    source.backup(target)
    source.close()
    target.execute("PRAGMA journal_mode=WAL")
    target.execute("PRAGMA synchronous=FULL")
    target.execute("PRAGMA foreign_keys=ON")
    written = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        target.execute("BEGIN IMMEDIATE")
        target.execute(
            "INSERT INTO dose_history_rows (user_id, medication_id, medication_name, medication_unit, status, taken_at,"
            " quantity, dosage_unit, dosage, affect_inventory, created_at)"
            " VALUES (?, ?, ?, 'tablets', 'taken', ?, 1000, 'tablets', 'benchmark', 1, ?)",
            row)
        target.execute("COMMIT")
        written += 1
    elapsed = time.perf_counter() - began
    target.close()
    shutil.rmtree(work, ignore_errors=True)
    return written / elapsed


def log_doses(binary, medications, connections, seconds):
    """Runs the load against `binary`; returns (doses acknowledged per second, wrk's report,
    the fsync reference before, after) and fails loudly if an acknowledged dose is missing."""
    server, port, data_dir, conn = start_server(binary, 4150)
    try:
        token = request(conn, "POST", "/api/auth/register",
                        body={"email": "doses@example.org", "password": "benchmark"})["data"]["token"]
        targets = []
        for n in range(medications):
            body = {"name": f"Medication {n}", "unit": "tablets", "default_quantity": 1,
                    "inventory": {"enabled": True, "inventory_type": "discrete", "container_type": "box",
                                  "container_quantity": 100, "item_quantity": 1000, "item_unit": "tablets"}}
            med = request(conn, "POST", "/api/medications", token, body)["data"]
            targets.append((f"/api/medications/{med['id']}/doses", token))
        db_path = os.path.join(data_dir, "pillbox.sqlite3")
        db = sqlite3.connect(db_path)
        before = db.execute("SELECT count(*) FROM dose_history").fetchone()[0]
        user_id, med_id = db.execute("SELECT user_id, id FROM medications LIMIT 1").fetchone()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
        row = (user_id, med_id, "Medication 0", stamp, stamp)
        ceiling_before = reference(db_path, row, 5)
        done, elapsed, failed, errors, report = wrk(port, targets, connections, seconds)
        acknowledged = done - failed
        after = db.execute("SELECT count(*) FROM dose_history").fetchone()[0] - before
        db.close()
    finally:
        server.terminate()
        server.wait(30)
    ceiling_after = reference(db_path, row, 5)
    shutil.rmtree(data_dir, ignore_errors=True)
    print(f"{binary}: doses acknowledged (201): {acknowledged}, other answers: {failed}, "
          f"socket errors: {errors}; in the database afterwards: {after}")
    if after < acknowledged:
        raise SystemExit(f"LOST: {acknowledged - after} acknowledged doses are not in the database")
    return acknowledged / elapsed, report, ceiling_before, ceiling_after


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default="target/release/pillbox")
    parser.add_argument("--baseline", help="another pillbox binary (say, the last release) to run the same load "
                                           "against in the same run")
    parser.add_argument("--medications", type=int, default=20)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--seconds", type=int, default=10)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("this benchmark needs wrk: apt-get install -y wrk")

    rate, report, *ceilings = log_doses(args.binary, args.medications, args.connections, args.seconds)
    baseline = None
    if args.baseline:
        baseline, _, *more = log_doses(args.baseline, args.medications, args.connections, args.seconds)
        ceilings += more
    ceiling = sum(ceilings) / len(ceilings)
    print(report.strip())
    print()
    print(f"| reference: one sqlite3 transaction per dose, synchronous=FULL | {ceiling:,.0f} doses/s "
          f"(samples: {', '.join(f'{c:,.0f}' for c in ceilings)}) | 1.00 |")
    print(f"| {args.binary}, {args.connections} clients logging doses | {rate:,.0f} doses/s | "
          f"{rate / ceiling:.2f} |")
    if baseline:
        print(f"| {args.baseline}, the same load | {baseline:,.0f} doses/s | {baseline / ceiling:.2f} "
              f"(this binary: {rate / baseline:.2f} × the baseline) |")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
