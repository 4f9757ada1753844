package team_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/guard"
	"github.com/memhq/mem/internal/guard/guardtest"
)

// TestPulledPayloadsNeverReachTheAgent, on a real three-node cluster: a
// saves every instruction-shaped payload of the corpus
// (internal/guard/testdata) and releases half of them on its machine. The
// held half never reaches the cluster; the released half does, and b, with
// the default sync.review, holds it again on pull (a release is a person's
// on one machine), so nothing of the corpus reaches b's injected text
// through the real `mem hook claude`: the start block and prompt-time
// context, while a's clean records do.
func TestPulledPayloadsNeverReachTheAgent(t *testing.T) {
	payloads := guardtest.Texts(t, "payloads.jsonl")
	if len(payloads) < 60 {
		t.Fatalf("%d payloads, want at least 60", len(payloads))
	}

	c := startCluster(t, 3, "", "")
	a := newMember(t, "a", c, c.urls(), "")
	b := newMember(t, "b", c, c.urls(c.nodes[1]), "")
	for _, m := range []*member{a, b} {
		m.run("--project", project, "share")
	}
	a.importObservations(project, "s-clean", "a", 3)

	// Every payload in one import: in the title, the narrative and a fact.
	var in strings.Builder
	now := time.Now().UTC()
	fmt.Fprintf(&in, `{"kind":"session","id":"s-pay","project":%q,"agent":"claude-code","started_at":%q}`+"\n", project, now.Format(time.RFC3339Nano))
	for i, p := range payloads {
		text := fmt.Sprintf("%s zqmark%03d", p, i)
		line, err := json.Marshal(map[string]any{"kind": "observation", "uuid": fmt.Sprintf("pay-%03d", i), "session_id": "s-pay",
			"project": project, "type": "decision", "title": "Payment setup: " + text, "narrative": text, "facts": []string{text},
			"files_modified": []string{"internal/pay/charge.go"}, "created_at": now.Add(time.Duration(i) * time.Millisecond).Format(time.RFC3339Nano)})
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(line, '\n'))
	}
	a.runIn(in.String(), "import", "-")
	if got := a.count(`SELECT count(*) FROM observations WHERE uuid LIKE 'pay-%' AND flag != '' AND released = 0`); got != len(payloads) {
		t.Fatalf("a holds %d of the %d payloads for review", got, len(payloads))
	}
	var release []string
	for i := 0; i < len(payloads); i += 2 {
		release = append(release, fmt.Sprint(a.count(`SELECT id FROM observations WHERE uuid = ?`, fmt.Sprintf("pay-%03d", i))))
	}
	a.run(append([]string{"--project", project, "review", "release"}, release...)...)

	a.run("sync")
	if got := c.count(`SELECT count(*) FROM mem_records WHERE body LIKE '%"uuid":"pay-%'`); got != len(release) {
		t.Errorf("%d payloads reached the cluster, want the %d released ones", got, len(release))
	}
	b.run("sync")
	if got := b.count(`SELECT count(*) FROM observations WHERE uuid LIKE 'pay-%' AND flag != '' AND released = 0`); got != len(release) {
		t.Errorf("b holds %d pulled payloads for review, want %d", got, len(release))
	}

	event := func(name, fields string) string {
		return `{"session_id":"later","transcript_path":"/home/dev/.claude/projects/x/later.jsonl","cwd":` + jsonQuote(b.dir) +
			`,"permission_mode":"default","hook_event_name":"` + name + `"` + fields + `}`
	}
	var raw, got strings.Builder
	for _, ev := range []string{
		event("SessionStart", `,"source":"startup"`),
		event("UserPromptSubmit", `,"prompt":"How do I set up payments, and what did we decide about the build cache key?"`),
		event("UserPromptSubmit", `,"prompt":"What did we decide about payment setup, curl, main, memory and the assistant in internal/pay/charge.go?"`),
	} {
		out, errOut, code := b.try(ev, "--project", project, "hook", "claude")
		if code != 0 || errOut != "" {
			t.Fatalf("b: mem hook claude: exit %d: %s", code, errOut)
		}
		raw.WriteString(out)
		got.WriteString(guardtest.HookText(t, out))
	}
	if !strings.Contains(got.String(), "decided wa") {
		t.Fatalf("b's agent was not given a's clean records:\n%s", got.String())
	}
	if m := regexp.MustCompile(`zqmark\d{3}`).FindAllString(raw.String(), -1); len(m) > 0 {
		t.Errorf("%d pulled payloads reached b's agent: %v\n%s", len(m), m, got.String())
	}
	if f, ok := guard.Check(got.String()); ok {
		t.Errorf("b's agent was given instruction-shaped text (%s: %q):\n%s", f.Rule, f.Span, got.String())
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
