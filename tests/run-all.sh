#!/usr/bin/env bash
# Runs every Pillbox test on a fresh Debian machine with Rust and Node 20: the UI's lint,
# type check and unit tests, Rust formatting, lints, unit and integration tests against the
# binary, then browser end-to-end tests in Debian's Chromium (installed if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
step() { printf '\n==> [%ds] %s\n' "$((SECONDS - started))" "$*"; }
trap 'printf "\n==> [%ds] done (exit %d)\n" "$((SECONDS - started))" "$?"' EXIT

step "UI: install packages"
npm --prefix ui ci --no-audit --no-fund

step "UI: lint, type check, unit tests"
npm --prefix ui run lint
npm --prefix ui run typecheck
npm --prefix ui test

step "Test tools from PyPI, pinned in tests/requirements.txt: aiosmtpd, schemathesis, standardwebhooks"
python3 -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt

step "Rust: format and lints"
cargo fmt --check
cargo clippy --all-targets --locked -- -D warnings

# The dev profile (Cargo.toml): no LTO, dependencies optimised; the integration tests and
# the browser tests run this build of the binary.
step "Rust: unit and integration tests (the real binary, dev profile)"
cargo test --locked

# The UI's API types are generated from the document this binary prints; a route or schema
# changed on the server without regenerating them fails here.
step "UI: generated API types match the server (ui/src/api/schema.d.ts)"
PILLBOX_BIN="$PWD/target/debug/pillbox" npm --prefix ui run api-types:check

step "API contract: schemathesis against the binary and its OpenAPI document"
python3 tests/contract.py target/debug/pillbox

step "Browser: Chromium"
if [ ! -x /usr/bin/chromium ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium
fi
/usr/bin/chromium --version

step "Browser: end-to-end tests against target/debug/pillbox"
PILLBOX_BIN="$PWD/target/debug/pillbox" npm --prefix ui run e2e
