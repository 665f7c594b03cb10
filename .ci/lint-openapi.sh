#!/usr/bin/env bash
# Every example's OpenAPI document, as 3.1 and as 3.2, written by the fnapi command and linted by Redocly
# (recommended rules) and Spectral (spectral:oas): any error fails.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for entry in examples/*/src/document.ts; do
  example=$(basename "$(dirname "$(dirname "$entry")")")
  for version in 3.1.0 3.2.0; do
    file="$out/$example-$version.json"
    NODE_OPTIONS=--conditions=@fnapi/source node --import tsx packages/dev/src/cli.ts openapi "$entry" -o "$file" --openapi-version "$version"
    pnpm exec redocly lint "$file" --format=stylish
    pnpm exec spectral lint "$file" --ruleset .spectral.yaml --fail-severity=error
  done
done
