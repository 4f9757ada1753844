package cli

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

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

// treesum DIR FILE writes to FILE one line for every file, folder and link
// under DIR: its path, type and mode, and the SHA-256 of a file's bytes or
// a link's target, so that cmp of two sums tells whether anything changed.
func cmdTreeSum(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: treesum DIR FILE")
	}
	root := ts.MkAbs(args[0])
	var b strings.Builder
	ts.Check(filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		var sum [32]byte
		switch {
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum = sha256.Sum256(data)
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			sum = sha256.Sum256([]byte(target))
		}
		fmt.Fprintf(&b, "%s %v %x\n", rel, fi.Mode(), sum)
		return nil
	}))
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}

// onlypath DIR sets PATH to DIR and the folder the script's mem command is
// in, so that a script sees only the commands it made, not the machine's.
func cmdOnlyPath(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: onlypath DIR")
	}
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "mem")); err == nil {
			ts.Setenv("PATH", ts.MkAbs(args[0])+string(filepath.ListSeparator)+dir)
			return
		}
	}
	ts.Fatalf("no mem command on PATH")
}
