package cli

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// workRoot is the script's work folder with its links resolved: the project
// root mem resolves there.
func workRoot(ts *testscript.TestScript) string {
	root, err := filepath.EvalSymlinks(ts.Getenv("WORK"))
	ts.Check(err)
	return root
}

// claudedir [SUBDIR] sets CLAUDE_MEM to Claude Code's auto memory folder of
// the script's work folder (or SUBDIR of it): ~/.claude/projects/ and the
// path with every character but letters and digits made "-".
func cmdClaudeDir(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) > 1 || neg {
		ts.Fatalf("usage: claudedir [SUBDIR]")
	}
	root := workRoot(ts)
	if len(args) == 1 {
		root = filepath.Join(root, args[0])
	}
	var b strings.Builder
	for _, r := range root {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	ts.Setenv("CLAUDE_MEM", filepath.Join(ts.Getenv("HOME"), ".claude", "projects", b.String(), "memory"))
}

// subst FILE... replaces @WORK@ in each file with the work folder's real
// path (what agents write in their files: a cwd, a registry key).
func cmdSubst(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 || neg {
		ts.Fatalf("usage: subst FILE...")
	}
	for _, a := range args {
		p := ts.MkAbs(a)
		b, err := os.ReadFile(p)
		ts.Check(err)
		ts.Check(os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "@WORK@", workRoot(ts))), 0o600))
	}
}
