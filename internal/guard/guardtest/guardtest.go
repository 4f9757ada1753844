// Package guardtest gives tests, in every package that delivers text to
// mem, the corpora of internal/guard/testdata: instruction-shaped payloads
// in the shapes published (payloads.jsonl) and clean observations
// (clean.jsonl).
package guardtest

import (
	"bufio"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// Sample is one text of a corpus: a payload (Shape: where its kind was
// published) or a clean observation (Shape: decision, failure, ...).
type Sample struct {
	Shape string `json:"shape"`
	Title string `json:"title,omitempty"`
	Text  string `json:"text"`
}

// Read returns the samples of the corpus file name (payloads.jsonl,
// clean.jsonl), failing t when it cannot.
func Read(t testing.TB, name string) []Sample {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(self), "..", "testdata", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Sample
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var s Sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// Texts returns the texts of the corpus file name.
func Texts(t testing.TB, name string) []string {
	t.Helper()
	samples := Read(t, name)
	out := make([]string, len(samples))
	for i, s := range samples {
		out[i] = s.Text
	}
	return out
}

// HookText is the context of a Claude Code hook reply, mem's own block and
// context tags taken out and XML unescaped, as the model reads it.
func HookText(t testing.TB, reply string) string {
	t.Helper()
	var r struct {
		HookSpecificOutput struct{ AdditionalContext string }
	}
	if strings.TrimSpace(reply) != "" && json.Unmarshal([]byte(reply), &r) != nil {
		t.Fatalf("hook reply is not JSON: %q", reply)
	}
	return html.UnescapeString(memTags.ReplaceAllString(r.HookSpecificOutput.AdditionalContext, "")) + "\n"
}

var memTags = regexp.MustCompile(`</?(?:memory_context|mem_context)\b[^>]*>`)
