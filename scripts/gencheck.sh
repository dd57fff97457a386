#!/usr/bin/env bash
# scripts/gencheck.sh — fails when a generated file differs from what its generator writes.
#
#   scripts/gencheck.sh [DIR...]    (default: every package directory with a //go:generate line)
#
# Each DIR is copied, with go.mod and go.sum, into a temporary directory; `go generate ./DIR/`
# runs there, and the copy is compared with the original (diff -r): a generated file edited by
# hand, or a generator changed without re-running it, shows as a diff and the script exits 1.
# The working tree is never written.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

dirs=("$@")
if ((${#dirs[@]} == 0)); then
	mapfile -t dirs < <(grep -rl --include='*.go' '^//go:generate ' . | grep -v -E '^\./(\.git|vendor)/' |
		xargs -r -n1 dirname | sed 's|^\./||' | sort -u)
fi
if ((${#dirs[@]} == 0)); then
	echo "gencheck: no //go:generate directive found" >&2
	exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

rc=0
for dir in "${dirs[@]}"; do
	dir="${dir%/}"
	[[ -d "$dir" ]] || {
		echo "gencheck: $dir is not a directory" >&2
		exit 2
	}
	rm -rf "${tmp:?}"/*
	mkdir -p "$tmp/$dir"
	cp go.mod go.sum "$tmp/"
	cp -R "$dir/." "$tmp/$dir/"
	if ! (cd "$tmp" && go generate "./$dir/"); then
		echo "gencheck: go generate ./$dir/ failed" >&2
		rc=1
		continue
	fi
	if ! diff -ru "$dir" "$tmp/$dir"; then
		echo "gencheck: $dir differs from what go generate writes: run go generate ./$dir/ and commit the result" >&2
		rc=1
	else
		echo "gencheck: $dir matches go generate"
	fi
done
exit "$rc"
