# Shared by measure.sh and measure-ws.sh (sourced): start a server under callgrind with instrumentation
# off, let a client warm it up, count the client's next batch only, and total the instructions.
# Warm-up and count go over the same connections; the client waits on a pipe between them.

work=$(mktemp -d)
client=
pid=
cleanup() {
  exec 3>&- 2>/dev/null || true
  [ -n "$client" ] && kill "$client" 2>/dev/null || true
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# start_server <server.ts> <line on stdout that says it is up>: runs it under callgrind; sets $pid.
start_server() {
  cd "$(dirname "$1")"
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/out.%p" \
    node --no-memory-reducer --import tsx "$1" </dev/null >"$work/stdout" 2>"$work/stderr" &
  pid=$!
  for _ in $(seq 1 600); do grep -q "$2" "$work/stdout" 2>/dev/null && break; sleep 0.5; done
}

waitfor() {
  until grep -q "$1" "$work/client" 2>/dev/null; do
    kill -0 "$client" 2>/dev/null || { echo "the client stopped before '$1'" >&2; exit 1; }
    sleep 0.05
  done
}

# count_window <client command…>: the client prints "warm", reads a line, prints "counted", reads a
# line, then closes; instructions are counted between the two lines. Sets $total, the server's count.
count_window() {
  mkfifo "$work/go"
  "$@" <"$work/go" >"$work/client" &
  client=$!
  exec 3>"$work/go"
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
  pid=
  total=0
  local n
  for file in "$work"/out.*; do
    n=$(grep -m1 '^totals:' "$file" | awk '{print $2}')
    total=$((total + ${n:-0}))
  done
}
