package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// provideRipgrep copies the rg an installed CLI package ships onto the
// run's PATH only when the machine has none.
func TestProvideRipgrep(t *testing.T) {
	npm := filepath.Join(t.TempDir(), "node_modules")
	shipped := filepath.Join(npm, "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "codex-path", "rg")
	if err := os.MkdirAll(filepath.Dir(shipped), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shipped, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	onPath := t.TempDir()
	if err := os.WriteFile(filepath.Join(onPath, "rg"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		npm        string
		want       bool
	}{
		{"no rg on PATH: the shipped one", t.TempDir(), npm, true},
		{"rg on PATH: left alone", onPath, npm, false},
		{"none anywhere: nothing", t.TempDir(), filepath.Join(t.TempDir(), "node_modules"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", tc.path)
			bin := t.TempDir()
			if err := provideRipgrep(filepath.Join(tc.npm, ".bin"), bin); err != nil {
				t.Fatal(err)
			}
			_, err := os.Stat(filepath.Join(bin, "rg"))
			if got := err == nil; got != tc.want {
				t.Errorf("rg in the run's bin: %v, want %v", got, tc.want)
			}
		})
	}
}
