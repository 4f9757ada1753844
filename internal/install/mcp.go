package install

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/memhq/mem/internal/lazy"
)

// MCPName is the name mem's MCP server is registered under in every agent.
const MCPName = "mem"

// MCPPath returns the file install-mcp edits for agent in scope: where the
// agent keeps its MCP servers.
func MCPPath(agent, scope string, p Places) (string, error) {
	return agentPath(agent, scope, p, func(a Agent) Paths { return a.MCPFile })
}

// jsonMCP keeps mem's server entry, which entry builds, in the object key
// of a JSON configuration.
type jsonMCP struct {
	key   string
	entry func(bin string, args []string) *object
}

// list is s as a JSON array.
func list(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// InstallMCP returns the plan that registers mem's MCP server (bin run with
// args) in the configuration whose current content is before (nil when it
// does not exist). An entry named mem is replaced; nothing else changes.
func InstallMCP(agent, path string, before []byte, bin string, args []string) (Plan, error) {
	return editMCP(agent, path, before, bin, args, false)
}

// UninstallMCP returns the plan that removes mem's MCP server entry, and
// nothing else, from the configuration whose current content is before.
func UninstallMCP(agent, path string, before []byte) (Plan, error) {
	return editMCP(agent, path, before, "", nil, true)
}

func editMCP(agent, path string, before []byte, bin string, args []string, remove bool) (Plan, error) {
	p := Plan{Agent: agent, Path: path, Before: before, After: before}
	if remove && before == nil {
		return p, nil
	}
	a, ok := Lookup(agent)
	if !ok {
		return p, unknownAgent(agent)
	}
	p.Agent = a.Name
	return p, a.MCP.edit(&p, bin, args, remove)
}

func (m jsonMCP) edit(p *Plan, bin string, args []string, remove bool) error {
	doc, err := parseObject(p.Before)
	if err != nil {
		return fmt.Errorf("%s is not valid JSON (%w; comments are not supported): add mem by hand, see the README; nothing was changed", p.Path, err)
	}
	servers, ok := asObject(doc, m.key)
	if !ok {
		return fmt.Errorf("%s: %q is not an object: fix it first; nothing was changed", p.Path, m.key)
	}
	entry := m.entry(bin, args)
	old, had := servers.get(MCPName)
	switch {
	case remove && !had:
		return nil
	case remove:
		servers.del(MCPName)
		if len(servers.keys) == 0 {
			doc.del(m.key)
		}
		p.After, p.Changed = encodeOrRemove(doc), true
		return nil
	case had && bytes.Equal(compact(old), compact(entry)):
		return nil
	default:
		servers.set(MCPName, entry)
	}
	p.After, p.Changed = encode(doc), true
	return nil
}

// codexTOML keeps mem's server as the [mcp_servers.mem] table of a Codex
// config.toml.
type codexTOML struct{}

func (codexTOML) edit(p *Plan, bin string, args []string, remove bool) error {
	after, err := editCodexMCP(p.Before, codexMCPTable(bin, args), remove)
	if err != nil {
		return fmt.Errorf("%s: %w; nothing was changed", p.Path, err)
	}
	if remove && len(after) == 0 {
		after = nil // nothing but mem's table was there: remove the file
	}
	p.After, p.Changed = after, string(after) != string(p.Before)
	return nil
}

// tomlInlineMem finds mem as a key inside an inline mcp_servers = {...}.
var tomlInlineMem = lazy.NewRegexp(`[{,]\s*("mem"|'mem'|mem)\s*[.=]`)

// memTable reports whether a section is mem's [mcp_servers.mem] table or
// one of its subtables.
func memTable(s tomlSection) bool {
	return len(s.path) >= 2 && s.path[0] == "mcp_servers" && s.path[1] == MCPName
}

// editCodexMCP adds, replaces or removes the [mcp_servers.mem] table (and
// its subtables) of a Codex config.toml. TOML is edited as lines, so every
// other line, comments included, stays as it was; only lines that begin
// outside a value (a multi-line string or array) can be headers or keys.
// mem defined with a dotted or inline key, or mcp_servers written as an
// inline table (which no [mcp_servers.mem] table may extend), are left to
// the user: rewriting those lines would reformat the user's own.
func editCodexMCP(old []byte, table string, remove bool) ([]byte, error) {
	d, err := readTOML(old)
	if err != nil {
		return nil, err
	}
	end := fileEnd(d.lines)
	table = strings.ReplaceAll(table, "\n", end)
	var kept, section []string
	at := -1 // where mem's table was, in kept
	for _, s := range d.sections {
		if memTable(s) {
			if at < 0 {
				at = len(kept)
			}
			section = append(section, d.lines[s.start:s.next]...)
			continue
		}
		for _, k := range d.keyLines(s) {
			switch {
			case len(k.full) >= 2 && k.full[0] == "mcp_servers" && k.full[1] == MCPName:
				return nil, errors.New("mem is defined with a dotted or inline key: edit it by hand, see the README")
			case len(k.full) == 1 && k.full[0] == "mcp_servers":
				value := k.value
				for j := k.line + 1; j < len(d.lines) && !d.top[j]; j++ {
					value += d.lines[j]
				}
				if tomlInlineMem.Get().MatchString(value) {
					return nil, errors.New("mem is defined inline in mcp_servers = {...}: edit it by hand, see the README")
				}
				if !remove {
					return nil, errors.New("mcp_servers is an inline table (mcp_servers = {...}), which a [mcp_servers.mem] table cannot extend: add mem to it by hand, see the README")
				}
			}
		}
		kept = append(kept, d.lines[s.start:s.next]...)
	}
	switch {
	case remove && at < 0:
		return old, nil
	case remove:
		// Drop the blank line that separated a last table from the rest.
		if at > 0 && at == len(kept) && strings.TrimSpace(kept[at-1]) == "" {
			kept = kept[:at-1]
		}
		return []byte(strings.Join(kept, "")), nil
	case at >= 0 && strings.TrimSpace(strings.Join(section, "")) == strings.TrimSpace(table):
		return old, nil
	case at >= 0:
		if n := len(section); n > 0 && strings.TrimSpace(section[n-1]) == "" {
			table += end // keep the blank line before the next table
		}
		return []byte(strings.Join(kept[:at], "") + table + strings.Join(kept[at:], "")), nil
	}
	out := strings.Join(kept, "")
	if out != "" {
		if !strings.HasSuffix(out, "\n") {
			out += end
		}
		out += end
	}
	return []byte(out + table), nil
}

// codexEnvVars are the variables Codex passes on to mem's MCP server:
// Codex gives an MCP server only a fixed few of its own, while hooks get
// them all, and the server must use the database the hooks use.
var codexEnvVars = []string{`"MEM_DB"`, `"MEM_CONFIG"`, `"XDG_CONFIG_HOME"`, `"XDG_DATA_HOME"`, `"XDG_STATE_HOME"`}

// codexMCPTable is mem's table in a Codex config.toml.
func codexMCPTable(bin string, args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = tomlString(a)
	}
	return "[mcp_servers." + MCPName + "]\ncommand = " + tomlString(bin) + "\nargs = [" + strings.Join(quoted, ", ") + "]\n" +
		"env_vars = [" + strings.Join(codexEnvVars, ", ") + "]\n"
}
