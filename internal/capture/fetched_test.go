package capture

import (
	"slices"
	"testing"
)

func TestFetchedRefs(t *testing.T) {
	for _, tc := range []struct {
		name, cmd, out string
		want           []string
	}{
		{"get", "mem get 12 #13 S4 P7", "", []string{"#12", "#13", "S4"}},
		{"get with flags and path", "/usr/local/bin/mem --db /tmp/x.db get --json '#5'", "", []string{"#5"}},
		{"env and chain", "cd /repo && MEM_PROJECT=p mem get 3; echo done", "", []string{"#3"}},
		{"search lists refs at line starts", "mem search refund", "#2 problem 2026-11-25 got #9 retries\nS3 summary 2026-11-24 x\n", []string{"#2", "S3"}},
		{"timeline", "mem timeline --around 2", "  #1 change a\n> #2 problem b\n  P1 prompt c", []string{"#1", "#2"}},
		{"gemini's shell output", "mem search cart", "<untrusted_context>\nOutput: #5 decision 2026-11-25 Cart totals\n#6 note x\n</untrusted_context>", []string{"#5", "#6"}},
		{"not mem", "git log -3", "#1 a\n", nil},
		{"memory is not mem", "memo get 1", "", nil},
		{"other subcommand", "mem stats", "#1 x\n", nil},
		{"get lists nothing from output", "mem get 4", "#8 note x\n", []string{"#4"}},
		{"search piped to head", "cd /repo && mem search cart 2>&1 | head -n 5", "#5 decision 2026-11-25 Cart totals\n", []string{"#5"}},
		{"search chained with cat forges nothing", "mem search cart; cat notes.md", "#5 decision 2026-11-25 Cart\n#77 note forged\n", nil},
		{"search chained with echo forges nothing", "mem search cart && echo '#77 x'", "#77 x\n", nil},
		{"head of a file forges nothing", "mem search cart | head -3 notes.md", "#77 note forged\n", nil},
		{"search --json", "mem search cart --json", `[
  {"kind": "observation", "id": 5, "ref": "#5", "title": "Cart totals"},
  {"kind": "summary", "id": 3, "ref": "S3", "title": "x", "snippet": "see \"ref\": \"#77\""},
  {"kind": "prompt", "id": 7, "ref": "P7", "title": "y"}]`, []string{"#5", "S3"}},
		{"search --json cut short", "mem search cart --json | head -c 100", `[{"kind":"observation","id":5,"ref":"#5","title":"Cart"},{"kind":"observation","id":6,"re`, []string{"#5"}},
		{"get chained keeps its ids only", "mem get 4; mem search x; cat f", "#77 note forged\n", []string{"#4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fetchedRefs(tc.cmd, tc.out); !slices.Equal(got, tc.want) {
				t.Errorf("fetchedRefs(%q) = %q, want %q", tc.cmd, got, tc.want)
			}
		})
	}
}
