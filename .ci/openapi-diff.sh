#!/usr/bin/env bash
# The examples' clients, held to the last release: each example's document (from its entry module,
# examples/<name>/src/document.ts) is compared with the one committed at the release,
# docs/openapi/<name>.json, and a change that would break a client generated from that document fails
# the run. Deprecations and informational changes are printed and pass.
#
#   .ci/openapi-diff.sh            compare (what CI runs; needs `pnpm build` first)
#   .ci/openapi-diff.sh --refresh  rewrite docs/openapi/*.json from the examples (on release)
set -euo pipefail
cd "$(dirname "$0")/.."

fnapi() { FNAPI_LOG_LEVEL=silent node packages/dev/dist/cli.js "$@"; }

status=0
for entry in examples/*/src/document.ts; do
  name=$(basename "$(dirname "$(dirname "$entry")")")
  committed="docs/openapi/$name.json"
  if [ "${1:-}" = "--refresh" ]; then
    mkdir -p docs/openapi
    fnapi openapi "$entry" -o "$committed"
    continue
  fi
  if [ ! -f "$committed" ]; then
    echo "$committed is missing: a new example's document is committed with .ci/openapi-diff.sh --refresh" >&2
    status=1
    continue
  fi
  echo "== $name: $committed -> $entry"
  code=0
  fnapi openapi diff "$committed" "$entry" --fail-on breaking || code=$?
  if [ "$code" -ne 0 ]; then status=$code; fi
done
exit "$status"
