package mem_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// module is the import path of this module.
const module = "github.com/memhq/mem"

// layer is a set of the module's packages and the layers they may import.
type layer struct {
	name    string
	pkgs    []string // import paths under the module; "cmd/..." is every package under cmd
	imports []string // layers its packages may import, itself included where they import each other
}

// layers is the direction of the module's imports, top first. The README's
// Architecture section lists the same layers (TestReadmeLayers); a new
// package goes in one of them, else TestLayers fails.
var layers = []layer{
	{"entry points", []string{"cmd/...", "scripts/locomoeval", "scripts/codeeval", "scripts/testsummary", "internal/cli", "internal/fullcli", "internal/hook",
		"internal/mcpserver", "internal/web", "internal/team", "internal/e2e"},
		[]string{"entry points", "use cases", "features", "store", "helpers", "domain", "leaves"}},
	{"use cases", []string{"internal/remember", "internal/spool"}, []string{"features", "store", "helpers", "domain", "leaves"}},
	{"features", []string{"internal/search", "internal/recall", "internal/summarize", "internal/collector",
		"internal/triggers", "internal/capture", "internal/agent", "internal/install", "internal/cite", "internal/retain", "internal/agentmem"},
		[]string{"features", "helpers", "domain", "leaves"}},
	{"store", []string{"internal/store"}, []string{"domain", "leaves"}},
	{"helpers", []string{"internal/privacy", "internal/guard", "internal/config", "internal/project", "internal/switches",
		"internal/interchange", "internal/schedule", "internal/benchgen", "internal/locomo"},
		[]string{"helpers", "domain", "leaves"}},
	{"domain", []string{"internal/memory"}, []string{"leaves"}},
	{"leaves", []string{"internal/text", "internal/tokens", "internal/termsafe", "internal/fsafe", "internal/lazy",
		"internal/progress", "internal/privacy/corpus", "internal/guard/guardtest", "migrations", "scripts/hooks/opencode"},
		[]string{"leaves"}},
}

// layerOf returns the layer of the package at path (under the module).
func layerOf(path string) (layer, bool) {
	for _, l := range layers {
		for _, p := range l.pkgs {
			if p == path || strings.HasSuffix(p, "/...") && strings.HasPrefix(path, strings.TrimSuffix(p, "...")) {
				return l, true
			}
		}
	}
	return layer{}, false
}

// pkg is what go list says of a package.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

// modulePackages lists the module's packages and their imports (tests'
// imports left out) with go list.
func modulePackages(t *testing.T) []pkg {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command("go", "list", "-json=ImportPath,Dir,GoFiles,Imports", "./...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		if len(p.GoFiles) > 0 { // a folder of tests only (this one) is no package to import
			pkgs = append(pkgs, p)
		}
	}
	return pkgs
}

// violations lists the imports among pkgs that break the layers, and the
// packages that are in none.
func violations(pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		path := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		from, ok := layerOf(path)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s is in no layer: add it to one in layers_test.go and the README", path))
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			ip := strings.TrimPrefix(imp, module+"/")
			to, ok := layerOf(ip)
			if ok && !slices.Contains(from.imports, to.name) {
				bad = append(bad, fmt.Sprintf("%s (%s) imports %s (%s): %s may import only %s",
					path, from.name, ip, to.name, from.name, strings.Join(from.imports, ", ")))
			}
		}
	}
	return bad
}

// TestLayers: every package of the module is in a layer, and imports only
// the layers its own may.
func TestLayers(t *testing.T) {
	for _, v := range violations(modulePackages(t)) {
		t.Error(v)
	}
}

