package e2e

import (
	"fmt"
	"strings"
)

// compressTokens is the prompt size the fake model reports to make the CLI
// compress its history before its next request (Gemini CLI compresses at
// half of a 1,048,576-token window).
const compressTokens = 900_000

// autoCompaction runs a session, then resumes it with a prompt whose first
// answer reports a full context: the CLI compresses on its own before its
// next request (its automatic PreCompress fires on every turn, compressed
// or not). The compression must be real (the CLI asked the model for a
// summary), and no request of the resumed run may carry mem's block twice:
// a headless resumed run keeps its own first prompt, which carries the start
// block, so mem gives none with the tool result after the compression.
func (h *H) autoCompaction() {
	first := Script{Prompt: "Read src/discount.js and tell me what it does.", Steps: []Step{
		{Tool: "read", Args: map[string]string{"file": "src/discount.js"}},
		{Text: "It applies a percentage discount to a price in cents."},
	}}
	a := h.run("compress-first", first, h.DB)
	next := Script{Prompt: "Now read src/cart.js.", Steps: []Step{
		{Tool: "read", Args: map[string]string{"file": "src/cart.js"}, PromptTokens: compressTokens},
		{Tool: "read", Args: map[string]string{"file": "src/discount.js"}},
		{Text: "It totals the cart with applyDiscount."},
	}}
	h.resume = h.Agent.ResumeLatest(h, next.Prompt)
	b := h.run("compress-next", next, h.DB)
	h.resume = nil
	if a.Exit != 0 || b.Exit != 0 {
		h.check("auto-compression", false, "first run: exit %d, resumed run: exit %d%s%s", a.Exit, b.Exit, runErr(a), runErr(b))
		return
	}
	summaries := 0
	for _, r := range h.requests("compress-next") {
		if !r.Agent && strings.Contains(r.Texts(), "<state_snapshot>") {
			summaries++
		}
	}
	reqs := h.agentRequests("compress-next")
	most, where := 0, ""
	for _, r := range reqs {
		if n := countAny(r.Texts(), h.Agent.StartMarks); n > most {
			most, where = n, fmt.Sprintf("step %d", r.Step)
		}
	}
	h.check("auto-compression", summaries > 0 && len(reqs) >= 3,
		"the resumed run asked the model for a summary %d times (a real compression), %d agent requests", summaries, len(reqs))
	h.check("auto-compression-block-once", most <= 1, "most of mem's blocks in one request after the compression: %d (%s)", most, where)
}
