package triggers

import (
	"path"
	"strings"
)

// Glob is a file pattern as rule files write them: '/'-separated, '*' and '?'
// within one path segment, '**' for any number of segments, '{a,b}' for
// alternatives, '[...]' classes. A pattern without a '/' matches the file's
// name in any directory ("*.ts" matches "web/src/app.ts"), as .gitignore does.
type Glob struct {
	alts []string
}

// ParseGlob compiles a pattern. Leading "./" and "/" are dropped: patterns
// are relative to the project root.
func ParseGlob(p string) (Glob, bool) {
	p = strings.TrimSpace(p)
	p = strings.TrimPrefix(p, "./")
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return Glob{}, false
	}
	var g Glob
	for _, a := range expandBraces(p, 0) {
		if !strings.Contains(a, "/") {
			a = "**/" + a
		}
		if _, err := path.Match(strings.ReplaceAll(a, "**", "*"), ""); err != nil {
			return Glob{}, false // malformed class
		}
		g.alts = append(g.alts, a)
	}
	return g, len(g.alts) > 0
}

// Match reports whether rel, a '/'-separated path relative to the project
// root, matches the pattern.
func (g Glob) Match(rel string) bool {
	rel = strings.TrimPrefix(rel, "./")
	segs := strings.Split(rel, "/")
	for _, a := range g.alts {
		if matchSegs(strings.Split(a, "/"), segs) {
			return true
		}
	}
	return false
}

func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		p := pat[0]
		if p == "**" {
			// Collapse repeated '**' and try every split point.
			for len(pat) > 1 && pat[1] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 1 {
				return true
			}
			for i := 0; i <= len(segs); i++ {
				if matchSegs(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if strings.Contains(p, "**") {
			p = strings.ReplaceAll(p, "**", "*") // "a**b" means "a*b" within a segment
		}
		if ok, _ := path.Match(p, segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// expandBraces expands {a,b} alternatives (nested too), bounded so that a
// hostile pattern cannot explode.
func expandBraces(p string, depth int) []string {
	open := strings.IndexByte(p, '{')
	if open < 0 || depth > 4 {
		return []string{p}
	}
	level, close := 0, -1
	var commas []int
	for i := open; i < len(p); i++ {
		switch p[i] {
		case '{':
			level++
		case '}':
			level--
		case ',':
			if level == 1 {
				commas = append(commas, i)
			}
		}
		if level == 0 {
			close = i
			break
		}
	}
	if close < 0 {
		return []string{p}
	}
	var parts []string
	start := open + 1
	for _, c := range commas {
		parts = append(parts, p[start:c])
		start = c + 1
	}
	parts = append(parts, p[start:close])
	var out []string
	for _, part := range parts {
		for _, e := range expandBraces(p[:open]+part+p[close+1:], depth+1) {
			if len(out) < 64 {
				out = append(out, e)
			}
		}
	}
	return out
}
