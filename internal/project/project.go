// Package project decides which project a working directory belongs to, so
// that two clones of one repository share memory and two unrelated folders
// that happen to share a name do not.
package project

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/lazy"
	"github.com/memhq/mem/internal/termsafe"
)

// Sources of a project identity, strongest first.
const (
	SourceOverride  = "override"   // --project or MEM_PROJECT
	SourceGitRemote = "git-remote" // the normalised URL of the repository's remote
	SourceGitRoot   = "git-root"   // the main work tree's root, for a repository without remote
	SourceDirectory = "directory"  // the directory itself, outside any repository
)

// Identity is a resolved project.
type Identity struct {
	Key    string `json:"key"`    // what memory is filed under
	Root   string `json:"root"`   // the work tree root, or the directory
	Source string `json:"source"` // how Key was found
}

// Resolve returns the project of dir. A non-empty override wins. Git is read
// from the files under .git rather than by running git, since hooks call this
// on every event. A key with control characters (a folder name, a remote URL
// in a cloned repository's config, an override a hook was given) is kept
// escaped (termsafe.Line), so the same place always gives the same printable
// key; the command line refuses such an override before it gets here.
func Resolve(dir, override string) (Identity, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Identity{}, err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	if o := strings.TrimSpace(override); o != "" {
		root := abs
		if top, _, err := findGit(abs); err == nil {
			root = top
		}
		return Identity{Key: termsafe.Line(o), Root: root, Source: SourceOverride}, nil
	}
	top, common, err := findGit(abs)
	if err != nil {
		return Identity{Key: termsafe.Line(abs), Root: abs, Source: SourceDirectory}, nil
	}
	if url := remoteURL(filepath.Join(common, "config")); url != "" {
		if key := NormalizeRemote(url); key != "" {
			return Identity{Key: termsafe.Line(key), Root: top, Source: SourceGitRemote}, nil
		}
	}
	// Worktrees share the common .git folder; its parent is the main work tree.
	main := top
	if filepath.Base(common) == ".git" {
		main = filepath.Dir(common)
	}
	return Identity{Key: termsafe.Line(main), Root: top, Source: SourceGitRoot}, nil
}

// findGit walks up from dir to the work tree root and returns it with the
// repository's common git folder (shared by all worktrees).
func findGit(dir string) (top, common string, err error) {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		fi, err := os.Stat(p)
		if err == nil {
			if fi.IsDir() {
				return d, p, nil
			}
			gitdir, err := readGitFile(p)
			if err != nil {
				return "", "", err
			}
			return d, commonDir(gitdir), nil
		}
		if filepath.Dir(d) == d {
			return "", "", errors.New("not in a git repository")
		}
	}
}

// Git's small files are read with fsafe, refusing FIFOs and devices and
// bounding the size: a hostile repository must not stall or bloat a hook.
const (
	maxGitFile   = 64 << 10
	maxGitConfig = 1 << 20
)

// readGitFile reads the "gitdir: PATH" of a worktree's or submodule's .git file.
func readGitFile(p string) (string, error) {
	b, err := fsafe.ReadFile(p, maxGitFile)
	if err != nil {
		return "", err
	}
	line := strings.TrimSpace(string(b))
	gitdir, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return "", errors.New("unrecognised .git file " + p)
	}
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(filepath.Dir(p), gitdir)
	}
	return filepath.Clean(gitdir), nil
}

// commonDir follows a worktree's commondir file to the main repository's git folder.
func commonDir(gitdir string) string {
	b, err := fsafe.ReadFile(filepath.Join(gitdir, "commondir"), maxGitFile)
	if err != nil {
		return gitdir
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitdir, c)
	}
	return filepath.Clean(c)
}

// remoteURL returns the url of remote "origin" in a git config file, or of
// the first remote when there is no origin.
func remoteURL(configPath string) string {
	b, err := fsafe.ReadFile(configPath, maxGitConfig)
	if err != nil {
		return ""
	}
	var section, first, origin string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = line
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != "url" || !strings.HasPrefix(section, "[remote ") {
			continue
		}
		v = strings.TrimSpace(v)
		if first == "" {
			first = v
		}
		if section == `[remote "origin"]` {
			origin = v
		}
	}
	if origin != "" {
		return origin
	}
	return first
}

var scpLike = lazy.NewRegexp(`^(?:[^@/]+@)?([^:/]+):(.+)$`)

// NormalizeRemote turns the many spellings of one remote into one key:
// git@github.com:Org/Repo.git, https://user@github.com/org/repo and
// ssh://git@github.com:22/org/repo.git all become github.com/org/repo.
func NormalizeRemote(url string) string {
	u := strings.TrimSpace(url)
	var host, path string
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		if j := strings.Index(rest, "@"); j >= 0 && j < strings.Index(rest+"/", "/") {
			rest = rest[j+1:]
		}
		host, path, _ = strings.Cut(rest, "/")
		if h, _, ok := strings.Cut(host, ":"); ok {
			host = h // drop the port
		}
		if strings.HasPrefix(u, "file://") {
			return filepath.Clean("/" + path)
		}
	} else if m := scpLike.Get().FindStringSubmatch(u); m != nil && !strings.HasPrefix(u, "/") {
		host, path = m[1], m[2]
	} else {
		return filepath.Clean(u) // a local path remote
	}
	path = strings.Trim(path, "/")
	path = strings.TrimSuffix(path, ".git")
	if host == "" || path == "" {
		return ""
	}
	return strings.ToLower(host + "/" + path)
}
