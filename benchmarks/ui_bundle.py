#!/usr/bin/env python3
"""What the web app's first screens download, and how fast they paint (issue 25, "Load less to
start").

Bytes: builds the UI of this checkout (and of `--before`, a git revision, by default the one
before the code split) with Vite into temporary directories, reads each build's manifest
(`.vite/manifest.json`) and adds up, gzipped at level 9 as the release binary sends them,
the JS and CSS a route needs before it shows: what index.html loads, the route's own chunks
with everything they import, and the texts of the namespaces App.tsx fetches with it, in
English. A build without a split (the "before") has all of it in the files index.html loads.

Paint: Lighthouse 12.2.3 (`npx -y lighthouse@12.2.3`, mobile preset, simulated throttling,
Debian's Chromium) against `pillbox serve` of each binary given, on the sign-in page and on
Today signed in (an account made with `pillbox create-user`, its session put into the
browser profile's localStorage with Playwright from ui/node_modules, which Lighthouse then
uses with --disable-storage-reset; service workers blocked there, so nothing is cached);
medians of `--runs`. The binary embeds the UI it was compiled with: pass one built from this
checkout, and with `--before-binary` one built before the split.

With `--https` each page is measured a second time the way a phone reaches Pillbox behind a
reverse proxy (README, "HTTPS"): through Debian's Caddy in front of `pillbox serve`, over
HTTPS (Caddy's own local certificate, which Chromium is told to accept) and HTTP/2. Pillbox's
own TLS speaks HTTP/1.1, like the plain run. Plain HTTP/1.1 straight to the
server gives the browser six connections for the start's twenty requests; HTTP/2 one for all.

    python3 benchmarks/ui_bundle.py target/debug/pillbox \\
        [--before-binary /work/main/target/release/pillbox] [--before <git rev>] [--runs 3] [--https]
"""
import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import re
import tempfile
import time
from pathlib import Path

from common import request, start_server

ROOT = Path(__file__).resolve().parent.parent
UI = ROOT / "ui"
LIGHTHOUSE = "lighthouse@12.2.3"
CHROMIUM = "/usr/bin/chromium"
EMAIL = "bench@example.org"
PASSWORD = "bundle-benchmark-1"

# Each route's screen modules and the namespaces App.tsx fetches with them.
NAMESPACE_FOLDERS = {
    "translation": "locales",
    "meds": "medications",
    "circle": "circle",
    "notify": "notify",
    "notifyPrefs": "notifyPrefs",
    "data": "data",
}
ROUTES = {
    # A start without a session fetches the sign-in screen's chunk at once (App.tsx).
    "sign-in (/login)": ("/login", ["src/screens/LoginScreen.tsx"], []),
    "Today (/today)": (
        "/today",
        ["src/screens/SignedInLayout.tsx", "src/screens/TodayScreen.tsx"],
        # As ui/src/firstScreens.ts's SCREEN_TEXTS has them for SignedInLayout and TodayScreen
        # ('notify' comes only with a delivery warning's fixes).
        ["translation", "meds", "circle"],
    ),
}


