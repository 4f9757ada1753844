package memory

import (
	"strings"
)

// Type is the kind of an observation. The vocabulary is fixed; each type has
// an importance used when recall ranks observations.
type Type string

// The accepted observation types, from most to least important.
const (
	TypeDecision  Type = "decision"
	TypeProblem   Type = "problem"
	TypeWarning   Type = "warning"
	TypeRefactor  Type = "refactor"
	TypeSuccess   Type = "success"
	TypeDiscovery Type = "discovery"
	TypeFeature   Type = "feature"
	TypeBugfix    Type = "bugfix"
	TypePattern   Type = "pattern"
	TypeSolution  Type = "solution"
	TypeChange    Type = "change"
	TypeNote      Type = "note"
)

// types lists every accepted type with its importance, in descending order of
// importance (the table in DESIGN.md).
var types = []struct {
	t          Type
	importance float64
}{
	{TypeDecision, 1.0},
	{TypeProblem, 0.9},
	{TypeWarning, 0.8},
	{TypeRefactor, 0.7},
	{TypeSuccess, 0.6},
	{TypeDiscovery, 0.5},
	{TypeFeature, 0.4},
	{TypeBugfix, 0.4},
	{TypePattern, 0.3},
	{TypeSolution, 0.3},
	{TypeChange, 0.2},
	{TypeNote, 0.2},
}

// Types returns every accepted observation type, most important first.
func Types() []Type {
	out := make([]Type, len(types))
	for i, e := range types {
		out[i] = e.t
	}
	return out
}

// TypeList is the accepted types as one comma-separated string, for messages.
func TypeList() string {
	names := make([]string, len(types))
	for i, e := range types {
		names[i] = string(e.t)
	}
	return strings.Join(names, ", ")
}

// Importance returns the weight of the type in recall, or 0 for an unknown type.
func (t Type) Importance() float64 {
	for _, e := range types {
		if e.t == t {
			return e.importance
		}
	}
	return 0
}

// Valid reports whether t is one of the accepted types.
func (t Type) Valid() bool { return t.Importance() > 0 }

// ParseType turns user input into a Type; case and surrounding space are ignored.
func ParseType(s string) (Type, error) {
	t := Type(strings.ToLower(strings.TrimSpace(s)))
	if !t.Valid() {
		return "", Invalid("type", "one of "+TypeList(), s)
	}
	return t, nil
}

// CreatedVerb starts the title of the change that created a file ("Created
// FILE (N lines)", as capture writes it); a file's history finds the session
// that created it by it.
const CreatedVerb = "Created"
