#!/usr/bin/env bash
# The sandbox smoke test of a built binary: start `serve --sandbox` on loopback with a fresh data
# dir, register, on-board, issue a cash invoice, read its PDF, stop with SIGTERM (exit 0 expected).
# Prints the start-up time (spawn to the first HTTP answer) for a fresh and a used data dir.
#
#   install/smoke-test.sh BINARY [RUNNER]     e.g. install/smoke-test.sh dist/arka-aarch64 qemu-aarch64-static
#                                                  install/smoke-test.sh dist/arka.exe /usr/lib/wine/wine64
#
# A Windows binary (*.exe) is stopped with SIGINT instead: wine hands it to the program as Ctrl-C,
# which Arka treats as SIGTERM (wine ends a program on SIGTERM without telling it).
# Needs curl and jq. Every request and wait is bounded; the server is stopped on any failure.
set -euo pipefail

binary=${1:?usage: smoke-test.sh BINARY [RUNNER]}
runner=${2:-}
for tool in curl jq; do
  command -v "$tool" >/dev/null || { echo "smoke-test: $tool is needed (apt-get install $tool)" >&2; exit 1; }
done

stop_signal=TERM
case $binary in *.exe) stop_signal=INT ;; esac

work=$(mktemp -d)
pid=
stop_server() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -"$stop_signal" "$pid"
    for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
  pid=
}
trap 'stop_server; rm -rf "$work"' EXIT
fail() { echo "smoke-test FAILED: $*" >&2; [ -f "$work/err" ] && tail -n 20 "$work/err" >&2; exit 1; }

now_ms() { date +%s%3N; }

# Starts the server; sets pid, base and startup_ms.
start_server() {
  : >"$work/out"
  local started
  started=$(now_ms)
  # shellcheck disable=SC2086 # the runner is a command name or nothing
  $runner "$binary" serve --sandbox --listen 127.0.0.1:0 --data-dir "$work/data" >"$work/out" 2>"$work/err" &
  pid=$!
  base=
  for _ in $(seq 1 1000); do
    kill -0 "$pid" 2>/dev/null || fail "the server exited while starting"
    if [ -z "$base" ]; then
      base=$(sed -n 's/^Arka sandbox on \(https\?:\/\/[^ ]*\).*/\1/p' "$work/out" | head -n 1)
    fi
    if [ -n "$base" ] && [ "$(curl -s -m 2 -o /dev/null -w '%{http_code}' "$base/healthz")" != 000 ]; then
      startup_ms=$(($(now_ms) - started))
      return
    fi
    sleep 0.005
  done
  fail "the server did not answer within the wait"
}

# call METHOD PATH [curl args...]: the JSON answer; fails unless the HTTP status is 2xx.
call() {
  local method=$1 path=$2
  shift 2
  local status
  status=$(curl -sS -m 30 -o "$work/body" -w '%{http_code}' -X "$method" "$base/api/v1$path" "$@") ||
    fail "$method $path: no answer"
  case $status in
    2??) cat "$work/body" ;;
    *) fail "$method $path answered $status: $(head -c 500 "$work/body")" ;;
  esac
}
json() { call "$1" "$2" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -d "$3"; }

start_server
first_start_ms=$startup_ms

token=arka_p_sandbox
registered=$(json POST /register '{"nuis":"K00000001S","name":"Dyqani Smoke","address":"Rruga e Durrësit 10",
  "administrator":"Ana Hoxha","phone":"+355691234567","email":"smoke@dyqani.al","issuerInVat":true,
  "lastNonCashEInvoiceNumber":0}')
token=$(jq -er .data.api_token <<<"$registered") || fail "no api_token"
branch=$(jq -er .data.branch.id <<<"$registered") || fail "no branch id"
user=$(jq -er .data.user.id <<<"$registered") || fail "no user id"

json POST "/on-boarding/branch/$branch" '{"name":"Qendër","businessUnitCode":"ab123cd456",
  "address":"Rruga e Durrësit 10","city":"Tiranë"}' >/dev/null
printf 'any file does in the sandbox' >"$work/certificate.p12"
call POST /on-boarding/certificate -H "Authorization: Bearer $token" \
  -F "certificate_file=@$work/certificate.p12" -F password=secret >/dev/null
json POST /on-boarding/fiscal-device "{\"branchId\":$branch,\"name\":\"Kasa 1\",\"fromDate\":\"$(date +%F)\"}" >/dev/null
json POST "/on-boarding/user/$user" '{"operatorCode":"op123op123"}' >/dev/null

invoice=$(json POST /invoice/cash '{"internalId":"smoke-1","payment_method":"BANKNOTE","lines":[
  {"product_name":"Kafe","product_code":"K1","unit":"copë","quantity":2,"price":120,"total":240,"vat":20}]}')
id=$(jq -er .data.invoice.id <<<"$invoice") || fail "no invoice id"
fic=$(jq -er .data.invoice.fic <<<"$invoice") || fail "the invoice has no FIC: $invoice"

curl -fsS -m 30 -o "$work/invoice.pdf" -H "Authorization: Bearer $token" "$base/api/v1/invoice/print/$id" ||
  fail "the PDF could not be read"
[ "$(head -c 5 "$work/invoice.pdf")" = "%PDF-" ] || fail "the PDF is not a PDF"

kill -"$stop_signal" "$pid"
status=0
wait "$pid" || status=$?
pid=
[ "$status" -eq 0 ] || fail "the server exited with $status after SIG$stop_signal"

start_server
used_start_ms=$startup_ms
stop_server

echo "smoke-test passed: invoice $id (FIC $fic), PDF $(wc -c <"$work/invoice.pdf") bytes"
echo "start-up to first answer: ${first_start_ms} ms (fresh data dir), ${used_start_ms} ms (existing data dir)"
