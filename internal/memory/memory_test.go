package memory

import (
	"strings"
	"testing"
)

func TestParseType(t *testing.T) {
	tests := []struct {
		in      string
		want    Type
		wantErr bool
	}{
		{"decision", TypeDecision, false},
		{" Problem ", TypeProblem, false},
		{"NOTE", TypeNote, false},
		{"idea", "", true},
		{"", "", true},
	}
	for _, tt := range tests {
		got, err := ParseType(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseType(%q) = %q, %v", tt.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "decision, problem, warning") {
			t.Errorf("error %q does not list the accepted types", err)
		}
	}
}

func TestImportanceTable(t *testing.T) {
	want := map[Type]float64{TypeDecision: 1.0, TypeProblem: 0.9, TypeWarning: 0.8, TypeRefactor: 0.7,
		TypeSuccess: 0.6, TypeDiscovery: 0.5, TypeFeature: 0.4, TypeBugfix: 0.4, TypePattern: 0.3,
		TypeSolution: 0.3, TypeChange: 0.2, TypeNote: 0.2}
	if len(Types()) != len(want) {
		t.Fatalf("%d types, want %d", len(Types()), len(want))
	}
	for ty, w := range want {
		if got := ty.Importance(); got != w {
			t.Errorf("%s importance %v, want %v", ty, got, w)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Observation{SessionID: "s", Type: TypeNote, Title: "t"}
	tests := []struct {
		name  string
		edit  func(*Observation)
		field string
	}{
		{"valid", func(*Observation) {}, ""},
		{"no session", func(o *Observation) { o.SessionID = "" }, "session"},
		{"bad type", func(o *Observation) { o.Type = "idea" }, "type"},
		{"empty title", func(o *Observation) { o.Title = "  " }, "title"},
		{"long title", func(o *Observation) { o.Title = strings.Repeat("x", 501) }, "title"},
		{"huge narrative", func(o *Observation) { o.Narrative = strings.Repeat("x", MaxTextLen+1) }, "narrative"},
		{"NUL in title", func(o *Observation) { o.Title = "a\x00b" }, "title"},
		{"ESC in title is shown escaped, not refused", func(o *Observation) { o.Title = "a\x1b[2Jb" }, ""},
		{"ESC in session", func(o *Observation) { o.SessionID = "s\x1b]52;c;eA==\a" }, "session"},
		{"NUL in session", func(o *Observation) { o.SessionID = "s\x00" }, "session"},
		{"U+2028 in session", func(o *Observation) { o.SessionID = "s\u2028forged" }, "session"},
		{"bidi override in session", func(o *Observation) { o.SessionID = "s\u202e" }, "session"},
		{"invalid UTF-8 in session", func(o *Observation) { o.SessionID = "s\xff" }, "session"},
		{"ESC in uuid", func(o *Observation) { o.UUID = "u\x1b" }, "uuid"},
		{"U+2028 in project", func(o *Observation) { o.Project = "p\u2028" }, "project"},
		{"plain uuid and project", func(o *Observation) { o.UUID, o.Project = "0b7c-11", "github.com/a/b" }, ""},
		{"negative supersedes", func(o *Observation) { o.Supersedes = -1 }, "supersedes"},
		{"too many facts", func(o *Observation) {
			o.Facts = make([]string, 201)
			for i := range o.Facts {
				o.Facts[i] = strings.Repeat("f", i+1)
			}
		}, "facts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ok
			tt.edit(&o)
			o.Normalize()
			err := o.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			v, isV := err.(*ValidationError)
			if !isV || v.Field != tt.field {
				t.Fatalf("got %v, want a ValidationError on %s", err, tt.field)
			}
		})
	}
}

func TestHashIgnoresWhitespaceAndRepeats(t *testing.T) {
	a := Observation{Type: TypeNote, Title: "t", Facts: []string{"a", "b"}}
	b := Observation{Type: TypeNote, Title: " t ", Facts: []string{"a", " b", "a", ""}}
	a.Normalize()
	b.Normalize()
	if a.Hash() != b.Hash() {
		t.Error("same content hashes differently")
	}
	c := a
	c.Facts = []string{"b", "a"}
	if a.Hash() == c.Hash() {
		t.Error("fact order should matter")
	}
	d := a
	d.Concepts = []string{"a", "b"}
	if a.Hash() == d.Hash() {
		t.Error("moving items between lists should change the hash")
	}
}
