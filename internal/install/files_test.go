//go:build unix

package install

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/memhq/mem/internal/fsafe"
)

// hostile makes a home with a file mem must never write, and a project.
func hostile(t *testing.T) (home, repo, bashrc string) {
	t.Helper()
	base := t.TempDir()
	home, repo = filepath.Join(base, "home"), filepath.Join(base, "repo")
	bashrc = filepath.Join(home, ".bashrc")
	for _, d := range []string{filepath.Join(home, "dots"), filepath.Join(repo, ".claude")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, bashrc, "export PATH\n")
	writeFile(t, filepath.Join(repo, ".claude", "settings.json"), `{"model":"opus"}`)
	return home, repo, bashrc
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// installFile reads, plans and applies an install of claude's hooks into
// path, as mem install does.
func installFile(path, root string) error {
	before, err := Read(path, root)
	if err != nil {
		return err
	}
	p, err := Install("claude", path, before, "/bin/mem")
	if err != nil {
		return err
	}
	_, err = Apply(p, root)
	return err
}

func TestNothingIsWrittenThroughALink(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, home, repo, bashrc string) (path, root string)
		err   error // nil: installed
	}{
		{"backup is a link", func(t *testing.T, home, repo, bashrc string) (string, string) {
			must(t, os.Symlink(bashrc, filepath.Join(repo, ".claude", "settings.json.mem.bak")))
			return filepath.Join(repo, ".claude", "settings.json"), repo
		}, fsafe.ErrNotRegular},
		{"old temporary name is a link", func(t *testing.T, home, repo, bashrc string) (string, string) {
			must(t, os.Symlink(bashrc, filepath.Join(repo, ".claude", "settings.json.mem.tmp")))
			return filepath.Join(repo, ".claude", "settings.json"), repo
		}, nil},
		{"settings file is a link", func(t *testing.T, home, repo, bashrc string) (string, string) {
			p := filepath.Join(repo, ".gemini", "settings.json")
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			must(t, os.Symlink(bashrc, p))
			return p, repo
		}, fsafe.ErrNotRegular},
		{"settings file is a FIFO", func(t *testing.T, home, repo, bashrc string) (string, string) {
			p := filepath.Join(repo, ".claude", "settings.json")
			must(t, os.Remove(p))
			must(t, syscall.Mkfifo(p, 0o644))
			return p, repo
		}, fsafe.ErrNotRegular},
		{"settings file is a folder", func(t *testing.T, home, repo, bashrc string) (string, string) {
			p := filepath.Join(repo, ".codex", "hooks.json")
			must(t, os.MkdirAll(p, 0o755))
			return p, repo
		}, fsafe.ErrNotRegular},
		{"project folder links out", func(t *testing.T, home, repo, bashrc string) (string, string) {
			must(t, os.Symlink(filepath.Join(home, "dots"), filepath.Join(repo, ".opencode")))
			return filepath.Join(repo, ".opencode", "plugins", "mem.js"), repo
		}, fsafe.ErrOutside},
		{"project folder links out, two levels up", func(t *testing.T, home, repo, bashrc string) (string, string) {
			must(t, os.Symlink("../../home", filepath.Join(repo, ".claude", "up")))
			return filepath.Join(repo, ".claude", "up", "dots", "settings.json"), repo
		}, fsafe.ErrOutside},
		{"project folder is a link to nowhere yet", func(t *testing.T, home, repo, bashrc string) (string, string) {
			must(t, os.Symlink(filepath.Join(home, "new"), filepath.Join(repo, ".opencode")))
			return filepath.Join(repo, ".opencode", "plugins", "mem.js"), repo
		}, fsafe.ErrOutside},
		{"project folder links inside the project", func(t *testing.T, home, repo, bashrc string) (string, string) {
			must(t, os.Symlink(".claude", filepath.Join(repo, ".gemini")))
			return filepath.Join(repo, ".gemini", "settings.json"), repo
		}, nil},
		{"user folder links to dotfiles", func(t *testing.T, home, repo, bashrc string) (string, string) {
			must(t, os.Symlink(filepath.Join(home, "dots"), filepath.Join(home, ".claude")))
			return filepath.Join(home, ".claude", "settings.json"), ""
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, repo, bashrc := hostile(t)
			path, root := tc.plant(t, home, repo, bashrc)
			settings := filepath.Join(repo, ".claude", "settings.json")
			before, _ := fsafe.ReadFile(settings, 0)
			err := installFile(path, root)
			if tc.err == nil && err != nil {
				t.Fatalf("err = %v, want none", err)
			}
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				after, _ := fsafe.ReadFile(settings, 0)
				if string(after) != string(before) {
					t.Errorf("the settings were changed: %s", after)
				}
				if left, _ := os.ReadDir(filepath.Join(home, "dots")); len(left) > 0 {
					t.Errorf("written outside the project: %v", left)
				}
				if _, err := os.Stat(filepath.Join(home, "new")); err == nil {
					t.Error("a folder was created outside the project")
				}
			}
			if b, _ := os.ReadFile(bashrc); string(b) != "export PATH\n" {
				t.Errorf(".bashrc is now %q", b)
			}
		})
	}
}

// TestApplyRoundTrip: install then uninstall through the files gives the
// user's settings back, with the backup and the
// file's permissions kept, for a hook file and for the OpenCode plugin.
func TestApplyRoundTrip(t *testing.T) {
	_, repo, _ := hostile(t)
	p := filepath.Join(repo, ".claude", "settings.json")
	must(t, os.Chmod(p, 0o600))
	before, _ := os.ReadFile(p)
	must(t, installFile(p, repo))
	if b, _ := os.ReadFile(p + ".mem.bak"); string(b) != string(before) {
		t.Errorf("backup %q, want %q", b, before)
	}
	cur, err := Read(p, repo)
	must(t, err)
	u, err := Uninstall("claude", p, cur, "/bin/mem")
	must(t, err)
	_, err = Apply(u, repo)
	must(t, err)
	after, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if !sameJSON(after, before) || fi.Mode().Perm() != 0o600 {
		t.Errorf("after uninstall: %q mode %v, want %q 0600", after, fi.Mode().Perm(), before)
	}

	plugin := filepath.Join(repo, ".opencode", "plugins", "mem.js")
	in, err := Install("opencode", plugin, nil, "/bin/mem")
	must(t, err)
	_, err = Apply(in, repo)
	must(t, err)
	cur, err = Read(plugin, repo)
	must(t, err)
	out, err := Uninstall("opencode", plugin, cur, "/bin/mem")
	must(t, err)
	_, err = Apply(out, repo)
	must(t, err)
	if _, err := os.Lstat(plugin); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("plugin still there: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
