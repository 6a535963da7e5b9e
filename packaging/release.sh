#!/usr/bin/env bash
# Builds Pillbox's release artefacts into dist/ from a checkout, on a Debian machine with
# Rust (rustup), Node.js 20+ and Python 3:
#
#   dist/pillbox-<version>-x86_64-unknown-linux-musl       static (PCs, servers)
#   dist/pillbox-<version>-aarch64-unknown-linux-musl      static (Raspberry Pi 3/4/5, 64-bit OS)
#   dist/pillbox-<version>-armv7-unknown-linux-gnueabihf   32-bit Raspberry Pi OS (glibc >= 2.28)
#   dist/pillbox_<version>-1_{amd64,arm64,armhf}.deb       the same binaries as Debian packages
#   dist/pillbox.service, dist/pillbox.sysusers, dist/config.toml
#                                                          for installing a binary by hand
#   dist/SHA256SUMS
#
# Usage: packaging/release.sh [TARGET ...]   (default: all three targets)
#
# Installs what it needs: the rustup targets, zig (the `ziglang` package from PyPI, used by
# cargo-zigbuild as the C compiler and linker for every target), cargo-zigbuild and cargo-deb.
# Prove the result with packaging/smoke.sh and packaging/deb-test.sh.
#
# Why armv7 is glibc, not musl: rustup has no standard library for
# armv7-unknown-linux-musleabihf here (it answers 404), and outgoing SMTP and Web Push look
# host names up with getaddrinfo, which a statically linked glibc cannot do reliably (NSS).
# So the armv7 binary links glibc dynamically, against glibc 2.28 (Raspberry Pi OS 10
# "buster") through zig, so that it runs on every Raspberry Pi OS from buster on.
set -euo pipefail
cd "$(dirname "$0")/.."

ARMV7_GLIBC=2.28
ALL_TARGETS=(x86_64-unknown-linux-musl aarch64-unknown-linux-musl armv7-unknown-linux-gnueabihf)
if [ "$#" -gt 0 ]; then targets=("$@"); else targets=("${ALL_TARGETS[@]}"); fi

started=$SECONDS
step() { printf '\n==> [%ds] %s\n' "$((SECONDS - started))" "$*"; }

step "Tools"
rustup target add "${targets[@]}"
if ! python3 -c 'import ziglang' 2>/dev/null; then
  # Debian's python3 is "externally managed"; zig is a self-contained binary in this wheel.
  python3 -m pip install --quiet --disable-pip-version-check --break-system-packages 'ziglang>=0.13'
fi
echo "zig $(python3 -m ziglang version)"
command -v cargo-zigbuild >/dev/null || cargo install cargo-zigbuild --locked
command -v cargo-deb >/dev/null || cargo install cargo-deb --locked
cargo-zigbuild --version
cargo deb --version

version=$(cargo metadata --no-deps --format-version 1 --locked |
  python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "pillbox"))')
echo "pillbox $version"

# The web app is built once here and embedded as it is by every target's build
# (PILLBOX_SKIP_UI_BUILD), so all binaries carry the same UI.
step "Web app (ui/dist)"
npm --prefix ui ci --no-audit --no-fund
npm --prefix ui run build
export PILLBOX_SKIP_UI_BUILD=1

mkdir -p dist
declare -A deb_arch=([x86_64-unknown-linux-musl]=amd64 [aarch64-unknown-linux-musl]=arm64 [armv7-unknown-linux-gnueabihf]=armhf)
for target in "${targets[@]}"; do
  zig_target=$target
  case "$target" in
    *-gnueabihf) zig_target="$target.$ARMV7_GLIBC" ;;
    *-musl) ;;
    *) echo "unknown target $target (known: ${ALL_TARGETS[*]})" >&2; exit 2 ;;
  esac
  step "Build $target (release profile)"
  t0=$SECONDS
  cargo zigbuild --release --locked --target "$zig_target"
  echo "built $target in $((SECONDS - t0)) s"
  out="dist/pillbox-$version-$target"
  cp "target/$target/release/pillbox" "$out"
  ls -l "$out"
  file "$out"

  step "Debian package for $target (${deb_arch[$target]})"
  # cargo-deb takes target/release/pillbox in [package.metadata.deb] as
  # target/<triple>/release/pillbox for --target, i.e. the binary just built.
  variant=()
  [[ "$target" == *-gnueabihf ]] && variant=(--variant glibc) # Depends: libc6 (>= 2.28)
  cargo deb --no-build --no-strip --target "$target" "${variant[@]}" --output dist/
done

step "Checksums"
cp packaging/pillbox.service packaging/pillbox.sysusers dist/
cp examples/config.toml dist/config.toml
(cd dist && rm -f SHA256SUMS && sha256sum pillbox-* pillbox_*.deb pillbox.service pillbox.sysusers config.toml > SHA256SUMS && cat SHA256SUMS)
step "Done: dist/"
ls -l dist/