def build_ui(source_ui, out_dir):
    """`vite build` of `source_ui` into `out_dir`, with its manifest."""
    subprocess.run(
        ["npx", "vite", "build", "--manifest", "--outDir", str(out_dir), "--emptyOutDir"],
        cwd=source_ui,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return json.loads((out_dir / ".vite" / "manifest.json").read_text())


def checkout_ui(revision, into):
    """The ui/ folder of `revision`, with its own packages: this checkout's node_modules when
    the lock files agree, else `npm ci` from the local npm cache (the UI before the split ran on
    React, this one on Preact: neither builds with the other's packages)."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", revision, "ui"], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    ui = into / "ui"
    if (ui / "package-lock.json").read_bytes() == (UI / "package-lock.json").read_bytes():
        (ui / "node_modules").symlink_to(UI / "node_modules")
    else:
        subprocess.run(
            ["npm", "ci", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund"],
            cwd=ui,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return ui


def route_files(manifest, modules, namespaces, index_html):
    """The JS and CSS files a route loads before it shows: what index.html loads (its script and
    style tags: the manifest names it only when its entry is a chunk of its own), the route's
    modules and its English texts, with the manifest's static imports of each."""
    by_file = {chunk["file"]: key for key, chunk in manifest.items()}
    loaded = re.findall(r'(?:src|href)="/(assets/[^"]+\.(?:js|css))"', index_html)
    if not any(name.endswith(".js") for name in loaded):
        raise SystemExit("index.html loads no script")
    keys = [by_file.get(name, name) for name in loaded]
    keys += [*modules, *(f"src/i18n/{NAMESPACE_FOLDERS[n]}/en.json" for n in namespaces)]
    seen, files = set(loaded), set(loaded)

    def visit(key):
        if key in seen or key not in manifest:
            return
        seen.add(key)
        chunk = manifest[key]
        files.add(chunk["file"])
        files.update(chunk.get("css", []))
        for imported in chunk.get("imports", []):
            visit(imported)

    for key in keys:
        visit(key)
    return sorted(f for f in files if f.endswith((".js", ".css")))


def gzipped(dist, files):
    return sum(len(gzip.compress((dist / f).read_bytes(), 9)) for f in files)


def session(binary, data_dir, conn):
    """Makes the account with the CLI and signs in: (token, user JSON)."""
    subprocess.run(
        [binary, "create-user", "--data-dir", data_dir, "--email", EMAIL, "--password-stdin"],
        input=PASSWORD + "\n",
        text=True,
        check=True,
        capture_output=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("PILLBOX_")},
    )
    answer = request(conn, "POST", "/api/auth/login", body={"email": EMAIL, "password": PASSWORD})
    signed_in = answer.get("data") or answer
    return signed_in["token"], json.dumps(signed_in["user"])


SIGN_IN_PROFILE = """
import { chromium } from '@playwright/test';
const [profile, origin, token, user] = process.argv.slice(1);
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium', headless: true, serviceWorkers: 'block', args: ['--no-sandbox'],
  ignoreHTTPSErrors: origin.startsWith('https:'),
});
const page = await context.newPage();
await page.goto(origin + '/health');
await page.evaluate(([t, u]) => { localStorage.setItem('token', t); localStorage.setItem('user', u); }, [token, user]);
await context.close();
"""


