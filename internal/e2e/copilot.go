package e2e

import "path/filepath"

// copilotAgent is GitHub Copilot CLI, offline against the fake chat
// completions provider: COPILOT_OFFLINE turns off GitHub sign-in, telemetry
// and updates, and COPILOT_PROVIDER_* point it at the fake model. Its
// package of about 190 MB is unpacked once into a cache beside the npm
// folder, not into each scratch HOME.
var copilotAgent = &Agent{
	Name: "copilot",
	UserFiles: func(h *H) map[string]string {
		return map[string]string{".copilot/settings.json": "{\n  \"banner\": \"never\",\n  \"stream\": \"on\"\n}\n"}
	},
	Settings: []string{".copilot/settings.json", ".copilot/hooks/mem.json", ".copilot/mcp-config.json"},
	Env: func(h *H) []string {
		return []string{"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + h.Server.URL + "/v1", "COPILOT_PROVIDER_TYPE=openai",
			"COPILOT_PROVIDER_API_KEY=e2e-fake-key", "COPILOT_MODEL=gpt-4.1", "COPILOT_AUTO_UPDATE=false",
			"XDG_CACHE_HOME=" + filepath.Join(filepath.Dir(filepath.Dir(h.Opt.NPMBin)), "copilot-cache")}
	},
	Args: func(h *H, prompt string) []string {
		return []string{"copilot", "-p", prompt, "--allow-all-tools", "--output-format", "json", "--no-auto-update"}
	},
	// copilot -p /compact --resume ID compacts (PreCompact, trigger
	// manual); the next turn resumes the session, so its SessionStart
	// (source resume) gives the start block and drops the compaction block.
	Resume: func(h *H, id, prompt string) []string {
		return []string{"copilot", "-p", prompt, "--resume", id, "--allow-all-tools", "--output-format", "json", "--no-auto-update"}
	},
	ToolCall: func(h *H, s Step, tools []string) Call {
		a := s.Args
		switch s.Tool {
		case "read":
			return Call{Name: "view", Args: map[string]any{"path": h.abs(a["file"])}}
		case "grep":
			return Call{Name: "grep", Args: map[string]any{"pattern": a["pattern"], "paths": []string{h.abs("src")}}}
		case "edit":
			return Call{Name: "edit", Args: map[string]any{"path": h.abs(a["file"]), "old_str": a["old"], "new_str": a["new"]}}
		case "shell":
			return Call{Name: "bash", Args: map[string]any{"command": a["command"], "description": "run a check"}}
		case "mcp_search":
			return Call{Name: mcpTool(tools, "search"), Args: map[string]any{"query": a["query"]}}
		}
		panic("unknown step " + s.Tool)
	},
	StartMarks: []string{"<memory_context"},
}
