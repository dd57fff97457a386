package main

import (
	"regexp"
	"strconv"
	"strings"
)

// stepRun is what a run.sh step's output file holds: its benchmark arms in first-seen order,
// each arm's samples per metric unit ("ns/row", "cpu-ns/row", ...), and its header lines
// (revision, date, load; "# " comment lines with keepComments).
type stepRun struct {
	order []string
	arms  map[string]map[string][]float64
	head  []string
}

// parseStep reads out with re, whose first submatch is the arm's name and whose last holds the
// metrics ("value unit" pairs after the iteration count).
func parseStep(out string, re *regexp.Regexp, keepComments bool) stepRun {
	r := stepRun{arms: map[string]map[string][]float64{}}
	prefixes := []string{"revision: ", "date: ", "load: "}
	if keepComments {
		prefixes = append(prefixes, "# ")
	}
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		for _, p := range prefixes {
			if strings.HasPrefix(t, p) {
				r.head = append(r.head, strings.TrimPrefix(t, "# "))
			}
		}
		m := re.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		name := m[1]
		a := r.arms[name]
		if a == nil {
			a = map[string][]float64{}
			r.arms[name] = a
			r.order = append(r.order, name)
		}
		f := strings.Fields(m[len(m)-1])
		for k := 0; k+1 < len(f); k += 2 {
			if v, err := strconv.ParseFloat(strings.ReplaceAll(f[k], ",", ""), 64); err == nil {
				a[f[k+1]] = append(a[f[k+1]], v)
			}
		}
	}
	return r
}

// runLine is the "Run: ..." line of a section, "" without header lines.
func (r stepRun) runLine() string {
	if len(r.head) == 0 {
		return ""
	}
	return "\nRun: " + strings.Join(r.head, "; ") + ".\n"
}
