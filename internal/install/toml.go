package install

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// TOML files (a Codex config.toml) are read here as lines, so that an edit
// can change some lines and give every other line back byte for byte: a
// TOML library would re-encode the whole file.

// tomlDoc is a TOML file split into lines (each keeping its line end) and
// sections.
type tomlDoc struct {
	lines    []string
	top      []bool // whether line i begins outside every value (tomlTopLines)
	sections []tomlSection
}

// tomlSection is the part of a TOML file before its first header, or one
// [table] or [[array of tables]] header with the lines up to the next.
type tomlSection struct {
	path  []string // the header's key path; nil before the first header
	array bool     // a [[header]]
	start int      // its first line: the header (0 before the first header)
	end   int      // where its lines end, trailing blank lines left out
	next  int      // where the next section begins (the number of lines for the last)
}

// readTOML splits a TOML file into lines and sections. Only a line that
// begins outside every value can be a header; a header mem cannot read is
// an error.
func readTOML(b []byte) (tomlDoc, error) {
	d := tomlDoc{lines: splitLines(b)}
	d.top = tomlTopLines(d.lines)
	d.sections = []tomlSection{{}}
	for i, l := range d.lines {
		t := strings.TrimSpace(l)
		if !d.top[i] || !strings.HasPrefix(t, "[") {
			continue
		}
		path, array, ok := tomlHeader(t)
		if !ok {
			return d, fmt.Errorf("line %d: a table header mem cannot read: %q", i+1, t)
		}
		d.sections[len(d.sections)-1].next = i
		d.sections = append(d.sections, tomlSection{path: path, array: array, start: i})
	}
	d.sections[len(d.sections)-1].next = len(d.lines)
	for i := range d.sections {
		s := &d.sections[i]
		s.end = s.next
		for s.end > s.start+1 && strings.TrimSpace(d.lines[s.end-1]) == "" {
			s.end--
		}
	}
	return d, nil
}

// tomlKeyLine is a line of a section that sets a key: key = value.
type tomlKeyLine struct {
	line  int
	path  []string // the key as written (dotted keys give more than one)
	full  []string // the section's path, then path
	value string   // what follows the =, as written
}

// keyLines lists the lines of s that begin with a key and an =, header
// and lines inside values left out.
func (d tomlDoc) keyLines(s tomlSection) []tomlKeyLine {
	var out []tomlKeyLine
	from := s.start
	if s.path != nil {
		from++ // the header
	}
	for i := from; i < s.next; i++ {
		if !d.top[i] {
			continue
		}
		path, rest, ok := tomlKeyPath(d.lines[i])
		if !ok || !strings.HasPrefix(rest, "=") {
			continue
		}
		full := append(slices.Clone(s.path), path...)
		out = append(out, tomlKeyLine{line: i, path: path, full: full, value: rest[1:]})
	}
	return out
}

// tomlHeader parses a header line (spaces around it trimmed): [a.b] or
// [[a.b]], with an optional comment after it.
func tomlHeader(t string) (path []string, array bool, ok bool) {
	open, shut := "[", "]"
	if strings.HasPrefix(t, "[[") {
		open, shut, array = "[[", "]]", true
	}
	if !strings.HasPrefix(t, open) {
		return nil, false, false
	}
	path, rest, ok := tomlKeyPath(t[len(open):])
	if !ok {
		return nil, false, false
	}
	rest = strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(rest, shut) {
		return nil, false, false
	}
	rest = strings.TrimSpace(rest[len(shut):])
	if rest != "" && !strings.HasPrefix(rest, "#") {
		return nil, false, false
	}
	return path, array, true
}

