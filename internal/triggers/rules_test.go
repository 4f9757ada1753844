package triggers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pattern string
		yes, no []string
	}{
		{"**/*.ts", []string{"a.ts", "web/src/app.ts"}, []string{"a.tsx", "web/ts"}},
		{"*.go", []string{"main.go", "internal/store/db.go"}, []string{"main.go.orig"}},
		{"src/**/*.{ts,tsx}", []string{"src/a.ts", "src/x/y/b.tsx"}, []string{"lib/a.ts", "src/a.js"}},
		{"internal/store/**", []string{"internal/store/db.go", "internal/store/x/y.go"}, []string{"internal/storex/db.go"}},
		{"/docs/*.md", []string{"docs/a.md"}, []string{"docs/sub/a.md", "x/docs/a.md"}},
		{"**", []string{"anything/at/all.txt"}, nil},
		{"migrations/0000?_*.sql", []string{"migrations/00001_init.sql"}, []string{"migrations/00010_x.sql"}},
		{"**/test/**/*_test.go", []string{"test/a_test.go", "x/test/y/z_test.go"}, []string{"x/a_test.go"}},
	}
	for _, tc := range cases {
		g, ok := ParseGlob(tc.pattern)
		if !ok {
			t.Fatalf("ParseGlob(%q) failed", tc.pattern)
		}
		for _, p := range tc.yes {
			if !g.Match(p) {
				t.Errorf("%q should match %q", tc.pattern, p)
			}
		}
		for _, p := range tc.no {
			if g.Match(p) {
				t.Errorf("%q should not match %q", tc.pattern, p)
			}
		}
	}
	for _, bad := range []string{"", "  ", "[a-"} {
		if _, ok := ParseGlob(bad); ok {
			t.Errorf("ParseGlob(%q) accepted", bad)
		}
	}
}

// Each format as its tool documents it, matched against touched files.
func TestParseRuleFormats(t *testing.T) {
	cases := []struct {
		name, rel, format, text string
		yes, no                 []string
		ok                      bool
	}{
		{"copilot applyTo list", ".github/instructions/ts.instructions.md", "copilot",
			"---\napplyTo: \"**/*.ts,**/*.tsx\"\n---\nUse strict null checks.\n",
			[]string{"web/a.ts", "b.tsx"}, []string{"a.go"}, true},
		{"copilot braces", ".github/instructions/go.instructions.md", "copilot",
			"---\ndescription: Go rules\napplyTo: 'internal/**/*.{go,sql}'\n---\n\nWrap errors with %w.\n",
			[]string{"internal/store/db.go", "internal/x.sql"}, []string{"cmd/mem/main.go"}, true},
		{"cursor globs string", ".cursor/rules/api.mdc", "cursor",
			"---\ndescription: API conventions\nglobs: src/api/**/*.ts, src/routes/*.ts\nalwaysApply: false\n---\nReturn problem+json on errors.\n",
			[]string{"src/api/v1/users.ts", "src/routes/index.ts"}, []string{"src/lib/a.ts"}, true},
		{"cursor globs list", ".cursor/rules/py.mdc", "cursor",
			"---\nglobs: [\"*.py\", \"scripts/**\"]\n---\nUse type hints.\n",
			[]string{"tools/gen.py", "scripts/run.sh"}, []string{"gen.pyc"}, true},
		{"cursor always", ".cursor/rules/style.mdc", "cursor",
			"---\ndescription: style\nglobs:\nalwaysApply: true\n---\nBe brief.\n",
			[]string{"any/file.txt"}, nil, true},
		{"cursor agent-requested (no globs)", ".cursor/rules/misc.mdc", "cursor",
			"---\ndescription: only when asked\nalwaysApply: false\n---\nText.\n", nil, []string{"a.go"}, false},
		{"claude paths block list", ".claude/rules/api.md", "claude",
			"---\npaths:\n  - \"src/api/**/*.ts\"\n  - 'lib/**/*.{js,mjs}'\n---\n# API rules\nValidate input.\n",
			[]string{"src/api/a.ts", "lib/x/y.mjs"}, []string{"src/a.ts"}, true},
		{"claude no frontmatter", ".claude/rules/general.md", "claude", "# General\nAlways loaded by Claude itself.\n",
			nil, nil, false},
		{"windows line ends", ".claude/rules/w.md", "claude", "---\r\npaths: docs/**\r\n---\r\nWrite plainly.\r\n",
			[]string{"docs/a.md"}, []string{"src/a.md"}, true},
	}
	for _, tc := range cases {
		r, ok := ParseRule(tc.rel, tc.format, tc.text)
		if ok != tc.ok {
			t.Errorf("%s: ok=%v, want %v (%+v)", tc.name, ok, tc.ok, r)
			continue
		}
		if !ok {
			continue
		}
		if strings.Contains(r.Body, "---") || r.Body == "" {
			t.Errorf("%s: body %q", tc.name, r.Body)
		}
		for _, p := range tc.yes {
			if !r.Applies(p) {
				t.Errorf("%s: should apply to %s", tc.name, p)
			}
		}
		for _, p := range tc.no {
			if r.Applies(p) {
				t.Errorf("%s: should not apply to %s", tc.name, p)
			}
		}
	}
}

func TestLoadRules(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".github/instructions/go.instructions.md", "---\napplyTo: \"**/*.go\"\n---\nGo rule\n")
	write(".github/instructions/notes.md", "---\napplyTo: \"**\"\n---\nnot an instructions file\n")
	write(".cursor/rules/sub/web.mdc", "---\nglobs: web/**\n---\nWeb rule\n")
	write(".claude/rules/sql.md", "---\npaths: [\"migrations/*.sql\"]\n---\nSQL rule\n")
	rules := LoadRules(root)
	var got []string
	for _, r := range rules {
		got = append(got, r.Path)
	}
	want := ".claude/rules/sql.md .cursor/rules/sub/web.mdc .github/instructions/go.instructions.md"
	if strings.Join(got, " ") != want {
		t.Fatalf("rules %v, want %s", got, want)
	}
	if LoadRules(filepath.Join(root, "missing")) != nil {
		t.Error("rules from a missing root")
	}
}
