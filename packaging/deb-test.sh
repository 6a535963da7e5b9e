#!/usr/bin/env bash
# Proves the amd64 .deb from packaging/release.sh in a fresh Debian root (debootstrap +
# chroot): install, upgrade to a newer package version, remove, purge, and install again.
# systemd does not run in a chroot, so the service is not started; what is checked is what
# dpkg and the maintainer scripts do:
#   - install: the binary runs; systemd-sysusers ran exactly once and made the pillbox
#     system user (home /var/lib/pillbox, no login shell); the unit is installed and enabled;
#     /etc/pillbox/config.toml is a conffile, root:pillbox 0640, readable by the service user;
#   - upgrade (the same binary packaged as <version>-2 with cargo-deb --deb-version): the
#     admin's edit of the config is kept without a prompt or .dpkg-* file, the data is
#     untouched, systemd-sysusers ran once more (once per configure);
#   - remove: the binary is gone, the config, the data and the user stay;
#   - purge: /etc/pillbox is gone, the data and the user stay (Debian does not delete
#     system users; see README "Uninstall"), and installing again finds the data.
# The arm64 and armhf packages are checked without installing (they would need binfmt
# emulation inside the root): architecture, dependencies, the same maintainer scripts, and
# that their /usr/bin/pillbox is the release binary.
#
# Usage: packaging/deb-test.sh [SUITE]   (default: bookworm; e.g. trixie)
# Needs root (chroot). The pristine root is cached in /var/tmp/pillbox-deb-root-SUITE
# (about 300 MB; delete it when done).
set -euo pipefail
cd "$(dirname "$0")/.."

suite=${1:-bookworm}
[ "$(id -u)" -eq 0 ] || { echo "deb-test.sh needs root (debootstrap, chroot): sudo $0 $*" >&2; exit 2; }

version=$(cargo metadata --no-deps --format-version 1 --locked |
  python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "pillbox"))')
deb="dist/pillbox_${version}-1_amd64.deb"
musl_bin="target/x86_64-unknown-linux-musl/release/pillbox"
if [ ! -f "$deb" ] || [ ! -f "$musl_bin" ]; then echo "$deb or $musl_bin missing: run packaging/release.sh first" >&2; exit 2; fi

command -v debootstrap >/dev/null || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; }

cache=/var/tmp/pillbox-deb-root-$suite
if [ ! -x "$cache/usr/bin/systemd-sysusers" ]; then
  echo "==> debootstrap $suite (minbase + systemd) into $cache"
  rm -rf "$cache"
  debootstrap --variant=minbase --include=systemd "$suite" "$cache" >/dev/null
fi

