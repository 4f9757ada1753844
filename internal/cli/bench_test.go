package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// benchMain runs one mem command line in process, as a fresh App each time
// (so opening the database and checking its schema are included), and fails
// the benchmark on a non-zero exit.
func benchMain(b *testing.B, args ...string) {
	b.Helper()
	var out, errb bytes.Buffer
	app := NewApp(&bytes.Buffer{}, &out, &errb)
	app.Getenv = func(k string) string {
		if k == "MEM_PROJECT" {
			return "bench/project"
		}
		return ""
	}
	if code := Main(context.Background(), app, args); code != 0 {
		b.Fatalf("mem %v: exit %d: %s", args, code, errb.String())
	}
}

// BenchmarkObserve measures `mem observe` minus process start-up.
func BenchmarkObserve(b *testing.B) {
	db := filepath.Join(b.TempDir(), "mem.db")
	stamp := time.Now().UnixNano()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		benchMain(b, "--db", db, "observe", "--session", "bench", "--type", "decision",
			"--title", fmt.Sprintf("decision %d-%d about retryPolicy", stamp, i), "--file-modified", "internal/store/db.go")
	}
}

// BenchmarkGet measures `mem get` minus process start-up.
func BenchmarkGet(b *testing.B) {
	db := filepath.Join(b.TempDir(), "mem.db")
	benchMain(b, "--db", db, "observe", "--session", "bench", "--type", "decision", "--title", "one")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		benchMain(b, "--db", db, "get", "1")
	}
}
