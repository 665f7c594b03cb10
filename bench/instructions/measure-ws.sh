#!/usr/bin/env bash
# Instructions per WebSocket echo round trip of one server, counted by callgrind inside one warm
# process, as measure.sh counts HTTP requests: <warm> round trips over 16 connections with
# instrumentation off, then the next <n> over the same connections counted.
#
#   bench/instructions/measure-ws.sh <server.ts> <path> [warm=150000] [n=20000]
# e.g. bench/instructions/measure-ws.sh bench/servers/ws-bare.ts /
#      bench/instructions/measure-ws.sh bench/servers/fnapi-ws.ts /echo
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
server=$(realpath "$1")
path=$2
warm=${3:-150000}
count=${4:-20000}
work=$(mktemp -d)
client=
cleanup() {
  exec 3>&- 2>/dev/null || true
  [ -n "$client" ] && kill "$client" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
cd "$(dirname "$server")"
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/out.%p" \
  node --no-memory-reducer --import tsx "$server" <"/dev/null" >"$work/stdout" 2>"$work/stderr" &
pid=$!
for _ in $(seq 1 600); do grep -q '"url"' "$work/stdout" 2>/dev/null && break; sleep 0.5; done
url=$(grep -o '"url": *"[^"]*"' "$work/stdout" | head -1 | sed 's/.*"\(ws[^"]*\)"$/\1/')
mkfifo "$work/go"
(cd "$here/.." && node "$here/ws-client.mjs" "${url%/}$path" "$count" "$warm" <"$work/go" >"$work/client") &
client=$!
exec 3>"$work/go"
waitfor() {
  until grep -q "$1" "$work/client" 2>/dev/null; do
    kill -0 "$client" 2>/dev/null || { echo "the client stopped before '$1'" >&2; exit 1; }
    sleep 0.05
  done
}
waitfor warm
callgrind_control -i on "$pid" >/dev/null
echo go >&3
waitfor counted
callgrind_control -i off "$pid" >/dev/null
echo done >&3
exec 3>&-
wait "$client"
client=
callgrind_control -d "$pid" >/dev/null
sleep 1
kill "$pid"
wait "$pid" 2>/dev/null || true
total=0
for file in "$work"/out.*; do
  n=$(grep -m1 '^totals:' "$file" | awk '{print $2}')
  total=$((total + ${n:-0}))
done
echo "$(basename "$server" .ts) $path: $((total / count)) instructions per round trip ($count after $warm)"