def lighthouse(url, profile=None):
    """One Lighthouse run (mobile preset): (performance score, FCP ms, LCP ms, TBT ms, CLS, JS+CSS bytes
    transferred)."""
    flags = "--headless=new --no-sandbox"
    if url.startswith("https:"):
        # Caddy's local certificate authority is not installed in the system's store.
        flags += " --ignore-certificate-errors"
    extra = []
    if profile:
        flags += f" --user-data-dir={profile}"
        extra = ["--disable-storage-reset"]
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        subprocess.run(
            ["npx", "-y", LIGHTHOUSE, url, f"--chrome-path={CHROMIUM}", f"--chrome-flags={flags}",
             "--only-categories=performance", "--output=json", f"--output-path={report.name}", "--quiet", *extra],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        result = json.loads(Path(report.name).read_text())
    audits = result["audits"]
    requests = audits["network-requests"]["details"]["items"]
    transferred = sum(r.get("transferSize", 0) for r in requests if r.get("resourceType") in ("Script", "Stylesheet"))
    return (
        round(result["categories"]["performance"]["score"] * 100),
        audits["first-contentful-paint"]["numericValue"],
        audits["largest-contentful-paint"]["numericValue"],
        audits["total-blocking-time"]["numericValue"],
        audits["cumulative-layout-shift"]["numericValue"],
        transferred,
    )


def signed_in_profile(origin, token, user):
    """A fresh Chromium profile whose localStorage holds the session (and nothing cached)."""
    profile = tempfile.mkdtemp(prefix="pillbox-lh-profile-")
    subprocess.run(["node", "--input-type=module", "-e", SIGN_IN_PROFILE, profile, origin, token, user], cwd=UI, check=True)
    return profile


CADDYFILE = """{{
	admin off
	auto_https disable_redirects
	skip_install_trust
	storage file_system {data}
}}
https://127.0.0.1:{port} {{
	tls internal
	reverse_proxy 127.0.0.1:{upstream}
}}
"""


def caddy_in_front(upstream):
    """Debian's Caddy serving HTTPS (HTTP/2, its own local certificate) in front of `upstream`:
    (process, origin, its directory)."""
    directory = tempfile.mkdtemp(prefix="pillbox-caddy-")
    port = upstream + 1
    (Path(directory) / "Caddyfile").write_text(CADDYFILE.format(data=f"{directory}/data", port=port, upstream=upstream))
    env = dict(os.environ, HOME=directory, XDG_DATA_HOME=f"{directory}/data", XDG_CONFIG_HOME=f"{directory}/config")
    caddy = subprocess.Popen(
        ["caddy", "run", "--config", f"{directory}/Caddyfile", "--adapter", "caddyfile"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    origin = f"https://127.0.0.1:{port}"
    for _ in range(100):
        if subprocess.run(["curl", "-skf", "-o", "/dev/null", origin + "/health"]).returncode == 0:
            return caddy, origin, directory
        time.sleep(0.1)
    caddy.terminate()
    raise SystemExit("caddy did not start")


def measure_paint(binary, runs, port, https=False):
    server, port, data_dir, conn = start_server(binary, port)
    caddy = None
    try:
        token, user = session(binary, data_dir, conn)
        origin = f"http://127.0.0.1:{port}"
        if https:
            caddy, origin, caddy_dir = caddy_in_front(port)
        figures = {}
        for name, (path, _, _) in ROUTES.items():
            samples = []
            for _ in range(runs):
                profile = signed_in_profile(origin, token, user) if path != "/login" else None
                try:
                    samples.append(lighthouse(origin + path, profile))
                finally:
                    if profile:
                        shutil.rmtree(profile, ignore_errors=True)
            figures[name] = [statistics.median(column) for column in zip(*samples)]
            print(f"  {binary} {path}: {samples}", file=sys.stderr)
        return figures
    finally:
        if caddy:
            caddy.terminate()
            caddy.wait()
            shutil.rmtree(caddy_dir, ignore_errors=True)
        server.terminate()
        server.wait()
        shutil.rmtree(data_dir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", help="pillbox built from this checkout")
    parser.add_argument("--before", default="10e8264~1", help="git revision of the UI before the split")
    parser.add_argument("--before-binary", help="pillbox built before the split, for Lighthouse")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-lighthouse", action="store_true")
    parser.add_argument("--port", type=int, default=18300)
    parser.add_argument("--https", action="store_true", help="also measure through Caddy over HTTPS (HTTP/2)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="pillbox-bundle-"))
    try:
        after = build_ui(UI, work / "after")
        before_ui = checkout_ui(args.before, work / "before-src")
        before = build_ui(before_ui, work / "before")
        sizes = {}
        for name, (_, modules, namespaces) in ROUTES.items():
            after_files = route_files(after, modules, namespaces, (work / "after" / "index.html").read_text())
            before_files = route_files(before, modules, namespaces, (work / "before" / "index.html").read_text())
            sizes[name] = (gzipped(work / "before", before_files), gzipped(work / "after", after_files), len(after_files))
        paint = {}
        if not args.no_lighthouse:
            builds = [("after", args.binary, 0)] + ([("before", args.before_binary, 50)] if args.before_binary else [])
            for https in [False, True] if args.https else [False]:
                for name, binary, offset in builds:
                    label = f"{name}, HTTPS through Caddy (HTTP/2)" if https else f"{name}, plain HTTP/1.1"
                    paint[label] = measure_paint(binary, args.runs, args.port + offset + (100 if https else 0), https)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print("| route | initial JS+CSS, gzip -9: before | after (files) | ratio | target |")
    print("|---|---|---|---|---|")
    for name, (before_bytes, after_bytes, count) in sizes.items():
        print(f"| {name} | {before_bytes / 1024:.1f} KiB | {after_bytes / 1024:.1f} KiB ({count}) "
              f"| {after_bytes / before_bytes:.2f} | ≤ 120 KB |")
    for build, figures in paint.items():
        print(f"\nLighthouse {LIGHTHOUSE.split('@')[1]}, mobile, {build} (medians of {args.runs}):")
        print("| route | performance | FCP | LCP | TBT | CLS | JS+CSS transferred |")
        print("|---|---|---|---|---|---|---|")
        for name, (score, fcp, lcp, tbt, cls, transferred) in figures.items():
            print(f"| {name} | {score:.0f} | {fcp / 1000:.2f} s | {lcp / 1000:.2f} s | {tbt:.0f} ms | {cls:.3f} "
                  f"| {transferred / 1024:.1f} KiB |")


if __name__ == "__main__":
    main()
