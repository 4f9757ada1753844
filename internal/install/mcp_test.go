package install

import (
	"strings"
	"testing"
)

func TestMCPInstallIsIdempotentAndUninstallExact(t *testing.T) {
	for _, tc := range []struct {
		agent, before, after string
	}{
		{"claude", `{"theme":"dark","mcpServers":{"gh":{"command":"gh"}}}`, "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"gh\": {\"command\":\"gh\"}\n  }\n}\n"},
		{"gemini", `{"mcpServers":{}}`, ""}, // nothing left: the file is removed
		{"opencode", `{"$schema":"https://opencode.ai/config.json"}`, "{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}\n"},
		{"codex", "model = \"o3\"\n", "model = \"o3\"\n"},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			p, err := InstallMCP(tc.agent, "f", []byte(tc.before), "/bin/mem", []string{"mcp"})
			if err != nil || !p.Changed || !strings.Contains(string(p.After), "/bin/mem") {
				t.Fatalf("install: %v %+v\n%s", err, p, p.After)
			}
			again, err := InstallMCP(tc.agent, "f", p.After, "/bin/mem", []string{"mcp"})
			if err != nil || again.Changed || string(again.After) != string(p.After) {
				t.Errorf("second install changed the file: %v\n%s", err, again.After)
			}
			moved, err := InstallMCP(tc.agent, "f", p.After, "/opt/mem", []string{"mcp"})
			if err != nil || !moved.Changed || strings.Contains(string(moved.After), "/bin/mem") || strings.Count(string(moved.After), "/opt/mem") != 1 {
				t.Errorf("install of another binary did not replace the entry: %v\n%s", err, moved.After)
			}
			un, err := UninstallMCP(tc.agent, "f", moved.After)
			if err != nil || !un.Changed || string(un.After) != tc.after {
				t.Errorf("uninstall: %v\n%s\nwant:\n%s", err, un.After, tc.after)
			}
			none, err := UninstallMCP(tc.agent, "f", un.After)
			if err != nil || none.Changed {
				t.Errorf("second uninstall changed the file: %v", err)
			}
		})
	}
}

func TestMCPRefusesWhatItCannotEdit(t *testing.T) {
	for _, tc := range []struct{ agent, before, want string }{
		{"claude", "{\n // note\n}", "not valid JSON"},
		{"claude", `{"mcpServers": []}`, `"mcpServers" is not an object`},
		{"codex", "mcp_servers.mem = { command = \"mem\" }\n", "dotted or inline key"},
		{"codex", "[mcp_servers]\nmem = { command = \"mem\" }\n", "dotted or inline key"},
		{"codex", "[\"mcp_servers\"]\n'mem'.command = \"mem\"\n", "dotted or inline key"},
		{"codex", "mcp_servers = { mem = { command = \"mem\" } }\n", "mem is defined inline in mcp_servers"},
		{"codex", "mcp_servers = {\n  gh = { command = \"gh\" },\n  \"mem\" = { command = \"mem\" },\n}\n", "mem is defined inline in mcp_servers"},
		{"codex", "\"mcp_servers\" = { gh = { command = \"gh\" } }\n", "mcp_servers is an inline table"},
		{"vim", "{}", "want one of"},
	} {
		if _, err := InstallMCP(tc.agent, "f", []byte(tc.before), "mem", []string{"mcp"}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: got %v, want an error containing %q", tc.agent, tc.before, err, tc.want)
		}
	}
}

// TestCodexInlineTableWithoutMem: uninstall from a config whose mcp_servers
// is an inline table without mem has nothing to remove.
func TestCodexInlineTableWithoutMem(t *testing.T) {
	before := "mcp_servers = { gh = { command = \"gh\" } }\n"
	p, err := UninstallMCP("codex", "f", []byte(before))
	if err != nil || p.Changed {
		t.Errorf("changed %v, err %v", p.Changed, err)
	}
}

// TestCodexValuesSpanningLines: lines inside a multi-line string or array
// are never taken for table headers or keys, whatever they look like.
func TestCodexValuesSpanningLines(t *testing.T) {
	table := codexMCPTable("/bin/mem", []string{"mcp"})
	for _, before := range []string{
		"doc = \"\"\"\n[mcp_servers.mem]\ncommand = \"evil\"\n\"\"\"\n",
		"doc = '''\n[mcp_servers.mem]\nmem = 1\n'''\n",
		"doc = \"\"\"a \\\"\"\" still open\n[mcp_servers.mem]\n\"\"\"\"\n",
		"doc = \"\"\"\nends with quotes\"\"\"\"\"\nx = 1\n",
		"mcp_servers.gh.args = [\n  \"\"\"\n[mcp_servers.mem]\"\"\",\n  [1, 2],\n]\n",
		"[other]\nlist = [\n[mcp_servers.mem],\n]\n",
		"s = \"# [mcp_servers.mem]\" # \"\"\" not a string\n",
	} {
		p, err := InstallMCP("codex", "f", []byte(before), "/bin/mem", []string{"mcp"})
		if err != nil || string(p.After) != before+"\n"+table {
			t.Errorf("install into %q: %v\n%s", before, err, p.After)
			continue
		}
		u, err := UninstallMCP("codex", "f", p.After)
		if err != nil || string(u.After) != before {
			t.Errorf("uninstall from %q: %v\n%s", p.After, err, u.After)
		}
	}
}
