#!/usr/bin/env bash
# Runs every Pillbox test on a fresh Debian machine with Rust and Node 20: the UI's lint,
# type check and unit tests, Rust formatting, lints, unit and integration tests against the
# binary, then browser end-to-end tests in Debian's Chromium (installed if missing).
#
# On a two-core machine many steps use one core (ESLint, tsc, the Rust compiler's front end
# and its link steps), so the UI's lint runs in the background while Rust builds, and
# Chromium, caddy, mosquitto and the PyPI tools are installed while the packages are fetched. Each background job's output is
# printed whole when it is waited for. Nothing that waits on a clock (the unit tests' screen
# flows, the servers the Rust and browser tests start) runs beside a build.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
step() { printf '\n==> [%ds] %s\n' "$((SECONDS - started))" "$*"; }
trap 'printf "\n==> [%ds] done (exit %d)\n" "$((SECONDS - started))" "$?"' EXIT

logs=$(mktemp -d)
# Waits for a background job and shows its output; its failure fails the run.
finish() {
  local pid=$1 name=$2 status=0
  wait "$pid" || status=$?
  step "$name: finished (exit $status)"
  cat "$logs/$name.log"
  return "$status"
}

step "Debian packages (installed in the background if missing): Chromium for the browser tests, caddy for the proxy sign-in tests, mosquitto for the Home Assistant tests"
(
  missing=""
  [ -x /usr/bin/chromium ] || missing="chromium"
  command -v caddy >/dev/null || missing="$missing caddy"
  [ -x /usr/sbin/mosquitto ] || missing="$missing mosquitto"
  if [ -n "$missing" ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    # shellcheck disable=SC2086 # one word per package
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
  fi
  /usr/bin/chromium --version
  caddy version
  dpkg-query -W mosquitto
) >"$logs/packages.log" 2>&1 &
packages_job=$!

step "Test tools from PyPI (installed in the background), pinned in tests/requirements.txt: aiosmtpd, schemathesis, standardwebhooks, fhir.resources"
python3 -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt >"$logs/pypi.log" 2>&1 &
pypi_job=$!

step "UI: install packages"
npm --prefix ui ci --no-audit --no-fund
# The OpenID provider the sign-in tests use (tests/oidc/provider.mjs).
npm --prefix tests/oidc ci --no-audit --no-fund

# `npm run build` is `tsc -b` over the app, the service worker and the configs/e2e tests
# (the type check) and then Vite's bundle, which the binary embeds: cargo below is told not
# to build it again.
step "UI: type check and production bundle"
npm --prefix ui run build
export PILLBOX_SKIP_UI_BUILD=1
# The sign-in page's first download, from that build's manifest, against its budget.
node ui/scripts/bundle-budget.mjs

step "UI: lint (in the background)"
npm --prefix ui run lint >"$logs/lint.log" 2>&1 &
lint_job=$!

step "Rust: format, and the build-only crates Cargo.toml leaves unoptimised"
cargo fmt --check
python3 tests/build_only_crates.py --check

# Clippy lints every target while the tests are built, not in a pass of its own: clippy-driver
# is the workspace's compiler wrapper, as `cargo clippy` makes it, and CLIPPY_ARGS carries its
# arguments the way cargo-clippy passes them (separated by __CLIPPY_HACKERY__): warnings are
# errors. On a fresh machine this compiles the dependencies once instead of twice (a check for
# clippy, 181 s, then the build, 220 s, on this two-core machine). The later cargo commands
# keep the same wrapper, so they reuse this build.
clippy_driver="$(rustc --print sysroot)/bin/clippy-driver"
export RUSTC_WORKSPACE_WRAPPER="$clippy_driver"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
# The workspace is not compiled incrementally: a fresh machine compiles it once, and without
# the incremental cache's bookkeeping that took 63 s instead of 87 s here (a later run after
# a small change recompiles the pillbox crate whole).
export CARGO_INCREMENTAL=0

# The dev profile (Cargo.toml): no LTO, dependencies optimised; the integration tests and
# the browser tests run this build of the binary. Every target clippy would look at is built
# here: the binary, its unit tests, the integration tests and the example.
step "Rust: build the tests, with clippy's lints (warnings are errors)"
cargo test --locked --no-run

finish "$lint_job" lint

step "UI: unit tests (Vitest)"
npm --prefix ui test

# tests/proxy_sign_in.rs starts caddy, tests/home_assistant.rs mosquitto; the e-mail tests
# start aiosmtpd, and the channel and FHIR tests check with the PyPI tools.
finish "$packages_job" packages
finish "$pypi_job" pypi

# Four test binaries at a time (tests/run_tests.py): most of their time is spent waiting on
# the servers they start, so one at a time left the machine idle (118 s in a row, 41 s so).
step "Rust: unit and integration tests (the real binary, dev profile), four binaries at a time"
python3 tests/run_tests.py

# The one test that needs root: it mounts a small tmpfs and fills it. Above, run as this
# user, it says "skipped" when it may not mount; here it runs as root (through sudo when
# not root) and fails if it still cannot.
step "Rust: the full-disk health test, as root"
health_tests=$(cargo test --locked --test health --no-run --message-format=json |
  python3 -c 'import json, sys
print(next(m["executable"] for m in map(json.loads, sys.stdin)
           if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "health" and m.get("executable")))')
as_root=""
[ "$(id -u)" -eq 0 ] || as_root="sudo"
$as_root env PILLBOX_REQUIRE_ROOT_TESTS=1 "$health_tests" --exact \
  a_really_full_file_system_answers_503_naming_the_database_and_the_disk

# The binary the tests above ran (where cargo put it).
pillbox="$(realpath "${CARGO_TARGET_DIR:-target}")/debug/pillbox"

# The UI's API types are generated from the document this binary prints; a route or schema
# changed on the server without regenerating them fails here.
step "UI: generated API types match the server (ui/src/api/schema.d.ts)"
PILLBOX_BIN="$pillbox" npm --prefix ui run api-types:check

# The contract test runs beside the browser tests: it is one Python process against a server
# of its own, and the browser tests run one at a time, so the two cores each have one (this
# takes its 40 s off the run).
step "API contract (in the background): schemathesis against the binary and its OpenAPI document"
python3 tests/contract.py "$pillbox" >"$logs/contract.log" 2>&1 &
contract_job=$!

step "Browser: end-to-end tests against $pillbox"
e2e_status=0
PILLBOX_BIN="$pillbox" npm --prefix ui run e2e || e2e_status=$?
finish "$contract_job" contract
exit "$e2e_status"
