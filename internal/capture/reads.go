package capture

import (
	"strings"
	"unicode"
)

// maxHits bounds the files a search's output adds to files_read.
const maxHits = 20

// shellReads lists the files a shell command reads by name (cat, head, tail,
// nl, sed, grep, rg... with their file arguments) and, for a search program
// (grep, rg, ag, find, fd), the files its output names. Only simple words
// are taken: a word with a glob, a variable or a substitution is skipped.
func shellReads(cmd, output string) []string {
	var paths []string
	searched := false
	for _, seg := range shellSegments(cmd) {
		words := shellWords(seg)
		if len(words) == 0 {
			continue
		}
		prog := words[0]
		if i := strings.LastIndexByte(prog, '/'); i >= 0 {
			prog = prog[i+1:]
		}
		args, search := fileArgs(prog, words[1:])
		paths = append(paths, args...)
		searched = searched || search
	}
	if searched {
		paths = append(paths, searchHits(output)...)
	}
	return paths
}

// valueFlags returns the short flags of a program that take the next word
// as their value, and whether the program is one whose file arguments are
// known.
func valueFlags(prog string) (string, bool) {
	switch prog {
	case "head", "tail":
		return "nc", true
	case "nl":
		return "bsvwi", true
	case "sed":
		return "ef", true
	case "cat":
		return "", true
	case "grep":
		return "efABCmd", true
	case "rg":
		return "efABCmgtTM", true
	case "ag":
		return "ABCmGg", true
	}
	return "", false
}

// fileArgs returns the file arguments of one simple command, and whether it
// is a search whose output names files.
func fileArgs(prog string, args []string) ([]string, bool) {
	vf, known := valueFlags(prog)
	switch prog {
	case "find", "fd":
		return nil, true
	case "less", "more", "bat", "batcat":
		known = true
	}
	if !known {
		return nil, false
	}
	search := prog == "grep" || prog == "rg" || prog == "ag"
	// The first operand of sed and of a search is its script or pattern,
	// unless a flag gave it.
	skipFirst := search || prog == "sed"
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			continue
		case strings.HasPrefix(a, "--"):
			if !strings.Contains(a, "=") && (a == "--regexp" || a == "--file" || a == "--glob" || a == "--type" || a == "--expression") {
				i++
				if a == "--regexp" || a == "--expression" {
					skipFirst = false
				}
			}
			continue
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags := a[1:]
			if len(flags) > 0 && flags[0] >= '0' && flags[0] <= '9' {
				continue // head -20
			}
			for j, f := range flags {
				if strings.ContainsRune(vf, f) {
					if f == 'e' || f == 'f' {
						skipFirst = false
					}
					if j == len(flags)-1 {
						i++ // the value is the next word
					}
					break
				}
			}
			continue
		case a == "<" || a == ">" || a == ">>" || strings.HasPrefix(a, ">") || strings.HasPrefix(a, "2>"):
			i++
			continue
		}
		if skipFirst {
			skipFirst = false
			continue
		}
		if plainPath(a) {
			out = append(out, a)
		}
	}
	return out, search
}

// plainPath reports whether a word is a literal path: no glob, variable,
// substitution or redirection.
func plainPath(w string) bool {
	return w != "" && !strings.ContainsAny(w, "*?[]{}$`<>|&;()~\\")
}

// shellSegments splits a command line into simple commands at ;, &&, || and |
// outside quotes.
func shellSegments(cmd string) []string {
	var segs []string
	var quote rune
	start := 0
	for i, r := range cmd {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ';' || r == '|' || r == '&' || r == '\n':
			segs = append(segs, cmd[start:i])
			start = i + 1
		}
	}
	return append(segs, cmd[start:])
}

// shellWords splits a simple command into words, removing quotes. A word
// with an unclosed quote is dropped.
func shellWords(seg string) []string {
	var words []string
	var b strings.Builder
	var quote rune
	in := false
	for _, r := range seg {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				b.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case unicode.IsSpace(r):
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteRune(r)
			in = true
		}
	}
	if in && quote == 0 {
		words = append(words, b.String())
	}
	return words
}

// searchHits lists the files a search tool's output names, in the shapes
// grep, rg, find and the agents' search tools print: "path:line:text",
// "path:text", a "path:" heading (OpenCode), "File: path" (Gemini), or a
// path alone on its line (grep -l, glob, find).
func searchHits(output string) []string {
	var out []string
	for _, l := range strings.Split(output, "\n") {
		if len(out) == maxHits {
			break
		}
		l = strings.TrimSpace(l)
		if p, ok := strings.CutPrefix(l, "File: "); ok {
			l = p
		} else if i := strings.IndexByte(l, ':'); i > 0 {
			l = l[:i]
		}
		if looksLikePath(l) {
			out = append(out, l)
		}
	}
	return out
}

// looksLikePath reports whether s is one word that names a file: it holds a
// slash or a dot after its first character, and no space.
func looksLikePath(s string) bool {
	if s == "" || len(s) > 500 || !plainPath(s) || strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		return false
	}
	return strings.Contains(s, "/") || strings.LastIndexByte(s, '.') > 0
}
