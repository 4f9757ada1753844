// Command gen writes the privacy filter's catalogue of secret patterns
// (catalogue.go) from the default rules of gitleaks, at the version pinned in
// this folder's go.mod, and from mem's own rules (rules.toml, in the same
// format). It lives in a module of its own so that mem's module does not
// depend on gitleaks and its configuration libraries: only the data comes
// along. Run it with `go generate ./internal/privacy`.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"os"
	"regexp/syntax"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

// skipped are gitleaks rules mem leaves out, with why (README.md).
var skipped = map[string]string{
	// Its keywords (key, api, auth, token, ...) are in most code, so its
	// slow pattern would run on nearly every text; mem's own assignment rule
	// does its work.
	"generic-api-key": "in most text, covered by mem's assignment rule",
}

type rule struct {
	ID          string
	Regex       string
	SecretGroup int
	Entropy     float64
	Keywords    []string
	MinRun      int
	Lines       int
	Requires    []string
	Source      string
}

func main() {
	own := flag.String("own", "../rules.toml", "mem's own rules, in gitleaks' format")
	out := flag.String("o", "../catalogue.go", "the Go file to write")
	flag.Parse()
	if err := run(*own, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(ownPath, out string) error {
	leaks, err := load(config.DefaultConfig, "gitleaks")
	if err != nil {
		return fmt.Errorf("gitleaks' default rules: %w", err)
	}
	ownText, err := os.ReadFile(ownPath)
	if err != nil {
		return err
	}
	own, err := load(string(ownText), "mem")
	if err != nil {
		return fmt.Errorf("%s: %w", ownPath, err)
	}
	rules := append(own, leaks...)
	src, err := render(rules, gitleaksVersion())
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}

// load reads a rules file the way gitleaks reads its own (viper, then
// Translate, which checks every rule), and keeps the rules that match text.
func load(text, source string) ([]rule, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(text)); err != nil {
		return nil, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, err
	}
	if _, err := vc.Translate(); err != nil {
		return nil, err
	}
	var out []rule
	for _, r := range vc.Rules {
		if r.Regex == "" || r.SkipReport || skipped[r.ID] != "" {
			continue // a rule on file paths only, a helper of another rule, or left out
		}
		if len(r.Keywords) == 0 {
			return nil, fmt.Errorf("rule %s has no keywords: every text would be searched", r.ID)
		}
		kw := make([]string, len(r.Keywords))
		for i, k := range r.Keywords {
			if len(k) < 2 {
				return nil, fmt.Errorf("rule %s: keyword %q is shorter than 2 bytes", r.ID, k)
			}
			kw[i] = asciiLower(k)
		}
		re, err := syntax.Parse(r.Regex, syntax.Perl)
		if err != nil {
			return nil, fmt.Errorf("rule %s: %w", r.ID, err)
		}
		re = re.Simplify()
		_, _, run := tokenRun(re)
		out = append(out, rule{ID: r.ID, Regex: r.Regex, SecretGroup: r.SecretGroup, Entropy: r.Entropy,
			Keywords: kw, MinRun: run, Lines: lines(re), Requires: required(re), Source: source})
	}
	return out, nil
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// isToken reports whether r is a token character as the filter counts them
// (privacy.go, shape): an ASCII letter or digit, '_', '-', or any non-ASCII
// character (case folding maps ASCII letters to some, such as U+212A).
func isToken(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r >= 0x80
}

// tokenRun analyses a pattern: whether everything it matches is made of
// token characters, the fewest characters it matches, and a lower bound on
// the longest run of token characters in anything it matches. A text whose
// longest run is shorter cannot hold a match, so the filter skips the rule.
func tokenRun(re *syntax.Regexp) (allToken bool, minLen, run int) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpNoMatch:
		return true, 0, 0
	case syntax.OpLiteral:
		allToken = true
		cur := 0
		for _, r := range re.Rune {
			if isToken(r) {
				cur++
				run = max(run, cur)
			} else {
				cur = 0
				allToken = false
			}
		}
		return allToken, len(re.Rune), run
	case syntax.OpCharClass:
		for i := 0; i < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= min(re.Rune[i+1], 0x80); r++ {
				if !isToken(r) {
					return false, 1, 0
				}
			}
		}
		return true, 1, 1
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false, 1, 0
	case syntax.OpCapture:
		return tokenRun(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		all, _, _ := tokenRun(re.Sub[0])
		return all, 0, 0
	case syntax.OpPlus, syntax.OpRepeat:
		n := 1
		if re.Op == syntax.OpRepeat {
			n = re.Min
		}
		all, m, r := tokenRun(re.Sub[0])
		if n == 0 {
			return all, 0, 0
		}
		if all {
			r = max(r, n*m)
		}
		return all, n * m, r
	case syntax.OpConcat:
		allToken = true
		cur := 0
		for _, s := range re.Sub {
			all, m, r := tokenRun(s)
			minLen += m
			run = max(run, r)
			if all {
				cur += m
				run = max(run, cur)
			} else {
				cur = 0
				allToken = false
			}
		}
		return allToken, minLen, run
	case syntax.OpAlternate:
		allToken, minLen, run = true, -1, -1
		for _, s := range re.Sub {
			all, m, r := tokenRun(s)
			allToken = allToken && all
			if minLen < 0 || m < minLen {
				minLen = m
			}
			if run < 0 || r < run {
				run = r
			}
		}
		return allToken, max(minLen, 0), max(run, 0)
	}
	panic(errors.New("unexpected regexp op " + re.Op.String()))
}

