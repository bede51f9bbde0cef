#!/usr/bin/env bash
# Release binaries: static ones for Linux on x86_64 and aarch64 (musl libc, OpenSSL and SQLite built
# in), checked to be static and smoke-tested (the aarch64 one under qemu-aarch64-static); and
# arka.exe for 64-bit Windows (mingw-w64, OpenSSL and SQLite built in), checked to import only
# Windows' own DLLs, smoke-tested under wine, and packed into the installer arka-setup.exe (nsis).
#
#   install/build-release.sh [TARGET...]     default: x86_64-unknown-linux-musl
#                                            aarch64-unknown-linux-musl x86_64-pc-windows-gnu
#
# Results: dist/arka-<target>, dist/arka-x86_64-pc-windows-gnu.exe and dist/arka-setup.exe, and at
# the end a Markdown table of what was built (size, linking, smoke test, start-up), the one
# docs/src/operations.md shows, headed by the commit and the date. Installs
# what it needs on a fresh Debian machine (run as root or with sudo available): rustup targets,
# Debian's musl-tools, qemu-user-static, mingw-w64, wine64, nsis, file, perl, make, curl, jq, and zig
# with cargo-zigbuild from PyPI for aarch64 (Debian has no aarch64 musl cross compiler).
set -euo pipefail
cd "$(dirname "$0")/.."

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(x86_64-unknown-linux-musl aarch64-unknown-linux-musl x86_64-pc-windows-gnu)
building() { [[ " ${targets[*]} " == *" $1 "* ]]; }

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

need=()
building x86_64-unknown-linux-musl && ! command -v musl-gcc >/dev/null && need+=(musl-tools)
building aarch64-unknown-linux-musl && ! command -v qemu-aarch64-static >/dev/null && need+=(qemu-user-static)
if building x86_64-pc-windows-gnu; then
  command -v x86_64-w64-mingw32-gcc >/dev/null || need+=(mingw-w64)
  [ -x /usr/lib/wine/wine64 ] || need+=(wine64)
  command -v makensis >/dev/null || need+=(nsis)
fi
for tool in file perl make curl jq; do command -v "$tool" >/dev/null || need+=("$tool"); done
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq "${need[@]}"
fi
for target in "${targets[@]}"; do
  rustup target list --installed | grep -qx "$target" || rustup target add "$target"
done
if building aarch64-unknown-linux-musl && ! command -v cargo-zigbuild >/dev/null; then
  python3 -m pip install --quiet 'ziglang==0.15.2' 'cargo-zigbuild==0.24.0'
fi

# The DLLs arka.exe may import: Windows' own (the C runtime msvcrt.dll ships with every Windows).
windows_dlls=" advapi32.dll bcrypt.dll bcryptprimitives.dll crypt32.dll kernel32.dll msvcrt.dll ntdll.dll \
  iphlpapi.dll ole32.dll oleaut32.dll secur32.dll shell32.dll user32.dll userenv.dll ws2_32.dll api-ms-win-core-synch-l1-2-0.dll "

check_static() {
  local bin=$1 description ldd_says
  description=$(file -b "$bin")
  echo "file: $description"
  [[ $description == *"statically linked"* || $description == *"static-pie linked"* ]] ||
    { echo "$bin is not statically linked" >&2; exit 1; }
  ldd_says=$(ldd "$bin" 2>&1 || true)
  echo "ldd: $ldd_says"
  [[ $ldd_says == *"not a dynamic executable"* || $ldd_says == *"statically linked"* ]] ||
    { echo "ldd finds dynamic dependencies in $bin" >&2; exit 1; }
}

check_windows_imports() {
  local bin=$1 dll imports
  echo "file: $(file -b "$bin")"
  imports=$(x86_64-w64-mingw32-objdump -p "$bin" | sed -n 's/^[[:space:]]*DLL Name: //p' | tr '[:upper:]' '[:lower:]' | sort -u)
  echo "imports: $(tr '\n' ' ' <<<"$imports")"
  for dll in $imports; do
    [[ $windows_dlls == *" $dll "* ]] || { echo "$bin imports $dll, which Windows does not ship" >&2; exit 1; }
  done
}

# The sandbox smoke test under wine, in a prefix of its own that goes away afterwards.
smoke_test_under_wine() {
  local bin=$1 status=0
  WINEPREFIX=$(mktemp -d)
  export WINEPREFIX WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
  /usr/lib/wine/wine64 wineboot --init >/dev/null 2>&1
  # wine 8 has no bcryptprimitives.dll (Rust's std draws random bytes from it): a stand-in.
  x86_64-w64-mingw32-gcc -shared -O2 -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
    install/windows/wine-bcryptprimitives.c -ladvapi32
  install/smoke-test.sh "$bin" /usr/lib/wine/wine64 || status=$?
  wineserver -k || true
  rm -rf "$WINEPREFIX"
  unset WINEPREFIX
  return "$status"
}

