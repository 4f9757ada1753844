// Package switches decides whether mem injects memory into, and captures
// from, a project's sessions: globally (inject.enabled, capture.enabled), per
// project (a .mem file at the project root, written by `mem disable`) and per
// path pattern (exclude.paths). Each "off" carries the reason, so that
// `mem config show` can say why a project gets nothing. The .mem file also
// records where the repository keeps its shared memory (mem share --git).
package switches

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/memhq/mem/internal/fsafe"
)

// FileName is the per-project switch file kept at the project root.
const FileName = ".mem"

// Setting is a global switch value with where it came from.
type Setting struct {
	On     bool
	Source string // e.g. "default", "env MEM_INJECT", "file ~/.config/mem/config.toml:3"
}

// Settings are the user's global switches.
type Settings struct {
	Inject, Capture Setting
	Exclude         []string // path patterns
	ExcludeSource   string
	Home            string // for ~ in patterns
}

// Decision says what mem may do in one project.
type Decision struct {
	Inject     bool   `json:"inject"`
	Capture    bool   `json:"capture"`
	InjectWhy  string `json:"inject_reason,omitempty"`  // why injection is off
	CaptureWhy string `json:"capture_reason,omitempty"` // why capture is off
}

// Decide applies the switches to the project rooted at root: the first rule
// that turns a feature off gives the reason (global, then path, then file).
func Decide(s Settings, root string) Decision {
	d := Decision{Inject: true, Capture: true}
	off := func(inject, capture bool, why string) {
		if inject && d.Inject {
			d.Inject, d.InjectWhy = false, why
		}
		if capture && d.Capture {
			d.Capture, d.CaptureWhy = false, why
		}
	}
	if !s.Inject.On {
		off(true, false, "turned off globally (inject.enabled = false, "+s.Inject.Source+")")
	}
	if !s.Capture.On {
		off(false, true, "turned off globally (capture.enabled = false, "+s.Capture.Source+")")
	}
	if p := Excluded(s.Exclude, s.Home, root); p != "" {
		off(true, true, fmt.Sprintf("path %s matches exclude.paths pattern %q (%s)", root, p, s.ExcludeSource))
	}
	if f, err := ReadFile(root); err == nil {
		if !f.Inject {
			off(true, false, "project opted out in "+f.Path+" ("+f.InjectLine+")")
		}
		if !f.Capture {
			off(false, true, "project opted out in "+f.Path+" ("+f.CaptureLine+")")
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		// An unreadable or malformed opt-out file is honoured as "off": storing a
		// project's work against its owner's stated wish is worse than missing it.
		off(true, true, err.Error())
	}
	return d
}

// Excluded returns the first pattern that matches dir or one of its parents,
// or "". Patterns are shell globs; a leading ~ is the home folder and a
// trailing /** matches the whole tree below.
func Excluded(patterns []string, home, dir string) string {
	if dir == "" {
		return ""
	}
	dir = filepath.Clean(dir)
	for _, p := range patterns {
		pat := strings.TrimSpace(p)
		if pat == "" {
			continue
		}
		if home != "" && (pat == "~" || strings.HasPrefix(pat, "~/")) {
			pat = filepath.Join(home, pat[1:])
		}
		pat = strings.TrimSuffix(strings.TrimSuffix(pat, "/**"), "/")
		for d := dir; ; d = filepath.Dir(d) {
			if ok, _ := filepath.Match(pat, d); ok {
				return p
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return ""
}

// File is a parsed .mem file.
type File struct {
	Path                    string
	Inject, Capture         bool
	InjectLine, CaptureLine string // the lines that turned them off
	// Share is the repository's memory file (mem share --git PATH), a
	// slash-separated path relative to the root; "" for the default.
	Share string
}

// maxFileSize bounds a .mem file: it holds a few lines.
const maxFileSize = 64 << 10

// ReadFile reads root/.mem. Its lines are `inject = false`, `capture = false`,
// `enabled = false` (both), or the single word `off` (both), and `share =
// PATH`, the repository's memory file the team chose; # starts a comment.
// A .mem that is a FIFO or device, or a link leading out of root, is refused
// without being opened or read.
func ReadFile(root string) (File, error) {
	f := File{Path: filepath.Join(root, FileName), Inject: true, Capture: true}
	// Most projects have no .mem: one Lstat answers that on the hook path.
	if _, err := os.Lstat(f.Path); err != nil {
		return f, err
	}
	b, err := fsafe.ReadFileIn(root, FileName, maxFileSize)
	if err != nil {
		return f, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		where := fmt.Sprintf("line %d: %s", n, line)
		if strings.EqualFold(line, "off") {
			f.Inject, f.Capture, f.InjectLine, f.CaptureLine = false, false, where, where
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		if ok && strings.TrimSpace(k) == "share" {
			if f.Share, err = SharePath(v); err != nil {
				return f, fmt.Errorf("%s line %d: share: %w", f.Path, n, err)
			}
			continue
		}
		on, err := strconv.ParseBool(v)
		if !ok || err != nil {
			return f, fmt.Errorf("%s line %d: want inject = true|false, capture = true|false, off or share = PATH, got %q", f.Path, n, line)
		}
		switch strings.TrimSpace(k) {
		case "inject":
			f.Inject, f.InjectLine = on, where
		case "capture":
			f.Capture, f.CaptureLine = on, where
		case "enabled":
			f.Inject, f.Capture, f.InjectLine, f.CaptureLine = on, on, where, where
		default:
			return f, fmt.Errorf("%s line %d: unknown key %q (want inject, capture, enabled or share)", f.Path, n, strings.TrimSpace(k))
		}
	}
	if err := sc.Err(); err != nil {
		return f, fmt.Errorf("reading %s: %w", f.Path, err)
	}
	return f, nil
}

// WriteFile records a project's switches in root/.mem, keeping the file's
// comments and its share line; a file left with nothing to say is removed.
// A .mem that is a link, FIFO, device or directory is refused, never
// written through.
func WriteFile(root string, inject, capture bool) (string, error) {
	var add []string
	if !inject {
		add = append(add, "inject = false")
	}
	if !capture {
		add = append(add, "capture = false")
	}
	return rewrite(root, func(t string) bool { return t == "" || strings.HasPrefix(t, "#") || isShare(t) }, add...)
}

// WriteShare records in root/.mem the repository's memory file the team
// chose (rel, as SharePath gives it; "" for the default), keeping the
// file's other lines.
func WriteShare(root, rel string) (string, error) {
	var add []string
	if rel != "" {
		add = append(add, "share = "+rel)
	}
	return rewrite(root, func(t string) bool { return !isShare(t) }, add...)
}

// SharePath checks the path of a repository's memory file as .mem records
// it: relative to the project root, inside its work tree (not in a .git
// folder, not .mem itself), slash-separated; it returns it cleaned. Names
// are compared as a case-insensitive or Windows file system sees them
// (".GIT", ".git.", "GIT~1" are .git there).
func SharePath(p string) (string, error) {
	c := path.Clean(filepath.ToSlash(p))
	bad := p == "" || path.IsAbs(c) || filepath.IsAbs(p) || c == "." || c == ".." || strings.HasPrefix(c, "../") || sameName(c, FileName)
	for _, e := range strings.Split(c, "/") {
		bad = bad || sameName(e, ".git") || strings.EqualFold(e, "git~1")
	}
	if bad {
		return "", fmt.Errorf("want a file path relative to the project root, in its work tree (not .git, not .mem), got %q", p)
	}
	return c, nil
}

// sameName reports whether a path element names want on a file system
// that ignores case and trailing dots and spaces.
func sameName(e, want string) bool { return strings.EqualFold(strings.TrimRight(e, ". "), want) }

// isShare reports whether a trimmed line of .mem is its share line.
func isShare(t string) bool {
	k, _, ok := strings.Cut(t, "=")
	return ok && strings.TrimSpace(k) == "share"
}

// rewrite writes root/.mem: the lines of the file keep accepts (given
// trimmed), then add; a file left with nothing to say is removed.
func rewrite(root string, keep func(string) bool, add ...string) (string, error) {
	file := filepath.Join(root, FileName)
	if _, err := fsafe.CheckTarget(file); err != nil {
		return file, err
	}
	var lines []string
	if b, err := fsafe.ReadFile(file, maxFileSize); err == nil {
		for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if keep(strings.TrimSpace(l)) {
				lines = append(lines, l)
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return file, fmt.Errorf("reading %s: %w", file, err)
	}
	lines = append(lines, add...)
	if strings.TrimSpace(strings.Join(lines, "")) == "" {
		if err := fsafe.Remove(file); err != nil {
			return file, fmt.Errorf("removing %s: %w", file, err)
		}
		return file, nil
	}
	if err := fsafe.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return file, fmt.Errorf("writing %s: %w", file, err)
	}
	return file, nil
}
