// Package privacy removes what must never reach the database: text the user
// marked <private>, and secrets that look like API keys, tokens, private keys
// or passwords.
package privacy

import (
	"regexp"
	"slices"
	"strings"
)

// Redacted replaces a secret in stored text.
const Redacted = "[REDACTED]"

const (
	openTag  = "<private>"
	closeTag = "</private>"
)

// secretPatterns are the shapes of common credentials. Prefixes follow each
// provider's published token formats (GitHub ghp_/gho_/ghs_/ghu_/ghr_ and
// github_pat_, OpenAI sk-, Anthropic sk-ant-, AWS AKIA/ASIA, Slack xox?-,
// Google AIza, Stripe sk_/rk_ live/test, GitLab glpat-).
var secretPatterns = []struct {
	re   *regexp.Regexp
	repl string
	// hints are literals one of which every match contains: a text without
	// any of them is not searched (most text is not, which keeps Redact cheap).
	hints []string
}{
	{regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`), Redacted, []string{"-----BEGIN "}},
	{regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b`), Redacted, []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
	{regexp.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{20,}`), Redacted, []string{"sk-"}},
	{regexp.MustCompile(`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`), Redacted, []string{"AKIA", "ASIA"}},
	{regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9\-]{10,}`), Redacted, []string{"xox"}},
	{regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`), Redacted, []string{"AIza"}},
	{regexp.MustCompile(`\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b`), Redacted, []string{"k_live_", "k_test_"}},
	{regexp.MustCompile(`\bglpat-[A-Za-z0-9_\-]{20,}\b`), Redacted, []string{"glpat-"}},
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}`), Redacted, []string{"eyJ"}},
}

// bearer matches an Authorization header's token, keeping the scheme.
var bearer = regexp.MustCompile(`(?i)\b(Bearer\s+)[A-Za-z0-9_\-\.=]{20,}`)

// assignment matches password=..., api_key: "...", secret_token=..., keeping
// the name and replacing the value.
var assignment = regexp.MustCompile(`(?i)\b([A-Za-z0-9_\-]*(?:password|passwd|pwd|secret|api[_\-]?key|access[_\-]?key|auth[_\-]?token|token)["']?\s*[:=]\s*)("[^"\n]*"|'[^'\n]*'|[^\s,;&"']+)`)

// assignmentHints are what every assignment match contains, lowercased.
var assignmentHints = []string{"passw", "pwd", "secret", "api", "access", "token"}

// Filter returns text with private parts removed and secrets redacted. An
// unclosed <private> hides everything after it. Tags match in any case.
func Filter(text string) string {
	return Redact(StripPrivate(text))
}

// StripPrivate removes every <private>...</private> part. Text without an
// opening tag comes back as it is, without a copy, so calling it on a whole
// large text before cutting it costs one scan.
func StripPrivate(text string) string {
	if !HasPrivate(text) {
		return text
	}
	lower := asciiLower(text)
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(lower[i:], openTag)
		if j < 0 {
			b.WriteString(text[i:])
			break
		}
		b.WriteString(text[i : i+j])
		rest := i + j + len(openTag)
		k := strings.Index(lower[rest:], closeTag)
		if k < 0 {
			break
		}
		i = rest + k + len(closeTag)
		// Keep one space where the removed part sat between two words.
		if i < len(text) && text[i] == ' ' && b.Len() > 0 && strings.HasSuffix(b.String(), " ") {
			i++
		}
	}
	out := strings.TrimSpace(b.String())
	if HasPrivate(out) {
		// Removing a part joined two halves of a tag ("<priv<private>x</private>ate>"):
		// filter again, so that filtered text passes the filter unchanged.
		return StripPrivate(out)
	}
	return out
}

// HasPrivate reports whether text holds a <private> tag, in any case.
func HasPrivate(text string) bool {
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			return false
		}
		i += j
		if len(text)-i < len(openTag) {
			return false
		}
		if strings.EqualFold(text[i:i+len(openTag)], openTag) {
			return true
		}
		i++
	}
}

