package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The work tree follows the replay: before a commit it holds the parent's
// files, after it the commit's, deleted files gone.
func TestWorkTree(t *testing.T) {
	src := t.TempDir()
	gitIn := func(args ...string) string {
		t.Helper()
		out, err := run1(src, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn("init", "--quiet")
	write("a.c", "one\n")
	write("b.c", "kept\n")
	gitIn("add", ".")
	gitIn("commit", "--quiet", "-m", "first")
	write("a.c", "two\n")
	gitIn("rm", "--quiet", "b.c")
	gitIn("commit", "--quiet", "-am", "second")
	second := gitIn("rev-parse", "HEAD")

	tr, err := newWorkTree(filepath.Join(src, ".git"), filepath.Join(t.TempDir(), "work"))
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(tr.dir, name))
		if err != nil {
			return "missing"
		}
		return string(b)
	}
	if err := tr.before(second); err != nil {
		t.Fatal(err)
	}
	if a, b := read("a.c"), read("b.c"); a != "one\n" || b != "kept\n" {
		t.Fatalf("before the second commit: a.c %q, b.c %q; want the first commit's", a, b)
	}
	if err := tr.checkout(second); err != nil {
		t.Fatal(err)
	}
	if a, b := read("a.c"), read("b.c"); a != "two\n" || b != "missing" {
		t.Fatalf("at the second commit: a.c %q, b.c %q; want \"two\\n\" and b.c gone", a, b)
	}
	first := gitIn("rev-parse", "HEAD^")
	if err := tr.before(first); err != nil {
		t.Fatalf("a root commit has no parent: want its own tree, got %v", err)
	}
	if a := read("a.c"); a != "one\n" {
		t.Fatalf("at the root commit: a.c %q", a)
	}
}
