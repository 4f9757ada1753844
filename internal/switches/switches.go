// Package switches decides whether mem injects memory into, and captures
// from, a project's sessions: globally (inject.enabled, capture.enabled), per
// project (a .mem file at the project root, written by `mem disable`) and per
// path pattern (exclude.paths). Each "off" carries the reason, so that
// `mem config show` can say why a project gets nothing.
package switches

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
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
}

// maxFileSize bounds a .mem file: it holds a few lines.
const maxFileSize = 64 << 10

// ReadFile reads root/.mem. Its lines are `inject = false`, `capture = false`,
// `enabled = false` (both), or the single word `off` (both); # starts a comment.
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
		on, err := strconv.ParseBool(strings.Trim(strings.TrimSpace(v), `"'`))
		if !ok || err != nil {
			return f, fmt.Errorf("%s line %d: want inject = true|false, capture = true|false or off, got %q", f.Path, n, line)
		}
		switch strings.TrimSpace(k) {
		case "inject":
			f.Inject, f.InjectLine = on, where
		case "capture":
			f.Capture, f.CaptureLine = on, where
		case "enabled":
			f.Inject, f.Capture, f.InjectLine, f.CaptureLine = on, on, where, where
		default:
			return f, fmt.Errorf("%s line %d: unknown key %q (want inject, capture or enabled)", f.Path, n, strings.TrimSpace(k))
		}
	}
	if err := sc.Err(); err != nil {
		return f, fmt.Errorf("reading %s: %w", f.Path, err)
	}
	return f, nil
}

// WriteFile records a project's switches in root/.mem, keeping the file's
// comments; a file left with nothing to say is removed. A .mem that is a
// link, FIFO, device or directory is refused, never written through.
func WriteFile(root string, inject, capture bool) (string, error) {
	path := filepath.Join(root, FileName)
	if _, err := fsafe.CheckTarget(path); err != nil {
		return path, err
	}
	var keep []string
	if b, err := fsafe.ReadFile(path, maxFileSize); err == nil {
		for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			t := strings.TrimSpace(l)
			if t == "" || strings.HasPrefix(t, "#") {
				keep = append(keep, l)
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return path, fmt.Errorf("reading %s: %w", path, err)
	}
	if !inject {
		keep = append(keep, "inject = false")
	}
	if !capture {
		keep = append(keep, "capture = false")
	}
	if strings.TrimSpace(strings.Join(keep, "")) == "" {
		if err := fsafe.Remove(path); err != nil {
			return path, fmt.Errorf("removing %s: %w", path, err)
		}
		return path, nil
	}
	if err := fsafe.WriteFile(path, []byte(strings.Join(keep, "\n")+"\n"), 0o644); err != nil {
		return path, fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}