// asciiLower lowercases ASCII letters only, byte for byte, so that indexes
// into the result are indexes into text. strings.ToLower may change lengths
// (invalid UTF-8 becomes U+FFFD, some letters lower to other widths), which
// made StripPrivate slice out of range (found by FuzzFilter).
func asciiLower(text string) string {
	b := []byte(text)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Redact replaces secrets by [REDACTED].
func Redact(text string) string {
	run, wide, assigns := shape(text)
	for i, p := range secretPatterns {
		// Every token pattern but the key block needs a long run of token
		// characters; most text has none, and then is not searched at all.
		if i > 0 && run < minTokenRun {
			break
		}
		if slices.ContainsFunc(p.hints, func(h string) bool { return strings.Contains(text, h) }) {
			text = p.re.ReplaceAllString(text, p.repl)
		}
	}
	// The case-insensitive patterns: Go folds ſ to s and the Kelvin sign to
	// k, which an ASCII-lowered hint would miss.
	folds := strings.Contains(text, "\u017f") || strings.Contains(text, "\u212a")
	if run < minTokenRun && wide < minBearerRun && !assigns && !folds {
		return text
	}
	lower := asciiLower(text)
	if folds || wide >= minBearerRun && strings.Contains(lower, "bearer") {
		text = bearer.ReplaceAllString(text, "${1}"+Redacted)
	}
	if !assigns || !folds && !slices.ContainsFunc(assignmentHints, func(h string) bool { return strings.Contains(lower, h) }) {
		return text
	}
	return assignment.ReplaceAllStringFunc(text, func(m string) string {
		sub := assignment.FindStringSubmatch(m)
		if sub[2] == Redacted {
			return m
		}
		if !secretValue(sub[1], sub[2]) {
			// The value is kept, but it may hold an assignment of its own
			// ("token: password=..."), which this match has consumed.
			return sub[1] + Redact(sub[2])
		}
		return sub[1] + Redacted
	})
}

// minTokenRun is the shortest run of token characters (ASCII letters, digits,
// '_' and '-') any token pattern matches: a JWT part, "eyJ" and ten more.
const minTokenRun = 13

// minBearerRun is the shortest Bearer token, whose characters also include
// '.' and '='.
const minBearerRun = 20

// shape reads text once for what decides which patterns can match at all:
// its longest run of token characters, its longest run of Bearer token
// characters, and whether it assigns anything.
func shape(text string) (longest, wide int, assigns bool) {
	run, wrun := 0, 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		token := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
		if token {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
		if token || c == '.' || c == '=' {
			wrun++
			wide = max(wide, wrun)
		} else {
			wrun = 0
		}
		if c == ':' || c == '=' {
			assigns = true
		}
	}
	return longest, wide, assigns
}

// secretValue decides whether the value assigned to a secret-sounding name is
// a secret. A password's, a secret's or a key's value always is, and so is a
// quoted literal; a bare value of a token must look like one (8 or more
// characters with a digit), so prose such as "mergeToken: context deadline
// exceeded" and code such as "token = next()" stay readable.
func secretValue(name, value string) bool {
	lname := strings.ToLower(name)
	for _, always := range []string{"passw", "pwd", "secret", "key"} {
		if strings.Contains(lname, always) {
			return true
		}
	}
	if strings.HasPrefix(value, `"`) || strings.HasPrefix(value, "'") {
		return true
	}
	return len(value) >= 8 && strings.ContainsAny(value, "0123456789")
}

// secretReach bounds how far before or after a cut a secret that crosses it
// may start or end and still be found: more than the longest token and an
// RSA-4096 private key block.
const secretReach = 8 << 10

// secretSpans returns where the secret patterns match text.
func secretSpans(text string) [][]int {
	var spans [][]int
	for _, p := range secretPatterns {
		spans = append(spans, p.re.FindAllStringIndex(text, -1)...)
	}
	spans = append(spans, bearer.FindAllStringIndex(text, -1)...)
	return append(spans, assignment.FindAllStringIndex(text, -1)...)
}

// CutBefore returns the length, at most n, of the longest head of text that
// splits no secret: n itself unless a secret crosses byte n, else where that
// secret starts. Cutting text at n directly could keep a fragment of a secret
// that Redact no longer recognises.
func CutBefore(text string, n int) int { return safeCut(text, n, false) }

// CutAfter returns where, at or after n, a tail of text may start without
// splitting a secret: n itself unless a secret crosses byte n, else where
// that secret ends.
func CutAfter(text string, n int) int { return safeCut(text, n, true) }

func safeCut(text string, n int, after bool) int {
	if n <= 0 || n >= len(text) {
		return max(0, min(n, len(text)))
	}
	lo, hi := max(0, n-secretReach), min(len(text), n+secretReach)
	spans := secretSpans(text[lo:hi])
	cut := n - lo
	// Moving the cut out of one secret may move it into another that
	// overlaps it (a token inside a password=... assignment).
	for moved := true; moved; {
		moved = false
		for _, s := range spans {
			if s[0] < cut && cut < s[1] {
				if after {
					cut = s[1]
				} else {
					cut = s[0]
				}
				moved = true
			}
		}
	}
	return lo + cut
}

// IsEmpty reports whether nothing but white space is left of a filtered text.
func IsEmpty(text string) bool { return strings.TrimSpace(text) == "" }
