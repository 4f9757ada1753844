package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCitationsAndCorrections runs `mem mcp` in a real project folder: a
// saved observation cites its file as it is; once the file changes,
// get_observations says so and search marks it; a save that supersedes it
// retires it.
func TestCitationsAndCorrections(t *testing.T) {
	f := startSubprocess(t, "")
	file := filepath.Join(f.root, "pay", "retry.go")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("package pay\n\nconst MaxRetries = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var first SaveOutput
	structured(t, call(t, f.cs, "save_observation", map[string]any{"type": "decision",
		"title": "Payments retry five times", "files_modified": []string{"pay/retry.go"}}), &first)

	var got GetOutput
	structured(t, call(t, f.cs, "get_observations", map[string]any{"ids": []int64{first.ID}}), &got)
	o := got.Observations[0]
	if len(o.Citations) != 1 || o.Citations[0].Path != "pay/retry.go" || len(o.Citations[0].Hash) != 40 {
		t.Fatalf("citations %+v, want pay/retry.go with its blob id", o.Citations)
	}
	if o.Standing == nil || o.Standing.Stale {
		t.Errorf("standing %+v, want checked and unchanged", o.Standing)
	}

	if err := os.WriteFile(file, []byte("package pay\n\nconst MaxRetries = 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	structured(t, call(t, f.cs, "get_observations", map[string]any{"ids": []int64{first.ID}}), &got)
	if s := got.Observations[0].Standing; s == nil || !s.Stale || s.Files[0].State != "changed" {
		t.Errorf("after the edit, standing %+v, want pay/retry.go changed", s)
	}
	res := call(t, f.cs, "search", map[string]any{"query": "payments retry"})
	if !strings.Contains(resultText(res), "[stale: pay/retry.go changed]") {
		t.Errorf("search does not mark the stale hit: %s", resultText(res))
	}

	var second SaveOutput
	structured(t, call(t, f.cs, "save_observation", map[string]any{"type": "decision",
		"title": "Payments retry nine times", "files_modified": []string{"pay/retry.go"}, "supersedes": first.ID}), &second)
	structured(t, call(t, f.cs, "get_observations", map[string]any{"ids": []int64{first.ID, second.ID}}), &got)
	if got.Observations[0].SupersededBy != second.ID || got.Observations[1].Standing.Stale {
		t.Errorf("after the correction: old superseded by %d (want %d), new standing %+v",
			got.Observations[0].SupersededBy, second.ID, got.Observations[1].Standing)
	}
	res = call(t, f.cs, "search", map[string]any{"query": "payments retry times"})
	if txt := resultText(res); !strings.Contains(txt, "[retired: corrected by #") || strings.Index(txt, "nine") > strings.Index(txt, "five") {
		t.Errorf("search does not rank the correction first and mark the retired one: %s", txt)
	}
	if res := call(t, f.cs, "save_observation", map[string]any{"type": "note", "title": "x", "supersedes": 99999}); !res.IsError ||
		!strings.Contains(resultText(res), "supersedes") {
		t.Errorf("an unknown id to supersede: %s", resultText(res))
	}
	if res := call(t, f.cs, "save_observation", map[string]any{"type": "note", "title": "x", "supersedes": -1}); !res.IsError ||
		!strings.Contains(resultText(res), "supersedes") {
		t.Errorf("a negative id to supersede: %s", resultText(res))
	}
}
