#!/usr/bin/env bash
# Static release binaries for Linux on x86_64 and aarch64 (musl libc, OpenSSL and SQLite built in),
# checked to be static and smoke-tested (the aarch64 one under qemu-aarch64-static).
#
#   install/build-release.sh [TARGET...]     default: x86_64-unknown-linux-musl aarch64-unknown-linux-musl
#
# Results: dist/arka-<target>. Installs what it needs on a fresh Debian machine (run as root or with
# sudo available): rustup targets, Debian's musl-tools, qemu-user-static, file, perl, make, curl, jq,
# and zig with cargo-zigbuild from PyPI for aarch64 (Debian has no aarch64 musl cross compiler).
set -euo pipefail
cd "$(dirname "$0")/.."

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(x86_64-unknown-linux-musl aarch64-unknown-linux-musl)

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

need=()
command -v musl-gcc >/dev/null || need+=(musl-tools)
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
for tool in file perl make curl jq; do command -v "$tool" >/dev/null || need+=("$tool"); done
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq "${need[@]}"
fi
for target in "${targets[@]}"; do
  rustup target list --installed | grep -qx "$target" || rustup target add "$target"
done
if [[ " ${targets[*]} " == *" aarch64-unknown-linux-musl "* ]] && ! command -v cargo-zigbuild >/dev/null; then
  python3 -m pip install --quiet 'ziglang==0.15.2' 'cargo-zigbuild==0.24.0'
fi

mkdir -p dist
for target in "${targets[@]}"; do
  echo "== $target"
  started=$(date +%s)
  case $target in
    x86_64-unknown-linux-musl)
      # Debian's musl-gcc has no kernel headers; OpenSSL's build needs a few (linux/mman.h, ...).
      kernel_headers=$(mktemp -d)
      for dir in linux asm asm-generic; do
        src=/usr/include/$dir
        [ -d "$src" ] || src=/usr/include/x86_64-linux-gnu/$dir
        ln -s "$src" "$kernel_headers/$dir"
      done
      CC_x86_64_unknown_linux_musl=musl-gcc \
        CFLAGS_x86_64_unknown_linux_musl="-idirafter $kernel_headers" \
        cargo build -p arka --profile dist --locked --features static --target "$target"
      rm -rf "$kernel_headers"
      ;;
    aarch64-unknown-linux-musl)
      cargo zigbuild -p arka --profile dist --locked --features static --target "$target"
      ;;
    *)
      echo "unknown target $target" >&2
      exit 1
      ;;
  esac
  echo "built $target in $(($(date +%s) - started)) s"
  cp "${CARGO_TARGET_DIR:-target}/$target/dist/arka" "dist/arka-$target"
  bin=dist/arka-$target

  description=$(file -b "$bin")
  echo "file: $description"
  [[ $description == *"statically linked"* || $description == *"static-pie linked"* ]] ||
    { echo "$bin is not statically linked" >&2; exit 1; }
  ldd_says=$(ldd "$bin" 2>&1 || true)
  echo "ldd: $ldd_says"
  [[ $ldd_says == *"not a dynamic executable"* || $ldd_says == *"statically linked"* ]] ||
    { echo "ldd finds dynamic dependencies in $bin" >&2; exit 1; }
  echo "size: $(stat -c %s "$bin") bytes"

  case $target in
    aarch64-*) install/smoke-test.sh "$bin" qemu-aarch64-static ;;
    *) install/smoke-test.sh "$bin" ;;
  esac
done
