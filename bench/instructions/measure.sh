#!/usr/bin/env bash
# Instructions per request of one server on one endpoint, counted by callgrind inside one warm process:
# the server runs under valgrind with instrumentation off, gets <warm> requests, then callgrind counts
# the next <n> requests only (callgrind_control -i on/off), so start-up, loading and most of V8's
# compiling stay out of the count. The same instructions run whatever else the machine is doing.
# Warm-up and count go over the same 50 keep-alive connections: closing the warm-up's connections
# and opening new ones would make V8 drop optimised code of node's connection handling, and the
# count would then include recompiling it (about 30,000 instructions per request, differing from
# process to process). --no-memory-reducer: V8's idle-time collections are timer-driven and, under
# valgrind's slowdown, would land in the counted window at random.
#
#   bench/instructions/measure.sh <server.ts> <endpoint> [warm=20000] [n=10000]
# e.g. bench/instructions/measure.sh bench/servers/fnapi-default.ts hello
# Needs valgrind (Debian: apt-get install valgrind). Servers load fnapi from packages/*/dist: build first.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
server=$(realpath "$1")
endpoint=$2
warm=${3:-20000}
count=${4:-10000}
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
  node --no-memory-reducer --import tsx "$server" >"$work/stdout" 2>"$work/stderr" &
pid=$!
for _ in $(seq 1 600); do grep -q '"port"' "$work/stdout" 2>/dev/null && break; sleep 0.5; done
port=$(grep -o '"port": *[0-9]*' "$work/stdout" | head -1 | grep -o '[0-9]*$')
# The client reads its go-aheads from a pipe this script holds open.
mkfifo "$work/go"
node "$here/client.mjs" "$port" "$endpoint" "$count" 50 "$warm" <"$work/go" >"$work/client" &
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
echo "$(basename "$server" .ts) $endpoint: $((total / count)) instructions per request ($count requests after $warm)"
