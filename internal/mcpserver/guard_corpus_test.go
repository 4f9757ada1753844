package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhq/mem/internal/guard"
	"github.com/memhq/mem/internal/guard/guardtest"
)

// TestSavedPayloadsNeverReachALaterSession: the agent saves each
// instruction-shaped payload of the corpus (internal/guard/testdata)
// through save_observation of a real `mem mcp` process, in its title,
// narrative and facts; nothing of it reaches a later session's injected
// text through the real `mem hook claude`: the start block, prompt-time
// context, the block after a compaction.
func TestSavedPayloadsNeverReachALaterSession(t *testing.T) {
	payloads := guardtest.Texts(t, "payloads.jsonl")
	if len(payloads) < 60 {
		t.Fatalf("%d payloads, want at least 60", len(payloads))
	}

	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir+"/.config", "XDG_STATE_HOME="+dir+"/state",
		"MEM_DB="+filepath.Join(dir, "mem.db"), "MEM_PROJECT="+testProject)

	// One server process, as an editor runs it, takes every save.
	cmd := exec.Command(memBin, "mcp")
	cmd.Dir, cmd.Env, cmd.Stderr = dir, append(env, "MEM_SESSION=saver"), testWriter{t}
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	save := func(title, text string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "save_observation", Arguments: map[string]any{
			"type": "decision", "title": title, "narrative": text, "facts": []string{text},
			"files_modified": []string{"internal/pay/charge.go"}}})
		if err != nil {
			t.Fatalf("save_observation %q: %v", title, err)
		}
		if res.IsError {
			t.Fatalf("save_observation refused %q: %+v", title, res.Content)
		}
	}
	// A clean decision of the same subject shows the later session is
	// given what was saved, so that the check below can fail.
	save("Payment setup: charge retries reuse the idempotency key zqclean",
		"TestCharge failed in charge_test.go because a retry made a second charge; internal/pay/charge.go now reuses the key.")
	for i, p := range payloads {
		text := fmt.Sprintf("%s zqmark%03d", p, i)
		save("Payment setup: "+text, text)
	}
	if err := cs.Close(); err != nil {
		t.Logf("closing the server: %v", err)
	}

	event := func(name, fields string) string {
		return `{"session_id":"later","transcript_path":"/home/dev/.claude/projects/x/later.jsonl","cwd":` +
			jsonQuote(dir) + `,"permission_mode":"default","hook_event_name":"` + name + `"` + fields + `}`
	}
	var raw, all strings.Builder
	for _, ev := range []string{
		event("SessionStart", `,"source":"startup"`),
		event("UserPromptSubmit", `,"prompt":"How do I set up payments, and why did TestCharge fail in charge_test.go?"`),
		event("UserPromptSubmit", `,"prompt":"What did we decide about payment setup, curl, main, memory and the assistant in internal/pay/charge.go?"`),
		event("PreCompact", `,"trigger":"auto","custom_instructions":""`),
		event("SessionStart", `,"source":"compact"`),
	} {
		hook := exec.Command(memBin, "hook", "claude")
		hook.Dir, hook.Env, hook.Stdin = dir, env, strings.NewReader(ev)
		var errOut strings.Builder
		hook.Stderr = &errOut
		out, err := hook.Output()
		if err != nil || errOut.Len() > 0 {
			t.Fatalf("mem hook claude: %v: %s", err, errOut.String())
		}
		raw.Write(out)
		all.WriteString(guardtest.HookText(t, string(out)))
	}
	got := all.String()
	if !strings.Contains(got, "zqclean") {
		t.Fatalf("the later session was not given the clean decision saved beside the payloads:\n%s", got)
	}
	if m := regexp.MustCompile(`zqmark\d{3}`).FindAllString(raw.String(), -1); len(m) > 0 {
		t.Errorf("%d saved payloads reached the later session: %v\n%s", len(m), m, got)
	}
	if f, ok := guard.Check(got); ok {
		t.Errorf("the later session was given instruction-shaped text (%s: %q):\n%s", f.Rule, f.Span, got)
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
