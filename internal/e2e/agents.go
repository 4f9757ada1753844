package e2e

import (
	"path/filepath"
	"slices"
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
	"copilot":  "@github/copilot@1.0.102",
}

// Agent is how one CLI is configured, driven and spoken to.
type Agent struct {
	Name string
	// UserFiles are the user's own settings before mem is installed
	// (relative to HOME): install must keep them, uninstall restore them.
	UserFiles func(h *H) map[string]string
	// Settings are the files (relative to HOME) mem install and install-mcp write.
	Settings []string
	Env      func(h *H) []string
	Args     func(h *H, prompt string) []string
	ToolCall func(h *H, s Step, tools []string) Call
	// Injected escapes: the forms the CLI gives the model mem's blocks in.
	StartMarks []string
	// Resume returns the arguments that run prompt in session id, for the
	// CLIs the harness can make compact headless (nil: no compaction check).
	Resume func(h *H, id, prompt string) []string
	// ResumeLatest returns the arguments that run prompt in the CLI's
	// latest session, for the CLIs that compress on their own when the
	// model reports a full context (nil: no automatic compression check).
	ResumeLatest func(h *H, prompt string) []string
	// Downloads are paths (relative to HOME) the CLI must not fill because
	// mem is installed (it downloads into them).
	Downloads []string
	// OtherModel is a model the CLI knows nothing of, to which it offers
	// other tools than to its own ("" for none to try): Codex offers it no
	// apply_patch tool, so its edits go through the shell.
	OtherModel string
}

// Agents by name, in the order `all` runs them.
var Agents = []*Agent{claudeAgent, geminiAgent, codexAgent, opencodeAgent, copilotAgent}

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
	Name: "claude",
	UserFiles: func(h *H) map[string]string {
		return map[string]string{".claude/settings.json": "{\n  \"cleanupPeriodDays\": 30,\n  \"includeCoAuthoredBy\": false\n}\n"}
	},
	Settings: []string{".claude/settings.json", ".claude.json"},
	Env: func(h *H) []string {
		return []string{"ANTHROPIC_BASE_URL=" + h.Server.URL, "ANTHROPIC_API_KEY=sk-ant-e2e-fake",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1", "DISABLE_TELEMETRY=1",
			"DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_ENABLE_TELEMETRY=0", "ANTHROPIC_MODEL=claude-sonnet-4-5"}
	},
	Args: func(h *H, prompt string) []string {
		return []string{"claude", "-p", prompt, "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"}
	},
	Resume: func(h *H, id, prompt string) []string {
		return []string{"claude", "-p", prompt, "--resume", id, "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"}
	},
	ToolCall: func(h *H, s Step, tools []string) Call {
		a := s.Args
		switch s.Tool {
		case "read":
			return Call{Name: "Read", Args: map[string]any{"file_path": h.abs(a["file"])}}
		case "grep": // this release offers no Grep tool: it searches with grep through Bash
			return Call{Name: "Bash", Args: map[string]any{"command": "grep -rn " + a["pattern"] + " src", "description": "find callers"}}
		case "edit":
			return Call{Name: "Edit", Args: map[string]any{"file_path": h.abs(a["file"]), "old_string": a["old"], "new_string": a["new"]}}
		case "shell":
			return Call{Name: "Bash", Args: map[string]any{"command": a["command"], "description": "run a check"}}
		case "mcp_search":
			return Call{Name: mcpTool(tools, "search"), Args: map[string]any{"query": a["query"]}}
		}
		panic("unknown step " + s.Tool)
	},
	StartMarks: []string{"<memory_context"},
}