# One row of the closing table per target, built as each target passes its checks.
rows=()
# row TARGET BIN LINKED SMOKE_LOG SMOKE_WHERE SECONDS: the table's row for a binary that passed.
row() {
  local target=$1 bin=$2 linked=$3 smoke_log=$4 smoke_where=$5 seconds=$6 bytes startup
  bytes=$(stat -c %s "$bin")
  startup=$(sed -n 's/^start-up to first answer: \([0-9]*\) ms (fresh data dir), \([0-9]*\) ms (existing data dir)$/\1 ms \/ \2 ms/p' "$smoke_log")
  rows+=("| \`$target\` | $(sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$bytes") | $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }') | $linked | passed$smoke_where | ${startup:-?} | $seconds s |")
}

# How `file` says a Linux binary is linked, in the table's words.
linked_as() {
  local description
  description=$(file -b "$1")
  case $description in
    *static-pie*) echo -n "static-pie" ;;
    *) echo -n "static" ;;
  esac
  [[ $description == *", stripped"* ]] && echo -n ", stripped"
  echo
}

# SQLite's extensions that libsqlite3-sys compiles in and no SQL of Arka's uses: FTS3 (the invoice
# search is FTS5, kept, as is JSON), R*Tree, the dbstat table, soundex(), and loading extensions.
export LIBSQLITE3_FLAGS="-USQLITE_ENABLE_FTS3 -USQLITE_ENABLE_FTS3_PARENTHESIS -USQLITE_ENABLE_RTREE \
  -USQLITE_ENABLE_DBSTAT_VTAB -USQLITE_SOUNDEX -USQLITE_ENABLE_LOAD_EXTENSION -DSQLITE_OMIT_LOAD_EXTENSION"

# OpenSSL's Configure options for the Linux binaries: openssl-src's own (static, no tests, no
# compression, no SSL 3, no weak or national ciphers, no engines, no async), then every part that
# nothing Arka does calls. Kept: TLS 1.2 and 1.3 with AES-GCM over ECDHE (P-256, X25519) and
# RSA/ECDSA certificates (native-tls to the CIS and PostgreSQL, the HTTPS server, whose acceptor
# also sets DH parameters: `dh` stays), RSA signing, X.509 and PKCS#8/PKCS#12 with the legacy
# provider built in (RC2-40 and 3DES .p12 files), SHA-1/2, MD5 (the IIC), HMAC and the KDFs.
# Left out: DTLS and QUIC, TLS 1.0/1.1, ChaCha20-Poly1305 (every TLS peer here offers
# AES-GCM), SRP, PSK, SCTP, CMS, CT, OCSP, CMP/CRMF, TS, HTTP, SM2/3/4, ARIA, Blowfish, CAST,
# MD4, MDC2, RIPEMD, Whirlpool, SipHash, BLAKE2, Argon2, scrypt, SIV, OCB, EC over binary fields,
# DSA, the post-quantum ML-KEM/ML-DSA/SLH-DSA/LMS, the TLS trace, config file autoloading
# (a static binary has no openssl.cnf), thread pools, the command-line tool and the docs.
openssl_options=(no-shared no-module no-tests no-comp no-zlib no-zlib-dynamic no-ssl3 no-md2 no-rc5
  no-weak-ssl-ciphers no-camellia no-idea no-seed no-engine no-async no-apps no-docs no-dso no-aria
  no-argon2 no-bf no-blake2 no-cast no-cmp no-cms no-ct no-dgram no-dsa no-dtls no-ec2m no-gost
  no-lms no-md4 no-mdc2 no-ml-dsa no-ml-kem no-slh-dsa no-multiblock no-nextprotoneg no-ocb no-ocsp
  no-psk no-quic no-rc4 no-rfc3779 no-rmd160 no-scrypt no-siphash no-siv no-sm2 no-sm3 no-sm4 no-srp
  no-srtp no-ts no-whirlpool no-ui-console no-tls1 no-tls1_1 no-http no-filenames no-thread-pool
  no-default-thread-pool no-ssl-trace no-integrity-only-ciphers no-autoload-config no-chacha
  no-poly1305)

