package capture

import (
	"strings"

	"github.com/memhq/mem/internal/guard"
	"github.com/memhq/mem/internal/lazy"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/text"
)

// The rule for a preference of the user's stated in a prompt, kept narrow:
// the prompt is that one statement (one line, short, not a question, no web
// address, the statement at its start so quoted text cannot be one), and it
// is either
//   - a memory verb and the user's own preference: "remember that I prefer
//     tabs", "note: I always use pnpm", "keep in mind my preferred shell is
//     fish";
//   - or "always"/"never" and every project: "always use pnpm in every
//     project", "never add emojis to commit messages in any of my repos".
//
// A prompt that ties it to this project ("... in this repo", "here") is the
// project's, not a preference for every project; "remember to run the tests"
// states none.
var (
	// prefRemember is a memory verb followed by the user's preference; group
	// 1 is the preference.
	prefRemember = lazy.NewRegexp(`(?i)^(?:please\s+)?(?:remember|note|keep\s+in\s+mind|don'?t\s+forget|never\s+forget)(?:\s+that\b|\s*[:,])?\s*` +
		`((?:i\s+(?:(?:always|generally|usually|normally)\s+)?(?:prefer|like|use|hate|dislike|always|never)\b|i'?d\s+rather\b|i\s+would\s+rather\b|my\s+(?:preferred|preference|favou?rite)\b).+)$`)
	// prefEverywhere is "always" or "never" with a rule for every project.
	prefEverywhere = lazy.NewRegexp(`(?i)^(?:please\s+)?((?:always|never)\s+\S.*?(?:\b(?:in|for|across|on)\s+(?:every|all(?:\s+of)?(?:\s+my)?|any(?:\s+of)?(?:\s+my)?)\s+(?:projects?|repos?|repositories|codebases?)\b.*|\beverywhere))$`)
	// prefHere ties a statement to this project.
	prefHere = lazy.NewRegexp(`(?i)\b(?:this|the\s+current)\s+(?:project|repo|repository|codebase|code\s*base|folder|directory|module|package|file|branch|service|app)\b|\bhere\b`)
)

// prefMax bounds the prompt a preference is read from: a statement, not a
// task with a preference in it.
const prefMax = 200

// Preference returns the observation for a prompt in which the user states
// a preference for every project (the personal tier), or nil when the
// prompt states none or it is ambiguous. The prompt passes the privacy
// filter first and the observation the instruction check.
func Preference(prompt string, w Where) *memory.Observation {
	p := strings.TrimSpace(prompt)
	// The hook's common case costs a prefix check: no filter, no regexp.
	if len(p) > 4*prefMax || !startsAny(strings.ToLower(p[:min(len(p), 16)]), "remember", "please", "note", "keep in mind", "don't forget", "dont forget", "never", "always") {
		return nil
	}
	p = strings.TrimSpace(privacy.Filter(p))
	if p == "" || len(p) > prefMax || strings.ContainsAny(p, "\n\r") || strings.HasSuffix(p, "?") || strings.Contains(p, "://") {
		return nil
	}
	said := p
	p = strings.TrimRight(p, ".! ")
	m := prefRemember.Get().FindStringSubmatch(p)
	if m == nil {
		m = prefEverywhere.Get().FindStringSubmatch(p)
	}
	if m == nil || prefHere.Get().MatchString(p) {
		return nil
	}
	stated := strings.TrimSpace(m[1])
	stated = text.Cut(text.UpperFirst(stated), 200)
	o := &memory.Observation{Type: memory.TypePattern, Title: stated, Narrative: said, Concepts: []string{"preference"},
		Provenance: memory.Provenance{Origin: memory.OriginPerson, Agent: w.Agent, Event: "prompt"}}
	guard.MarkObservation(o)
	return o
}

func startsAny(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
