#!/usr/bin/env bash
# Installs Arka as a systemd service: the `arka` system user, /var/lib/arka (database, key file,
# backups), /usr/local/bin/arka, /etc/arka/arka.env (never overwritten) and the hardened unit;
# then enables and starts it and waits until it is healthy.
#
#   sudo install/install.sh [BINARY]
#
# Without BINARY: dist/arka-<arch>-unknown-linux-musl (install/build-release.sh), else
# target/release/arka (cargo build --release), else an `arka` beside this script.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

binary=${1:-}
if [ -z "$binary" ]; then
  for candidate in "$here/../dist/arka-$(uname -m)-unknown-linux-musl" "$here/../target/release/arka" "$here/arka"; do
    if [ -x "$candidate" ]; then binary=$candidate; break; fi
  done
fi
if [ -z "$binary" ] || [ ! -x "$binary" ]; then
  echo "no arka binary found: pass its path, or run install/build-release.sh first" >&2
  exit 1
fi
[ "$(id -u)" -eq 0 ] || { echo "run it as root: sudo $0 $*" >&2; exit 1; }
command -v systemctl >/dev/null || { echo "this script needs systemd; see install/README.md for other systems" >&2; exit 1; }
"$binary" --version >/dev/null || { echo "$binary does not run on this machine" >&2; exit 1; }

id arka >/dev/null 2>&1 || useradd --system --user-group --home-dir /var/lib/arka --shell /usr/sbin/nologin arka
install -d -o arka -g arka -m 0700 /var/lib/arka
install -m 0755 "$binary" /usr/local/bin/arka
install -d -m 0750 -g arka /etc/arka
if [ -f /etc/arka/arka.env ]; then
  echo "kept the existing /etc/arka/arka.env"
else
  install -m 0640 -g arka "$here/arka.env" /etc/arka/arka.env
fi
[ -f "$here/../README.md" ] && install -D -m 0644 "$here/../README.md" /usr/share/doc/arka/README.md
install -m 0644 "$here/arka.service" /etc/systemd/system/arka.service
systemctl daemon-reload
# The unit's ExecStartPost waits for GET /healthz, so this returns once Arka answers.
systemctl enable --now arka

setting() { sed -n "s/^$1=//p" /etc/arka/arka.env | tail -n 1; }
listen=$(setting ARKA_LISTEN)
port=${listen##*:}
scheme=http
if [ -n "$(setting ARKA_TLS_CERT)" ] || [ "$(setting ARKA_TLS_SELF_SIGNED)" = true ]; then scheme=https; fi
address=$(hostname -I 2>/dev/null | awk '{print $1}')
echo
echo "Arka is running: $scheme://${address:-127.0.0.1}:${port:-8080}  (health: $scheme://127.0.0.1:${port:-8080}/healthz)"
echo "Next:"
echo "  1. Put the codes from the tax administration in /etc/arka/arka.env (ARKA_SOFT_CODE,"
echo "     ARKA_MAINTAINER_CODE), then: systemctl restart arka"
echo "  2. A partner token to register the shop: sudo -u arka arka partners create --name desk --data-dir /var/lib/arka"
echo "  3. Logs: journalctl -u arka -f     Waiting documents: sudo -u arka arka queue --data-dir /var/lib/arka"
echo "  4. Backups are taken nightly into /var/lib/arka/backups; copy them off this machine too."
