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

// TestRepositoryFileIsReadOnlyInsideTheWorkTree: a repository's memory
// file, at the default path or the one its .mem names, is read only when
// its real path is inside the work tree; a link in the repository leading
// out of it (the file itself, or a folder on its path) is not followed. A
// link that stays inside is.
func TestRepositoryFileIsReadOnlyInsideTheWorkTree(t *testing.T) {
	line := `{"uuid":"0b0c5c9e-6a51-4e57-9d0f-2d6a7c1f0e11","created_at":"2026-11-01T10:00:00Z","type":"decision","title":"Outside text"}` + "\n"
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root, outside string)
		want  int // records read
	}{
		{"default file links out", func(t *testing.T, root, outside string) {
			link(t, filepath.Join(outside, "m.jsonl"), filepath.Join(root, ".mem.jsonl"))
		}, 0},
		{"share line through a folder that links out", func(t *testing.T, root, outside string) {
			write(t, filepath.Join(root, ".mem"), "share = docs/m.jsonl\n")
			link(t, outside, filepath.Join(root, "docs"))
		}, 0},
		{"link inside the work tree", func(t *testing.T, root, outside string) {
			write(t, filepath.Join(root, "team", "m.jsonl"), line)
			write(t, filepath.Join(root, ".mem"), "share = docs/m.jsonl\n")
			link(t, filepath.Join(root, "team"), filepath.Join(root, "docs"))
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			root, outside := filepath.Join(dir, "repo"), filepath.Join(dir, "outside")
			write(t, filepath.Join(outside, "m.jsonl"), line)
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, root, outside)
			db, err := store.Open(ctx, filepath.Join(dir, "mem.db"), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			env := agentmem.Env{Home: filepath.Join(dir, "home")}
			rep, err := agentmem.Refresh(ctx, db, env, []string{memory.SourceRepository}, "p", root, false)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Totals.Added != tc.want {
				t.Errorf("%d records read, want %d: %+v", rep.Totals.Added, tc.want, rep)
			}
		})
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
}

// TestRepositoryFileSwappedForALinkOutRetires: records read from the
// repository's file retire when the file becomes a link leading out of the
// work tree, as when it is deleted; what the link leads to is not read.
func TestRepositoryFileSwappedForALinkOutRetires(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root := filepath.Join(dir, "repo")
	inside := `{"uuid":"5e0f8a8e-3f0b-4a59-8f51-6f1b7b3c2a10","created_at":"2026-11-01T10:00:00Z","type":"decision","title":"Inside text"}` + "\n"
	outside := `{"uuid":"0b0c5c9e-6a51-4e57-9d0f-2d6a7c1f0e11","created_at":"2026-11-01T10:00:00Z","type":"decision","title":"Outside text"}` + "\n"
	write(t, filepath.Join(root, ".mem.jsonl"), inside)
	write(t, filepath.Join(dir, "outside.jsonl"), outside)
	db, err := store.Open(ctx, filepath.Join(dir, "mem.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	env := agentmem.Env{Home: filepath.Join(dir, "home")}
	kinds := []string{memory.SourceRepository}
	if rep, err := agentmem.Refresh(ctx, db, env, kinds, "p", root, false); err != nil || rep.Totals.Added != 1 {
		t.Fatalf("first read: %+v, %v; want 1 record", rep, err)
	}
	if err := os.Remove(filepath.Join(root, ".mem.jsonl")); err != nil {
		t.Fatal(err)
	}
	link(t, filepath.Join(dir, "outside.jsonl"), filepath.Join(root, ".mem.jsonl"))
	rep, err := agentmem.Refresh(ctx, db, env, kinds, "p", root, false)
	if err != nil || rep.Totals.Added != 0 || rep.Totals.Retired != 1 {
		t.Fatalf("after the swap: %+v, %v; want nothing added, 1 retired", rep, err)
	}
	if rep, err := agentmem.Refresh(ctx, db, env, kinds, "p", root, false); err != nil || rep.Totals.Added != 0 {
		t.Fatalf("read again: %+v, %v; want nothing added", rep, err)
	}
}
