package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestTomlHeader(t *testing.T) {
	for _, tc := range []struct {
		line  string
		path  []string // nil: not a header mem reads
		array bool
	}{
		{"[a]", []string{"a"}, false},
		{"[a.b-c.d_e]", []string{"a", "b-c", "d_e"}, false},
		{"[ a . b ]", []string{"a", "b"}, false},
		{"[a] # [b] a comment", []string{"a"}, false},
		{"[a]#c", []string{"a"}, false},
		{`[hooks.state."/h/a.b/hooks.json:stop:0:0"]`, []string{"hooks", "state", "/h/a.b/hooks.json:stop:0:0"}, false},
		{`[projects."/p/a]b"] # ] too`, []string{"projects", "/p/a]b"}, false},
		{`["a\"b"]`, []string{`a"b`}, false},
		{`["caf\u00e9 \U0001F600"]`, []string{"café 😀"}, false},
		{`["a\\e\e"]`, []string{`a\e` + "\x1b"}, false},
		{`['C:\dir.x'.'it]s']`, []string{`C:\dir.x`, "it]s"}, false},
		{`["".x]`, []string{"", "x"}, false},
		{"[[a.b]]", []string{"a", "b"}, true},
		{"[[ a ]] # x", []string{"a"}, true},
		{`[["mcp_servers".mem]]`, []string{"mcp_servers", "mem"}, true},
		{"[a b]", nil, false},
		{"[a", nil, false},
		{"[a]]", nil, false},
		{"[[a]", nil, false},
		{"[a] x", nil, false},
		{"[]", nil, false},
		{"[a.]", nil, false},
		{`["a]`, nil, false},
		{`["a\q"]`, nil, false},
		{`["a\u00"]`, nil, false},
		{`["\uD800"]`, nil, false},
		{"['a]", nil, false},
	} {
		path, array, ok := tomlHeader(tc.line)
		if ok != (tc.path != nil) || !slices.Equal(path, tc.path) || array != tc.array {
			t.Errorf("%s: %q array=%v ok=%v, want %q array=%v", tc.line, path, array, ok, tc.path, tc.array)
		}
	}
}

func TestTomlTopLines(t *testing.T) {
	doc := "a = 1\nb = \"\"\"\nin\n\"\"\"\nc = [\n1,\n]\n[t]\nd = '''x'''\ne = { f = 1 }\n"
	lines := strings.SplitAfter(doc, "\n")
	lines = lines[:len(lines)-1]
	want := []bool{true, true, false, false, true, false, false, true, true, true}
	got := tomlTopLines(lines)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d %q: top %v, want %v", i+1, lines[i], got[i], want[i])
		}
	}
}

