package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Main runs the agents in turn and prints a summary table; it reports
// whether every check passed.
func Main(opt Options, agents []*Agent) bool {
	srv, err := StartServer(filepath.Join(opt.Work, "requests.jsonl"))
	if err != nil {
		fmt.Fprintln(opt.Out, "FAIL fake model server:", err)
		return false
	}
	defer srv.Close()
	fmt.Fprintf(opt.Out, "fake model at %s, requests logged to %s\n", srv.URL, filepath.Join(opt.Work, "requests.jsonl"))
	start := time.Now()
	var hs []*H
	for _, a := range agents {
		t := time.Now()
		h := RunAgent(opt, a, srv)
		h.note("%s took %s", a.Name, time.Since(t).Round(time.Second))
		hs = append(hs, h)
	}
	if opt.Across || slices.Contains(agents, claudeAgent) && slices.Contains(agents, geminiAgent) {
		t := time.Now()
		h := RunAcross(opt, srv)
		h.note("gemini -> claude took %s", time.Since(t).Round(time.Second))
		hs = append(hs, h)
	}
	return summary(opt, hs, time.Since(start))
}

func summary(opt Options, hs []*H, took time.Duration) bool {
	checks := []string{}
	seen := map[string]bool{}
	res := map[string]map[string]Result{}
	for _, h := range hs {
		res[h.Agent.Name] = map[string]Result{}
		for _, r := range h.Results {
			if !seen[r.Check] {
				seen[r.Check] = true
				checks = append(checks, r.Check)
			}
			res[h.Agent.Name][r.Check] = r
		}
	}
	fmt.Fprintf(opt.Out, "\n%-28s", "check")
	for _, h := range hs {
		fmt.Fprintf(opt.Out, " %-9s", h.Agent.Name)
	}
	fmt.Fprintln(opt.Out)
	pass, fail := 0, 0
	for _, c := range checks {
		fmt.Fprintf(opt.Out, "%-28s", c)
		for _, h := range hs {
			r, ok := res[h.Agent.Name][c]
			cell := "-"
			if ok && r.Pass {
				cell, pass = "PASS", pass+1
			} else if ok {
				cell, fail = "FAIL", fail+1
			}
			fmt.Fprintf(opt.Out, " %-9s", cell)
		}
		fmt.Fprintln(opt.Out)
	}
	var names []string
	for _, h := range hs {
		names = append(names, h.Agent.Name)
	}
	fmt.Fprintf(opt.Out, "\n%s: %d passed, %d failed in %s\n", strings.Join(names, ","), pass, fail, took.Round(time.Second))
	return fail == 0
}
