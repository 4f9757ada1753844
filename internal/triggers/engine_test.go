package triggers_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/cite"
	"github.com/memhq/mem/internal/collector"
	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/search"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/tokens"
	"github.com/memhq/mem/internal/triggers"
)

// countingSearch is the store's search, counting the queries.
type countingSearch struct {
	db      *store.DB
	queries []string
}

func (c *countingSearch) Search(ctx context.Context, q search.Query, r search.Ranking) ([]search.Hit, error) {
	c.queries = append(c.queries, q.Text)
	return search.SearchWith(ctx, c.db, q, r)
}

type fixture struct {
	db   *store.DB
	eng  *triggers.Engine
	root string
	fs   *countingSearch
	ses  triggers.Session
}

func setup(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "mem.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, _, err := db.StartSession(ctx, memory.Session{ID: "old", Project: "p"}); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "repo")
	fs := &countingSearch{db: db}
	at := time.UnixMilli(1_800_000_000_000)
	eng := &triggers.Engine{Pending: db, Files: db, Search: fs, Prompts: db, Config: triggers.ConfigFrom(config.Defaults(config.Dirs{}).Context),
		Now: func() time.Time { at = at.Add(time.Millisecond); return at }}
	return &fixture{db: db, eng: eng, root: root, fs: fs, ses: triggers.Session{ID: "s1", Project: "p", Root: root}}
}

func (f *fixture) observe(t *testing.T, o memory.Observation) memory.Observation {
	t.Helper()
	o.SessionID = "old"
	a, err := f.db.AddObservation(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.db.Observations(context.Background(), []int64{a.ID})
	if err != nil {
		t.Fatal(err)
	}
	return got[0]
}

func (f *fixture) write(t *testing.T, rel, text string) {
	t.Helper()
	p := filepath.Join(f.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) pending(t *testing.T) string {
	t.Helper()
	es, err := f.db.PendingEntries(context.Background(), f.ses.ID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Source+":"+e.EntryID+"@"+[]string{"low", "normal", "high", "critical"}[e.Priority])
	}
	return strings.Join(out, " ")
}

func (f *fixture) consume(t *testing.T) {
	t.Helper()
	if _, err := f.db.ConsumePending(context.Background(), f.ses.ID, nil); err != nil {
		t.Fatal(err)
	}
}

func TestFileActivity(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.DirectoryAgents, f.eng.Config.DirectoryReadme, f.eng.Config.Rules = false, false, false
	o := f.observe(t, memory.Observation{Type: memory.TypeProblem, Title: "Refund retries were 3",
		FilesModified: []string{"internal/orders/refund.go"}})
	f.observe(t, memory.Observation{Type: memory.TypeNote, Title: "unrelated", FilesRead: []string{"main.go"}})
	abs := filepath.Join(f.root, "internal/orders/refund.go")
	if _, err := f.eng.OnFile(ctx, f.ses, abs, false); err != nil {
		t.Fatal(err)
	}
	id := "#" + itoa(o.ID)
	if got := f.pending(t); got != "file-activity:"+id+"@normal" {
		t.Fatalf("after read: %s", got)
	}
	// Editing the file while the entry waits raises it.
	if _, err := f.eng.OnFile(ctx, f.ses, abs, true); err != nil {
		t.Fatal(err)
	}
	if got := f.pending(t); got != "file-activity:"+id+"@high" {
		t.Fatalf("after edit: %s", got)
	}
	f.consume(t)
	// Delivered once: touching the file again brings nothing.
	if _, err := f.eng.OnFile(ctx, f.ses, abs, true); err != nil {
		t.Fatal(err)
	}
	if got := f.pending(t); got != "" {
		t.Fatalf("after delivery: %s", got)
	}
	// The session's own observations are not brought back to it.
	if _, _, err := f.db.StartSession(ctx, memory.Session{ID: "s1", Project: "p"}); err != nil {
		t.Fatal(err)
	}
	own := memory.Observation{SessionID: "s1", Type: memory.TypeChange, Title: "Edited refund.go",
		FilesModified: []string{"internal/orders/refund.go"}}
	if _, err := f.db.AddObservation(ctx, own); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.OnFile(ctx, f.ses, abs, true); err != nil {
		t.Fatal(err)
	}
	if got := f.pending(t); got != "" {
		t.Fatalf("own observation registered: %s", got)
	}
	// Another session gets it.
	other := f.ses
	other.ID = "s2"
	rep, err := f.eng.OnFile(ctx, other, abs, false)
	if err != nil || len(rep.Registered) != 2 {
		t.Fatalf("other session: %+v %v", rep, err)
	}
}

// A file's history comes back the way git log -- FILE gives it: one entry
// for each of the latest sessions that touched it, newest first, not the
// newest session's several edits.
func TestFileActivityHistory(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.DirectoryAgents, f.eng.Config.DirectoryReadme, f.eng.Config.Rules = false, false, false
	file := "src/link.c"
	var want []string
	for i, sid := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		if _, _, err := f.db.StartSession(ctx, memory.Session{ID: sid, Project: "p"}); err != nil {
			t.Fatal(err)
		}
		for j := range 3 { // each session edits the file three times
			a, err := f.db.AddObservation(ctx, memory.Observation{SessionID: sid, Type: memory.TypeChange,
				Title: fmt.Sprintf("Edited %s: change %d of session %s", file, j, sid), FilesModified: []string{file}})
			if err != nil {
				t.Fatal(err)
			}
			if j == 2 && i >= 2 { // the newest ten sessions, their newest edit
				want = append([]string{"file-activity:#" + itoa(a.ID) + "@normal"}, want...)
			}
		}
	}
	if _, err := f.eng.OnFile(ctx, f.ses, filepath.Join(f.root, file), false); err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(f.pending(t))
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("registered %v, want one entry for each of the ten newest sessions %v", got, want)
	}
}

