#!/usr/bin/env bash
# Removes the Arka service and binary. The data (/var/lib/arka: database, key file, backups) and
# the settings (/etc/arka) are kept unless --purge is given.
#
#   sudo install/uninstall.sh [--purge]
set -euo pipefail
purge=false
case ${1:-} in
  --purge) purge=true ;;
  "") ;;
  *) echo "usage: $0 [--purge]" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "run it as root: sudo $0 $*" >&2; exit 1; }

if command -v systemctl >/dev/null; then
  systemctl disable --now arka 2>/dev/null || true
  rm -f /etc/systemd/system/arka.service
  systemctl daemon-reload
fi
rm -f /usr/local/bin/arka
rm -rf /usr/share/doc/arka

if $purge; then
  rm -rf /var/lib/arka /etc/arka
  if id arka >/dev/null 2>&1; then userdel arka; fi
  echo "Arka removed with its data and settings."
else
  echo "Arka removed. Kept: /var/lib/arka (database, key file, backups) and /etc/arka (settings)."
  echo "Remove them too with: sudo $0 --purge"
fi
