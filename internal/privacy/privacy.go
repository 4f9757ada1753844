// Package privacy removes what must never reach the database: text the user
// marked <private>, and secrets that look like API keys, tokens, private keys
// or passwords.
package privacy

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/termsafe"
	txt "github.com/memhq/mem/internal/text" // the functions' argument is named text
)

//go:generate go -C gen run . -own ../rules.toml -o ../catalogue.go

// Redacted replaces a secret in stored text.
const Redacted = "[REDACTED]"

const (
	openTag  = "<private>"
	closeTag = "</private>"
)

// Filter returns text with private parts and the blocks mem injected
// removed (StripInjected), and secrets redacted. An unclosed <private> hides
// everything after it. Private tags match in any case.
func Filter(text string) string {
	return Redact(Strip(text))
}

// Strip removes private parts and injected blocks until neither is left:
// removing one may join the halves of the other's tag.
func Strip(text string) string {
	for {
		s := StripInjected(StripPrivate(text))
		if s == text {
			return s
		}
		text = s
	}
}

// StripPrivate removes every <private>...</private> part, up to the close
// tag that matches its opening when parts nest. Text without an
// opening tag comes back as it is, without a copy, so calling it on a whole
// large text before cutting it costs one scan.
func StripPrivate(text string) string {
	if !HasPrivate(text) {
		return text
	}
	lower := txt.ASCIILower(text) // byte for byte: its indexes are text's
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(lower[i:], openTag)
		if j < 0 {
			b.WriteString(text[i:])
			break
		}
		b.WriteString(text[i : i+j])
		end := privateEnd(lower, i+j+len(openTag))
		if end < 0 {
			break
		}
		i = end
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

// privateEnd returns where the private part that opened before from ends:
// after the close tag that matches its opening, counting the tags nested in
// it, or -1 when it is never closed. lower is the text in ASCII lower case.
func privateEnd(lower string, from int) int {
	// Each search starts where the last tag of its kind was found, so that
	// many tags cost one pass.
	next := func(tag string, at int) int {
		if k := strings.Index(lower[at:], tag); k >= 0 {
			return at + k
		}
		return -1
	}
	o, c := next(openTag, from), next(closeTag, from)
	for depth := 1; c >= 0; {
		if o >= 0 && o < c {
			depth++
			o = next(openTag, o+len(openTag))
			continue
		}
		if depth--; depth == 0 {
			return c + len(closeTag)
		}
		c = next(closeTag, c+len(closeTag))
	}
	return -1
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

// secretReach bounds how far before or after a cut a secret that crosses it
// may start or end and still be found: more than the longest token and an
// RSA-4096 private key block.
const secretReach = 8 << 10

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
			if s.start < cut && cut < s.end {
				if after {
					cut = s.end
				} else {
					cut = s.start
				}
				moved = true
			}
		}
	}
	return lo + cut
}

// IsEmpty reports whether nothing but white space is left of a filtered text.
func IsEmpty(text string) bool { return strings.TrimSpace(text) == "" }

// filterID filters an identifier that is also a key: one that holds a
// private part or a secret becomes "redacted-" and a hash of it, so that the
// same id always maps to the same stored value and two ids never to one.
func filterID(id string) string {
	if Filter(id) == id {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "redacted-" + hex.EncodeToString(sum[:12])
}

// SessionKey is the one mapping of a session id, as an editor, a user or an
// agent gives it, to the key the session is stored under: an id holding a
// secret or a private part becomes "redacted-" and a hash of the whole id,
// and control characters are kept escaped (termsafe.Line: ESC as \x1b), so
// that one id always meets the same session and prints as it is stored.
// White space is part of the id: it is not trimmed, as the hooks never
// trimmed it. The key of an empty id is empty.
func SessionKey(id string) string {
	return termsafe.Line(filterID(id))
}

// SessionID checks a session id given by an editor, a user or an agent
// (field names it in the message) and returns its key (SessionKey). What is
// checked is the key, and the message quotes only the key, so a secret the
// id holds never reaches an error.
func SessionID(field, id string) (string, error) {
	key := SessionKey(id)
	if err := memory.ValidateSessionID(field, key); err != nil {
		return "", err
	}
	return key, nil
}

// GivenSessionID is SessionID for an id a person, an agent's tool call or
// an import file gives: one with control characters is bad input there,
// refused (the message quotes it filtered, its control characters escaped
// by the quoting), where an editor's is kept escaped.
func GivenSessionID(field, id string) (string, error) {
	if termsafe.HasControl(id) {
		return "", memory.Invalid(field, "a session id of at most 200 characters without control characters", filterID(id))
	}
	return SessionID(field, id)
}