var geminiAgent = &Agent{
	Name: "gemini",
	UserFiles: func(h *H) map[string]string {
		return map[string]string{".gemini/settings.json": geminiSettings}
	},
	Settings: []string{".gemini/settings.json"},
	Env: func(h *H) []string {
		return []string{"GEMINI_API_KEY=e2e-fake-key", "GOOGLE_GEMINI_BASE_URL=" + h.Server.URL,
			"GEMINI_CLI_NO_RELAUNCH=true", "GEMINI_TELEMETRY_ENABLED=false"}
	},
	Args: func(h *H, prompt string) []string {
		return []string{"gemini", "-p", prompt, "--yolo", "--model", "gemini-2.5-flash"}
	},
	ResumeLatest: func(h *H, prompt string) []string {
		return []string{"gemini", "--resume", "latest", "-p", prompt, "--yolo", "--model", "gemini-2.5-flash"}
	},
	ToolCall: func(h *H, s Step, tools []string) Call {
		a := s.Args
		switch s.Tool {
		case "read":
			return Call{Name: "read_file", Args: map[string]any{"file_path": a["file"]}}
		case "grep":
			return Call{Name: pick(tools, "grep_search", "search_file_content"), Args: map[string]any{"pattern": a["pattern"]}}
		case "edit":
			return Call{Name: "replace", Args: map[string]any{"file_path": h.abs(a["file"]), "old_string": a["old"], "new_string": a["new"],
				"instruction": "fix the rounding"}}
		case "shell":
			return Call{Name: "run_shell_command", Args: map[string]any{"command": a["command"], "description": "run a check"}}
		case "mcp_search":
			return Call{Name: mcpTool(tools, "search"), Args: map[string]any{"query": a["query"]}}
		case "remember":
			// This release has no save_memory tool: its system prompt tells
			// the model to write a fact into the private project memory file
			// it names, with write_file or replace.
			return Call{Name: "write_file", Args: map[string]any{"file_path": geminiMemoryPath(s.Seen), "content": a["content"]}}
		}
		panic("unknown step " + s.Tool)
	},
	StartMarks: []string{"<memory_context", "&lt;memory_context"},
}

const geminiSettings = "{\n  \"general\": { \"enableAutoUpdate\": false },\n" +
	"  \"privacy\": { \"usageStatisticsEnabled\": false },\n  \"security\": {\n    \"auth\": { \"selectedType\": \"gemini-api-key\" },\n    \"folderTrust\": { \"enabled\": false }\n  }\n}\n"

