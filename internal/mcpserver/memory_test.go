package mcpserver

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// procRSS reads a process's resident set size in KiB from /proc, or 0 when
// it cannot.
func procRSS(pid int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

// rssKiB is procRSS for a test, which it skips where /proc is missing.
func rssKiB(t *testing.T, pid int) int {
	t.Helper()
	n := procRSS(pid)
	if n == 0 {
		t.Skip("cannot read VmRSS from /proc")
	}
	return n
}

// TestManyCallsKeepMemoryFlat makes 1,000 sequential tool calls over one
// server process and checks that its resident memory stays bounded: a leak
// of a few KiB per call would show as megabytes.
func TestManyCallsKeepMemoryFlat(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	f := startSubprocess(t, "")
	calls := flatSessionCalls()
	run := func(n int) {
		for i := range n {
			c := calls[i%len(calls)]
			res := call(t, f.cs, c.name, c.args(i))
			if res.IsError {
				t.Fatalf("call %d %s: %s", i, c.name, resultText(res))
			}
		}
	}
	run(100) // warm up: caches, prepared statements, the Go heap's first growth
	before := rssKiB(t, f.cmd.Process.Pid)
	run(1000)
	after := rssKiB(t, f.cmd.Process.Pid)
	t.Logf("RSS after 100 warm-up calls %d KiB, after 1,000 more %d KiB (%+d KiB)", before, after, after-before)
	if after-before > 32<<10 {
		t.Errorf("RSS grew by %d KiB over 1,000 calls, want under 32 MiB", after-before)
	}
}

type flatCall struct {
	name string
	args func(i int) any
}

// flatSessionCalls is the mix of calls an agent makes in a long session.
func flatSessionCalls() []flatCall {
	return []flatCall{
		{"search", func(i int) any {
			return map[string]any{"query": []string{"WAL hooks", "SQLITE_BUSY", "fts5 syntax", "cache note"}[i%4], "limit": 10}
		}},
		{"timeline", func(i int) any { return map[string]any{"id": 1 + i%3} }},
		{"get_observations", func(int) any { return map[string]any{"ids": []int{1, 2, 3}} }},
		{"recent_context", func(i int) any { return map[string]any{"budget": 500 + i%1000} }},
		{"save_observation", func(i int) any {
			return map[string]any{"type": "note", "title": fmt.Sprintf("Note %d about the cache", i),
				"narrative": strings.Repeat("Some narrative text. ", 20), "files_read": []string{"internal/store/db.go"}}
		}},
	}
}
