package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/memhq/mem/scripts/hooks/opencode"
)

// OpenCode returns OpenCode: its hooks are mem's own plugin, a file install
// writes whole (scripts/hooks/opencode).
func OpenCode() Agent {
	return Agent{
		Name: "opencode",
		Settings: Paths{
			User:    func(p Places) string { return filepath.Join(p.ConfigHome, "opencode", "plugins", "mem.js") },
			Project: filepath.Join(".opencode", "plugins", "mem.js"),
		},
		Hooks: opencodePlugin{},
		// What OpenCode 1.18 does on its own (see internal/e2e/README.md):
		// said so the user is not surprised, since mem cannot change it.
		Notes: []string{"OpenCode installs its plugin SDK with npm into its config folder at each start until " +
			"that install has finished once, with or without mem, and, once any plugin is there, waits for it " +
			"before its first request: unless an earlier OpenCode session finished it, the first start after " +
			"this takes as long as that install (about 60 MB), and with no npm registry reachable every start " +
			"waits for it to fail"},
		Detect: Detect{Commands: []string{"opencode"}, Dirs: func(p Places) []string {
			return []string{filepath.Join(p.ConfigHome, "opencode")}
		}},
		MCPFile: Paths{
			User:    func(p Places) string { return filepath.Join(p.ConfigHome, "opencode", "opencode.json") },
			Project: "opencode.json",
		},
		MCP: jsonMCP{key: "mcp", entry: func(bin string, args []string) *object {
			e := newObject()
			e.set("type", "local")
			e.set("command", list(append([]string{bin}, args...)))
			e.set("enabled", true)
			return e
		}},
	}
}

const pluginMarker = "@memhq/mem opencode plugin"

// opencodePlugin writes mem's OpenCode plugin, and removes it.
type opencodePlugin struct{}

func (opencodePlugin) install(p *Plan, _, bin string) error {
	p.After = Plugin(bin)
	p.Changed = !bytes.Equal(p.Before, p.After)
	if p.Before != nil && !IsPlugin(p.Before) {
		return fmt.Errorf("%s exists and is not mem's plugin: move it away first", p.Path)
	}
	return nil
}

func (opencodePlugin) uninstall(p *Plan, _, _ string) error {
	if !IsPlugin(p.Before) {
		return fmt.Errorf("%s is not mem's plugin: left alone", p.Path)
	}
	p.Changed = true // After nil: remove the file
	return nil
}

// Plugin returns the OpenCode plugin set up to run the mem binary at bin.
func Plugin(bin string) []byte {
	q, _ := json.Marshal(bin)
	return []byte(strings.Replace(string(opencode.Plugin), `"__MEM_BIN__"`, string(q), 1))
}

// IsPlugin reports whether a file is mem's OpenCode plugin.
func IsPlugin(b []byte) bool { return bytes.Contains(b, []byte(pluginMarker)) }
