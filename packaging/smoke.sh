#!/usr/bin/env bash
# Proves the release binaries in dist/ (packaging/release.sh) run, each on its own
# architecture: x86_64 natively, aarch64 and armv7 under qemu-user (Debian's
# qemu-user-static). For each binary:
#   - `file` says statically linked; the armv7 glibc build instead must be dynamically
#     linked and need no glibc symbol newer than GLIBC_FLOOR (2.28, Raspberry Pi OS buster);
#   - with a fresh data directory it runs `migrate`, then `serve`, answers GET /health with
#     200 and GET / with the web app's HTML;
#   - SIGTERM stops it with exit status 0 within 10 seconds.
#
# Usage: packaging/smoke.sh [dist/pillbox-<version>-<target> ...]   (default: every binary in dist/)
#
# The armv7 binary needs an armhf dynamic loader and glibc: Debian's libc6-armhf-cross puts
# them in /usr/arm-linux-gnueabihf, which qemu-arm-static is pointed at with -L (no
# multiarch set-up needed). ARMHF_ROOT=DIR runs it against another armhf root instead, e.g. an
# older Debian's from `debootstrap --foreign --arch=armhf bullseye DIR` (glibc 2.31, as on
# Raspberry Pi OS 11). Missing tools are installed with apt-get.
set -euo pipefail
args=()
for a in "$@"; do args+=("$(realpath "$a")"); done
set -- "${args[@]}"
cd "$(dirname "$0")/.."

GLIBC_FLOOR=2.28
ARMHF_ROOT=${ARMHF_ROOT:-/usr/arm-linux-gnueabihf}

if [ "$#" -gt 0 ]; then
  binaries=("$@")
else
  mapfile -t binaries < <(find dist -maxdepth 1 -type f -name 'pillbox-*-*' ! -name '*.deb' | sort)
fi
[ "${#binaries[@]}" -gt 0 ] || { echo "no binaries given and none in dist/: run packaging/release.sh first" >&2; exit 2; }

need_apt=()
command -v file >/dev/null || need_apt+=(file)
command -v readelf >/dev/null || need_apt+=(binutils)
command -v curl >/dev/null || need_apt+=(curl)
for b in "${binaries[@]}"; do
  case "$b" in
    *aarch64-*) command -v qemu-aarch64-static >/dev/null || need_apt+=(qemu-user-static) ;;
    *armv7-*)
      command -v qemu-arm-static >/dev/null || need_apt+=(qemu-user-static)
      [ -e "$ARMHF_ROOT/lib/ld-linux-armhf.so.3" ] || need_apt+=(libc6-armhf-cross)
      ;;
  esac
done
if [ "${#need_apt[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need_apt[@]}"
fi

# Nothing of the caller's configuration may reach the binaries under test.
while IFS= read -r var; do unset "$var"; done < <(env | sed -n 's/^\(PILLBOX_[A-Za-z0-9_]*\)=.*/\1/p')
unset NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID

scratch=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill -KILL "$server_pid" 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

passed=0
failed=0
fail() { echo "  FAIL: $*"; return 1; }

# The newest GLIBC_x.y symbol version the binary needs.
max_glibc() {
  readelf -W --dyn-syms "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n1
}

check_binary() {
  local bin=$1 name target runner=() kind
  name=$(basename "$bin")
  target=${name#pillbox-*-}
  echo "==> $name"
  kind=$(file -b "$bin")
  echo "  file: $kind"
  case "$target" in
    x86_64-*) ;;
    aarch64-*) runner=(qemu-aarch64-static) ;;
    armv7-*)
      runner=(qemu-arm-static -L "$ARMHF_ROOT")
      echo "  armhf loader and glibc from $ARMHF_ROOT"
      ;;
    *) fail "unknown target '$target' in the file name"; return 1 ;;
  esac
  case "$target" in
    *-musl)
      [[ "$kind" == *"statically linked"* || "$kind" == *"static-pie linked"* ]] || { fail "not statically linked"; return 1; }
      ;;
    *-gnueabihf)
      [[ "$kind" == *"dynamically linked"* ]] || { fail "expected a dynamically linked glibc binary"; return 1; }
      local need newest
      need=$(readelf -W -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
      newest=$(max_glibc "$bin")
      echo "  needs: $need; newest glibc symbol: GLIBC_$newest (floor $GLIBC_FLOOR)"
      [ "$(printf '%s\n%s\n' "$newest" "$GLIBC_FLOOR" | sort -V | tail -n1)" = "$GLIBC_FLOOR" ] ||
        { fail "needs GLIBC_$newest, newer than $GLIBC_FLOOR"; return 1; }
      ;;
  esac

  local data="$scratch/$target" port log
  mkdir -p "$data/home"
  log="$scratch/$target.log"
  HOME="$data/home" "${runner[@]}" "$bin" migrate --data-dir "$data/data" >"$log" 2>&1 ||
    { cat "$log"; fail "migrate failed"; return 1; }
  echo "  migrate: ok"

  port=$(free_port)
  local started=$SECONDS
  HOME="$data/home" "${runner[@]}" "$bin" serve --data-dir "$data/data" --bind "127.0.0.1:$port" >>"$log" 2>&1 &
  server_pid=$!
  local status=""
  for _ in $(seq 1 120); do
    status=$(curl -s -o "$scratch/health" -w '%{http_code}' "http://127.0.0.1:$port/health" || true)
    [ "$status" = 200 ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.5
  done
  [ "$status" = 200 ] || { cat "$log"; fail "GET /health answered '$status'"; return 1; }
  echo "  GET /health: 200 after $((SECONDS - started)) s: $(head -c 160 "$scratch/health")"

  status=$(curl -s -o "$scratch/index" -w '%{http_code}' "http://127.0.0.1:$port/")
  [ "$status" = 200 ] && grep -qi '<!doctype html' "$scratch/index" && grep -q 'id="root"' "$scratch/index" ||
    { fail "GET / answered $status without the web app's HTML"; return 1; }
  echo "  GET /: 200, the web app ($(wc -c <"$scratch/index") bytes of HTML)"

  kill -TERM "$server_pid"
  local code="" t0=$SECONDS
  for _ in $(seq 1 100); do
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$server_pid" 2>/dev/null; then
    fail "still running 10 s after SIGTERM"
    return 1
  fi
  wait "$server_pid" && code=0 || code=$?
  server_pid=""
  [ "$code" = 0 ] || { tail -5 "$log"; fail "exit status $code after SIGTERM"; return 1; }
  echo "  SIGTERM: exit 0 after $((SECONDS - t0)) s"
}

for bin in "${binaries[@]}"; do
  if check_binary "$bin"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    [ -n "$server_pid" ] && { kill -KILL "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=""; }
  fi
done
echo
echo "smoke: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