// TestOnlyEntryPointsPrint: nothing below the entry points writes to
// stdout (os.Stdout, fmt.Print*): they hand text to the entry point that
// renders it.
func TestOnlyEntryPointsPrint(t *testing.T) {
	printing := regexp.MustCompile(`\bos\.Stdout\b|\bfmt\.Print(f|ln)?\(`)
	for _, p := range modulePackages(t) {
		if l, ok := layerOf(strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")); !ok || l.name == layers[0].name {
			continue
		}
		for _, f := range p.GoFiles {
			src, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(src), "\n") {
				if printing.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
					t.Errorf("%s:%d writes to stdout: %s", filepath.Join(p.Dir, f), i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}

// TestLayersCatchAForbiddenImport: a feature that imports the store, the
// store a feature, and a package in no layer are each reported.
func TestLayersCatchAForbiddenImport(t *testing.T) {
	for _, tc := range []struct {
		p    pkg
		want string
	}{
		{pkg{ImportPath: module + "/internal/recall", Imports: []string{module + "/internal/store"}},
			"internal/recall (features) imports internal/store (store)"},
		{pkg{ImportPath: module + "/internal/store", Imports: []string{module + "/internal/search"}},
			"internal/store (store) imports internal/search (features)"},
		{pkg{ImportPath: module + "/internal/memory", Imports: []string{module + "/internal/privacy"}},
			"internal/memory (domain) imports internal/privacy (helpers)"},
		{pkg{ImportPath: module + "/internal/agent", Imports: []string{module + "/internal/hook"}},
			"internal/agent (features) imports internal/hook (entry points)"},
		{pkg{ImportPath: module + "/internal/newthing"}, "internal/newthing is in no layer"},
	} {
		got := violations([]pkg{tc.p})
		if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
			t.Errorf("%s importing %v: got %q, want one starting %q", tc.p.ImportPath, tc.p.Imports, got, tc.want)
		}
	}
	if got := violations([]pkg{{ImportPath: module + "/internal/hook", Imports: []string{module + "/internal/store", "fmt"}}}); got != nil {
		t.Errorf("an entry point importing the store: %q", got)
	}
}

// TestReadmeLayers: the README's Architecture section has a table row per
// layer, naming its packages (those under internal/ without it) and the
// layers it may import, as layers does.
func TestReadmeLayers(t *testing.T) {
	rows, err := readmeLayers("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range layers {
		names = append(names, l.name)
		row, ok := rows[l.name]
		if !ok {
			t.Errorf("README: no row for the layer %q", l.name)
			continue
		}
		var want []string
		for _, p := range l.pkgs {
			want = append(want, strings.TrimPrefix(p, "internal/"))
		}
		if !slices.Equal(row.pkgs, want) {
			t.Errorf("README, %s: packages %q, want %q", l.name, row.pkgs, want)
		}
		if !slices.Equal(row.imports, l.imports) {
			t.Errorf("README, %s: imports %q, want %q", l.name, row.imports, l.imports)
		}
	}
	for name := range rows {
		if !slices.Contains(names, name) {
			t.Errorf("README: a row for %q, which is no layer", name)
		}
	}
}

type readmeRow struct{ pkgs, imports []string }

// readmeLayers reads the table of the README's Architecture section: a row
// is | layer | `pkg`, `pkg` | what they do | layer, layer |.
func readmeLayers(file string) (map[string]readmeRow, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows := map[string]readmeRow{}
	in := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			in = strings.TrimSpace(strings.TrimLeft(line, "#")) == "Architecture"
			continue
		}
		if !in || !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 4 {
			return nil, fmt.Errorf("%s: architecture row %q: want | layer | packages | what | imports |", file, line)
		}
		name := strings.TrimSpace(cells[0])
		if name == "layer" || strings.Trim(name, "-: ") == "" {
			continue // the header and its rule
		}
		rows[name] = readmeRow{pkgs: list(cells[1]), imports: list(cells[3])}
	}
	return rows, nil
}

// list splits a cell of comma-separated items, backticks taken off; "none"
// is an empty list.
func list(cell string) []string {
	var out []string
	for _, s := range strings.Split(cell, ",") {
		s = strings.Trim(strings.TrimSpace(s), "`")
		if s != "" && s != "none" {
			out = append(out, s)
		}
	}
	return out
}
