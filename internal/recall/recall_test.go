package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/tokens"
	"github.com/tiktoken-go/tokenizer"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const fixtureProject = "github.com/acme/shop"

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestGolden(t *testing.T) {
	src := loadFixture(t)
	cases := []struct {
		name string
		req  Request
	}{
		{"start.xml", Request{SessionID: "s-104", Mode: ModeStart, Format: FormatXML}},
		{"start.txt", Request{SessionID: "s-104", Mode: ModeStart, Format: FormatText}},
		{"start.pretty", Request{SessionID: "s-104", Mode: ModeStart, Format: FormatPretty}},
		{"start-tty.pretty", Request{SessionID: "s-104", Mode: ModeStart, Format: FormatPretty, Color: true, Boxes: true}},
		{"compact.xml", Request{SessionID: "s-104", Mode: ModeCompact, Format: FormatXML}},
		{"compact.txt", Request{SessionID: "s-104", Mode: ModeCompact, Format: FormatText}},
		{"compact.pretty", Request{SessionID: "s-104", Mode: ModeCompact, Format: FormatPretty}},
		{"budget400.xml", Request{SessionID: "s-104", Budget: 400}},
		{"budget400-aggressive.xml", Request{SessionID: "s-104", Budget: 400, Compress: Aggressive}},
		{"prompt-webhooks.xml", Request{Prompt: "webhook key rotation", AgentType: "plan"}},
		{"budget60.xml", Request{Budget: 60}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.req.Project = fixtureProject
			res, err := Build(context.Background(), src, c.req, DefaultSettings())
			if err != nil {
				t.Fatal(err)
			}
			if res.Tokens > res.Budget {
				t.Errorf("tokens %d > budget %d", res.Tokens, res.Budget)
			}
			golden(t, c.name, []byte(res.Text))
		})
	}
	t.Run("explain.json", func(t *testing.T) {
		res, err := Build(context.Background(), src, Request{Project: fixtureProject, SessionID: "s-104"}, DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(res, "", "  ")
		golden(t, "explain.json", append(b, '\n'))
	})
}

func TestEmptyAndUnknown(t *testing.T) {
	src := loadFixture(t)
	ctx := context.Background()
	for _, req := range []Request{
		{Project: "no/such/project"},
		{Project: "no/such/project", SessionID: "no-such-session", Mode: ModeCompact},
		{SessionID: "no-such-session"},
		{},
	} {
		for _, f := range []Format{FormatXML, FormatText} {
			req.Format = f
			res, err := Build(ctx, src, req, DefaultSettings())
			if err != nil {
				t.Fatalf("%+v: %v", req, err)
			}
			if res.Text != "" || !res.Empty {
				t.Errorf("%+v: want an empty block, got %q", req, res.Text)
			}
		}
	}
	res, err := Build(ctx, src, Request{Project: "no/such/project", Format: FormatPretty}, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Text, "No memory yet for no/such/project") || strings.Count(res.Text, "\n") != 1 {
		t.Errorf("pretty welcome: got %q", res.Text)
	}
	// An unknown session of a known project is the project's block.
	a, _ := Build(ctx, src, Request{Project: fixtureProject, SessionID: "nope"}, DefaultSettings())
	b, _ := Build(ctx, src, Request{Project: fixtureProject}, DefaultSettings())
	if a.Text == "" || a.Text != b.Text {
		t.Errorf("unknown session: block differs from the project's")
	}
}

// failingSource fails every read, to check errors come back wrapped.
type failingSource struct{ *memSource }

var errBoom = errors.New("boom")

func (failingSource) Session(context.Context, string) (memory.Session, error) {
	return memory.Session{}, errBoom
}

func TestSourceErrors(t *testing.T) {
	_, err := Build(context.Background(), failingSource{&memSource{}}, Request{Project: "p", SessionID: "s"}, DefaultSettings())
	if !errors.Is(err, errBoom) {
		t.Fatalf("got %v, want boom", err)
	}
}

