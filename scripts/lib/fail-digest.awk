# fail-digest.awk: from a `go test -v` log, each failed test that has no failed subtest, with the
# last lines it logged (its error among them: a test's closing logs come after it), each panic
# with the lines after it, and each failed package's FAIL line (a package killed, or whose build
# failed, names no test). scripts/test.sh prints this digest at the end of a CI run, where
# a run's tail is what a reader sees first. Usage: awk -v keep=N -f fail-digest.awk LOG
BEGIN { if (keep == "") keep = 4 }
/^=== (RUN|CONT|NAME) / { cur = $3; next }
/^=== / { next }
/^ *--- FAIL: / {
	name = $3
	order[++n] = name
	parent = name
	while (sub(/\/[^\/]*$/, "", parent)) hasFailedChild[parent] = 1
	next
}
/^FAIL[ \t]/ || /^signal: / || /^exit status / { other[++no] = $0; next } # a package's end: its name, and why
/^ *--- (PASS|SKIP): / || /^(PASS|ok)[ \t]/ || /^(PASS|FAIL)$/ { next }
/^panic: / { panics[++np] = $0; after = 3; next }
after > 0 { panics[++np] = $0; after--; next }
cur != "" {
	c = ++count[cur]
	lines[cur, c] = $0
}
END {
	for (i = 1; i <= n; i++) {
		name = order[i]
		if (name in hasFailedChild || seen[name]++) continue
		print "--- FAIL: " name
		from = count[name] - keep + 1
		if (from < 1) from = 1
		for (c = from; c <= count[name]; c++) print lines[name, c]
	}
	for (i = 1; i <= np; i++) print panics[i]
	for (i = 1; i <= no; i++) print other[i]
}