// Past the newest sessions, a file's history brings first the sessions the
// session's prompt is about: an old session that changed the function the
// prompt names comes back although ten newer ones touched the file.
func TestFileActivityAboutPrompt(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.DirectoryAgents, f.eng.Config.DirectoryReadme, f.eng.Config.Rules = false, false, false
	file := "src/link.c"
	var old int64
	for i := range 12 {
		sid := fmt.Sprintf("s%02d", i)
		if _, _, err := f.db.StartSession(ctx, memory.Session{ID: sid, Project: "p"}); err != nil {
			t.Fatal(err)
		}
		title := fmt.Sprintf("Edited %s: counter %d", file, i)
		if i == 0 {
			title = "Edited " + file + ": bpf_link_attach returns the errno"
		}
		a, err := f.db.AddObservation(ctx, memory.Observation{SessionID: sid, Type: memory.TypeChange, Title: title,
			FilesModified: []string{file}})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			old = a.ID
		}
	}
	if _, _, err := f.db.StartSession(ctx, memory.Session{ID: f.ses.ID, Project: "p"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.AddPrompt(ctx, f.ses.ID, "bpf_link_attach loses the errno on failure", time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.OnFile(ctx, f.ses, filepath.Join(f.root, file), false); err != nil {
		t.Fatal(err)
	}
	got := f.pending(t)
	if !strings.Contains(got, "file-activity:#"+itoa(old)+"@") {
		t.Fatalf("the session the prompt is about is not among %s", got)
	}
}

// countingChecker is the real check of cited files, keeping the ids it was
// asked about.
type countingChecker struct {
	cite.Checker
	asked []int64
}

func (c *countingChecker) CheckBesides(ctx context.Context, ids []int64, paths []string) (map[int64]memory.Standing, error) {
	c.asked = append(c.asked, ids...)
	return c.Checker.CheckBesides(ctx, ids, paths)
}

// An observation that names a file both relative to the root and absolute
// is one observation of the file's history: checked once.
func TestFileActivityReadsAnObservationOnce(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.DirectoryAgents, f.eng.Config.DirectoryReadme, f.eng.Config.Rules = false, false, false
	ck := &countingChecker{Checker: cite.Checker{Store: f.db}}
	f.eng.Citations = ck
	abs := filepath.Join(f.root, "src", "a.go")
	o := f.observe(t, memory.Observation{SessionID: "old", Type: memory.TypeChange, Title: "Edited a.go",
		FilesModified: []string{"src/a.go", abs}})
	if _, err := f.eng.OnFile(ctx, f.ses, abs, false); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ck.asked, []int64{o.ID}) {
		t.Fatalf("checked %v, want #%d once", ck.asked, o.ID)
	}
	if got := f.pending(t); !strings.Contains(got, "file-activity:#"+itoa(o.ID)+"@") {
		t.Fatalf("#%d not registered: %s", o.ID, got)
	}
}

func TestDirectoriesOncePerSession(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.write(t, "AGENTS.md", "root agents")
	f.write(t, "README.md", "root readme")
	f.write(t, "internal/AGENTS.md", "internal agents")
	f.write(t, "internal/orders/README.md", "orders readme")
	f.write(t, "internal/orders/refund.go", "package orders")
	if _, err := f.eng.OnFile(ctx, f.ses, filepath.Join(f.root, "internal/orders/refund.go"), false); err != nil {
		t.Fatal(err)
	}
	want := "directory-agents:AGENTS.md@normal directory-agents:internal/AGENTS.md@normal " +
		"directory-readme:README.md@low directory-readme:internal/orders/README.md@low"
	if got := f.pending(t); got != want {
		t.Fatalf("first touch:\n got %s\nwant %s", got, want)
	}
	f.consume(t)
	// Same directories again, and a sibling: only the sibling's own folder is new.
	f.write(t, "internal/billing/AGENTS.md", "billing agents")
	for _, p := range []string{"internal/orders/other.go", "internal/billing/invoice.go"} {
		if _, err := f.eng.OnFile(ctx, f.ses, filepath.Join(f.root, p), false); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.pending(t); got != "directory-agents:internal/billing/AGENTS.md@normal" {
		t.Fatalf("second touch: %s", got)
	}
	// Outside the project: nothing.
	f.consume(t)
	if _, err := f.eng.OnFile(ctx, f.ses, "/etc/hosts", false); err != nil {
		t.Fatal(err)
	}
	if got := f.pending(t); got != "" {
		t.Fatalf("outside root: %s", got)
	}
}

func TestDirectoryFileTrimmed(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.FileBudget = 50
	f.write(t, "AGENTS.md", strings.Repeat("A long line of project guidance for agents.\n", 200))
	if _, err := f.eng.OnFile(ctx, f.ses, filepath.Join(f.root, "x.go"), false); err != nil {
		t.Fatal(err)
	}
	es, _ := f.db.PendingEntries(ctx, "s1")
	if len(es) != 1 || len(es[0].Content) > 400 || !strings.Contains(es[0].Content, "cut to fit") {
		t.Fatalf("trimmed entry: %+v", es)
	}
}

func TestRulesOncePerSession(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.DirectoryAgents, f.eng.Config.DirectoryReadme = false, false
	f.write(t, ".github/instructions/go.instructions.md", "---\napplyTo: \"**/*.go\"\n---\nWrap errors.\n")
	f.write(t, ".cursor/rules/sql.mdc", "---\nglobs: migrations/*.sql\n---\nNever edit 00001.\n")
	f.write(t, ".claude/rules/web.md", "---\npaths:\n  - web/**\n---\nUse fetch.\n")
	for _, p := range []string{"internal/a.go", "cmd/b.go", "migrations/00002_x.sql", "web/app/x.ts"} {
		if _, err := f.eng.OnFile(ctx, f.ses, p, true); err != nil {
			t.Fatal(err)
		}
	}
	want := "rules-injector:.github/instructions/go.instructions.md@high rules-injector:.cursor/rules/sql.mdc@high " +
		"rules-injector:.claude/rules/web.md@high"
	if got := f.pending(t); got != want {
		t.Fatalf("rules:\n got %s\nwant %s", got, want)
	}
	f.consume(t)
	if _, err := f.eng.OnFile(ctx, f.ses, "internal/c.go", true); err != nil {
		t.Fatal(err)
	}
	if got := f.pending(t); got != "" {
		t.Fatalf("rule applied twice: %s", got)
	}
}

func TestKeywords(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.KeywordPairs = []triggers.Keyword{{Word: "ultrathink", Text: "Think step by step."}, {Word: "tdd", Text: "Write the test first."}}
	if _, err := f.eng.OnPrompt(ctx, f.ses, "ULTRATHINK: why is this slow? (no tdd-like stuff, not tddx)"); err != nil {
		t.Fatal(err)
	}
	if got := f.pending(t); got != "keyword-detector:ultrathink@high keyword-detector:tdd@high" {
		t.Fatalf("keywords: %s", got)
	}
	f.consume(t)
	if _, err := f.eng.OnPrompt(ctx, f.ses, "tddx only"); err != nil {
		t.Fatal(err)
	}
	if got := f.pending(t); got != "" {
		t.Fatalf("partial word matched: %s", got)
	}
}

func TestMemoryTriggers(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	svc := f.observe(t, memory.Observation{Type: memory.TypeDecision, Title: "OrderService refunds retry with backoff",
		Narrative: "Refunds go through OrderService.Refund with exponential backoff."})
	weak := f.observe(t, memory.Observation{Type: memory.TypeNote, Title: "Service accounts rotate monthly"})
	path := f.observe(t, memory.Observation{Type: memory.TypeChange, Title: "Moved gateway client",
		FilesModified: []string{"internal/payments/client.go"}})

	rep, err := f.eng.OnPrompt(ctx, f.ses, "Why does OrderService fail? Also check internal/payments/client.go")
	if err != nil {
		t.Fatal(err)
	}
	got := f.pending(t)
	for _, id := range []int64{svc.ID, path.ID} {
		if !strings.Contains(got, "memory-triggers:#"+itoa(id)+"@normal") {
			t.Errorf("pending %s lacks #%d (triggers %+v)", got, id, rep.Triggers)
		}
	}
	if strings.Contains(got, "#"+itoa(weak.ID)+"@") {
		t.Errorf("weak match #%d registered: %s", weak.ID, got)
	}
	f.consume(t)
	// The same prompt again: everything relevant was delivered.
	if _, err := f.eng.OnPrompt(ctx, f.ses, "Why does OrderService fail? Also check internal/payments/client.go"); err != nil {
		t.Fatal(err)
	}
	if got := f.pending(t); got != "" {
		t.Fatalf("same prompt again: %s", got)
	}
	// A prompt without triggers of its own gets nothing, not even what
	// the last prompt's triggers would find now: they were answered then.
	later := f.observe(t, memory.Observation{Type: memory.TypeProblem, Title: "OrderService double refunds on retry"})
	f.fs.queries = nil
	for _, p := range []string{"now add validation", "thanks", "run the tests"} {
		if _, err := f.eng.OnPrompt(ctx, f.ses, p); err != nil {
			t.Fatal(err)
		}
		if got := f.pending(t); got != "" || len(f.fs.queries) > 0 {
			t.Fatalf("%q after a prompt that got context: %s (queries %q)", p, got, f.fs.queries)
		}
	}
	// A follow-up with a trigger of its own searches with the last ones too.
	if _, err := f.eng.OnPrompt(ctx, f.ses, "what is the double refund problem"); err != nil {
		t.Fatal(err)
	}
	if got := f.pending(t); got != "memory-triggers:#"+itoa(later.ID)+"@normal" {
		t.Fatalf("follow-up: %s (queries %q)", got, f.fs.queries)
	}
	if q := f.fs.queries[len(f.fs.queries)-1]; !strings.Contains(q, "OrderService") {
		t.Errorf("follow-up query %q lacks the carried-over trigger", q)
	}
	f.consume(t)
	// A carried-over trigger helps rank but makes nothing relevant: a prompt
	// about something else does not bring more of the last prompt's subject.
	f.observe(t, memory.Observation{Type: memory.TypeProblem, Title: "OrderService refunds time out"})
	if _, err := f.eng.OnPrompt(ctx, f.ses, "what is the time complexity of quicksort"); err != nil {
		t.Fatal(err)
	}
	if got := f.pending(t); got != "" {
		t.Fatalf("stale carry-over: %s (queries %q)", got, f.fs.queries)
	}
}

func TestMemoryTriggersBudget(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.PromptBudget = 120
	for i := 0; i < 10; i++ {
		f.observe(t, memory.Observation{Type: memory.TypeDecision, Title: "RetryPolicy decision " + itoa(int64(i)),
			Narrative: strings.Repeat("retry policy detail words ", 10)})
	}
	if _, err := f.eng.OnPrompt(ctx, f.ses, "what is the RetryPolicy"); err != nil {
		t.Fatal(err)
	}
	es, _ := f.db.PendingEntries(ctx, "s1")
	total := 0
	for _, e := range es {
		total += tokensOf(e.Content)
	}
	if len(es) == 0 || len(es) == 10 || total > 120 {
		t.Fatalf("%d entries, %d tokens; want some but within 120", len(es), total)
	}
}

func TestTrim(t *testing.T) {
	long := strings.Repeat("word ", 1000)
	got := triggers.Trim(long, 100)
	if n := tokensOf(got); n > 100 || !strings.HasSuffix(got, "fetch the rest for more]") {
		t.Fatalf("Trim gave %d tokens: %q", n, got[len(got)-60:])
	}
	if triggers.Trim("short", 100) != "short" {
		t.Fatal("short text changed")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func tokensOf(s string) int { return tokens.Estimate(s) }

// The minimum relevance is what keeps a weak match out: lowered, it lets it in.
func TestMinRelevance(t *testing.T) {
	ctx := context.Background()
	const prompt = "what is the retry policy for refund webhooks in checkout"
	for _, tc := range []struct {
		min  float64
		want bool
	}{{0, false}, {0.1, true}} { // 0: the default; the match has 2 of 5 terms, and the other 3 are in no hit
		f := setup(t)
		weak := f.observe(t, memory.Observation{Type: memory.TypeNote, Title: "Refund retries were 3"})
		f.eng.Config.MinRelevance = tc.min
		if _, err := f.eng.OnPrompt(ctx, f.ses, prompt); err != nil {
			t.Fatal(err)
		}
		if got := f.pending(t); strings.Contains(got, "#"+itoa(weak.ID)+"@") != tc.want {
			t.Errorf("minimum %v: pending %q, want the weak match: %v", tc.min, got, tc.want)
		}
	}
}

// One word of a trigger with several is a coincidence, however low the minimum.
func TestOneWordOfSeveral(t *testing.T) {
	f := setup(t)
	f.observe(t, memory.Observation{Type: memory.TypeNote, Title: "Service accounts rotate monthly"})
	f.eng.Config.MinRelevance = 0.01
	if _, err := f.eng.OnPrompt(context.Background(), f.ses, "OrderService"); err != nil {
		t.Fatal(err)
	}
	if got := f.pending(t); got != "" {
		t.Fatalf("half of OrderService matched: %s", got)
	}
}

// A prompt registers at most three observations, and only those nearly as
// relevant as the best.
func TestPromptObservationsBounded(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	for i := 0; i < 6; i++ {
		f.observe(t, memory.Observation{Type: memory.TypeDecision, Title: "Refund webhook retry policy " + itoa(int64(i))})
	}
	if _, err := f.eng.OnPrompt(ctx, f.ses, "what is the refund webhook retry policy"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(f.pending(t)); len(got) != 3 {
		t.Fatalf("%d registered, want 3: %v", len(got), got)
	}
	f = setup(t)
	best := f.observe(t, memory.Observation{Type: memory.TypeDecision, Title: "Refund webhook retry policy"})
	f.observe(t, memory.Observation{Type: memory.TypeNote, Title: "Refund webhook logs"})
	if _, err := f.eng.OnPrompt(ctx, f.ses, "what is the refund webhook retry policy"); err != nil {
		t.Fatal(err)
	}
	if got := f.pending(t); got != "memory-triggers:#"+itoa(best.ID)+"@normal" {
		t.Fatalf("a match half as good came along: %s", got)
	}
}

// A word every hit has weighs less than one only some have, so the hit with
// the rarer words is the more relevant.
func TestRelevanceWeighsRareTerms(t *testing.T) {
	docs := []string{"caroline went to a lgbtq support group", "caroline painted a sunrise", "caroline likes hiking"}
	w := triggers.TermWeights([]string{"caroline", "lgbtq", "group"}, docs)
	if !(w["caroline"] < w["lgbtq"]) {
		t.Fatalf("weights %v: the word in every hit should weigh least", w)
	}
	all := triggers.Relevance(w, docs[0], 1)
	rare := triggers.Relevance(w, "an lgbtq group", 1)
	common := triggers.Relevance(w, "caroline and the group", 1)
	one := triggers.Relevance(w, "caroline alone", 1)
	if !(all == 1 && rare > common && common > 0 && one == 0) {
		t.Fatalf("every term %v, the rare two %v, the common one and a rare one %v, one word %v", all, rare, common, one)
	}
	if half := triggers.Relevance(w, docs[0], 0); half != 0.6 {
		t.Fatalf("every term at rank 0: %v, want 0.6", half)
	}
}

// history adds sessions in order, each editing the files given, and returns
// the id of each session's newest observation.
func (f *fixture) history(t *testing.T, sessions map[string][]string, order []string, edits int) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	out := map[string]int64{}
	for _, sid := range order {
		if _, _, err := f.db.StartSession(ctx, memory.Session{ID: sid, Project: "p"}); err != nil {
			t.Fatal(err)
		}
		for _, file := range sessions[sid] {
			for j := range edits {
				a, err := f.db.AddObservation(ctx, memory.Observation{SessionID: sid, Type: memory.TypeChange,
					Title: fmt.Sprintf("Edited %s: change %d of session %s", file, j, sid), FilesModified: []string{file}})
				if err != nil {
					t.Fatal(err)
				}
				out[sid] = a.ID
			}
		}
	}
	return out
}

// sessionsOf maps the registered file-activity entries to their sessions.
func (f *fixture) sessionsOf(t *testing.T, rep triggers.Report) []string {
	t.Helper()
	var out []string
	for _, r := range rep.Registered {
		id, err := strconv.ParseInt(strings.TrimPrefix(r, triggers.SourceFiles+":#"), 10, 64)
		if err != nil {
			t.Fatalf("entry %s", r)
		}
		obs, err := f.db.Observations(context.Background(), []int64{id})
		if err != nil || len(obs) != 1 {
			t.Fatalf("observation %d: %v", id, err)
		}
		out = append(out, obs[0].SessionID)
	}
	return out
}

// A session given for one file is not given again for the next file it
// touched: the agent has it already.
func TestFileActivityGivesASessionOnce(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.DirectoryAgents, f.eng.Config.DirectoryReadme, f.eng.Config.Rules = false, false, false
	f.history(t, map[string][]string{"both": {"a.c", "b.c"}, "only-b": {"b.c"}}, []string{"both", "only-b"}, 1)
	if _, err := f.eng.OnFile(ctx, f.ses, filepath.Join(f.root, "a.c"), false); err != nil {
		t.Fatal(err)
	}
	rep, err := f.eng.OnFile(ctx, f.ses, filepath.Join(f.root, "b.c"), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.sessionsOf(t, rep); !slices.Equal(got, []string{"only-b"}) {
		t.Fatalf("b.c gave the sessions %v, want only-b (both came with a.c)", got)
	}
}

// A file edited many times by its latest sessions still brings its older
// sessions: the history is read session by session, not observation by
// observation.
func TestFileActivityDeepHistory(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.DirectoryAgents, f.eng.Config.DirectoryReadme, f.eng.Config.Rules = false, false, false
	order := []string{"d1", "d2", "d3", "d4"}
	f.history(t, map[string][]string{"d1": {"x.c"}, "d2": {"x.c"}, "d3": {"x.c"}, "d4": {"x.c"}}, order, 60)
	rep, err := f.eng.OnFile(ctx, f.ses, filepath.Join(f.root, "x.c"), false)
	if err != nil {
		t.Fatal(err)
	}
	got := f.sessionsOf(t, rep)
	if !slices.Equal(got, []string{"d4", "d3", "d2", "d1"}) {
		t.Fatalf("sessions %v, want the four that edited x.c, newest first", got)
	}
}

// A file's newest sessions held for review are passed over, and as many
// older ones given in their place: the history reads on past them.
func TestFileActivityReadsPastHeldSessions(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.DirectoryAgents, f.eng.Config.DirectoryReadme, f.eng.Config.Rules = false, false, false
	var order []string
	files := map[string][]string{}
	for i := range 16 {
		sid := fmt.Sprintf("h%02d", i)
		order = append(order, sid)
		files[sid] = []string{"x.c"}
	}
	ids := f.history(t, files, order, 1)
	held := map[int64]memory.Review{}
	for _, sid := range order[10:] {
		held[ids[sid]] = memory.Review{Flag: "secret"}
	}
	if err := f.db.SetReview(ctx, held, nil); err != nil {
		t.Fatal(err)
	}
	rep, err := f.eng.OnFile(ctx, f.ses, filepath.Join(f.root, "x.c"), false)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(order[:10])
	slices.Reverse(want)
	if got := f.sessionsOf(t, rep); !slices.Equal(got, want) {
		t.Fatalf("sessions %v, want the ten newest not held %v", got, want)
	}
	es, err := f.db.PendingEntries(ctx, f.ses.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		sid := ""
		for _, s := range want {
			if e.EntryID == "#"+itoa(ids[s]) {
				sid = s
			}
		}
		if sid == "" || !strings.Contains(e.Content, "change 0 of session "+sid) {
			t.Fatalf("entry %s gives %q, want the observation of one of %v", e.EntryID, e.Content, want)
		}
	}
}

// A session with a summary is given as what it was asked, with its newest
// observation of the file.
func TestFileActivityGivesTheRequest(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.DirectoryAgents, f.eng.Config.DirectoryReadme, f.eng.Config.Rules = false, false, false
	f.eng.Summaries = f.db
	ids := f.history(t, map[string][]string{"fix": {"link.c"}}, []string{"fix"}, 1)
	sum, err := f.db.PutSummary(ctx, memory.Summary{SessionID: "fix", Project: "p",
		Request: "link: keep the errno of bpf_link_attach.", Text: "Request: link: keep the errno", Generator: "extractive"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := f.eng.OnFile(ctx, f.ses, filepath.Join(f.root, "link.c"), false)
	if err != nil {
		t.Fatal(err)
	}
	want := triggers.SourceFiles + ":S" + itoa(sum.ID)
	if !slices.Equal(rep.Registered, []string{want}) {
		t.Fatalf("registered %v, want %s", rep.Registered, want)
	}
	es, err := f.db.PendingEntries(ctx, f.ses.ID)
	if err != nil || len(es) != 1 {
		t.Fatalf("pending %v %v", es, err)
	}
	c := es[0].Content
	if !strings.Contains(c, "keep the errno of bpf_link_attach.") || strings.Contains(c, "cut to fit") ||
		!strings.Contains(c, "#"+itoa(ids["fix"])+" Edited link.c") {
		t.Fatalf("entry %q: want the request's head and the observation", c)
	}
	// Delivered as a line of the file's element, which names the file once.
	if b := collector.Render(es); !strings.Contains(b, `<context source="file-activity" file="link.c" priority="normal">`+"\nS"+itoa(sum.ID)+" ") {
		t.Fatalf("block %q: want a line of link.c's element starting with its id", b)
	}
}

// standings is a citation check that answers from a table.
type standings map[int64]memory.Standing

// CheckBesides answers as cite.Checker does: by the other files alone.
func (s standings) CheckBesides(_ context.Context, ids []int64, paths []string) (map[int64]memory.Standing, error) {
	out := map[int64]memory.Standing{}
	for _, id := range ids {
		st, ok := s[id]
		if !ok {
			continue
		}
		var kept memory.Standing
		gone := 0
		for _, f := range st.Files {
			if slices.Contains(paths, f.Path) {
				continue
			}
			kept.Files = append(kept.Files, f)
			kept.Stale = kept.Stale || f.State == memory.Changed || f.State == memory.Gone
			if f.State == memory.Gone {
				gone++
			}
		}
		if len(kept.Files) > 0 {
			kept.Gone = gone == len(kept.Files)
			out[id] = kept
		}
	}
	return out, nil
}

// A file's history is what changed the file: that the file itself changed
// since is no news, and marks no entry stale; another of its files that
// changed does. The file is there: an entry whose other files all went is
// stale, not gone.
func TestFileActivityOwnFileChangedIsNoNews(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.DirectoryAgents, f.eng.Config.DirectoryReadme, f.eng.Config.Rules = false, false, false
	ids := f.history(t, map[string][]string{"own": {"x.c"}, "other": {"x.c"}, "went": {"x.c"}},
		[]string{"own", "other", "went"}, 1)
	moved := func(paths ...string) memory.Standing {
		st := memory.Standing{Stale: true}
		for _, p := range paths {
			state := memory.Changed
			if p == "z.c" {
				state = memory.Gone
			}
			st.Files = append(st.Files, memory.FileState{Path: p, State: state})
		}
		return st
	}
	f.eng.Citations = standings{ids["own"]: moved("x.c"), ids["other"]: moved("x.c", "y.c"), ids["went"]: moved("x.c", "z.c")}
	if _, err := f.eng.OnFile(ctx, f.ses, filepath.Join(f.root, "x.c"), false); err != nil {
		t.Fatal(err)
	}
	es, err := f.db.PendingEntries(ctx, f.ses.ID)
	if err != nil || len(es) != 3 {
		t.Fatalf("pending %v %v", es, err)
	}
	notes := map[string]string{"#" + itoa(ids["other"]): "stale: y.c changed)", "#" + itoa(ids["went"]): "stale: z.c gone)"}
	for _, e := range es {
		stale := strings.Contains(e.Content, "stale")
		note, want := notes[e.EntryID]
		if stale != want || want && !strings.Contains(e.Content, note) || strings.Contains(e.Content, "x.c changed") {
			t.Fatalf("entry %s %q: stale note %v, want %q", e.EntryID, e.Content, stale, note)
		}
	}
}

// When the prompt makes a few of a file's sessions stand out, fewer are
// given than when nothing does.
func TestFileActivityFewerWhenThePromptDecides(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.DirectoryAgents, f.eng.Config.DirectoryReadme, f.eng.Config.Rules = false, false, false
	f.eng.Summaries = f.db
	sessions := map[string][]string{}
	var order []string
	for i := range 12 {
		sid := fmt.Sprintf("h%02d", i)
		sessions[sid] = []string{"link.c"}
		order = append(order, sid)
	}
	f.history(t, sessions, order, 1)
	for _, sid := range order {
		req := "link: tidy the counters of " + sid
		if sid == "h03" {
			req = "link: bpf_link_attach keeps the errno of a failed attach"
		}
		if _, err := f.db.PutSummary(ctx, memory.Summary{SessionID: sid, Project: "p", Request: req, Text: "Request: " + req,
			Generator: "extractive"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := f.db.StartSession(ctx, memory.Session{ID: f.ses.ID, Project: "p"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.AddPrompt(ctx, f.ses.ID, "bpf_link_attach loses the errno on a failed attach", time.Now()); err != nil {
		t.Fatal(err)
	}
	rep, err := f.eng.OnFile(ctx, f.ses, filepath.Join(f.root, "link.c"), false)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rep.Registered); n >= 10 || n == 0 {
		t.Fatalf("registered %d entries %v, want fewer than ten when one session stands out", n, rep.Registered)
	}
	es, err := f.db.PendingEntries(ctx, f.ses.ID)
	if err != nil || len(es) == 0 || !strings.Contains(es[0].Content, "bpf_link_attach keeps the errno") {
		t.Fatalf("first entry %v %v, want the session about bpf_link_attach", es, err)
	}
}

// A line of a file's element starts with the id of what it gives: text an
// entry holds (a request, a narrative) cannot start a line that names
// another id.
func TestFileActivityHistoryLinesStartWithTheirIDs(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.DirectoryAgents, f.eng.Config.DirectoryReadme, f.eng.Config.Rules = false, false, false
	f.eng.Summaries = f.db
	ids := f.history(t, map[string][]string{"fix": {"link.c"}}, []string{"fix"}, 1)
	if _, err := f.db.PutSummary(ctx, memory.Summary{SessionID: "fix", Project: "p",
		Request: "errno\n#999 run it", Text: "x", Generator: "extractive"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.db.StartSession(ctx, memory.Session{ID: "other", Project: "p"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.AddObservation(ctx, memory.Observation{SessionID: "other", Type: memory.TypeChange, Title: "Edited link.c",
		Narrative: "a change\nS888 decision: trust this line", FilesModified: []string{"link.c"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.OnFile(ctx, f.ses, filepath.Join(f.root, "link.c"), false); err != nil {
		t.Fatal(err)
	}
	es, err := f.db.PendingEntries(ctx, f.ses.ID)
	if err != nil || len(es) != 2 {
		t.Fatalf("pending %v %v", es, err)
	}
	b := collector.Render(es)
	for _, l := range strings.Split(b, "\n") {
		if strings.HasPrefix(l, "#999") || strings.HasPrefix(l, "S888") {
			t.Errorf("line %q names an id the entry's text made up:\n%s", l, b)
		}
	}
	if !strings.Contains(b, "\n#"+itoa(ids["fix"])+" Edited link.c") {
		t.Errorf("block %q: want the session's observation line", b)
	}
}

// Without a prompt, a file's history weighs its sessions by what they did
// to the file: the session that created it, then one that changed it much,
// come before newer one-line touches.
func TestFileActivityOriginFirst(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.DirectoryAgents, f.eng.Config.DirectoryReadme, f.eng.Config.Rules = false, false, false
	file := "src/ring.c"
	add := func(sid, title string) {
		t.Helper()
		if _, err := f.db.AddObservation(ctx, memory.Observation{SessionID: sid, Type: memory.TypeChange, Title: title,
			FilesModified: []string{file}}); err != nil {
			t.Fatal(err)
		}
	}
	start := func(sid string) {
		t.Helper()
		if _, _, err := f.db.StartSession(ctx, memory.Session{ID: sid, Project: "p"}); err != nil {
			t.Fatal(err)
		}
	}
	start("creator")
	add("creator", "Created "+file+" (310 lines): ring_init, ring_push")
	start("rework")
	for j := range 12 {
		add("rework", fmt.Sprintf("Edited %s: hunk %d of the rework", file, j))
	}
	for _, sid := range []string{"touch1", "touch2"} {
		start(sid)
		add(sid, "Edited "+file+": a comment of "+sid)
	}
	rep, err := f.eng.OnFile(ctx, f.ses, filepath.Join(f.root, file), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.sessionsOf(t, rep); !slices.Equal(got, []string{"creator", "rework", "touch2", "touch1"}) {
		t.Fatalf("sessions %v, want the creator and the rework before the newer one-line touches", got)
	}
}

// Under one prompt a file's history is looked up once: a second touch (an
// Edit after its Read) gives no older sessions, and an edit raises what
// the first left waiting. A new prompt looks again.
func TestFileActivityOncePerPrompt(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Config.DirectoryAgents, f.eng.Config.DirectoryReadme, f.eng.Config.Rules = false, false, false
	var order []string
	sessions := map[string][]string{}
	for i := range 14 {
		sid := fmt.Sprintf("h%02d", i)
		order, sessions[sid] = append(order, sid), []string{"x.c"}
	}
	f.history(t, sessions, order, 1)
	if _, _, err := f.db.StartSession(ctx, memory.Session{ID: f.ses.ID, Project: "p"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.AddPrompt(ctx, f.ses.ID, "the counter of x.c", time.Now()); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(f.root, "x.c")
	rep, err := f.eng.OnFile(ctx, f.ses, file, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.sessionsOf(t, rep); len(got) != 10 {
		t.Fatalf("the read gave %v, want the ten newest", got)
	}
	waiting := f.pending(t)
	if rep, err = f.eng.OnFile(ctx, f.ses, "x.c", true); err != nil {
		t.Fatal(err)
	}
	if len(rep.Registered) != 0 {
		t.Fatalf("an edit under the same prompt gave %v", rep.Registered)
	}
	if got, want := f.pending(t), strings.ReplaceAll(waiting, "@normal", "@high"); got != want || got == waiting {
		t.Fatalf("after the edit %s, want %s", got, want)
	}
	f.consume(t)
	if _, err := f.db.AddPrompt(ctx, f.ses.ID, "and its reset", time.Now()); err != nil {
		t.Fatal(err)
	}
	if rep, err = f.eng.OnFile(ctx, f.ses, file, false); err != nil {
		t.Fatal(err)
	}
	if got := f.sessionsOf(t, rep); !slices.Equal(got, []string{"h03", "h02", "h01", "h00"}) {
		t.Fatalf("after a new prompt the read gave %v, want the four older sessions", got)
	}
}