// tomlKeyPath parses a dotted TOML key at the start of s (bare, "basic" or
// 'literal' parts), and returns what follows it.
func tomlKeyPath(s string) ([]string, string, bool) {
	var path []string
	for {
		s = strings.TrimLeft(s, " \t")
		var k string
		switch {
		case strings.HasPrefix(s, `"`):
			end := 1
			for ; end < len(s) && s[end] != '"'; end++ {
				if s[end] == '\\' {
					end++
				}
			}
			if end >= len(s) {
				return nil, "", false
			}
			u, ok := tomlUnquote(s[1:end])
			if !ok {
				return nil, "", false
			}
			k, s = u, s[end+1:]
		case strings.HasPrefix(s, "'"):
			end := strings.IndexAny(s[1:], "'\n")
			if end < 0 || s[1+end] != '\'' {
				return nil, "", false
			}
			k, s = s[1:end+1], s[end+2:]
		default:
			end := 0
			for end < len(s) && (s[end] == '_' || s[end] == '-' || s[end] >= '0' && s[end] <= '9' ||
				s[end] >= 'a' && s[end] <= 'z' || s[end] >= 'A' && s[end] <= 'Z') {
				end++
			}
			if end == 0 {
				return nil, "", false
			}
			k, s = s[:end], s[end:]
		}
		path = append(path, k)
		s = strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(s, ".") {
			return path, s, true
		}
		s = s[1:]
	}
}

// tomlUnquote reads the inside of a one-line TOML basic string: its
// escapes are \b \t \n \f \r \e \" \\ \uXXXX and \UXXXXXXXX; a control
// character or another escape makes it invalid.
func tomlUnquote(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' {
			if i+1 >= len(s) {
				return "", false
			}
			i++
			switch s[i] {
			case 'b':
				b.WriteByte('\b')
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case 'e':
				b.WriteByte(0x1b)
			case '"', '\\':
				b.WriteByte(s[i])
			case 'u', 'U':
				n := 4
				if s[i] == 'U' {
					n = 8
				}
				if i+n >= len(s) {
					return "", false
				}
				r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
				if err != nil || !utf8.ValidRune(rune(r)) {
					return "", false
				}
				b.WriteRune(rune(r))
				i += n
			default:
				return "", false
			}
			continue
		}
		if c < 0x20 && c != '\t' || c == 0x7f {
			return "", false
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

// tomlValue reads a one-line string or bare value, without a comment.
func tomlValue(v string) string {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, `"`) || strings.HasPrefix(v, "'") {
		if path, _, ok := tomlKeyPath(v); ok && len(path) == 1 {
			return path[0]
		}
	}
	if i := strings.IndexByte(v, '#'); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}

// splitLines splits b into lines that keep their line ends.
func splitLines(b []byte) []string {
	lines := strings.SplitAfter(string(b), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines
}

// lineEnd is the line end of l ("\r\n" or "\n"; "\n" for a last line
// without one).
func lineEnd(l string) string {
	if strings.HasSuffix(l, "\r\n") {
		return "\r\n"
	}
	return "\n"
}

// fileEnd is a file's own line end, from its first line ("\n" for none).
func fileEnd(lines []string) string {
	if len(lines) == 0 {
		return "\n"
	}
	return lineEnd(lines[0])
}

// tomlTopLines reports, for each line of a TOML document, whether it
// begins outside every value: not inside a multi-line string (three double
// or single quotes) nor inside an array or inline table spread over lines.
// Only such lines can hold a table header or start a key.
func tomlTopLines(lines []string) []bool {
	top := make([]bool, len(lines))
	var quote string // the open multi-line string's delimiter
	depth := 0       // open [ and { of a value
	for i, l := range lines {
		top[i] = quote == "" && depth == 0
		if top[i] && strings.HasPrefix(strings.TrimSpace(l), "[") {
			continue // a table header: its brackets open no value
		}
		for j := 0; j < len(l); j++ {
			c := l[j]
			if quote != "" {
				switch {
				case c == '\\' && quote == `"""`:
					j++
				case strings.HasPrefix(l[j:], quote):
					// Up to two more quotes belong to the string.
					j += len(quote) - 1
					for k := 0; k < 2 && j+1 < len(l) && l[j+1] == quote[0]; k++ {
						j++
					}
					quote = ""
				}
				continue
			}
			switch c {
			case '#':
				j = len(l)
			case '"', '\'':
				if d := strings.Repeat(string(c), 3); strings.HasPrefix(l[j:], d) {
					quote, j = d, j+2
					continue
				}
				// A one-line string ends on its line.
				for j++; j < len(l) && l[j] != c && l[j] != '\n'; j++ {
					if c == '"' && l[j] == '\\' {
						j++
					}
				}
			case '[', '{':
				depth++
			case ']', '}':
				if depth > 0 {
					depth--
				}
			}
		}
	}
	return top
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
