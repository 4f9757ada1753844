package summarize

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func loadInput(t *testing.T, name string) Input {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "sessions", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var in Input
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	return in
}

var fixedNow = func() time.Time { return time.Date(2026, 3, 5, 3, 0, 0, 0, time.UTC) }

// TestExtractiveGolden checks the extractive summaries of realistic sessions
// against testdata/golden (go test -update rewrites them).
func TestExtractiveGolden(t *testing.T) {
	for _, name := range []string{"refactor", "debugging", "reads"} {
		t.Run(name, func(t *testing.T) {
			in := loadInput(t, name)
			res, err := Build(context.Background(), in, Options{Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.MarshalIndent(res.Summary, "", "  ")
			got = append(got, '\n')
			path := filepath.Join("testdata", "golden", name+".json")
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("summary of %s differs from %s (go test -update to accept):\n%s", name, path, got)
			}
			checkReadable(t, res.Summary, DefaultMaxTokens)
			again, _ := Build(context.Background(), in, Options{Now: fixedNow})
			if a, _ := json.Marshal(again.Summary); !bytes.Equal(a, mustJSON(res.Summary)) {
				t.Error("the same session gave two different summaries")
			}
		})
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// checkReadable: within the bound, no raw JSON, no item said twice.
func checkReadable(t *testing.T, s memory.Summary, max int) {
	t.Helper()
	if n := summaryTokens(s); n > max {
		t.Errorf("summary is %d tokens, bound %d", n, max)
	}
	if s.TokenCount != summaryTokens(s) {
		t.Errorf("token_count %d, want %d", s.TokenCount, summaryTokens(s))
	}
	fields := map[string]string{"request": s.Request, "investigated": s.Investigated, "learned": s.Learned,
		"completed": s.Completed, "next_steps": s.NextSteps, "decisions": s.Decisions, "text": s.Text}
	seen := map[string]string{}
	for name, v := range fields {
		if strings.Contains(v, "{\"") || strings.Contains(v, "```") || strings.Contains(v, "**") {
			t.Errorf("%s has raw JSON or markup: %q", name, v)
		}
		if name == "text" {
			continue
		}
		for _, it := range strings.Split(v, "; ") {
			k := key(it)
			if k == "" {
				continue
			}
			if other, dup := seen[k]; dup {
				t.Errorf("%q said in %s and %s", it, other, name)
			}
			seen[k] = name
		}
	}
	if s.Text == "" {
		t.Error("summary has no text")
	}
}

// A session with many long observations still fits the bound.
func TestExtractiveBound(t *testing.T) {
	in := Input{Session: memory.Session{ID: "big", LastMessage: strings.Repeat("All the handlers were rewritten to use the new context plumbing. ", 30)}}
	in.Prompts = []memory.Prompt{{PromptNumber: 1, Text: strings.Repeat("Please rework every handler of the service to pass a context. ", 20)}}
	types := memory.Types()
	for i := 0; i < 200; i++ {
		in.Observations = append(in.Observations, memory.Observation{ID: int64(i), Type: types[i%len(types)],
			Title:         fmt.Sprintf("Observation %d about internal/handlers/handler_%d.go and its very long explanation of what changed and why it matters", i, i),
			FilesModified: []string{fmt.Sprintf("internal/handlers/handler_%d.go", i)},
			Concepts:      []string{fmt.Sprintf("concept-%d", i%13)},
			CreatedAt:     time.Unix(int64(1_700_000_000+i), 0)})
	}
	for _, max := range []int{60, 150, 300, 1000} {
		res, err := Build(context.Background(), in, Options{MaxTokens: max, Now: fixedNow})
		if err != nil {
			t.Fatal(err)
		}
		checkReadable(t, res.Summary, max)
		if want := in.Observations[199].CreatedAt; !res.Summary.CoversUntil.Equal(want) {
			t.Errorf("covers_until %v, want %v", res.Summary.CoversUntil, want)
		}
	}
}

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"  **Bold** `code`  here ", "Bold code here"},
		{"Ran tool {\"command\": \"ls\"} done", "Ran tool done"},
		{"## Heading\n- item one\n- item two", "Heading item one item two"},
		{"see ```go\nfunc x() {}\n``` above", "see above"},
		{"array [1, 2] stays", "array [1, 2] stays"},
	} {
		if got := clean(tc.in, 200); got != tc.want {
			t.Errorf("clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := cut("one two three four five", 12); got != "one two…" {
		t.Errorf("cut: %q", got)
	}
}