func TestScore(t *testing.T) {
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	sc := &scorer{ref: now, halfLife: 24 * time.Hour, weights: DefaultSettings().Weights, agentType: "plan",
		keywords: map[string]bool{"refund": true, "retries": true}}
	cases := []struct {
		name string
		o    memory.Observation
		want Factors
	}{
		{"fresh decision, same agent, both keywords",
			memory.Observation{Type: memory.TypeDecision, AgentType: "plan", Title: "Refund retries", CreatedAt: now},
			Factors{Recency: 1, Importance: 1, AgentType: 1, Keyword: 1, Matched: []string{"refund", "retries"}}},
		{"one half-life old note, keyword in a file name",
			memory.Observation{Type: memory.TypeNote, AgentType: "build", Title: "x", FilesModified: []string{"internal/refund.go"}, CreatedAt: now.Add(-24 * time.Hour)},
			Factors{Recency: 0.5, Importance: 0.2, Keyword: 0.5, Matched: []string{"refund"}}},
		{"future is now", memory.Observation{Type: memory.TypeChange, CreatedAt: now.Add(time.Hour)},
			Factors{Recency: 1, Importance: 0.2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			score, f := sc.score(c.o)
			if fmt.Sprint(f) != fmt.Sprint(c.want) {
				t.Errorf("factors %+v, want %+v", f, c.want)
			}
			w := sc.weights
			want := round(w.Recency*c.want.Recency + w.Importance*c.want.Importance + w.AgentType*c.want.AgentType + w.Keyword*c.want.Keyword)
			if score != want {
				t.Errorf("score %v, want %v", score, want)
			}
		})
	}
}

func TestClauses(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"One.", []string{"One."}},
		{"One. Two; three: four", []string{"One.", " Two;", " three:", " four"}},
		{"v1.2 is out. e.g.x stays", []string{"v1.2 is out.", " e.g.x stays"}},
		{"line one\nline two", []string{"line one", "\nline two"}},
	}
	for _, c := range cases {
		got := clauses(c.in)
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", c.want) {
			t.Errorf("clauses(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// genMemory makes a random memory of one project: sessions with
// observations, summaries and prompts, with text that stresses escaping,
// long sentences and non-ASCII.
func genMemory(r *rand.Rand) *memSource {
	vocab := strings.Fields(`retry backoff refund order payment webhook cache index token budget session
		db.go parseJSON x509 数据库 café </memory_context> & "quoted" <tag> ]]> a b c 12345 internal/orders/refund.go`)
	sentence := func() string {
		n := 2 + r.IntN(14)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(ws, " ") + []string{".", "!", "?", ";", ":", ""}[r.IntN(6)]
	}
	text := func(max int) string {
		n := r.IntN(max + 1)
		ss := make([]string, n)
		for i := range ss {
			ss[i] = sentence()
		}
		return strings.Join(ss, []string{" ", "\n"}[r.IntN(2)])
	}
	m := &memSource{}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	id := int64(0)
	for s := range 1 + r.IntN(12) {
		sid := fmt.Sprintf("s%d", s)
		start := base.Add(time.Duration(s) * 36 * time.Hour)
		at := []string{"build", "plan", ""}[r.IntN(3)]
		m.Sessions = append(m.Sessions, memory.Session{ID: sid, Project: "p", AgentType: at, StartedAt: start,
			FilesRead: []string{"internal/orders/refund.go"}})
		for range r.IntN(40) {
			id++
			ts := memory.Types()
			m.Observations = append(m.Observations, memory.Observation{ID: id, SessionID: sid, Project: "p",
				Type: ts[r.IntN(len(ts))], Title: text(2) + "x", Subtitle: text(1), Narrative: text(4),
				AgentType: at, CreatedAt: start.Add(time.Duration(r.IntN(36*60)) * time.Minute)})
		}
		if r.IntN(4) > 0 {
			m.Summaries = append(m.Summaries, memory.Summary{ID: int64(s + 1), SessionID: sid, Project: "p",
				Request: text(2), Completed: text(6), Learned: text(3), NextSteps: text(2), Decisions: text(2),
				Text: text(3), CreatedAt: start.Add(36 * time.Hour)})
		}
		m.PromptList = append(m.PromptList, memory.Prompt{SessionID: sid, PromptNumber: 1, Text: text(2)})
	}
	return m
}

// parsedBlock is what the property test reads back from an XML block.
type parsedBlock struct {
	order    []string            // top-level elements in order
	fields   map[string][]string // summary field name -> texts
	indexes  []string            // lines of <index> and <current_session>
	sessions int
}

func parseXML(t *testing.T, text string) parsedBlock {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(text))
	p := parsedBlock{fields: map[string][]string{}}
	var stack []string
	var buf strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("block is not well-formed XML: %v\n%s", err, text)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if len(stack) == 0 && e.Name.Local != "memory_context" {
				t.Fatalf("root is %s", e.Name.Local)
			}
			if len(stack) == 1 {
				p.order = append(p.order, e.Name.Local)
			}
			stack = append(stack, e.Name.Local)
			buf.Reset()
		case xml.CharData:
			buf.Write(e)
		case xml.EndElement:
			name := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch {
			case len(stack) == 1 && (name == "index" || name == "current_session"):
				for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
					p.indexes = append(p.indexes, l)
				}
			case len(stack) == 3 && stack[2] == "session":
				p.fields[name] = append(p.fields[name], buf.String())
			case name == "session":
				p.sessions++
			}
			buf.Reset()
		}
	}
	if len(stack) != 0 {
		t.Fatalf("unclosed elements %v", stack)
	}
	return p
}

