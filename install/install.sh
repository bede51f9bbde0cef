#!/usr/bin/env bash
# Installs Arka as a system service on a Debian-like Linux (run as root from the repo, after
# `cargo build --release`, or pass the path of a built binary).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=${1:-$here/../target/release/arka}
[ -x "$binary" ] || { echo "no arka binary at $binary: run cargo build --release first" >&2; exit 1; }

id arka >/dev/null 2>&1 || useradd --system --home-dir /var/lib/arka --shell /usr/sbin/nologin arka
install -m 0755 "$binary" /usr/local/bin/arka
install -d -m 0750 /etc/arka
[ -f /etc/arka/arka.env ] || install -m 0640 -g arka "$here/arka.env" /etc/arka/arka.env
install -m 0644 "$here/arka.service" /etc/systemd/system/arka.service
systemctl daemon-reload
systemctl enable arka
echo "Edit /etc/arka/arka.env (ARKA_SOFT_CODE, ARKA_MAINTAINER_CODE), then: systemctl start arka"
echo "Partner token for registration: sudo -u arka arka partners create --name desk --data-dir /var/lib/arka"
