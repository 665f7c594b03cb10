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
. "$here/window.sh"
start_server "$server" '"url"'
url=$(grep -o '"url": *"[^"]*"' "$work/stdout" | head -1 | sed 's/.*"\(ws[^"]*\)"$/\1/')
# Run from bench/, whose node_modules hold `ws`.
cd "$here/.."
count_window node "$here/ws-client.mjs" "${url%/}$path" "$count" "$warm"
echo "$(basename "$server" .ts) $path: $((total / count)) instructions per round trip ($count after $warm)"
