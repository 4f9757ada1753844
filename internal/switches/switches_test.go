package switches

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExcluded(t *testing.T) {
	tests := []struct {
		patterns []string
		dir      string
		want     string
	}{
		{[]string{"~/clients/**"}, "/home/u/clients/acme/api", "~/clients/**"},
		{[]string{"~/clients/**"}, "/home/u/clientsx", ""},
		{[]string{"/srv/*/secret"}, "/srv/a/secret/sub", "/srv/*/secret"},
		{[]string{"/srv/*/secret"}, "/srv/a/public", ""},
		{[]string{"", " "}, "/x", ""},
		{[]string{"/work/acme"}, "/work/acme", "/work/acme"},
	}
	for _, tt := range tests {
		if got := Excluded(tt.patterns, "/home/u", tt.dir); got != tt.want {
			t.Errorf("Excluded(%q, %s) = %q, want %q", tt.patterns, tt.dir, got, tt.want)
		}
	}
}

func TestDecide(t *testing.T) {
	root := t.TempDir()
	on := Settings{Inject: Setting{On: true}, Capture: Setting{On: true}}
	if d := Decide(on, root); !d.Inject || !d.Capture {
		t.Fatalf("default %+v", d)
	}
	off := on
	off.Inject = Setting{On: false, Source: "file c.toml:2"}
	if d := Decide(off, root); d.Inject || !d.Capture || !strings.Contains(d.InjectWhy, "c.toml:2") {
		t.Fatalf("global inject off %+v", d)
	}
	if _, err := WriteFile(root, true, false); err != nil {
		t.Fatal(err)
	}
	if d := Decide(on, root); !d.Inject || d.Capture || !strings.Contains(d.CaptureWhy, "capture = false") {
		t.Fatalf(".mem capture off %+v", d)
	}
	if _, err := WriteFile(root, true, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, FileName)); !os.IsNotExist(err) {
		t.Fatalf(".mem with nothing to say should be removed: %v", err)
	}
	os.WriteFile(filepath.Join(root, FileName), []byte("# keep\nenabled = false\n"), 0o644)
	if d := Decide(on, root); d.Inject || d.Capture {
		t.Fatalf("enabled = false %+v", d)
	}
	WriteFile(root, true, true)
	b, _ := os.ReadFile(filepath.Join(root, FileName))
	if string(b) != "# keep\n" {
		t.Fatalf("comments not kept: %q", b)
	}
}

func TestSharePath(t *testing.T) {
	for _, tt := range []struct {
		in, want string // want "" for refused
	}{
		{"docs/memory.jsonl", "docs/memory.jsonl"},
		{"./team//mem.jsonl", "team/mem.jsonl"},
		{"a/../b.jsonl", "b.jsonl"},
		{".mem.jsonl", ".mem.jsonl"},
		{"", ""},
		{".", ""},
		{"..", ""},
		{"../outside.jsonl", ""},
		{"a/../../outside.jsonl", ""},
		{"/etc/passwd", ""},
		{".mem", ""},
		{".git/memory.jsonl", ""},
		{".github/memory.jsonl", ".github/memory.jsonl"},
		// The same names as a case-insensitive or Windows file system sees
		// them, and a nested repository's .git.
		{".GIT/hooks/pre-commit", ""},
		{".Git./config", ""},
		{"GIT~1/config", ""},
		{"vendor/lib/.git/hooks/pre-commit", ""},
		{".MEM", ""},
		{"docs/.mem", "docs/.mem"},
		{"docs/.gitkeep", "docs/.gitkeep"},
	} {
		got, err := SharePath(tt.in)
		if (err != nil) != (tt.want == "") || got != tt.want {
			t.Errorf("SharePath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestShareLine: the share line is read, kept by the switches and replaced
// or dropped by WriteShare; one leaving the project is an error.
func TestShareLine(t *testing.T) {
	root := t.TempDir()
	dot := filepath.Join(root, FileName)
	read := func() File {
		t.Helper()
		f, err := ReadFile(root)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	os.WriteFile(dot, []byte("# team memory\nshare = \"./docs/memory.jsonl\"\n"), 0o644)
	if f := read(); f.Share != "docs/memory.jsonl" || !f.Inject || !f.Capture {
		t.Fatalf("read %+v", f)
	}
	if _, err := WriteFile(root, true, false); err != nil {
		t.Fatal(err)
	}
	if f := read(); f.Share != "docs/memory.jsonl" || f.Capture {
		t.Fatalf("after capture off %+v", f)
	}
	if _, err := WriteShare(root, "team/m.jsonl"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(dot)
	if string(b) != "# team memory\ncapture = false\nshare = team/m.jsonl\n" {
		t.Fatalf("after WriteShare: %q", b)
	}
	WriteFile(root, true, true)
	WriteShare(root, "")
	if b, _ := os.ReadFile(dot); string(b) != "# team memory\n" {
		t.Fatalf("after dropping both: %q", b)
	}
	os.WriteFile(dot, []byte("share = ../x.jsonl\n"), 0o644)
	if _, err := ReadFile(root); err == nil || !strings.Contains(err.Error(), "line 1: share:") {
		t.Fatalf("share out of the project: %v", err)
	}
}
