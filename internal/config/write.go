package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/memory"
)

// Change is one key to set in the config file; an empty Value removes the
// key's line.
type Change struct{ Key, Value string }

// Update writes changes into the config file (c.File), keeping every other
// line: a key already in the file has its line replaced, a new one is added
// under its [section] (made when missing). Each value is checked as Load
// would check it, and nothing is written when one is refused. A new file
// is readable by its owner only; the mode of an existing one is kept, and
// Update reports whether others can read it.
func (c *Config) Update(changes []Change) (othersRead bool, err error) {
	for _, ch := range changes {
		k, ok := c.key(ch.Key)
		if !ok {
			return false, memory.Invalid("config key", "one of "+strings.Join(c.names(), ", "), ch.Key)
		}
		probe := k
		probe.Field = cloneField(k.Field)
		if ch.Value != "" {
			if err := probe.set(ch.Value); err != nil {
				return false, memory.Invalid(ch.Key, err.Error(), ch.Value)
			}
		}
		if strings.ContainsAny(ch.Value, "\n\r\"\\") && k.Secret() {
			return false, memory.Invalid(ch.Key, "a value without newlines, quotes or backslashes", "(hidden)")
		}
	}
	b, err := fsafe.ReadFile(c.File, maxFileBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("reading config file: %w", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(b) == 0 {
		lines = nil
	}
	for _, ch := range changes {
		lines = setLine(lines, ch)
	}
	if err := os.MkdirAll(filepath.Dir(c.File), 0o700); err != nil {
		return false, fmt.Errorf("creating the config folder: %w", err)
	}
	if err := fsafe.WriteFile(c.File, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		return false, fmt.Errorf("writing config file %s: %w", c.File, err)
	}
	fi, err := os.Stat(c.File)
	return err == nil && fi.Mode().Perm()&0o077 != 0, nil
}

func cloneField(f any) any {
	switch f.(type) {
	case *string:
		return new(string)
	case *[]string:
		return new([]string)
	case *bool:
		return new(bool)
	case *int:
		return new(int)
	case *float64:
		return new(float64)
	}
	return f
}

// setLine replaces, adds or removes the line of one key.
func setLine(lines []string, ch Change) []string {
	section, name, ok := strings.Cut(ch.Key, ".")
	if !ok {
		section, name = "", ch.Key
	}
	line := fmt.Sprintf("%s = %q", name, ch.Value)
	cur := ""
	headerAt, lastInSection := -1, -1
	for i, raw := range lines {
		l := strings.TrimSpace(stripComment(raw))
		if strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
			cur = strings.TrimSpace(l[1 : len(l)-1])
			if cur == section {
				headerAt, lastInSection = i, i
			}
			continue
		}
		if cur != section {
			continue
		}
		if l != "" {
			lastInSection = i
		}
		if k, _, found := strings.Cut(l, "="); found && strings.TrimSpace(k) == name {
			if ch.Value == "" {
				return append(lines[:i:i], lines[i+1:]...)
			}
			lines[i] = line
			return lines
		}
	}
	if ch.Value == "" {
		return lines
	}
	switch {
	case section == "" && len(lines) > 0:
		// Keys outside any section go before the first header.
		return append([]string{line}, lines...)
	case section == "":
		return []string{line}
	case headerAt < 0:
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		return append(lines, "["+section+"]", line)
	}
	out := append([]string{}, lines[:lastInSection+1]...)
	out = append(out, line)
	return append(out, lines[lastInSection+1:]...)
}
