#!/usr/bin/env bash
# Compares two revisions of chnative on the benchmark suite with benchstat.
#   compare.sh OLD [NEW]   NEW defaults to the working tree.
# Each revision is exported with `git archive` (read-only: no worktree, branch or index change)
# and the suite (always the working tree's conformance/bench) is built against it through a
# -modfile whose replace directive points there. Env as run.sh (BENCH_FILTER, BENCH_COUNT,
# BENCH_TIME, BENCH_QUICK); the default count here is 8, enough for benchstat's test.
set -euo pipefail
old="${1:?usage: compare.sh OLD [NEW]}"
new="${2:-}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d /tmp/chnative-bench-compare.XXXXXX)"
export BENCH_COUNT="${BENCH_COUNT:-8}" BENCH_NO_REPORT=1

if ! command -v benchstat >/dev/null && [[ ! -x "$(go env GOPATH)/bin/benchstat" ]]; then
	go install golang.org/x/perf/cmd/benchstat@latest
fi
benchstat="$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")"

prep() { # rev name -> modfile
	local rev="$1" name="$2" src
	if [[ -z "$rev" ]]; then
		src="$root"
	else
		src="$work/$name-src"
		mkdir -p "$src"
		git -C "$root" archive "$rev" | tar -x -C "$src"
	fi
	sed "s#=> \.\./\?\$#=> $src#" "$root/conformance/go.mod" >"$work/$name.mod"
	cp "$root/conformance/go.sum" "$work/$name.sum"
	echo "$work/$name.mod"
}

for side in old new; do
	rev="$old"
	[[ "$side" == new ]] && rev="$new"
	mod="$(prep "$rev" "$side")"
	echo "== $side: ${rev:-working tree}" >&2
	BENCH_MODFILE="$mod" BENCH_OUT="$work/$side.txt" "$here/run.sh" >/dev/null
done

"$benchstat" -filter '.unit:(ns/row OR cpu-ns/row OR allocs/row)' "$work/old.txt" "$work/new.txt" | tee "$work/benchstat.txt"
echo
echo "Rows that moved beyond their noise (p < 0.05; '~' rows omitted):"
awk '/^[A-Za-z]/ && $0 !~ /~/ && $0 ~ /[+-][0-9.]+%/' "$work/benchstat.txt" || true
echo "(raw outputs in $work)"
