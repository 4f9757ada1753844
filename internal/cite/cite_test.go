package cite

import (
	"context"
	"fmt"
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
			cs, err := db.Citations(ctx, []int64{id}, nil)
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

// CheckBesides leaves the file in hand alone: neither read from the store
// nor hashed, however it changed; the others are checked as Check checks
// them.
func TestCheckBesidesLeavesTheFileInHandAlone(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write(t, root, "a.go", "package a\n")
	write(t, root, "b.go", "package a\n")
	db, add := openStore(t)
	id := add(root, "a.go", "b.go")
	only := add(root, "a.go")
	write(t, root, "a.go", "package a\n\nfunc A() {}\n")
	later := time.Now().Add(time.Minute)
	os.Chtimes(filepath.Join(root, "a.go"), later, later)
	c := &Checker{Store: &counting{Store: db}, Keep: true}
	got, err := c.CheckBesides(ctx, []int64{id, only}, []string{"a.go", filepath.Join(root, "a.go")})
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := got[id]; !ok || s.Stale || len(s.Files) != 1 || s.Files[0].Path != "b.go" {
		t.Errorf("#%d = %+v, want b.go alone, current", id, s)
	}
	if s, ok := got[only]; ok {
		t.Errorf("#%d cites a.go alone: got %+v, want no standing", only, s)
	}
	if n := c.Store.(*counting).puts; n != 0 {
		t.Errorf("a.go was looked at: %d citations kept, want none", n)
	}
	// Check itself still sees a.go changed.
	if all, err := c.Check(ctx, []int64{id}); err != nil || !all[id].Stale {
		t.Fatalf("Check = %+v, %v; want a.go changed", all[id], err)
	}
	// b.go gone, a.go in hand: stale by b.go, gone as far as the others go.
	os.Remove(filepath.Join(root, "b.go"))
	got, err = c.CheckBesides(ctx, []int64{id}, []string{"a.go"})
	if s := got[id]; err != nil || !s.Stale || !s.Gone {
		t.Errorf("b.go gone: %+v, %v; want stale and gone by the files besides a.go", s, err)
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

// An edit's memory holds while the lines the edit wrote are in its file:
// a change elsewhere, or lines moved by a change above them, leave it
// unchanged (the fingerprint follows the file); a rewrite of those lines,
// or any change of a file cited without distinctive written lines, makes
// it stale.
func TestCheckEditedLines(t *testing.T) {
	ctx := context.Background()
	const before = "package pay\n\nfunc Retry() {\n}\n\nfunc Refund(o *Order) error {\n\tif o.Total <= 0 {\n\t\treturn errNothingToRefund\n\t}\n\treturn charge(o, -o.Total)\n}\n"
	const written = "\tif o.Total <= 0 {\n\t\treturn errNothingToRefund\n\t}"
	tests := []struct {
		name    string
		written string
		after   string
		stale   bool
		lines   [2]int // where the citation says the lines are after the check
	}{
		{"changed elsewhere", written, strings.Replace(before, "func Retry() {\n}", "func Retry() {\n\tbackoff()\n}", 1), false, [2]int{8, 10}},
		{"moved by lines above, reindented", written, "// Package pay.\n" + strings.ReplaceAll(before, "\t", "    "), false, [2]int{8, 10}},
		{"the lines rewritten", written, strings.Replace(before, "errNothingToRefund", "nil", 1), true, [2]int{7, 9}},
		{"the lines gone", written, "package pay\n", true, [2]int{7, 9}},
		{"nothing distinctive written", "}", strings.Replace(before, "Retry", "Again", 1), true, [2]int{0, 0}},
		{"read, not written", "", strings.Replace(before, "Retry", "Again", 1), true, [2]int{0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, "pay.go", before)
			old := time.Now().Add(-time.Hour)
			os.Chtimes(filepath.Join(root, "pay.go"), old, old)
			db, _ := openStore(t)
			o := memory.Observation{SessionID: "s1", Type: memory.TypeChange, Title: "Edited pay.go", FilesModified: []string{"pay.go"}}
			o.Citations = Take(root, Files(&o, tc.written))
			if span := o.Citations[0].Span != ""; span != (tc.lines[0] > 0) {
				t.Fatalf("span %q taken for written %q", o.Citations[0].Span, tc.written)
			}
			a, err := db.AddObservation(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			write(t, root, "pay.go", tc.after)
			c := &Checker{Store: &counting{Store: db}, Keep: true}
			for i := range 2 {
				got, err := c.Check(ctx, []int64{a.ID})
				if err != nil {
					t.Fatal(err)
				}
				if got[a.ID].Stale != tc.stale {
					t.Fatalf("check %d: stale %v, want %v", i+1, got[a.ID].Stale, tc.stale)
				}
			}
			// The first check learnt what the second needed: it hashed once.
			if n := c.Store.(*counting).puts; n != 1 {
				t.Errorf("%d citations kept over two checks, want 1", n)
			}
			cs, err := db.Citations(ctx, []int64{a.ID}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := [2]int{cs[0].LineStart, cs[0].LineEnd}; got != tc.lines {
				t.Errorf("lines %v after the check, want %v", got, tc.lines)
			}
		})
	}
}

// linesAt gives what splitting the whole file and slicing it would.
func TestLinesAt(t *testing.T) {
	for _, data := range []string{"a\nb\nc\n", "a\nb\nc", "a", "a\n\nb\n"} {
		all := splitLines([]byte(data))
		for from := 1; from <= len(all); from++ {
			for to := from; to <= len(all); to++ {
				got, want := linesAt([]byte(data), from, to), all[from-1:to]
				if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
					t.Errorf("linesAt(%q, %d, %d) = %q, want %q", data, from, to, got, want)
				}
			}
		}
	}
}
