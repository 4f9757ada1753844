package privacy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Text without secrets passes the filter unchanged: the benchmark samples
// (Go source, build output) and lines that name the kinds of secret the
// rules look for without holding one.
func TestCleanTextIsKept(t *testing.T) {
	files, err := filepath.Glob("testdata/bench/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	files = append(files, "testdata/clean.txt")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if got := Filter(line); got != strings.TrimSpace(line) && got != line {
				t.Errorf("%s:%d: Filter changed %q to %q", f, i+1, line, got)
			}
		}
		if got := Redact(string(data)); got != string(data) {
			t.Errorf("%s: Redact changed the sample", f)
		}
	}
}
