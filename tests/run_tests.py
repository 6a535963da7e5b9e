"""Runs the Rust test binaries (the binary's unit tests and each tests/*.rs) several at a time,
as `cargo test` would run them one after another.

Most integration tests wait on a server they started (a reminder to fire, a broker, a proxy),
so one binary at a time leaves the machine idle: on this two-core machine the 37 binaries took
118 s in a row and 41 s four at a time. Each binary is still its own process with the test
harness's own threads, as under `cargo test`.

A binary's output is printed when it finishes: its summary line when it passed, all of it when
it failed. The exit code is 1 when any failed. The slowest binaries of the last run (their times
are kept in target/) start first.

Usage: python3 tests/run_tests.py [extra cargo test arguments]   (e.g. --test accounts)
PILLBOX_TEST_JOBS sets how many binaries run at once (4).
"""

import concurrent.futures
import json
import os
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JOBS = int(os.environ.get("PILLBOX_TEST_JOBS", "4"))


def target_dir():
    metadata = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"],
                              cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(metadata)["target_directory"]


def test_binaries(extra):
    """The test executables `cargo test` would run, built if need be: (name, path) each."""
    built = subprocess.run(["cargo", "test", "--locked", "--no-run", "--message-format=json", *extra],
                           cwd=ROOT, stdout=subprocess.PIPE, text=True)
    binaries = []
    for line in built.stdout.splitlines():
        message = json.loads(line)
        if (message.get("reason") == "compiler-artifact" and message.get("executable")
                and message["profile"]["test"]):
            target = message["target"]
            name = "unit tests" if target["kind"] == ["bin"] else f"tests/{target['name']}.rs"
            binaries.append((name, message["executable"]))
    if built.returncode != 0:
        sys.exit(built.returncode)
    return binaries


def main():
    extra = sys.argv[1:]
    binaries = test_binaries(extra)
    durations_file = os.path.join(target_dir(), "test-durations.json")
    try:
        with open(durations_file) as f:
            durations = json.load(f)
    except (OSError, ValueError):
        durations = {}
    binaries.sort(key=lambda b: -durations.get(b[0], 0))
    printing = threading.Lock()
    failed = []

    def run(binary):
        name, path = binary
        started = time.monotonic()
        done = subprocess.run([path], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, text=True, errors="replace")
        took = time.monotonic() - started
        durations[name] = round(took, 1)
        summary = next((line for line in reversed(done.stdout.splitlines())
                        if line.startswith("test result:")), "no test result")
        with printing:
            if done.returncode != 0:
                failed.append(name)
                print(f"\n---- {name} FAILED (exit {done.returncode}) ----\n{done.stdout}", flush=True)
            print(f"{name}: {summary} ({took:.1f} s)", flush=True)

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        list(pool.map(run, binaries))
    with open(durations_file, "w") as f:
        json.dump(durations, f, indent=1, sort_keys=True)
    print(f"\n{len(binaries)} test binaries, {JOBS} at a time, in {time.monotonic() - started:.0f} s",
          flush=True)
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
