#!/usr/bin/env bash
# What a user's `npm install` of @fnapi/core, @fnapi/validation and @fnapi/openapi weighs: packs the
# three packages as they would be published (`pnpm pack` rewrites `workspace:*`), installs the tarballs
# with npm into a fresh directory and reports node_modules in total and per package, on disk (`du -sk`,
# the headline) and apparent size (`du -sk --apparent-size`, the bytes in the files).
#
#   bash bench/install-size.sh          # or: pnpm --filter @fnapi/bench install-size
#   KEEP=1 bash bench/install-size.sh   # keeps the temporary directory for a look around
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/fnapi-install-size.XXXXXX")"
if [[ "${KEEP:-}" != 1 ]]; then trap 'rm -rf "$work"' EXIT; fi
mkdir -p "$work/tarballs" "$work/app"

for pkg in validation openapi core; do
  (cd "$repo/packages/$pkg" && pnpm pack --pack-destination "$work/tarballs" >/dev/null)
done

cd "$work/app"
npm init -y >/dev/null
npm install --no-audit --no-fund --loglevel=error "$work"/tarballs/*.tgz >/dev/null

kib() { du -sk ${2:-} "$1" | cut -f1; }
mib() { awk -v k="$1" 'BEGIN { printf "%.2f", k / 1024 }'; }

echo "npm $(npm --version), node $(node --version), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo
for tarball in "$work"/tarballs/*.tgz; do
  printf '%-28s %8s KiB packed, %4d files\n' "$(basename "$tarball")" "$(kib "$tarball" --apparent-size)" \
    "$(tar -tzf "$tarball" | grep -vc '/$')"
done
echo
total_disk=$(kib node_modules)
total_apparent=$(kib node_modules --apparent-size)
echo "node_modules: $(mib "$total_disk") MiB on disk (du -sk), $(mib "$total_apparent") MiB apparent (du -sk --apparent-size)"
echo "packages installed: $(npm ls --all --parseable 2>/dev/null | tail -n +2 | sort -u | wc -l)"
echo
printf '%-40s %10s %10s  %s\n' package 'disk KiB' 'apparent' version
{
  for dir in node_modules/* node_modules/@*/*; do
    # Scope folders have no package.json; a package's nested node_modules counts towards it.
    [[ -f "$dir/package.json" ]] || continue
    version=$(node -p "require('./$dir/package.json').version")
    printf '%-40s %10s %10s  %s\n' "${dir#node_modules/}" "$(kib "$dir")" "$(kib "$dir" --apparent-size)" "$version"
  done
} | sort -k2,2nr
echo
echo 'inside the @fnapi packages (disk KiB, apparent KiB):'
for dir in node_modules/@fnapi/*; do
  for part in "$dir"/*; do
    printf '  %-38s %8s %8s\n' "${part#node_modules/}" "$(kib "$part")" "$(kib "$part" --apparent-size)"
  done
done
if [[ "${KEEP:-}" == 1 ]]; then echo; echo "kept: $work/app"; fi
