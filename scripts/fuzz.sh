#!/usr/bin/env bash
# scripts/fuzz.sh — runs every fuzz target of the root module for FUZZTIME each (default 5m),
# JOBS targets at a time (default 2), one worker each. A failure leaves its input under the
# package's testdata/fuzz/, where plain `go test` then replays it as a regression seed.
#
#   FUZZTIME=5m JOBS=2 scripts/fuzz.sh [pattern]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
FUZZTIME="${FUZZTIME:-5m}"
JOBS="${JOBS:-2}"
pattern="${1:-.}"
mapfile -t targets < <(grep -rn --include='*_test.go' '^func Fuzz' . |
	sed -E 's#^\./(.*)/[^/]*_test\.go:[0-9]+:func (Fuzz[A-Za-z0-9_]*).*#\1 \2#; s#^\./[^/]*_test\.go:[0-9]+:func (Fuzz[A-Za-z0-9_]*).*#. \1#' |
	grep -E "$pattern" | sort -u)
status=0
run() {
	local pkg="$1" target="$2"
	local log
	log="$(mktemp)"
	local start=$SECONDS
	if go test "./$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -parallel 1 >"$log" 2>&1; then
		echo "ok    $pkg $target $((SECONDS - start))s $(grep -o 'execs: [0-9]*' "$log" | tail -1)"
	else
		echo "FAIL  $pkg $target"
		cat "$log"
		return 1
	fi
}
running=0
for t in "${targets[@]}"; do
	# shellcheck disable=SC2086
	run $t &
	running=$((running + 1))
	if ((running >= JOBS)); then
		wait -n || status=1
		running=$((running - 1))
	fi
done
while ((running > 0)); do
	wait -n || status=1
	running=$((running - 1))
done
exit $status
