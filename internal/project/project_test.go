package project

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestNormalizeRemote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"git@github.com:Org/Repo.git", "github.com/org/repo"},
		{"https://github.com/org/repo", "github.com/org/repo"},
		{"https://user:pw@github.com/org/repo.git", "github.com/org/repo"},
		{"ssh://git@github.com:22/org/repo.git", "github.com/org/repo"},
		{"ssh://git@gitlab.example.com/group/sub/api.git/", "gitlab.example.com/group/sub/api"},
		{"git://example.org/api", "example.org/api"},
		{"/srv/git/api.git", "/srv/git/api.git"},
		{"file:///srv/git/api.git", "/srv/git/api.git"},
	}
	for _, tt := range tests {
		if got := NormalizeRemote(tt.in); got != tt.want {
			t.Errorf("NormalizeRemote(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestResolve(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	// Two clones of one remote, in folders with different names.
	cloneA := filepath.Join(base, "a", "api")
	cloneB := filepath.Join(base, "b", "checkout")
	for _, d := range []string{cloneA, cloneB} {
		os.MkdirAll(filepath.Join(d, "sub"), 0o755)
		git(t, d, "init", "-q")
		git(t, d, "remote", "add", "origin", "git@github.com:shop/api.git")
	}
	// An unrelated repository also called api, without a remote.
	other := filepath.Join(base, "c", "api")
	os.MkdirAll(other, 0o755)
	git(t, other, "init", "-q")
	git(t, other, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(base, "wt")
	git(t, other, "worktree", "add", "-q", wt)
	plain := filepath.Join(base, "plain")
	os.MkdirAll(plain, 0o755)

	tests := []struct {
		name, dir, override, key, source string
	}{
		{"clone a", cloneA, "", "github.com/shop/api", SourceGitRemote},
		{"clone b subdir", filepath.Join(cloneB, "sub"), "", "github.com/shop/api", SourceGitRemote},
		{"same name, no remote", other, "", other, SourceGitRoot},
		{"worktree of it", wt, "", other, SourceGitRoot},
		{"plain directory", plain, "", plain, SourceDirectory},
		{"override", cloneA, "mine", "mine", SourceOverride},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := Resolve(tt.dir, tt.override)
			if err != nil {
				t.Fatal(err)
			}
			if id.Key != tt.key || id.Source != tt.source {
				t.Errorf("Resolve(%s) = %+v, want key %s source %s", tt.dir, id, tt.key, tt.source)
			}
		})
	}
}
