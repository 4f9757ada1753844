package install

import (
	"strings"
	"testing"
)

func TestMCPInstallIsIdempotentAndUninstallExact(t *testing.T) {
	for _, tc := range []struct {
		agent, before, after string
	}{
		{"claude", `{"theme":"dark","mcpServers":{"gh":{"command":"gh"}}}`, "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"gh\": {\n      \"command\": \"gh\"\n    }\n  }\n}\n"},
		{"gemini", `{"mcpServers":{}}`, "{\n  \"mcpServers\": {}\n}\n"},
		{"opencode", `{"$schema":"https://opencode.ai/config.json"}`, "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"mcp\": {}\n}\n"},
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
		{"cursor", "{}", "want one of"},
	} {
		if _, err := InstallMCP(tc.agent, "f", []byte(tc.before), "mem", []string{"mcp"}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: got %v, want an error containing %q", tc.agent, tc.before, err, tc.want)
		}
	}
}
