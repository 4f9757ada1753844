package install

import (
	"os"
	"path/filepath"
	"strings"
)

// Detect says how mem install, with no agent named, tells that an agent is
// on this machine: one of its commands is on PATH, or one of its folders
// exists (the agent made it at its first run or install).
type Detect struct {
	Commands []string              // executables looked up on PATH
	Dirs     func(Places) []string // folders it keeps its settings in
}

// Found is an agent found on this machine, and why mem thinks so.
type Found struct {
	Agent Agent
	Why   string // "claude on PATH (/usr/bin/claude)", "~/.claude exists"
}

// Machine is what detection looks at: the folders of Places, the PATH
// and the OS whose rules PATH follows ("windows": names end in one of
// PATHEXT). Stat is os.Stat unless a test gives another.
type Machine struct {
	Places Places
	GOOS   string
	Stat   func(string) (os.FileInfo, error)
}

// DetectAll returns the agents of All found on m, in the order of All.
func DetectAll(m Machine) []Found {
	if m.Stat == nil {
		m.Stat = os.Stat
	}
	var found []Found
	for _, a := range All() {
		if why, ok := m.detect(a.Detect); ok {
			found = append(found, Found{Agent: a, Why: why})
		}
	}
	return found
}

func (m Machine) detect(d Detect) (string, bool) {
	for _, c := range d.Commands {
		if path, ok := m.lookPath(c); ok {
			return c + " on PATH (" + path + ")", true
		}
	}
	if d.Dirs != nil {
		for _, dir := range d.Dirs(m.Places) {
			if fi, err := m.Stat(dir); err == nil && fi.IsDir() {
				return dir + " exists", true
			}
		}
	}
	return "", false
}

// lookPath finds an executable file named name in the folders of PATH.
// Relative folders in PATH are skipped, as the agents' own lookups of a
// command in a repository would be unsafe.
func (m Machine) lookPath(name string) (string, bool) {
	getenv := m.Places.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	sep, names := ":", []string{name}
	if m.GOOS == "windows" {
		sep, names = ";", nil
		exts := getenv("PATHEXT")
		if exts == "" {
			exts = ".COM;.EXE;.BAT;.CMD"
		}
		for _, e := range strings.Split(exts, ";") {
			if e != "" {
				names = append(names, name+strings.ToLower(e))
			}
		}
	}
	for _, dir := range strings.Split(getenv("PATH"), sep) {
		if !isAbs(m.GOOS, dir) {
			continue
		}
		for _, n := range names {
			p := joinFor(m.GOOS, dir, n)
			fi, err := m.Stat(p)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if m.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
				continue
			}
			return p, true
		}
	}
	return "", false
}

// isAbs tells an absolute path by the rules of goos, whatever OS mem runs on.
func isAbs(goos, p string) bool {
	if goos != "windows" {
		return strings.HasPrefix(p, "/")
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
}

// joinFor joins a folder and a name with goos's separator.
func joinFor(goos, dir, name string) string {
	if goos == "windows" {
		return strings.TrimRight(dir, `\/`) + `\` + name
	}
	return filepath.Join(dir, name)
}
