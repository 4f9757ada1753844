package cite

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
)

func write(t *testing.T, root, p, content string) {
	t.Helper()
	full := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// openStore opens a real database with one session and returns a function
// that stores an observation citing files of root as they are now.
func openStore(t *testing.T) (*store.DB, func(root string, files ...string) int64) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "mem.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.EnsureSession(ctx, memory.Session{ID: "s1", Project: "p", StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	n := 0
	add := func(root string, files ...string) int64 {
		n++
		o := memory.Observation{SessionID: "s1", Type: memory.TypeDecision, Title: "decision " + string(rune('a'+n)),
			FilesModified: files}
		o.Citations = Take(root, Files(&o, ""))
		a, err := db.AddObservation(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		return a.ID
	}
	return db, add
}

func TestBlobIDIsGits(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	write(t, dir, "a.go", "package a\n\nfunc A() {}\n")
	out, err := exec.Command("git", "hash-object", filepath.Join(dir, "a.go")).Output()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "a.go"))
	if got, want := BlobID(data), strings.TrimSpace(string(out)); got != want {
		t.Errorf("BlobID = %s, git hash-object = %s", got, want)
	}
}

func TestCheck(t *testing.T) {
	ctx := context.Background()
	old := time.Now().Add(-time.Hour)
	tests := []struct {
		name  string
		files []string
		then  func(t *testing.T, root string)
		want  memory.Standing
		// hashes: whether the check had to hash (and so learnt something)
		learns bool
	}{
		{"untouched", []string{"a.go"}, func(*testing.T, string) {}, memory.Standing{}, false},
		{"touched, same content", []string{"a.go"}, func(t *testing.T, root string) {
			if err := os.Chtimes(filepath.Join(root, "a.go"), time.Now(), time.Now()); err != nil {
				t.Fatal(err)
			}
		}, memory.Standing{}, true},
		{"rewritten", []string{"a.go"}, func(t *testing.T, root string) {
			write(t, root, "a.go", "package a\n\nfunc B() {}\n")
		}, memory.Standing{Stale: true}, true},
		{"deleted", []string{"a.go"}, func(t *testing.T, root string) {
			os.Remove(filepath.Join(root, "a.go"))
		}, memory.Standing{Stale: true, Gone: true}, false},
		{"one of two moved away", []string{"a.go", "b.go"}, func(t *testing.T, root string) {
			os.Rename(filepath.Join(root, "b.go"), filepath.Join(root, "c.go"))
		}, memory.Standing{Stale: true}, false},
		{"replaced by a folder", []string{"a.go"}, func(t *testing.T, root string) {
			os.Remove(filepath.Join(root, "a.go"))
			os.Mkdir(filepath.Join(root, "a.go"), 0o755)
		}, memory.Standing{Stale: true, Gone: true}, false},
		{"another clone: the cited tree is not here", []string{"a.go"}, func(t *testing.T, root string) {
			os.RemoveAll(root)
		}, memory.Standing{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, "a.go", "package a\n\nfunc A() {}\n")
			write(t, root, "b.go", "package a\n")
			for _, f := range []string{"a.go", "b.go"} {
				os.Chtimes(filepath.Join(root, f), old, old)
			}
			db, add := openStore(t)
			id := add(root, tc.files...)
			tc.then(t, root)
			c := &Checker{Store: db, Keep: true}
			got, err := c.Check(ctx, []int64{id})
			if err != nil {
				t.Fatal(err)
			}
			s := got[id]
			if s.Stale != tc.want.Stale || s.Gone != tc.want.Gone {
				t.Errorf("standing = %+v, want stale %v gone %v", s, tc.want.Stale, tc.want.Gone)
			}
			cs, err := db.Citations(ctx, []int64{id})
			if err != nil {
				t.Fatal(err)
			}
			st, _ := os.Stat(filepath.Join(root, "a.go"))
			learnt := st != nil && st.Mode().IsRegular() && (cs[0].ModTime == st.ModTime().UnixNano() && !st.ModTime().Equal(old) ||
				cs[0].SeenModTime == st.ModTime().UnixNano())
			if learnt != tc.learns {
				t.Errorf("kept what it learnt in the citation: %v, want %v", learnt, tc.learns)
			}
			// The second check gives the same answer, and hashes nothing
			// more (what it needed is kept).
			again, err := c.Check(ctx, []int64{id})
			if err != nil {
				t.Fatal(err)
			}
			if a := again[id]; a.Stale != s.Stale || a.Gone != s.Gone {
				t.Errorf("second check = %+v, first %+v", a, s)
			}
		})
	}
}

func TestCheckUsesWhatItLearnt(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write(t, root, "a.go", "package a\n")
	db, add := openStore(t)
	id := add(root, "a.go")
	// Same content, new time: the check hashes once and keeps it.
	later := time.Now().Add(time.Minute)
	os.Chtimes(filepath.Join(root, "a.go"), later, later)
	c := &Checker{Store: &counting{Store: db}, Keep: true}
	if _, err := c.Check(ctx, []int64{id}); err != nil {
		t.Fatal(err)
	}
	if n := c.Store.(*counting).puts; n != 1 {
		t.Fatalf("first check kept %d citations, want 1", n)
	}
	if _, err := c.Check(ctx, []int64{id}); err != nil {
		t.Fatal(err)
	}
	if n := c.Store.(*counting).puts; n != 1 {
		t.Errorf("second check hashed again: %d citations kept, want 1", n)
	}
}

type counting struct {
	Store
	puts int
}

func (c *counting) UpdateCitations(ctx context.Context, cs []memory.Citation) error {
	c.puts += len(cs)
	return c.Store.UpdateCitations(ctx, cs)
}

func TestTakeStaysInTheProject(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write(t, outside, "secret.txt", "s3cret\n")
	write(t, root, "a.go", "package a\n\nfunc A() {\n\treturn\n}\n")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	got := Take(root, []File{{Path: "../x"}, {Path: "/etc/passwd"}, {Path: "link.txt"},
		{Path: "a.go", Written: "func A() {\n\treturn"}, {Path: "new.go"}})
	var paths []string
	for _, c := range got {
		paths = append(paths, c.Path)
	}
	if strings.Join(paths, " ") != "a.go new.go" {
		t.Fatalf("cited %v, want a.go and new.go only", paths)
	}
	if got[0].LineStart != 3 || got[0].LineEnd != 4 {
		t.Errorf("lines = %d-%d, want 3-4", got[0].LineStart, got[0].LineEnd)
	}
	if got[1].Size != -1 {
		t.Errorf("a file that does not exist: size %d, want -1", got[1].Size)
	}
}
