package install

import (
	"io/fs"
	"os"
	"testing"
	"time"
)

// fakeFS answers Stat from a table: path to mode.
type fakeFS map[string]fs.FileMode

type fakeInfo struct {
	name string
	mode fs.FileMode
}

func (f fakeInfo) Name() string       { return f.name }
func (f fakeInfo) Size() int64        { return 0 }
func (f fakeInfo) Mode() fs.FileMode  { return f.mode }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return f.mode.IsDir() }
func (f fakeInfo) Sys() any           { return nil }

func (m fakeFS) stat(p string) (os.FileInfo, error) {
	if mode, ok := m[p]; ok {
		return fakeInfo{p, mode}, nil
	}
	return nil, fs.ErrNotExist
}

// Agents are found by an executable on PATH or by their folder, with each
// OS's rules for PATH.
func TestDetectAll(t *testing.T) {
	for _, c := range []struct {
		name  string
		goos  string
		env   map[string]string
		files fakeFS
		want  map[string]string // agent: why
	}{
		{"nothing", "linux", map[string]string{"PATH": "/usr/bin"}, fakeFS{}, map[string]string{}},
		{"commands and folders", "linux", map[string]string{"PATH": "/usr/bin:/home/a/.npm/bin"},
			fakeFS{"/home/a/.npm/bin/claude": 0o755, "/home/a/.gemini": fs.ModeDir | 0o755, "/usr/bin/opencode": 0o644},
			map[string]string{"claude": "claude on PATH (/home/a/.npm/bin/claude)", "gemini": "/home/a/.gemini exists"}},
		{"a folder named like the command is no command; a file named like the folder is no folder", "linux",
			map[string]string{"PATH": "/usr/bin"}, fakeFS{"/usr/bin/codex": fs.ModeDir | 0o755, "/home/a/.claude": 0o644},
			map[string]string{}},
		{"relative PATH entries are skipped", "darwin", map[string]string{"PATH": ".:bin:/opt/homebrew/bin"},
			fakeFS{"bin/codex": 0o755, "./codex": 0o755, "/opt/homebrew/bin/opencode": 0o755},
			map[string]string{"opencode": "opencode on PATH (/opt/homebrew/bin/opencode)"}},
		{"CODEX_HOME moves Codex's folder", "linux", map[string]string{"PATH": "", "CODEX_HOME": "/srv/codex"},
			fakeFS{"/srv/codex": fs.ModeDir | 0o700}, map[string]string{"codex": "/srv/codex exists"}},
		{"windows: PATHEXT endings, no execute bit", "windows",
			map[string]string{"PATH": `C:\Windows;C:\Users\a\AppData\Roaming\npm`, "PATHEXT": ".COM;.EXE;.CMD"},
			fakeFS{`C:\Users\a\AppData\Roaming\npm\claude.cmd`: 0o644, `C:\Users\a\AppData\Roaming\npm\codex`: 0o755},
			map[string]string{"claude": `claude on PATH (C:\Users\a\AppData\Roaming\npm\claude.cmd)`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := Places{Home: "/home/a", ConfigHome: "/home/a/.config", Getenv: func(k string) string { return c.env[k] }}
			got := map[string]string{}
			for _, f := range DetectAll(Machine{Places: p, GOOS: c.goos, Stat: c.files.stat}) {
				got[f.Agent.Name] = f.Why
			}
			if len(got) != len(c.want) {
				t.Errorf("found %v, want %v", got, c.want)
			}
			for a, why := range c.want {
				if got[a] != why {
					t.Errorf("%s: %q, want %q", a, got[a], why)
				}
			}
		})
	}
}

// Every agent says how it is found.
func TestEveryAgentDetectable(t *testing.T) {
	for _, a := range All() {
		if len(a.Detect.Commands) == 0 && a.Detect.Dirs == nil {
			t.Errorf("%s has no Detect", a.Name)
		}
	}
}
