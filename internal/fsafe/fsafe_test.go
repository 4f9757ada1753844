//go:build unix

package fsafe

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// tree makes a folder with a regular file, a link to a file outside it, a
// link to a file inside it, a FIFO and a subfolder.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "repo")
	outside = filepath.Join(base, "home", ".bashrc")
	for _, d := range []string{root, filepath.Dir(outside), filepath.Join(root, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, outside, "secret")
	write(t, filepath.Join(root, "file"), "inside")
	must(t, os.Symlink(outside, filepath.Join(root, "out-link")))
	must(t, os.Symlink("file", filepath.Join(root, "in-link")))
	must(t, os.Symlink(filepath.Dir(outside), filepath.Join(root, "out-dir")))
	must(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	return root, outside
}

func write(t *testing.T, p, s string) {
	t.Helper()
	must(t, os.WriteFile(p, []byte(s), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// quick fails the test when f takes longer than a second: a FIFO opened
// the blocking way would hang forever.
func quick(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("blocked")
	}
}

func TestWriteFileRefusesWhatIsNotARegularFile(t *testing.T) {
	root, outside := tree(t)
	for _, name := range []string{"out-link", "in-link", "fifo", "sub", "out-dir"} {
		t.Run(name, func(t *testing.T) {
			quick(t, func() {
				err := WriteFile(filepath.Join(root, name), []byte("evil"), 0o644)
				if !errors.Is(err, ErrNotRegular) {
					t.Errorf("err = %v, want ErrNotRegular", err)
				}
			})
			if b, _ := os.ReadFile(outside); string(b) != "secret" {
				t.Errorf("outside file is now %q", b)
			}
		})
	}
	if err := WriteFile("/dev/null", []byte("x"), 0o644); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/null: err = %v, want ErrNotRegular", err)
	}
}

func TestWriteFileReplacesAndKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	must(t, WriteFile(p, []byte("one"), 0o600))
	must(t, os.Chmod(p, 0o640))
	must(t, WriteFile(p, []byte("two"), 0o644))
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "two" || fi.Mode().Perm() != 0o640 {
		t.Errorf("got %q mode %v, want \"two\" 0640", b, fi.Mode().Perm())
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestFailedWriteLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "export.jsonl")
	write(t, p, "good export")
	boom := errors.New("killed")
	err := Write(p, 0o644, func(w io.Writer) error {
		w.Write([]byte("half of a new"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "good export" {
		t.Errorf("file is now %q", b)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestTemporaryNameCannotBePlanted(t *testing.T) {
	// A repository may ship the names a fixed temporary file would use as
	// links; the temporary file is created exclusively under a random name.
	root, outside := tree(t)
	for _, n := range []string{"settings.json.mem.tmp", ".settings.json.mem-0"} {
		must(t, os.Symlink(outside, filepath.Join(root, n)))
	}
	must(t, WriteFile(filepath.Join(root, "settings.json"), []byte("{}"), 0o644))
	if b, _ := os.ReadFile(outside); string(b) != "secret" {
		t.Errorf("outside file is now %q", b)
	}
}

func TestRemove(t *testing.T) {
	root, outside := tree(t)
	if err := Remove(filepath.Join(root, "out-link")); !errors.Is(err, ErrNotRegular) {
		t.Errorf("link: err = %v", err)
	}
	must(t, Remove(filepath.Join(root, "file")))
	must(t, Remove(filepath.Join(root, "missing")))
	if _, err := os.Stat(outside); err != nil {
		t.Error(err)
	}
}

func TestReadFile(t *testing.T) {
	root, _ := tree(t)
	quick(t, func() {
		if _, err := ReadFile(filepath.Join(root, "fifo"), 0); !errors.Is(err, ErrNotRegular) {
			t.Errorf("fifo: err = %v", err)
		}
	})
	if _, err := ReadFile(filepath.Join(root, "sub"), 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("dir: err = %v", err)
	}
	if _, err := ReadFile("/dev/zero", 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("device: err = %v", err)
	}
	if b, err := ReadFile(filepath.Join(root, "in-link"), 0); err != nil || string(b) != "inside" {
		t.Errorf("link: %q %v", b, err)
	}
	if _, err := ReadFile(filepath.Join(root, "file"), 3); !errors.Is(err, ErrTooLarge) {
		t.Errorf("limit: err = %v", err)
	}
}

func TestReadFileIn(t *testing.T) {
	root, _ := tree(t)
	must(t, os.Symlink("../..", filepath.Join(root, "sub", "up")))
	cases := []struct {
		rel  string
		want string
		err  error
	}{
		{"file", "inside", nil},
		{"in-link", "inside", nil},
		{filepath.Join(root, "file"), "inside", nil},
		{"out-link", "", ErrOutside},
		{"out-dir/.bashrc", "", ErrOutside},
		{"sub/up/home/.bashrc", "", ErrOutside},
		{"../home/.bashrc", "", ErrOutside},
		{filepath.Join(filepath.Dir(root), "home", ".bashrc"), "", ErrOutside},
		{"fifo", "", ErrNotRegular},
		{"sub", "", ErrNotRegular},
	}
	for _, c := range cases {
		quick(t, func() {
			b, err := ReadFileIn(root, c.rel, 0)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Errorf("%s: err = %v, want %v", c.rel, err, c.err)
				}
				return
			}
			if err != nil || string(b) != c.want {
				t.Errorf("%s: %q %v, want %q", c.rel, b, err, c.want)
			}
		})
	}
}

func TestInside(t *testing.T) {
	cases := []struct {
		dir, path string
		want      bool
	}{
		{"/a", "/a", true},
		{"/a", "/a/b", true},
		{"/a", "/ab", false},
		{"/a", "/", false},
		{"/a", "/a/../b", false},
		{"/a", "/a/..b", true},
	}
	for _, c := range cases {
		if got := Inside(c.dir, c.path); got != c.want {
			t.Errorf("Inside(%q, %q) = %v", c.dir, c.path, got)
		}
	}
}

// StaysIn: a path to write, existing or not, stays in the root unless a
// link on its existing part leads out.
func TestStaysIn(t *testing.T) {
	root, _ := tree(t)
	for _, c := range []struct {
		rel  string
		want bool
	}{
		{"file", true},
		{"new.jsonl", true},
		{"sub/new/deeper/m.jsonl", true},
		{"in-link", true},
		{"out-link", false},
		{"out-dir/m.jsonl", false},
		{"out-dir/new/m.jsonl", false},
		{"../m.jsonl", false},
	} {
		if got := StaysIn(root, filepath.Join(root, c.rel)); got != c.want {
			t.Errorf("StaysIn(root, %q) = %v, want %v", c.rel, got, c.want)
		}
	}
}

func TestShred(t *testing.T) {
	root, outside := tree(t)
	// A descriptor opened before shows what became of the file's blocks.
	p := filepath.Join(root, "record")
	write(t, p, "token=s3cr3t and more text than one write")
	seen, err := os.Open(p)
	must(t, err)
	defer seen.Close()
	must(t, Shred(p))
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("shredded file still there: %v", err)
	}
	b, err := io.ReadAll(seen)
	must(t, err)
	if len(b) != len("token=s3cr3t and more text than one write") || string(b) != string(make([]byte, len(b))) {
		t.Errorf("content after Shred: %q, want as many zero bytes", b)
	}
	// A file with another name (a hard link): only this name goes; the
	// other keeps its content.
	other := filepath.Join(t.TempDir(), "elsewhere")
	write(t, other, "someone else's file")
	linked := filepath.Join(root, "hard-link")
	must(t, os.Link(other, linked))
	must(t, Shred(linked))
	if _, err := os.Lstat(linked); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("hard link still there: %v", err)
	}
	if b, err := os.ReadFile(other); err != nil || string(b) != "someone else's file" {
		t.Errorf("the file's other name after Shred: %q, %v", b, err)
	}
	must(t, Shred(filepath.Join(root, "missing")))
	for _, name := range []string{"out-link", "fifo", "sub"} {
		quick(t, func() {
			if err := Shred(filepath.Join(root, name)); err == nil {
				t.Errorf("%s: shredded", name)
			}
		})
	}
	if b, err := os.ReadFile(outside); err != nil || string(b) != "secret" {
		t.Errorf("the file behind a link: %q, %v", b, err)
	}
}
