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
. "$here/window.sh"
start_server "$server" '"port"'
port=$(grep -o '"port": *[0-9]*' "$work/stdout" | head -1 | grep -o '[0-9]*$')
count_window node "$here/client.mjs" "$port" "$endpoint" "$count" 50 "$warm"
echo "$(basename "$server" .ts) $endpoint: $((total / count)) instructions per request ($count requests after $warm)"