# build_openssl TARGET OS CC AR RANLIB CFLAGS: OpenSSL built from the sources of the openssl-src crate that
# Cargo.lock pins (the version the vendored builds use) with `openssl_options`, installed into the
# target folder under a name that holds a hash of everything that shapes it (built once; another
# option, flag or version builds anew); prints the folder, which openssl-sys then links
# statically through <TARGET>_OPENSSL_DIR instead of building its own.
build_openssl() {
  local target=$1 os=$2 cc=$3 ar=$4 ranlib=$5 cflags=$6 manifest sources key prefix work
  manifest=$(cargo metadata --locked --format-version 1 |
    jq -er '.packages[] | select(.name == "openssl-src") | .manifest_path')
  sources=$(dirname "$manifest")/openssl
  key=$(printf '%s\n' "$sources" "$os" "$cc" "$ar" "$cflags" "${openssl_options[@]}" | sha256sum | cut -c1-12)
  prefix=${CARGO_TARGET_DIR:-$PWD/target}/openssl-$target-$key
  if [ ! -f "$prefix/lib/libcrypto.a" ]; then
    work=${CARGO_TARGET_DIR:-$PWD/target}/openssl-build-$target
    rm -rf "$work" "$prefix"
    cp -a "$sources" "$work"
    # shellcheck disable=SC2086 # cflags holds several flags
    (cd "$work" && env -u CROSS_COMPILE AR="$ar" RANLIB="$ranlib" CC="$cc" perl ./Configure \
      --prefix="$prefix" --openssldir=/usr/local/ssl --libdir=lib "${openssl_options[@]}" "$os" $cflags &&
      make -j"$(nproc)" build_libs && make install_dev) >"$work.log" 2>&1 ||
      { tail -n 30 "$work.log" >&2; echo "building OpenSSL for $target failed (log: $work.log)" >&2; exit 1; }
    rm -rf "$work"
  fi
  echo "$prefix"
}

