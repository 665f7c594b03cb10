#!/usr/bin/env bash
# The examples' OpenAPI documents, written by the fnapi command, linted by Redocly (recommended rules)
# and Spectral (spectral:oas): any error or warning fails.
set -euo pipefail
cd "$(dirname "$0")/.."
for example in basic uploads; do
  out=$(mktemp -d)/openapi.json
  NODE_OPTIONS=--conditions=@fnapi/source node --import tsx packages/dev/src/cli.ts openapi "examples/$example/src/document.ts" -o "$out"
  pnpm exec redocly lint "$out" --format=stylish
  pnpm exec spectral lint "$out" --ruleset .spectral.yaml --fail-severity=warn
done