// required returns literals (lowercase ASCII, at least 3 bytes) that every
// match holds: the filter skips a rule whose keyword a text holds but not
// these, without running its pattern.
func required(re *syntax.Regexp) []string {
	var out []string
	for _, l := range literals(re) {
		if len(l) >= 3 && !slices.ContainsFunc([]byte(l), func(c byte) bool { return c >= 0x80 }) {
			out = append(out, asciiLower(l))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// literals returns strings every match of re holds.
func literals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}
	case syntax.OpCapture, syntax.OpPlus:
		return literals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return literals(re.Sub[0])
		}
	case syntax.OpConcat:
		var out []string
		for _, s := range re.Sub {
			out = append(out, literals(s)...)
		}
		return out
	case syntax.OpAlternate:
		out := literals(re.Sub[0])
		for _, s := range re.Sub[1:] {
			in := literals(s)
			out = slices.DeleteFunc(out, func(l string) bool { return !slices.Contains(in, l) })
		}
		return out
	}
	return nil
}

// lines returns how many line breaks a match can span: 0 when every match
// lies within one line, -1 when there is no bound. The filter tries a
// pattern on the lines around its keywords only, as far as it can reach.
func lines(re *syntax.Regexp) int {
	if oneLine(re) {
		return 0
	}
	return lineBreaks(re)
}

// lineBreaks returns the most line breaks a match of re can hold, or -1
// for no bound.
func lineBreaks(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpAnyChar:
		return 1
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			if r == '\n' {
				n++
			}
		}
		return n
	case syntax.OpCharClass:
		if matchesNewline(re) {
			return 1
		}
		return 0
	case syntax.OpCapture, syntax.OpQuest:
		return lineBreaks(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		n := lineBreaks(re.Sub[0])
		switch {
		case n == 0:
			return 0
		case n < 0 || re.Op != syntax.OpRepeat || re.Max < 0:
			return -1
		}
		return n * re.Max
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, s := range re.Sub {
			n := lineBreaks(s)
			switch {
			case n < 0:
				return -1
			case re.Op == syntax.OpConcat:
				total += n
			default:
				total = max(total, n)
			}
		}
		return total
	}
	return 0
}

