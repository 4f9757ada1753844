package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memhq/mem/internal/termsafe"
	"github.com/memhq/mem/internal/text"
	"github.com/memhq/mem/internal/tokens"
)

// Limits on observation fields; longer input is rejected rather than cut, so
// nothing is silently lost.
const (
	MaxTitleLen     = 500
	MaxTextLen      = 64 << 10
	MaxListItems    = 200
	MaxSessionIDLen = 200
)

// ValidateSessionID checks an editor session id: at most 200 characters of
// UTF-8 text without control characters (termsafe.IsControl: line breaks,
// ESC, NUL, U+2028, bidirectional overrides and the like).
func ValidateSessionID(field, id string) error {
	if strings.TrimSpace(id) == "" {
		return Invalid(field, "a non-empty session id", "")
	}
	if len(id) > MaxSessionIDLen || termsafe.HasControl(id) {
		return Invalid(field, "a session id of at most 200 characters without control characters", id)
	}
	return nil
}

// ValidateKey checks an identifier given by a user or an import (a project
// key, a uuid), named what in the message: non-empty UTF-8 text without
// control characters.
func ValidateKey(field, what, key string) error {
	if strings.TrimSpace(key) == "" {
		return Invalid(field, "a non-empty "+what, "")
	}
	if termsafe.HasControl(key) {
		return Invalid(field, "a "+what+" without control characters", key)
	}
	return nil
}

// Normalize trims text fields and removes blank and repeated list items, so
// that the same content always hashes the same.
func (o *Observation) Normalize() {
	o.Title = strings.TrimSpace(o.Title)
	o.Subtitle = strings.TrimSpace(o.Subtitle)
	o.Narrative = strings.TrimSpace(o.Narrative)
	o.Facts = CleanList(o.Facts)
	o.Concepts = CleanList(o.Concepts)
	o.FilesRead = CleanList(o.FilesRead)
	o.FilesModified = CleanList(o.FilesModified)
}

// Validate checks an observation before it is stored. Call Normalize first.
func (o *Observation) Validate() error {
	if err := ValidateSessionID("session", o.SessionID); err != nil {
		return err
	}
	if !o.Type.Valid() {
		return Invalid("type", "one of "+TypeList(), string(o.Type))
	}
	if o.Title == "" {
		return Invalid("title", "non-empty text", "")
	}
	if utf8.RuneCountInString(o.Title) > MaxTitleLen {
		return Invalid("title", "at most 500 characters", o.Title)
	}
	if strings.ContainsRune(o.Title, 0) {
		return Invalid("title", "text without NUL characters", o.Title)
	}
	if o.UUID != "" {
		if err := ValidateKey("uuid", "uuid", o.UUID); err != nil {
			return err
		}
	}
	if o.SupersedesUUID != "" {
		if err := ValidateKey("supersedes_uuid", "uuid", o.SupersedesUUID); err != nil {
			return err
		}
	}
	if o.Project != "" {
		if err := ValidateKey("project", "project key", o.Project); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		name, v string
	}{{"subtitle", o.Subtitle}, {"narrative", o.Narrative}} {
		if len(f.v) > MaxTextLen {
			return Invalid(f.name, "at most 64 KiB of text", "")
		}
	}
	for _, l := range []struct {
		name string
		v    []string
	}{{"facts", o.Facts}, {"concepts", o.Concepts}, {"files_read", o.FilesRead}, {"files_modified", o.FilesModified}} {
		if len(l.v) > MaxListItems {
			return Invalid(l.name, "at most 200 items", "")
		}
	}
	if o.PromptNumber < 0 {
		return Invalid("prompt_number", "a number >= 0", "")
	}
	if o.Supersedes < 0 {
		return Invalid("supersedes", "the id of an observation of this project, such as 12", strconv.FormatInt(o.Supersedes, 10))
	}
	return ValidateProvenance(o.Provenance)
}

// ValidateProvenance checks a record's provenance fields.
func ValidateProvenance(p Provenance) error {
	if !ValidOrigin(p.Origin) {
		return Invalid("origin", "one of "+OriginList(), p.Origin)
	}
	for _, f := range []struct{ name, v string }{{"origin_agent", p.Agent}, {"origin_event", p.Event}, {"origin_member", p.Member}} {
		if len(f.v) > 200 || termsafe.HasControl(f.v) {
			return Invalid(f.name, "at most 200 characters without control characters", f.v)
		}
	}
	return nil
}

// Hash returns the content hash that identifies the same observation within a
// session: its type and every text and list field, but not who or when.
func (o *Observation) Hash() string {
	h := sha256.New()
	write := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	write(string(o.Type))
	write(o.Title)
	write(o.Subtitle)
	write(o.Narrative)
	for _, l := range [][]string{o.Facts, o.Concepts, o.FilesRead, o.FilesModified} {
		for _, s := range l {
			write(s)
		}
		h.Write([]byte{1})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// EstimateTokens is the token estimate (internal/tokens) of what an
// observation costs in an agent's context: its title, subtitle, narrative
// and facts.
func (o *Observation) EstimateTokens() int {
	return tokens.Estimate(o.Title + "\n" + o.Subtitle + "\n" + o.Narrative + "\n" + strings.Join(o.Facts, "\n"))
}

// IndexTerms are the extra words indexed for an observation so that its
// identifiers match by their parts (text.IndexTerms).
func (o *Observation) IndexTerms() string {
	return text.IndexTerms(o.Title, o.Subtitle, o.Narrative, strings.Join(o.Facts, " "), strings.Join(o.Concepts, " "))
}

// EstimateTokens is the token estimate (internal/tokens) of a summary's text.
func (s *Summary) EstimateTokens() int { return tokens.Estimate(s.Text) }

// CleanList trims items, drops empty ones and repeats, and keeps the order.
// It never returns nil, so lists encode as [] rather than null.
func CleanList(in []string) []string {
	out := make([]string, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}