mkdir -p dist
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
smoke_log=$(mktemp)
trap 'rm -f "$smoke_log"' EXIT
for target in "${targets[@]}"; do
  echo "== $target"
  started=$(date +%s)
  bin=dist/arka-$target
  built=arka
  case $target in
    x86_64-unknown-linux-musl)
      # Debian's musl-gcc has no kernel headers; OpenSSL's build needs a few (linux/mman.h, ...).
      # A fixed folder: the C flags name it, and flags that change rebuild OpenSSL and SQLite.
      kernel_headers=${CARGO_TARGET_DIR:-$PWD/target}/musl-kernel-headers
      mkdir -p "$kernel_headers"
      for dir in linux asm asm-generic; do
        src=/usr/include/$dir
        [ -d "$src" ] || src=/usr/include/x86_64-linux-gnu/$dir
        ln -sfn "$src" "$kernel_headers/$dir"
      done
      # OpenSSL's assembly generators ask the C compiler's assembler for its version and leave out
      # what it cannot assemble. Told 2.29, the last before VAES and VPCLMULQDQ, they leave out
      # the AES routines that use those AVX-512 instructions (AES-GCM's alone is 0.7 MB, for bulk
      # encryption on servers; a shop sends the CIS a few KB) and keep everything else: AES-NI,
      # AVX2, SHA, and RSA's ADX and AVX-512 IFMA code.
      # The version is in the wrapper's name: the name is the C compiler cargo sees, so another
      # answer rebuilds OpenSSL.
      no_vaes=${CARGO_TARGET_DIR:-$PWD/target}/musl-gcc-as-2.29
      printf '%s\n' '#!/bin/sh' \
        'if [ "$*" = "-Wa,-v -c -o /dev/null -x assembler /dev/null" ]; then' \
        '  echo "GNU assembler version 2.29 (no VAES: AVX-512 AES left out)"' \
        '  exit 0' \
        'fi' \
        'exec musl-gcc "$@"' >"$no_vaes"
      chmod +x "$no_vaes"
      # C flags: -Os, OpenSSL's and SQLite's C at size over speed (their hot paths, RSA's big
      # numbers, AES and SHA, are assembly either way); no unwinding tables for C, through which
      # no panic unwinds (rusqlite and rust-openssl catch a panic in a callback before it
      # returns to C). For OpenSSL: P-256 by its generic code, not the x86_64 assembly that
      # carries a 150 KB table of precomputed points (a shop does a few handshakes an hour),
      # and OPENSSL_SMALL_FOOTPRINT, its own choice of smaller C where a table or an unrolled
      # loop only buys speed.
      c_flags="-Os -idirafter $kernel_headers -fno-asynchronous-unwind-tables -fno-unwind-tables"
      openssl_dir=$(build_openssl "$target" linux-x86_64 "$no_vaes" ar ranlib \
        "$c_flags -ffunction-sections -fdata-sections -fPIC -m64 -march=x86-64 -w \
          -DOPENSSL_NO_SECURE_MEMORY -UECP_NISTZ256_ASM -DOPENSSL_SMALL_FOOTPRINT")
      echo "OpenSSL: $openssl_dir"
      X86_64_UNKNOWN_LINUX_MUSL_OPENSSL_NO_VENDOR=1 X86_64_UNKNOWN_LINUX_MUSL_OPENSSL_STATIC=1 \
        X86_64_UNKNOWN_LINUX_MUSL_OPENSSL_DIR=$openssl_dir \
        CC_x86_64_unknown_linux_musl=$no_vaes CFLAGS_x86_64_unknown_linux_musl="$c_flags" \
        cargo build -p arka --profile dist --locked --features static --target "$target"
      ;;
    aarch64-unknown-linux-musl)
      # The same OpenSSL as x86_64's (and the same C flags), compiled by zig through
      # cargo-zigbuild, which the Rust build links with: P-256 by OpenSSL's generic code here too
      # (AArch64's assembly for it carries the same kind of table), and no SM2 at all.
      zig_tools=${CARGO_TARGET_DIR:-$PWD/target}/zig-aarch64-linux-musl
      mkdir -p "$zig_tools"
      for tool in cc ar ranlib; do
        case $tool in
          cc) args='cc -- -target aarch64-linux-musl' ;;
          *) args="$tool --" ;;
        esac
        printf '%s\n' '#!/bin/sh' "exec cargo-zigbuild zig $args \"\$@\"" >"$zig_tools/$tool"
        chmod +x "$zig_tools/$tool"
      done
      c_flags="-Os -fno-asynchronous-unwind-tables -fno-unwind-tables"
      openssl_dir=$(build_openssl "$target" linux-aarch64 "$zig_tools/cc" "$zig_tools/ar" "$zig_tools/ranlib" \
        "$c_flags -ffunction-sections -fdata-sections -fPIC -w -DOPENSSL_NO_SECURE_MEMORY -UECP_NISTZ256_ASM \
          -DOPENSSL_SMALL_FOOTPRINT")
      echo "OpenSSL: $openssl_dir"
      AARCH64_UNKNOWN_LINUX_MUSL_OPENSSL_NO_VENDOR=1 AARCH64_UNKNOWN_LINUX_MUSL_OPENSSL_STATIC=1 \
        AARCH64_UNKNOWN_LINUX_MUSL_OPENSSL_DIR=$openssl_dir CFLAGS_aarch64_unknown_linux_musl="$c_flags" \
        cargo zigbuild -p arka --profile dist --locked --features static --target "$target"
      ;;
    x86_64-pc-windows-gnu)
      # mingw-w64's gcc builds OpenSSL and SQLite; Rust links its own C runtime pieces statically.
      cargo build -p arka --profile dist --locked --features static --target "$target"
      bin=dist/arka-$target.exe
      built=arka.exe
      ;;
    *)
      echo "unknown target $target" >&2
      exit 1
      ;;
  esac
  seconds=$(($(date +%s) - started))
  echo "built $target in $seconds s"
  cp "${CARGO_TARGET_DIR:-target}/$target/dist/$built" "$bin"

  case $target in
    *-windows-*) check_windows_imports "$bin" ;;
    *) check_static "$bin" ;;
  esac
  echo "size: $(stat -c %s "$bin") bytes"

  case $target in
    aarch64-*)
      install/smoke-test.sh "$bin" qemu-aarch64-static | tee "$smoke_log"
      row "$target" "$bin" "$(linked_as "$bin")" "$smoke_log" " under \`qemu-aarch64-static\`" "$seconds"
      ;;
    *-windows-*)
      smoke_test_under_wine "$bin" | tee "$smoke_log"
      makensis -WX -V2 -DVERSION="$version" -DARKA_EXE="$PWD/$bin" -DOUTFILE="$PWD/dist/arka-setup.exe" \
        install/windows/arka.nsi
      echo "installer: dist/arka-setup.exe, $(stat -c %s dist/arka-setup.exe) bytes"
      row "$target" "$bin" "Windows' own DLLs only" "$smoke_log" " under \`wine64\`" "$seconds"
      ;;
    *)
      install/smoke-test.sh "$bin" | tee "$smoke_log"
      row "$target" "$bin" "$(linked_as "$bin")" "$smoke_log" "" "$seconds"
      ;;
  esac
done

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit with uncommitted changes"
echo
echo "Built by \`install/build-release.sh\` from commit $commit on $(date -u +%F) ($(rustc -V | cut -d' ' -f1-2),"
echo "$(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg) at the end; start-up is spawn to the first HTTP answer):"
echo
echo "| Target | Bytes | MiB | Linked | Sandbox smoke test | Start-up, fresh / existing data dir | Build time |"
echo "| --- | ---: | ---: | --- | --- | --- | ---: |"
printf '%s\n' "${rows[@]}"
