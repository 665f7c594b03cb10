#!/usr/bin/env bash
# Instructions per tool call through MCP (`tools/call` of a GET endpoint, protocol 2026-07-28, and the
# 2025-11-25 stateless path) against the same request through `app.fetch`, and the SDK's own floor
# (the same call to a bare `createMcpHandler`, no fnapi: a new server per request, and one reused as
# @fnapi/mcp reuses it, given the parsed body), counted by callgrind
# inside one warm process each (see measure.sh): the process warms up, then only its next <n>
# requests are counted.
#   bench/instructions/measure-mcp.sh [warm=2000] [n=1000] [tools=1]
# <tools>: how many endpoints the app offers as tools (one is called; see mcp-call.ts).
# Needs valgrind (Debian: apt-get install valgrind).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
warm=${1:-2000}
count=${2:-1000}
tools=${3:-1}
work=$(mktemp -d)
pid=
cleanup() {
  exec 3>&- 2>/dev/null || true
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

waitfor() {
  until grep -q "$1" "$work/stdout" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { echo "the process stopped before '$1'" >&2; cat "$work/stderr" >&2; exit 1; }
    sleep 0.1
  done
}

measure() {
  rm -f "$work"/out.* "$work/stdout" "$work/go"
  mkfifo "$work/go"
  (cd "$here" && exec valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/out.%p" \
    node --conditions=@fnapi/source --no-memory-reducer --import tsx mcp-call.ts "$1" "$warm" "$count" "$tools" \
    <"$work/go" >"$work/stdout" 2>"$work/stderr") &
  pid=$!
  exec 3>"$work/go"
  waitfor warm
  callgrind_control -i on "$pid" >/dev/null
  echo go >&3
  waitfor counted
  callgrind_control -i off "$pid" >/dev/null
  callgrind_control -d "$pid" >/dev/null
  echo done >&3
  exec 3>&-
  wait "$pid" 2>/dev/null || true
  pid=
  local total=0 n
  for file in "$work"/out.*; do
    n=$(grep -m1 '^totals:' "$file" | awk '{print $2}')
    total=$((total + ${n:-0}))
  done
  echo $((total / count))
}

fetch=$(measure fetch)
echo "app.fetch GET /books/7: $fetch instructions per request"
modern=$(measure mcp)
echo "MCP tools/call (2026-07-28) through app.fetch: $modern instructions per call ($(awk "BEGIN { printf \"%.2f\", $modern / $fetch }")×)"
legacy=$(measure mcp-2025)
echo "MCP tools/call (2025-11-25) through app.fetch: $legacy instructions per call ($(awk "BEGIN { printf \"%.2f\", $legacy / $fetch }")×)"
sdk=$(measure sdk)
echo "The same tools/call (2026-07-28) to a bare createMcpHandler, without fnapi: $sdk instructions per call ($(awk "BEGIN { printf \"%.2f\", $sdk / $fetch }")×)"
reused=$(measure sdk-reused)
echo "The same tools/call (2026-07-28) to a bare createMcpHandler reusing its server, given the parsed body, without fnapi: $reused instructions per call ($(awk "BEGIN { printf \"%.2f\", $reused / $fetch }")×)"