scratch=$(mktemp -d)
root="$scratch/root"
cleanup() {
  umount "$root/proc" 2>/dev/null || true
  umount "$root/dev" 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT
cp -a "$cache" "$root"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"

# The upgrade: the same binary as a newer package version.
cargo deb --no-build --no-strip --target x86_64-unknown-linux-musl --deb-version "${version}-2" --output "$scratch/" >/dev/null
cp "$deb" "$root/tmp/pillbox-1.deb"
cp "$scratch/pillbox_${version}-2_amd64.deb" "$root/tmp/pillbox-2.deb"

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
passed=0
failed=0
check() { # check "what" command...
  local what=$1
  shift
  if "$@" >/dev/null 2>&1; then
    echo "  ok: $what"
    passed=$((passed + 1))
  else
    echo "  FAIL: $what"
    failed=$((failed + 1))
  fi
}
stat_of() { in_root stat -c '%U:%G %a' "$1"; }
sysusers_calls() { wc -l <"$root/tmp/sysusers-calls"; }

# Count systemd-sysusers runs: a diverted wrapper logs each call, then runs the real one.
in_root dpkg-divert --quiet --local --rename --add /usr/bin/systemd-sysusers
cat >"$root/usr/bin/systemd-sysusers" <<'EOF'
#!/bin/sh
echo "systemd-sysusers $*" >>/tmp/sysusers-calls
exec /usr/bin/systemd-sysusers.distrib "$@"
EOF
chmod 755 "$root/usr/bin/systemd-sysusers"
: >"$root/tmp/sysusers-calls"

echo "==> install $(basename "$deb") in Debian $suite"
in_root dpkg -i /tmp/pillbox-1.deb
check "pillbox --version runs: $(in_root pillbox --version)" in_root pillbox --version
check "systemd-sysusers ran once ($(sysusers_calls))" test "$(sysusers_calls)" -eq 1
check "the postinst calls systemd-sysusers on one line" test "$(grep -cE '^[[:space:]]*systemd-sysusers' "$root/var/lib/dpkg/info/pillbox.postinst")" -eq 1
check "system user: $(in_root getent passwd pillbox)" grep -q ':/var/lib/pillbox:/usr/sbin/nologin$' <(in_root getent passwd pillbox)
check "unit installed" test -f "$root/usr/lib/systemd/system/pillbox.service"
check "unit enabled (multi-user.target.wants)" test -L "$root/etc/systemd/system/multi-user.target.wants/pillbox.service"
check "config is a conffile" grep -qx ' /etc/pillbox/config.toml [0-9a-f]*' <(in_root dpkg-query -W -f='${Conffiles}\n' pillbox)
check "config root:pillbox 0640 ($(stat_of /etc/pillbox/config.toml))" test "$(stat_of /etc/pillbox/config.toml)" = "root:pillbox 640"

# What StateDirectory=pillbox makes when the service first starts, then a real database.
in_root install -d -o pillbox -g pillbox -m 0700 /var/lib/pillbox
check "the service user reads the config and migrates a new database" \
  in_root runuser -u pillbox -- env PILLBOX_CONFIG=/etc/pillbox/config.toml pillbox migrate --data-dir /var/lib/pillbox
check "create-user as the service user" sh -c "echo 'correct horse battery staple' |
  chroot '$root' runuser -u pillbox -- pillbox create-user --email pat@example.com --password-stdin --data-dir /var/lib/pillbox"
# The admin sets the public URL.
sed -i 's|^# public_url = .*|public_url = "https://pillbox.example.net"|' "$root/etc/pillbox/config.toml"

echo "==> upgrade to ${version}-2"
in_root dpkg -i /tmp/pillbox-2.deb
check "version ${version}-2 installed" test "$(in_root dpkg-query -W -f='${Version}' pillbox)" = "${version}-2"
check "the admin's config edit is kept" grep -qx 'public_url = "https://pillbox.example.net"' "$root/etc/pillbox/config.toml"
check "no .dpkg-new/.dpkg-dist/.dpkg-old beside the config" test -z "$(find "$root/etc/pillbox" -mindepth 1 ! -name config.toml)"
check "config still root:pillbox 0640" test "$(stat_of /etc/pillbox/config.toml)" = "root:pillbox 640"
check "systemd-sysusers ran once for the upgrade ($(sysusers_calls) in all)" test "$(sysusers_calls)" -eq 2
check "the data is there: export of pat@example.com" in_root runuser -u pillbox -- env PILLBOX_CONFIG=/etc/pillbox/config.toml pillbox export --email pat@example.com --data-dir /var/lib/pillbox

echo "==> remove"
in_root dpkg -r pillbox
check "binary removed" test ! -e "$root/usr/bin/pillbox"
check "config kept on remove" test -f "$root/etc/pillbox/config.toml"
check "data kept on remove" test -s "$root/var/lib/pillbox/pillbox.sqlite3"

echo "==> purge"
in_root dpkg -P pillbox
check "config removed on purge" test ! -e "$root/etc/pillbox"
check "data kept on purge" test -s "$root/var/lib/pillbox/pillbox.sqlite3"
check "user kept on purge (owns the data)" in_root getent passwd pillbox
check "unit no longer enabled" test ! -e "$root/etc/systemd/system/multi-user.target.wants/pillbox.service"

echo "==> install again after purge"
in_root dpkg -i /tmp/pillbox-1.deb >/dev/null
check "the kept data is found again" in_root runuser -u pillbox -- pillbox export --email pat@example.com --data-dir /var/lib/pillbox
check "the fresh config is root:pillbox 0640" test "$(stat_of /etc/pillbox/config.toml)" = "root:pillbox 640"

for arch in arm64 armhf; do
  pkg="dist/pillbox_${version}-1_${arch}.deb"
  [ -f "$pkg" ] || { echo "==> $pkg: not built, skipped"; continue; }
  echo "==> $(basename "$pkg") (not installed: foreign architecture)"
  x="$scratch/$arch"
  mkdir -p "$x/control" "$x/data"
  dpkg-deb -e "$pkg" "$x/control"
  dpkg-deb -x "$pkg" "$x/data"
  case $arch in
    arm64) triple=aarch64-unknown-linux-musl ;;
    armhf) triple=armv7-unknown-linux-gnueabihf ;;
  esac
  check "Architecture: $arch" test "$(dpkg-deb -f "$pkg" Architecture)" = "$arch"
  case $arch in
    arm64) depends="systemd | systemd-standalone-sysusers | systemd-sysusers" ;;
    armhf) depends="libc6 (>= 2.28), systemd | systemd-standalone-sysusers | systemd-sysusers" ;;
  esac
  check "Package: pillbox, Depends: $depends" test "$(dpkg-deb -f "$pkg" Package Depends)" = "Package: pillbox
Depends: $depends"
  check "/usr/bin/pillbox is dist/pillbox-$version-$triple" cmp "$x/data/usr/bin/pillbox" "dist/pillbox-$version-$triple"
  for script in postinst prerm postrm conffiles; do
    check "$script as in the amd64 package" cmp "$x/control/$script" <(dpkg-deb --ctrl-tarfile "$deb" | tar -xO "./$script")
  done
done

echo
echo "deb-test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
