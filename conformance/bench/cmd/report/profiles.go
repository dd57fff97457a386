package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Profiles of missed targets. run.sh asks the report (-missed) which arms the run's missed targets
// involve (those of Targets and of the 26.7 section), profiles each of them again with -cpuprofile,
// writes `go tool pprof -top` of each to <dir>/<name>.txt, and runs the report again with -profiles
// <dir>, which embeds them. So every missed target in BENCHMARKS.md comes with CPU profiles from
// the same run, on the same build.

// profileJob is one arm to profile: the toolchain pass it belongs to ("go" or "go127"), the
// -bench filter selecting exactly that arm, and the file name (without extension) of its profile.
type profileJob struct {
	toolchain, filter, name string
	group, arm              string
}

// jobFor returns the job profiling arm of group.
func jobFor(group, arm string) profileJob {
	tc, g := "go", group
	if strings.HasPrefix(g, go127Prefix) {
		tc, g = "go127", strings.TrimPrefix(g, go127Prefix)
	}
	parts := append(strings.Split(g, "/"), arm)
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	parts[0] = "^Benchmark" + strings.TrimPrefix(parts[0], "^")
	return profileJob{toolchain: tc, filter: strings.Join(parts, "/"), name: profileName(group, arm), group: group, arm: arm}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// profileName is the file name of the profile of arm in group.
func profileName(group, arm string) string {
	return unsafeName.ReplaceAllString(group+"_"+arm, "_")
}

// groupArm is one arm of one group.
type groupArm struct{ group, arm string }

// profiledArms returns the arms of a missed target that were run: num, den (in its own group when
// the target names one, denGroup), then explain.
func profiledArms(o outcome, groups map[string]*group) []groupArm {
	denGroup := o.t.group
	if o.t.denGroup != "" {
		denGroup = o.t.denGroup
	}
	cands := []groupArm{{o.t.group, o.t.num}, {denGroup, o.t.den}}
	for _, a := range o.t.explain {
		cands = append(cands, groupArm{o.t.group, a})
	}
	var arms []groupArm
	for _, c := range cands {
		if g := groups[c.group]; c.arm != "" && g != nil && g.byArm[c.arm] != nil {
			arms = append(arms, c)
		}
	}
	return arms
}

// missedOutcomes returns the targets of Targets (best-of-N) and then of the 26.7 server
// (modernTargetList, medians, as its section checks them) that groups ran and missed.
func missedOutcomes(groups map[string]*group) []outcome {
	var missed []outcome
	for _, o := range append(evaluate(groups), evaluateList(modernTargetList, groups, median)...) {
		if o.run && !o.met {
			missed = append(missed, o)
		}
	}
	return missed
}

// missedJobs returns the arms to profile for the missed targets of a run, each once.
func missedJobs(groups map[string]*group) []profileJob {
	var jobs []profileJob
	seen := map[string]bool{}
	for _, o := range missedOutcomes(groups) {
		for _, a := range profiledArms(o, groups) {
			j := jobFor(a.group, a.arm)
			if !seen[j.name] {
				seen[j.name] = true
				jobs = append(jobs, j)
			}
		}
	}
	return jobs
}

// printJobs writes one line per job: toolchain, filter, name.
func printJobs(groups map[string]*group) string {
	var b strings.Builder
	for _, j := range missedJobs(groups) {
		fmt.Fprintf(&b, "%s %s %s\n", j.toolchain, j.filter, j.name)
	}
	return b.String()
}

// profileFuncs is how many functions of each profile are embedded (pprof -top by flat time, the
// heaviest first); the whole text stays in results/profiles/.
const profileFuncs = 12

// profilesSection embeds the profiles in dir of the missed targets' arms.
func profilesSection(groups map[string]*group, dir, cmd string) string {
	var b strings.Builder
	n := 0
	shown := map[string]bool{} // an arm of two missed targets is shown once
	for _, o := range missedOutcomes(groups) {
		if n == 0 {
			fmt.Fprintf(&b, "## Profiles of the missed targets\n\n"+
				"CPU profiles of the code measured above, taken after the measurements (`%s` does it; "+
				"`BENCH_PROFILE_ONLY=1` takes them again without measuring): each arm of a missed target "+
				"(and the floor arm bounding it, where there is one) run again alone with `-cpuprofile`. "+
				"Shown are the benchmark line and the %d heaviest functions by flat time of `go tool pprof -top`; the whole text, by flat and "+
				"by cumulative time, is kept in `conformance/bench/results/profiles/`. A profile covers the whole client process "+
				"(the fake server and the 26.7 server run in their own), with the arm's setup, and its warm-up op unless pprof's "+
				"-tagignore=bench=warmup left it out.\n\n", cmd, profileFuncs)
		}
		n++
		fmt.Fprintf(&b, "### %s: %s\n\n", o.t.what, o.text)
		for _, a := range profiledArms(o, groups) {
			name := profileName(a.group, a.arm)
			if shown[name] {
				fmt.Fprintf(&b, "%s/%s: its profile is shown above.\n\n", a.group, a.arm)
				continue
			}
			shown[name] = true
			text, err := os.ReadFile(filepath.Join(dir, name+".txt"))
			if err != nil {
				fmt.Fprintf(&b, "%s/%s: not profiled (%s.txt missing).\n\n", a.group, a.arm, name)
				continue
			}
			fmt.Fprintf(&b, "<details><summary>%s/%s</summary>\n\n```\n%s```\n\n</details>\n\n", a.group, a.arm, topOf(string(text), profileFuncs))
		}
	}
	return b.String()
}

// topOf returns what is embedded of a profile's text: its first line (the benchmark's result
// line) and, from pprof -top's first table (by flat time), the header and the first n functions.
// A text without that table is returned as its first n lines.
func topOf(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	head := -1
	for i, l := range lines {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "flat" && f[1] == "flat%" {
			head = i
			break
		}
	}
	var out []string
	if head < 0 {
		out = lines[:min(n, len(lines))]
	} else {
		out = append([]string{lines[0]}, lines[head:min(head+1+n, len(lines))]...)
	}
	text := strings.Join(out, "")
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text
}
