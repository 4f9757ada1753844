package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Versions are the CLI releases the harness installs (scripts/e2e reads
// them through `mem-e2e versions`). Claude Code 2.1.197 is the newest
// release whose package still accepts Node 20.
var Versions = map[string]string{
	"claude":   "@anthropic-ai/claude-code@2.1.197",
	"codex":    "@openai/codex@0.169.0",
	"gemini":   "@google/gemini-cli@0.61.0",
	"opencode": "opencode-ai@1.18.33",
}

// Agent is how one CLI is configured, driven and spoken to.
type Agent struct {
	Name string
	// UserFiles are the user's own settings before mem is installed
	// (relative to HOME): install must keep them, uninstall restore them.
	UserFiles map[string]string
	// Settings are the files (relative to HOME) mem install and install-mcp write.
	Settings []string
	Env      func(h *H) []string
	Args     func(h *H, prompt string) []string
	ToolCall func(h *H, s Step, tools []string) Call
	// Injected escapes: the forms the CLI gives the model mem's blocks in.
	StartMarks []string
}

// Agents by name, in the order `all` runs them.
var Agents = []*Agent{claudeAgent, geminiAgent, codexAgent, opencodeAgent}

// AgentByName returns the agent called name.
func AgentByName(name string) *Agent {
	for _, a := range Agents {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// mcpTool returns the offered tool that is mem's MCP tool short (search).
func mcpTool(tools []string, short string) string {
	for _, t := range tools {
		l := strings.ToLower(t)
		if strings.Contains(l, "mem") && strings.HasSuffix(l, short) {
			return t
		}
	}
	return short
}

func (h *H) abs(rel string) string { return filepath.Join(h.Project, rel) }

var claudeAgent = &Agent{
	Name:      "claude",
	UserFiles: map[string]string{".claude/settings.json": "{\n  \"cleanupPeriodDays\": 30,\n  \"includeCoAuthoredBy\": false\n}\n"},
	Settings:  []string{".claude/settings.json", ".claude.json"},
	Env: func(h *H) []string {
		return []string{"ANTHROPIC_BASE_URL=" + h.Server.URL, "ANTHROPIC_API_KEY=sk-ant-e2e-fake",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1", "DISABLE_TELEMETRY=1",
			"DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_ENABLE_TELEMETRY=0", "ANTHROPIC_MODEL=claude-sonnet-4-5"}
	},
	Args: func(h *H, prompt string) []string {
		return []string{"claude", "-p", prompt, "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"}
	},
	ToolCall: func(h *H, s Step, tools []string) Call {
		a := s.Args
		switch s.Tool {
		case "read":
			return Call{"Read", map[string]any{"file_path": h.abs(a["file"])}}
		case "grep": // this release offers no Grep tool: it searches with grep through Bash
			return Call{"Bash", map[string]any{"command": "grep -rn " + a["pattern"] + " src", "description": "find callers"}}
		case "edit":
			return Call{"Edit", map[string]any{"file_path": h.abs(a["file"]), "old_string": a["old"], "new_string": a["new"]}}
		case "shell":
			return Call{"Bash", map[string]any{"command": a["command"], "description": "run a check"}}
		case "mcp_search":
			return Call{mcpTool(tools, "search"), map[string]any{"query": a["query"]}}
		}
		panic("unknown step " + s.Tool)
	},
	StartMarks: []string{"<memory_context"},
}

var geminiAgent = &Agent{
	Name: "gemini",
	UserFiles: map[string]string{".gemini/settings.json": "{\n  \"general\": { \"disableAutoUpdate\": true },\n" +
		"  \"privacy\": { \"usageStatisticsEnabled\": false },\n  \"security\": {\n    \"auth\": { \"selectedType\": \"gemini-api-key\" },\n    \"folderTrust\": { \"enabled\": false }\n  }\n}\n"},
	Settings: []string{".gemini/settings.json"},
	Env: func(h *H) []string {
		return []string{"GEMINI_API_KEY=e2e-fake-key", "GOOGLE_GEMINI_BASE_URL=" + h.Server.URL,
			"GEMINI_CLI_NO_RELAUNCH=true", "GEMINI_TELEMETRY_ENABLED=false"}
	},
	Args: func(h *H, prompt string) []string {
		return []string{"gemini", "-p", prompt, "--yolo", "--model", "gemini-2.5-flash"}
	},
	ToolCall: func(h *H, s Step, tools []string) Call {
		a := s.Args
		switch s.Tool {
		case "read":
			return Call{"read_file", map[string]any{"file_path": a["file"]}}
		case "grep":
			return Call{pick(tools, "grep_search", "search_file_content"), map[string]any{"pattern": a["pattern"]}}
		case "edit":
			return Call{"replace", map[string]any{"file_path": h.abs(a["file"]), "old_string": a["old"], "new_string": a["new"],
				"instruction": "fix the rounding"}}
		case "shell":
			return Call{"run_shell_command", map[string]any{"command": a["command"], "description": "run a check"}}
		case "mcp_search":
			return Call{mcpTool(tools, "search"), map[string]any{"query": a["query"]}}
		}
		panic("unknown step " + s.Tool)
	},
	StartMarks: []string{"<memory_context", "&lt;memory_context"},
}

// pick returns the first of names the request offers (the first when none is).
func pick(tools []string, names ...string) string {
	for _, n := range names {
		for _, t := range tools {
			if t == n {
				return n
			}
		}
	}
	return names[0]
}

var codexAgent = &Agent{Name: "codex"}
var opencodeAgent = &Agent{Name: "opencode"}

func init() {
	_ = fmt.Sprint
	_ = os.Getenv
}