// oneLine reports whether a pattern's matches lie within one line, counting
// the line break that ends it: no part of it can match a line break but a
// last single character (gitleaks ends most patterns with one of [\x60'"\s;]).
// The filter tries such a pattern on the lines that hold its keywords only.
func oneLine(re *syntax.Regexp) bool {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return !matchesNewline(re)
	}
	n := len(re.Sub)
	return !slices.ContainsFunc(re.Sub[:n-1], matchesNewline) && endsLine(re.Sub[n-1])
}

// endsLine reports whether every way re can match a line break is a single
// character.
func endsLine(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpCapture:
		return endsLine(re.Sub[0])
	case syntax.OpCharClass:
		return true
	case syntax.OpAlternate:
		return !slices.ContainsFunc(re.Sub, func(s *syntax.Regexp) bool { return !endsLine(s) })
	}
	return !matchesNewline(re)
}

// matchesNewline reports whether a pattern can match a line break.
func matchesNewline(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpAnyChar:
		return true
	case syntax.OpLiteral:
		return slices.Contains(re.Rune, '\n')
	case syntax.OpCharClass:
		for i := 0; i < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return true
			}
		}
		return false
	}
	return slices.ContainsFunc(re.Sub, matchesNewline)
}

func gitleaksVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/zricethezav/gitleaks/v8" {
				return d.Version
			}
		}
	}
	return "(unknown version)"
}

// render writes the catalogue: the rules, mem's first, and an index of
// their keywords sorted, for the filter's one-pass keyword scan.
func render(rules []rule, version string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `// Code generated by internal/privacy/gen; DO NOT EDIT.

// The rules marked gitleaks are derived from the default configuration of
// gitleaks %s (github.com/zricethezav/gitleaks, config/gitleaks.toml),
// Copyright (c) 2019 Zachary Rice, MIT licence; the rules marked mem are
// mem's own (rules.toml). Regenerate with `+"`go generate ./internal/privacy`"+`.

package privacy

// catalogue lists the secret patterns. minRun is the shortest run of token
// characters any match holds; lines is how many line breaks a match can
// span (-1: any number);
// requires lists (as indexes into keywords) literals every match holds.
var catalogue = [...]rule{
`, version)
	byKeyword := map[string][]int{}
	for _, r := range rules {
		for _, l := range r.Requires {
			if _, ok := byKeyword[l]; !ok {
				byKeyword[l] = nil
			}
		}
	}
	for i, r := range rules {
		for _, k := range r.Keywords {
			if !slices.Contains(byKeyword[k], i) {
				byKeyword[k] = append(byKeyword[k], i)
			}
		}
	}
	var words []string
	for k := range byKeyword {
		words = append(words, k)
	}
	slices.Sort(words)
	for _, r := range rules {
		req := "nil"
		if len(r.Requires) > 0 {
			ids := make([]string, len(r.Requires))
			for j, l := range r.Requires {
				k, _ := slices.BinarySearch(words, l)
				ids[j] = strconv.Itoa(k)
			}
			req = "[]uint16{" + strings.Join(ids, ", ") + "}"
		}
		fmt.Fprintf(&b, "\t{id: %q, source: %q, re: %s, group: %d, entropy: %v, minRun: %d, lines: %d, requires: %s},\n",
			r.ID, r.Source, strconv.Quote(r.Regex), r.SecretGroup, r.Entropy, r.MinRun, r.Lines, req)
	}
	b.WriteString("}\n\n// keywords lists, sorted, the keywords of the rules and the literals they\n// require (lowercase ASCII), and the rules each keyword calls for.\nvar keywords = [...]keyword{\n")
	for _, w := range words {
		ids := make([]string, len(byKeyword[w]))
		for i, r := range byKeyword[w] {
			ids[i] = strconv.Itoa(r)
		}
		fmt.Fprintf(&b, "\t{%q, []uint16{%s}},\n", w, strings.Join(ids, ", "))
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting the catalogue: %w\n%s", err, b.Bytes())
	}
	return src, nil
}
