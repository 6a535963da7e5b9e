#!/usr/bin/env python3
"""The off-site backup recipe of README ("Off-site backups"), run for real: a release check.

    python3 packaging/offsite-test.py [path/to/pillbox]   (default target/release/pillbox)

Starts Pillbox on a fresh data directory, makes two accounts with a medication and a logged
dose each, and has the server write its snapshot into `backups/` (`pillbox backup`, as the
daily job does). Then, with Debian's `restic` (installed when missing) and a local repository
standing in for the NAS: `restic init`, `restic backup <data>/backups`, `restic forget`, the
machine "dies" (the server stops and its data directory is deleted), `restic restore latest`
into a scratch directory, `pillbox restore` of the newest snapshot into a NEW data directory,
and the server starts on it: both accounts sign in with their passwords and find their
medication and the dose in the history. Exits non-zero on anything else.
"""
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/pillbox")
PASSWORD = "correct-horse-battery"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def api(port, method, path, token=None, body=None):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as e:
        raise SystemExit(f"{method} {path} answered {e.code}: {e.read().decode()}")


def serve(data_dir):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PILLBOX_")}
    env.update({"PILLBOX_SIGNUPS": "open", "PILLBOX_LOG_LEVEL": "warn"})
    server = subprocess.Popen([BINARY, "serve", "--bind", f"127.0.0.1:{port}", "--data-dir", data_dir],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for _ in range(300):
        if server.poll() is not None:
            raise SystemExit(f"pillbox serve exited: {server.stderr.read()}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2).read()
            return server, port
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("pillbox serve did not answer /health within 30 s")


def stop(server):
    server.terminate()
    if server.wait(20) != 0:
        raise SystemExit(f"pillbox serve exited {server.returncode}: {server.stderr.read()}")


def run(*args, **kwargs):
    print("$", " ".join(args), flush=True)
    return subprocess.run(args, check=True, **kwargs)


def main():
    if not shutil.which("restic"):
        as_root = [] if os.geteuid() == 0 else ["sudo"]
        run(*as_root, "apt-get", "install", "-y", "-qq", "restic", env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    work = tempfile.mkdtemp(prefix="pillbox-offsite-")
    data = os.path.join(work, "var-lib-pillbox")
    repository = os.path.join(work, "nas-restic-repo")
    password_file = os.path.join(work, "restic.pass")
    with open(os.open(password_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write("a long random passphrase kept off the Pi\n")
    restic = ["restic", "-r", repository, "--password-file", password_file, "--quiet"]

    # The Pi, in use: two people, each a medication and a dose logged.
    server, port = serve(data)
    people = {}
    for email, name in (("ann@offsite.test", "Levothyroxine"), ("ben@offsite.test", "Metformin")):
        token = api(port, "POST", "/api/auth/register", body={"email": email, "password": PASSWORD})["data"]["token"]
        medication = api(port, "POST", "/api/medications", token, {
            "name": name, "unit": "tablets", "frequency": "daily", "default_quantity": 1,
            "schedule": {"times": ["08:00"]},
        })["data"]["id"]
        api(port, "POST", f"/api/medications/{medication}/doses", token, {"quantity": 1})
        people[email] = name
    stop(server)
    run(BINARY, "backup", "--data-dir", data, capture_output=True)
    snapshots = glob.glob(os.path.join(data, "backups", "*.sqlite3"))
    if not snapshots:
        raise SystemExit("pillbox backup wrote no snapshot into backups/")

    # The README's recipe: a repository elsewhere, the backups/ directory into it, old ones forgotten.
    run(*restic, "init")
    run(*restic, "backup", os.path.join(data, "backups"))
    run(*restic, "forget", "--keep-daily", "14", "--keep-weekly", "8", "--prune")

    # The SD card dies.
    shutil.rmtree(data)

    # A new card: restore the newest snapshot from the repository into a new data directory.
    scratch = os.path.join(work, "restored")
    run(*restic, "restore", "latest", "--target", scratch)
    found = sorted(glob.glob(os.path.join(scratch, "**", "backups", "*.sqlite3"), recursive=True),
                   key=os.path.getmtime)
    if not found:
        raise SystemExit("restic restored no snapshot")
    new_data = os.path.join(work, "new-var-lib-pillbox")
    run(BINARY, "restore", found[-1], "--data-dir", new_data, capture_output=True)
    database = os.path.join(new_data, "pillbox.sqlite3")
    mode = os.stat(database).st_mode & 0o777
    if mode != 0o600:
        raise SystemExit(f"the restored database is {oct(mode)}, not 0600")

    server, port = serve(new_data)
    try:
        for email, name in people.items():
            login = api(port, "POST", "/api/auth/login", body={"email": email, "password": PASSWORD})
            token = login["data"]["token"]
            medications = api(port, "GET", "/api/medications", token)["data"]
            names = [m["name"] for m in medications]
            if names != [name]:
                raise SystemExit(f"{email}: medications after the restore {names}, not [{name!r}]")
            history = api(port, "GET", "/api/medications/history?limit=10", token)["data"]
            if len(history) != 1 or history[0]["status"] != "taken":
                raise SystemExit(f"{email}: history after the restore {history}")
            print(f"{email}: signs in; {name} and its dose taken are there")
    finally:
        stop(server)
    shutil.rmtree(work)
    print("off-site backup: backed up with restic, restored into a new data directory, served: ok")


if __name__ == "__main__":
    main()
