package agentmem_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/memhq/mem/internal/agentmem"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
)

// BenchmarkRefreshUnchanged is what a session start pays when no memory
// file changed: the kept stats, a stat per file, Claude's folder listed.
func BenchmarkRefreshUnchanged(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "mem.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	home, root := filepath.Join(dir, "home"), filepath.Join(dir, "proj")
	env := agentmem.Env{Home: home, Getenv: func(string) string { return "" }}
	mem := filepath.Join(home, ".gemini", "GEMINI.md")
	if err := os.MkdirAll(filepath.Dir(mem), 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(mem, []byte("## Gemini Added Memories\n- I prefer fish.\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	kinds := append(agentmem.Kinds[:len(agentmem.Kinds):len(agentmem.Kinds)], memory.SourceRepository) // what session start reads
	if _, err := agentmem.Refresh(ctx, db, env, kinds, "p", root, false); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		rep, err := agentmem.Refresh(ctx, db, env, kinds, "p", root, false)
		if err != nil || len(rep.Files) != 0 {
			b.Fatal(err, rep)
		}
	}
}
