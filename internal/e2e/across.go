package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// acrossMark marks the fact Gemini CLI saves in the across scenario.
const acrossMark = "zqacross5"

// acrossFact is what the Gemini session remembers.
const acrossFact = "Shop prices are integer cents (" + acrossMark + "); never use floats for money."

// rememberScript is a Gemini CLI session whose model saves a fact to the
// memory Gemini CLI keeps itself.
func rememberScript() Script {
	return Script{Prompt: "Remember for this project: prices are integer cents, never floats.", Steps: []Step{
		{Tool: "remember", Args: map[string]string{"content": "# Project memory\n\n- " + acrossFact + "\n"}},
		{Text: "Saved to memory."},
	}}
}

// RunAcross checks that one memory serves two agents: in one HOME, one
// project and one mem database, Gemini CLI saves a fact to its own memory
// (the way its release does), and Claude Code's next session starts with
// it in the request it sends to the model, through mem, which read
// Gemini's file at session start.
func RunAcross(opt Options, srv *Server) *H {
	rep := &H{Agent: &Agent{Name: "across"}, out: opt.Out}
	g, err := newH(opt, geminiAgent, srv)
	if err != nil {
		rep.check("setup", false, "%v", err)
		return rep
	}
	g.out = opt.Out
	c := *g
	c.Agent = claudeAgent
	fmt.Fprintf(opt.Out, "== across gemini -> claude (scratch %s)\n", g.Root)
	bin := filepath.Join(g.BinDir, "mem")
	for _, h := range []*H{g, &c} {
		if err := h.writeUserFiles(); err != nil {
			rep.check("setup", false, "writing user settings: %v", err)
			return rep
		}
		for _, s := range [][]string{{"install", h.Agent.Name, "--bin", bin}, {"install-mcp", h.Agent.Name, "--command", bin}} {
			if _, err := h.mem(s...); err != nil {
				rep.check("setup", false, "%v", err)
				return rep
			}
		}
	}
	sr := g.run("remember", rememberScript(), g.DB)
	saved := ""
	if reqs := g.agentRequests("remember"); len(reqs) > 0 {
		if p := geminiMemoryPath(reqs[0].Texts()); p != "" {
			b, _ := os.ReadFile(p)
			saved = strings.TrimSpace(string(b))
		}
	}
	rep.check("gemini-saved-memory", sr.Exit == 0 && strings.Contains(saved, acrossMark),
		"Gemini CLI wrote its memory file (exit %d): %q%s", sr.Exit, clip(saved, 120), runErr(sr))

	cr := c.run("next", helloScript(), c.DB)
	reqs := c.agentRequests("next")
	if cr.Exit != 0 || len(reqs) == 0 {
		rep.check("gemini-memory-in-claude", false, "Claude Code session: exit %d, %d agent requests%s", cr.Exit, len(reqs), runErr(cr))
		return rep
	}
	first := reqs[0].Texts()
	block := countAny(first, claudeAgent.StartMarks)
	in := strings.Contains(startBlock(first), acrossMark)
	rep.check("gemini-memory-in-claude", block == 1 && in,
		"Claude Code's first request carries %d start blocks; the fact Gemini CLI saved in mem's: %v", block, in)
	return rep
}

// startBlock returns mem's start block in a request's texts ("" for none).
func startBlock(texts string) string {
	_, rest, ok := strings.Cut(texts, "<memory_context")
	if !ok {
		return ""
	}
	block, _, _ := strings.Cut(rest, "</memory_context>")
	return block
}
