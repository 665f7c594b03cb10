#!/usr/bin/env bash
# Instructions per request of one server on one endpoint, counted by callgrind inside one warm process:
# the server runs under valgrind with instrumentation off, gets <warm> requests, then callgrind counts
# the next <n> requests only (callgrind_control -i on/off), so start-up, loading and most of V8's
# compiling stay out of the count. The same instructions run whatever else the machine is doing.
# --no-memory-reducer: V8's idle-time collections are timer-driven and, under valgrind's slowdown,
# would land in the counted window at random.
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
trap 'rm -rf "$work"' EXIT
cd "$(dirname "$server")"
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/out.%p" \
  node --no-memory-reducer --import tsx "$server" >"$work/stdout" 2>"$work/stderr" &
pid=$!
for _ in $(seq 1 600); do grep -q '"port"' "$work/stdout" 2>/dev/null && break; sleep 0.5; done
port=$(grep -o '"port": *[0-9]*' "$work/stdout" | head -1 | grep -o '[0-9]*$')
node "$here/client.mjs" "$port" "$endpoint" "$warm"
callgrind_control -i on "$pid" >/dev/null
nice -n -10 node "$here/client.mjs" "$port" "$endpoint" "$count"
callgrind_control -i off "$pid" >/dev/null
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
