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
