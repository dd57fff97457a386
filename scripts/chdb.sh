#!/usr/bin/env bash
# Ensures chDB's libchdb.so (ClickHouse 26.7 embedded engine) is present in a
# cache directory outside the repository and prints its absolute path as the
# last line on stdout. All logging goes to stderr.
#
#   CHNATIVE_CHDB_DIR   cache dir (default $HOME/.cache/chnative/chdb-26.7.3)
#   CHNATIVE_CHDB_PKG   npm package spec (default @chdb/lib-linux-x64-gnu@26.7.3-stable.1)
#
# Usage: export CHNATIVE_CHDB_LIB="$(scripts/chdb.sh | tail -n1)"
set -euo pipefail

pkg="${CHNATIVE_CHDB_PKG:-@chdb/lib-linux-x64-gnu@26.7.3-stable.1}"
dir="${CHNATIVE_CHDB_DIR:-$HOME/.cache/chnative/chdb-26.7.3}"

log() { printf 'chdb.sh: %s\n' "$*" >&2; }

mkdir -p "$dir"
dir="$(cd "$dir" && pwd -P)"
lib="$dir/libchdb.so"

if [[ -s "$lib" ]]; then
  log "using cached $lib"
  printf '%s\n' "$lib"
  exit 0
fi

command -v npm >/dev/null 2>&1 || { log "npm not found (apt-get install npm)"; exit 1; }
command -v tar >/dev/null 2>&1 || { log "tar not found"; exit 1; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/chnative-chdb.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

log "downloading $pkg (~180 MB) with npm pack"
(cd "$tmp" && npm pack --silent "$pkg" >"$tmp/pack.out" 2>"$tmp/pack.err") || {
  cat "$tmp/pack.err" >&2; log "npm pack failed"; exit 1; }
tgz="$(find "$tmp" -maxdepth 1 -name '*.tgz' | head -n1)"
[[ -n "$tgz" ]] || { log "npm pack produced no tarball"; exit 1; }

log "extracting $(basename "$tgz")"
mkdir -p "$tmp/x"
tar -xzf "$tgz" -C "$tmp/x"
src="$tmp/x/package/libchdb.so"
[[ -s "$src" ]] || { log "libchdb.so not found in $pkg"; exit 1; }

# Atomic install: copy next to the destination (same filesystem), then rename.
# chdb.h is installed first (if the package ships it) so that libchdb.so's
# presence implies a complete cache.
if [[ -f "$tmp/x/package/chdb.h" ]]; then
  cp "$tmp/x/package/chdb.h" "$dir/.chdb.h.tmp.$$"
  mv -f "$dir/.chdb.h.tmp.$$" "$dir/chdb.h"
fi
cp "$src" "$dir/.libchdb.so.tmp.$$"
chmod 0755 "$dir/.libchdb.so.tmp.$$"
mv -f "$dir/.libchdb.so.tmp.$$" "$lib"
printf '%s\n' "$pkg" >"$dir/.package"

log "installed $lib ($(du -h "$lib" | cut -f1))"
printf '%s\n' "$lib"