// atBoundary reports whether got is original whole, or a prefix of it that
// ends at a sentence or clause boundary.
func atBoundary(got, original string) bool {
	original = strings.TrimSpace(original)
	if got == original {
		return true
	}
	if !strings.HasPrefix(original, got) || got == "" {
		return false
	}
	rest := original[len(got):]
	return strings.ContainsAny(got[len(got)-1:], ".!?;:") && (rest[0] == ' ' || rest[0] == '\n') || rest[0] == '\n'
}

func TestProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ctx := context.Background()
	n := 300
	if testing.Short() {
		n = 60
	}
	for i := range n {
		m := genMemory(r)
		budget := 50 + r.IntN(20000-50+1)
		if i%3 == 0 {
			budget = 50 + r.IntN(600)
		}
		req := Request{Project: "p", SessionID: fmt.Sprintf("s%d", r.IntN(14)),
			Mode:     []Mode{ModeStart, ModeCompact}[r.IntN(2)],
			Format:   []Format{FormatXML, FormatText, FormatPretty}[r.IntN(3)],
			Compress: []Compress{Conservative, Aggressive}[r.IntN(2)],
			Budget:   budget, MaxChars: []int{0, -1, 500 + r.IntN(5000)}[r.IntN(3)]}
		if r.IntN(3) == 0 {
			req.Prompt = "refund webhook café"
		}
		res, err := Build(ctx, m, req, DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("case %d (%s %s %s budget %d max %d)", i, req.Mode, req.Format, req.Compress, budget, req.MaxChars)
		if got := tokens.Estimate(res.Text); got > budget {
			t.Fatalf("%s: estimate %d > budget", name, got)
		}
		if limit := res.MaxChars; limit >= 0 && len(res.Text) > limit {
			t.Fatalf("%s: %d bytes > max %d", name, len(res.Text), limit)
		}
		again, _ := Build(ctx, m, req, DefaultSettings())
		if again.Text != res.Text {
			t.Fatalf("%s: same input, different bytes", name)
		}
		if req.Format != FormatXML || res.Text == "" {
			continue
		}
		p := parseXML(t, res.Text)
		iSessions, iIndex := -1, -1
		for k, e := range p.order {
			switch e {
			case "recent_sessions":
				iSessions = k
			case "index":
				iIndex = k
			}
		}
		if iSessions >= 0 && iIndex >= 0 && iSessions > iIndex {
			t.Fatalf("%s: index before summaries: %v", name, p.order)
		}
		// Summary fields are whole or cut at a boundary.
		for field, texts := range p.fields {
			for _, got := range texts {
				ok := false
				for _, s := range m.Summaries {
					orig := map[string]string{"request": s.Request, "completed": s.Completed, "learned": s.Learned,
						"next_steps": s.NextSteps, "decisions": s.Decisions, "text": s.Text}[field]
					ok = ok || atBoundary(got, clean(orig))
				}
				if !ok {
					t.Fatalf("%s: %s cut mid-sentence: %q", name, field, got)
				}
			}
		}
		// Index lines: the title whole or cut at a boundary.
		byID := map[string]memory.Observation{}
		for _, o := range m.Observations {
			byID[fmt.Sprintf("#%d", o.ID)] = o
		}
		for _, l := range p.indexes {
			parts := strings.SplitN(l, " ", 4)
			o, ok := byID[parts[0]]
			if !ok || len(parts) < 4 {
				t.Fatalf("%s: bad index line %q", name, l)
			}
			title, _, _ := strings.Cut(parts[3], " — ")
			if !atBoundary(title, line(o.Title, false)) {
				t.Fatalf("%s: title cut mid-sentence: %q of %q", name, title, o.Title)
			}
		}
	}
}