func TestReadTOMLSections(t *testing.T) {
	type sec struct {
		path             string // parts joined by |
		array            bool
		start, end, next int
	}
	for _, tc := range []struct {
		name, doc string
		want      []sec
	}{
		{"top only", "a = 1\n\n", []sec{{"", false, 0, 1, 2}}},
		{"trailing blank lines are not the table's", "a = 1\n[t]\nb = 2\n\n \n[[u]]\n", []sec{{"", false, 0, 1, 1}, {"t", false, 1, 3, 5}, {"u", true, 5, 6, 6}}},
		{"indented header, comment", "  [t] # x\n", []sec{{"", false, 0, 0, 0}, {"t", false, 0, 1, 1}}},
		{"CRLF", "a = 1\r\n\r\n[\"x.y\".z]\r\nb = 2\r\n\r\n", []sec{{"", false, 0, 1, 2}, {"x.y|z", false, 2, 4, 5}}},
		{"no final line end", "[t]\nb = 2", []sec{{"", false, 0, 0, 0}, {"t", false, 0, 2, 2}}},
		{"headers inside values are not headers", "s = \"\"\"\n[no]\n\"\"\"\nl = [\n[1],\n]\n[t]\n", []sec{{"", false, 0, 6, 6}, {"t", false, 6, 7, 7}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := readTOML([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			var got []sec
			for _, s := range d.sections {
				got = append(got, sec{strings.Join(s.path, "|"), s.array, s.start, s.end, s.next})
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("sections %v, want %v", got, tc.want)
			}
		})
	}
	if _, err := readTOML([]byte("a = 1\n[a b]\n")); err == nil || !strings.Contains(err.Error(), `line 2: a table header mem cannot read: "[a b]"`) {
		t.Errorf("a header mem cannot read: %v", err)
	}
}

func TestTomlKeyLines(t *testing.T) {
	doc := "a.\"b.c\" = 1 # x\r\n'd' = \"v\"\r\n[t]\r\ne = [\r\nf = 1,\r\n]\r\n# g = 2\r\n  h=3\r\n"
	d, err := readTOML([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range d.sections {
		for _, k := range d.keyLines(s) {
			got = append(got, strings.Join(s.path, ".")+":"+strings.Join(k.path, "|")+"="+tomlValue(k.value))
		}
	}
	want := []string{":a|b.c=1", ":d=v", "t:e=[", "t:h=3"}
	if !slices.Equal(got, want) {
		t.Errorf("key lines %q, want %q", got, want)
	}
}

// A config.toml with CRLF line ends: mem's tables are written with the
// file's own line end, and uninstall gives the file back byte for byte.
func TestCodexTOMLWithCRLF(t *testing.T) {
	settings, err := os.ReadFile(filepath.Join("testdata", "codex-0.169.0", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	before := "model = \"o3\" # mine\r\n\r\n[projects.\"C:\\\\p\"]\r\ntrust_level = \"trusted\"\r\n"
	mcp, err := InstallMCP("codex", "f", []byte(before), "/bin/mem", []string{"mcp"})
	if err != nil || !mcp.Changed {
		t.Fatalf("install-mcp: %v", err)
	}
	tr, err := InstallTrust("codex", "config.toml", fixtureSource, settings, mcp.After, "/usr/local/bin/mem")
	if err != nil || !tr.Changed {
		t.Fatalf("install trust: %v", err)
	}
	after := string(tr.After)
	if !strings.HasPrefix(after, before+"\r\n[mcp_servers.mem]\r\ncommand = ") ||
		strings.Count(after, "]\r\ntrusted_hash = \"sha256:") != 5 || strings.Count(after, "\n") != strings.Count(after, "\r\n") {
		t.Errorf("mem's tables not written with CRLF after the user's lines:\n%q", after)
	}
	if again, err := InstallMCP("codex", "f", tr.After, "/bin/mem", []string{"mcp"}); err != nil || again.Changed {
		t.Errorf("install-mcp again changed the file: %v\n%q", err, again.After)
	}
	hooks, err := HooksTrust("codex", fixtureSource, settings, tr.After, "/usr/local/bin/mem")
	if err != nil || len(hooks) != 5 {
		t.Fatalf("%v %d hooks", err, len(hooks))
	}
	for _, h := range hooks {
		if h.Status() != "trusted" {
			t.Errorf("%s: %s", h.Key, h.Status())
		}
	}
	un, err := UninstallTrust("codex", "config.toml", fixtureSource, settings, tr.After, "/usr/local/bin/mem")
	if err != nil {
		t.Fatal(err)
	}
	unm, err := UninstallMCP("codex", "f", un.After)
	if err != nil || string(unm.After) != before {
		t.Errorf("uninstall left %q, want %q (%v)", unm.After, before, err)
	}
}

// mem's MCP table is found however its header is written, and a table
// after it is the user's, kept by install and uninstall, with a comment
// after its header or a "]" in a quoted key.
func TestCodexMCPHeaders(t *testing.T) {
	table := codexMCPTable("/bin/mem", []string{"mcp"})
	for _, user := range []string{
		"[other] # mine\nx = 1\n",
		"[projects.\"/p/a]b\"]\ntrust_level = \"trusted\"\n",
		"[[arr]] # one\ny = 2\n",
	} {
		for _, mem := range []string{
			"[mcp_servers.mem]\ncommand = \"old\"\n",
			"[ \"mcp_servers\" . 'mem' ] # mine\ncommand = \"old\"\n",
			"[mcp_servers.mem]\ncommand = \"old\"\n\n[mcp_servers.mem.env]\nA = \"1\"\n",
		} {
			before := "model = \"o3\"\n\n" + mem + "\n" + user
			p, err := InstallMCP("codex", "f", []byte(before), "/bin/mem", []string{"mcp"})
			if want := "model = \"o3\"\n\n" + table + "\n" + user; err != nil || string(p.After) != want {
				t.Errorf("install over %q: %v\n%s\nwant\n%s", before, err, p.After, want)
			}
			u, err := UninstallMCP("codex", "f", []byte(before))
			if want := "model = \"o3\"\n\n" + user; err != nil || string(u.After) != want {
				t.Errorf("uninstall from %q: %v\n%s\nwant\n%s", before, err, u.After, want)
			}
		}
	}
	if _, err := InstallMCP("codex", "f", []byte("[mcp_servers.mem\n"), "/bin/mem", nil); err == nil ||
		!strings.Contains(err.Error(), "line 1: a table header mem cannot read") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("a header mem cannot read: %v", err)
	}
}