// geminiMemoryPath returns the private project memory file a Gemini CLI
// request's system prompt names ("**Private Project Memory** (`PATH`)"),
// or "".
func geminiMemoryPath(texts string) string {
	_, rest, ok := strings.Cut(texts, "Private Project Memory** (`")
	if !ok {
		return ""
	}
	path, _, _ := strings.Cut(rest, "`")
	return path
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

// codexHooksFlag runs hooks without the trust Codex asks for in its TUI;
// the "hooks-run-as-installed" check runs without it.
const codexHooksFlag = "--dangerously-bypass-hook-trust"

// codexAgent runs a model of Codex's own catalogue (gpt-5.5), so Codex
// offers it what it offers users: exec_command, the freeform apply_patch
// tool, and MCP tools only through tool_search.
var codexAgent = &Agent{
	Name: "codex",
	UserFiles: func(h *H) map[string]string {
		return map[string]string{".codex/config.toml": "model = \"gpt-5.5\"\nmodel_provider = \"fake\"\n" +
			"check_for_update_on_startup = false\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"" + h.Server.URL + "/v1\"\n" +
			"env_key = \"FAKE_OPENAI_KEY\"\nwire_api = \"responses\"\n"}
	},
	Settings: []string{".codex/config.toml", ".codex/hooks.json"},
	Env: func(h *H) []string {
		return []string{"FAKE_OPENAI_KEY=e2e-fake-key", "CODEX_HOME=" + filepath.Join(h.Home, ".codex")}
	},
	Args: func(h *H, prompt string) []string {
		args := []string{"codex", "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"}
		if !h.untrusted {
			args = append(args, codexHooksFlag)
		}
		if h.model != "" {
			args = append(args, "-m", h.model)
		}
		return append(args, prompt)
	},
	ToolCall: func(h *H, s Step, tools []string) Call {
		a := s.Args
		shell := func(cmd string) Call {
			switch name := pick(tools, "exec_command", "shell_command", "shell"); name {
			case "exec_command":
				return Call{Name: name, Args: map[string]any{"cmd": cmd, "workdir": h.Project}}
			case "shell_command":
				return Call{Name: name, Args: map[string]any{"command": cmd, "workdir": h.Project}}
			default:
				return Call{Name: name, Args: map[string]any{"command": []string{"bash", "-lc", cmd}, "workdir": h.Project}}
			}
		}
		switch s.Tool {
		case "read": // Codex reads files through its shell only
			return shell("sed -n '1,200p' " + a["file"])
		case "grep":
			return shell("grep -rn " + a["pattern"] + " src")
		case "edit":
			line := lineWith(a["file"], a["old"])
			patch := "*** Begin Patch\n*** Update File: " + a["file"] + "\n@@\n-" + line + "\n+" +
				strings.Replace(line, a["old"], a["new"], 1) + "\n*** End Patch\n"
			if slices.Contains(tools, "apply_patch") {
				// A catalogued model gets apply_patch as a freeform tool.
				return Call{Name: "apply_patch", Input: patch}
			}
			// Without it, Codex takes apply_patch through its shell.
			return shell("apply_patch <<'PATCH'\n" + patch + "PATCH")
		case "shell":
			return shell(a["command"])
		case "mcp_search": // MCP tools come as a namespace of tools
			name := mcpTool(tools, "search")
			if name == "search" && slices.Contains(tools, "tool_search") {
				// Codex offers MCP tools only once a tool search finds them.
				return Call{Search: "mem search memory"}
			}
			ns, short, _ := strings.Cut(name, "__search")
			return Call{Name: "search" + short, Namespace: ns, Args: map[string]any{"query": a["query"]}}
		}
		panic("unknown step " + s.Tool)
	},
	StartMarks: []string{"<memory_context"},
	OtherModel: "gpt-5.1-codex",
}

// lineWith returns the line of a project file that holds s.
func lineWith(file, s string) string {
	for _, l := range strings.Split(projectFiles[file], "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return s
}

var opencodeAgent = &Agent{
	Name: "opencode",
	UserFiles: func(h *H) map[string]string {
		return map[string]string{".config/opencode/opencode.json": `{
  "$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "model": "fake/fake-model",
  "small_model": "fake/fake-model",
  "permission": { "edit": "allow", "bash": "allow", "external_directory": "allow" },
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "fake",
      "options": { "baseURL": "` + h.Server.URL + `/v1", "apiKey": "e2e-fake-key" },
      "models": { "fake-model": { "name": "fake model", "tool_call": true } }
    }
  }
}
`}
	},
	Settings:  []string{".config/opencode/opencode.json", ".config/opencode/plugins/mem.js"},
	Downloads: []string{".config/opencode/node_modules", ".config/opencode/package.json"},
	Env: func(h *H) []string {
		return []string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
			"OPENCODE_DISABLE_SHARE=1"}
	},
	Args: func(h *H, prompt string) []string {
		// opencode run quotes a message argument that holds spaces: the
		// prompt goes word by word, as a user types it.
		return append([]string{"opencode", "run", "--format", "json"}, strings.Fields(prompt)...)
	},
	ToolCall: func(h *H, s Step, tools []string) Call {
		a := s.Args
		switch s.Tool {
		case "read":
			return Call{Name: "read", Args: map[string]any{"filePath": h.abs(a["file"])}}
		case "grep":
			return Call{Name: "grep", Args: map[string]any{"pattern": a["pattern"], "path": h.Project}}
		case "edit":
			return Call{Name: "edit", Args: map[string]any{"filePath": h.abs(a["file"]), "oldString": a["old"], "newString": a["new"]}}
		case "shell":
			return Call{Name: "bash", Args: map[string]any{"command": a["command"], "description": "run a check"}}
		case "mcp_search":
			return Call{Name: mcpTool(tools, "search"), Args: map[string]any{"query": a["query"]}}
		}
		panic("unknown step " + s.Tool)
	},
	StartMarks: []string{"<memory_context"},
}
