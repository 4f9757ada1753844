package cli

import (
	"os"
	"regexp"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// envq NAME VALUE sets NAME to VALUE read as the body of a Go string
// literal, so that scripts can pass control characters ("x\x1b]52;...").
func cmdEnvQ(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: envq NAME GO-STRING")
	}
	v, err := strconv.Unquote(`"` + args[1] + `"`)
	ts.Check(err)
	ts.Setenv(args[0], v)
}

// dbgrep DB REGEXP succeeds when REGEXP matches the bytes of the database
// file or its WAL: what was ever written there (deleted rows in free pages
// too), not only what queries return.
func cmdDBGrep(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: dbgrep DB REGEXP")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	path := ts.MkAbs(args[0])
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			continue
		}
		ts.Check(err)
		if m := re.Find(b); m != nil {
			if neg {
				ts.Fatalf("%s holds %q", p, m)
			}
			return
		}
	}
	if !neg {
		ts.Fatalf("%s does not hold %s", args[0], args[1])
	}
}
