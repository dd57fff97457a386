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

// profiledArms returns the arms of a missed target that were run: num, den, then explain.
func profiledArms(o outcome, groups map[string]*group) []string {
	var arms []string
	for _, a := range append([]string{o.t.num, o.t.den}, o.t.explain...) {
		if a != "" && groups[o.t.group].byArm[a] != nil {
			arms = append(arms, a)
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
			j := jobFor(o.t.group, a)
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

// profileLines bounds the lines of each profile embedded: the benchmark line, pprof -top by flat
// time and by cumulative time, 30 functions each.
const profileLines = 80

// profilesSection embeds the profiles in dir of the missed targets' arms.
func profilesSection(groups map[string]*group, dir, cmd string) string {
	var b strings.Builder
	n := 0
	for _, o := range missedOutcomes(groups) {
		if n == 0 {
			fmt.Fprintf(&b, "## Profiles of the missed targets\n\n"+
				"CPU profiles of the code measured above, taken after the measurements (`%s` does it; "+
				"`BENCH_PROFILE_ONLY=1` takes them again without measuring): each arm of a missed target "+
				"(and the floor arm bounding it, where there is one) run again alone with `-cpuprofile`. "+
				"Shown is `go tool pprof -top`, by flat and by cumulative time (at most %d lines); the profile covers the whole client process "+
				"(the fake server and the 26.7 server run in their own), with the arm's setup, and its warm-up op unless the profile's "+
				"second line says that op is left out (pprof -tagignore=bench=warmup, the label measure gives it). The text files are kept in "+
				"`conformance/bench/results/profiles/`.\n\n", cmd, profileLines)
		}
		n++
		fmt.Fprintf(&b, "### %s: %s\n\n", o.t.what, o.text)
		for _, a := range profiledArms(o, groups) {
			name := profileName(o.t.group, a)
			text, err := os.ReadFile(filepath.Join(dir, name+".txt"))
			if err != nil {
				fmt.Fprintf(&b, "%s/%s: not profiled (%s.txt missing).\n\n", o.t.group, a, name)
				continue
			}
			fmt.Fprintf(&b, "<details><summary>%s/%s</summary>\n\n```\n%s```\n\n</details>\n\n", o.t.group, a, firstLines(string(text), profileLines))
		}
	}
	return b.String()
}

// firstLines returns the first n lines of s, each ending in a newline.
func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	out := strings.Join(lines, "")
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out
}