func BenchmarkBuild(b *testing.B) {
	src := loadFixture(b)
	// Grow the fixture to the candidate limits, as on a large database.
	base := src.Observations[0]
	for i := range recentLimit + importantLimit {
		o := base
		o.ID = int64(1000 + i)
		o.Type = memory.Types()[i%12]
		o.Title = fmt.Sprintf("Observation %d about refunds, retries and internal/orders/refund.go", i)
		o.CreatedAt = base.CreatedAt.Add(time.Duration(i) * time.Minute)
		src.Observations = append(src.Observations, o)
	}
	newestObsFirst(src.Observations) // so that the fake source costs little
	for _, f := range []Format{FormatXML, FormatText, FormatPretty} {
		b.Run(string(f), func(b *testing.B) {
			for b.Loop() {
				if _, err := Build(context.Background(), src, Request{Project: fixtureProject, SessionID: "s-104", Format: f}, DefaultSettings()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRealTokensWithinBudget checks blocks against the o200k tokenizer: the
// budget must hold for real tokens, not only for the estimate.
func TestRealTokensWithinBudget(t *testing.T) {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	src := loadFixture(t)
	for _, f := range []Format{FormatXML, FormatText} {
		for _, m := range []Mode{ModeStart, ModeCompact} {
			for _, budget := range []int{100, 300, 600, 1000, 2000} {
				res, err := Build(context.Background(), src, Request{Project: fixtureProject, SessionID: "s-104",
					Mode: m, Format: f, Budget: budget, MaxChars: -1}, DefaultSettings())
				if err != nil {
					t.Fatal(err)
				}
				ids, _, _ := enc.Encode(res.Text)
				if len(ids) > budget {
					t.Errorf("%s %s budget %d: %d real tokens", f, m, budget, len(ids))
				}
				if budget == 2000 {
					t.Logf("%s %s budget %d: estimate %d, o200k %d", f, m, budget, res.Tokens, len(ids))
				}
			}
		}
	}
}

// A summary written long after its session (by the nightly job) is dated by
// the work it covers, in every format.
func TestSummaryDatedByWhatItCovers(t *testing.T) {
	covered := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	src := &memSource{
		Sessions: []memory.Session{{ID: "old", Project: "p", StartedAt: covered, LastActivityAt: covered}},
		Summaries: []memory.Summary{{ID: 1, SessionID: "old", Project: "p", Request: "Fix refunds.",
			Text: "Refund retries come from config.", CreatedAt: covered.AddDate(0, 1, 0), CoversUntil: covered}},
	}
	for _, f := range []Format{FormatXML, FormatText, FormatPretty} {
		res, err := Build(context.Background(), src, Request{Project: "p", Format: f}, DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Text, "2026-03-02") || strings.Contains(res.Text, "2026-04-02") {
			t.Errorf("%s: summary not dated by covers_until:\n%s", f, res.Text)
		}
	}
}

// readingSource records what Build read of the project's observations.
type readingSource struct {
	*memSource
	read map[int64]bool
}

func (r *readingSource) RecentBriefs(ctx context.Context, project string, types []memory.Type, limit int, older *memory.Observation) ([]memory.Observation, error) {
	out, err := r.memSource.RecentBriefs(ctx, project, types, limit, older)
	if project == fixtureProject {
		for _, o := range out {
			r.read[o.ID] = true
		}
	}
	return out, err
}

// The block's candidates are the recentLimit newest observations and the
// importantLimit newest decisions, problems and warnings; those of the
// latter among the former are read once, and only the older ones again.
func TestImportantBeyondRecent(t *testing.T) {
	for _, extra := range []int{10, recentLimit + 2*importantLimit} {
		src := loadFixture(t)
		base := src.Observations[0]
		for i := range extra {
			o := base
			o.ID, o.Type = int64(1000+i), memory.Types()[i%12]
			o.Title = fmt.Sprintf("Observation %d", i)
			o.CreatedAt = base.CreatedAt.Add(time.Duration(i/3) * time.Minute) // three to a minute: ties
			src.Observations = append(src.Observations, o)
		}
		want := map[int64]bool{}
		for _, l := range [][]memory.Type{nil, importantTypes} {
			n := recentLimit
			if l != nil {
				n = importantLimit
			}
			got, err := src.RecentBriefs(context.Background(), fixtureProject, l, n, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range got {
				want[o.ID] = true
			}
		}
		rs := &readingSource{memSource: src, read: map[int64]bool{}}
		if _, err := Build(context.Background(), rs, Request{Project: fixtureProject, SessionID: "s-104"}, DefaultSettings()); err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(rs.read, want) {
			t.Errorf("%d more observations: read %d candidates, want the %d of recent and important", extra, len(rs.read), len(want))
		}
	}
}
