package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestDemoScript runs scripts/demo as a reader would, output to a pipe and
// NO_COLOR set: it says first that it is building, then shows each command
// it runs, with no escape sequence anywhere.
func TestDemoScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mem and runs the demo")
	}
	cmd := exec.Command("bash", "../../scripts/demo")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/demo: %v\n%s", err, out)
	}
	s := string(out)
	if !strings.HasPrefix(s, "building mem") {
		t.Errorf("the demo does not say first that it is building:\n%.200s", s)
	}
	if strings.Contains(s, "\x1b") {
		t.Errorf("the demo wrote escape sequences with NO_COLOR set and no terminal:\n%q", s[:min(len(s), 400)])
	}
	for _, want := range []string{"\n$ mem import scripts/demo-memory.jsonl\n", "\n$ mem inject --session new-session\n", "<memory_context"} {
		if !strings.Contains(s, want) {
			t.Errorf("the demo's output lacks %q", want)
		}
	}
}
