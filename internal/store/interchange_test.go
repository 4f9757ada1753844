package store

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/interchange"
	"github.com/memhq/mem/internal/memory"
)

func exportAll(t *testing.T, db *DB) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := interchange.NewEncoder(&b)
	if err := db.Export(context.Background(), ExportFilter{}, enc.Encode); err != nil {
		t.Fatal(err)
	}
	enc.Flush()
	return b.Bytes()
}

func importBytes(t *testing.T, db *DB, b []byte) (ImportResult, error) {
	t.Helper()
	recs, err := interchange.Decode(bytes.NewReader(b))
	if err != nil {
		return ImportResult{}, err
	}
	return db.Import(context.Background(), recs)
}

func fillExample(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i, id := range []string{"s1", "s2"} {
		startTest(t, db, id, "github.com/shop/api")
		if _, err := db.AddPrompt(ctx, id, "fix refunds", at); err != nil {
			t.Fatal(err)
		}
		for j, title := range []string{"Refund retries come from config", "TestRefundRetries fails"} {
			_, err := db.AddObservation(ctx, memory.Observation{SessionID: id, Type: memory.TypeDecision,
				Title: title, Facts: []string{"default 5"}, FilesModified: []string{"internal/orders/refund.go"},
				CreatedAt:  at.Add(time.Duration(i*10+j) * time.Minute),
				Provenance: memory.Provenance{Origin: memory.OriginTool, Agent: "claude-code", Event: "Edit", Member: "alice"},
				Review:     memory.Review{Flag: map[bool]string{true: "role-tag"}[j == 1], Span: map[bool]string{true: "<system>"}[j == 1]}})
			if err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.PutSummary(ctx, memory.Summary{SessionID: id, Request: "fix refunds", Text: "Fixed.",
			CreatedAt: at.Add(time.Hour), CoversUntil: at,
			Provenance: memory.Provenance{Origin: memory.OriginSummarizer, Event: "extractive", Untrusted: true}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.EndSession(ctx, "s1", at.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	src := openTest(t)
	fillExample(t, src)
	first := exportAll(t, src)

	dst := openTest(t)
	res, err := importBytes(t, dst, first)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added["observation"] != 4 || res.Added["session"] != 2 || res.Added["summary"] != 2 || res.Added["prompt"] != 2 {
		t.Errorf("added %v", res.Added)
	}
	if second := exportAll(t, dst); !bytes.Equal(first, second) {
		t.Errorf("export after import differs:\n%s\n---\n%s", first, second)
	}
	res, err = importBytes(t, dst, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 0 {
		t.Errorf("second import added %v", res.Added)
	}
	if n, _ := dst.CountObservations(context.Background(), ""); n != 4 {
		t.Errorf("%d observations after two imports, want 4", n)
	}
}

func TestImportIsAllOrNothing(t *testing.T) {
	src := openTest(t)
	fillExample(t, src)
	lines := strings.Split(strings.TrimSpace(string(exportAll(t, src))), "\n")
	// An observation in the middle that points at a session nobody has.
	bad := strings.Replace(lines[3], `"session_id":"s1"`, `"session_id":"ghost"`, 1)
	bad = strings.Replace(bad, `"session_id":"s2"`, `"session_id":"ghost"`, 1)
	in := strings.Join(append(append(append([]string{}, lines[:3]...), bad), lines[4:]...), "\n")

	dst := openTest(t)
	_, err := importBytes(t, dst, []byte(in))
	var le *memory.LineError
	if !errors.As(err, &le) || le.Line != 4 {
		t.Fatalf("got %v, want an error on line 4", err)
	}
	st, _ := dst.Stats(context.Background(), "")
	if st.Sessions != 0 || st.Observations != 0 {
		t.Errorf("partial import left %+v", st)
	}
}

// A record naming another project than its session's is refused rather than
// filed somewhere the file did not say.
func TestImportRefusesAProjectOtherThanTheSessions(t *testing.T) {
	in := `{"kind":"session","id":"s1","project":"github.com/shop/api","started_at":"2026-01-02T03:04:05Z"}
{"kind":"observation","uuid":"u1","session_id":"s1","project":"github.com/other/api","type":"note","title":"t","created_at":"2026-01-02T03:04:05Z"}
`
	db := openTest(t)
	_, err := importBytes(t, db, []byte(in))
	var le *memory.LineError
	var ve *memory.ValidationError
	if !errors.As(err, &le) || le.Line != 2 || !errors.As(err, &ve) || ve.Field != "project" {
		t.Fatalf("got %v, want a project error on line 2", err)
	}
	if st, _ := db.Stats(context.Background(), ""); st.Sessions != 0 {
		t.Errorf("partial import left %+v", st)
	}
}

// A correction travels by the uuid of what it retires, whichever of the two
// records an import meets first.
func TestImportResolvesCorrections(t *testing.T) {
	ctx := context.Background()
	src := openTest(t)
	startTest(t, src, "s1", "github.com/shop/api")
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	old, err := src.AddObservation(ctx, memory.Observation{SessionID: "s1", Type: memory.TypeDecision,
		Title: "Refund retries come from config", CreatedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.AddObservation(ctx, memory.Observation{SessionID: "s1", Type: memory.TypeDecision,
		Title: "Refund retries are fixed at 3", CreatedAt: at.Add(time.Minute), Supersedes: old.ID}); err != nil {
		t.Fatal(err)
	}
	var lines []string // session, old, correction
	for _, l := range strings.SplitAfter(string(exportAll(t, src)), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) != 3 || !strings.Contains(lines[2], `"supersedes_uuid":"`) {
		t.Fatalf("export does not name what the correction retires:\n%s", strings.Join(lines, ""))
	}
	for _, tc := range []struct {
		name    string
		files   []string
		retired bool
	}{
		{"in file order", []string{lines[0] + lines[1] + lines[2]}, true},
		{"correction first", []string{lines[0] + lines[2] + lines[1]}, true},
		{"correction in an earlier import", []string{lines[0] + lines[2], lines[1]}, true},
		{"correction in a later import", []string{lines[0] + lines[1], lines[2]}, true},
		{"file without the field", []string{lines[0] + lines[1] + regexp.MustCompile(`,"supersedes_uuid":"[^"]*"`).ReplaceAllString(lines[2], "")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := openTest(t)
			for _, f := range tc.files {
				if _, err := importBytes(t, dst, []byte(f)); err != nil {
					t.Fatal(err)
				}
			}
			byTitle := map[string]memory.Observation{}
			if err := dst.Export(ctx, ExportFilter{}, func(r memory.Record) error {
				if r.Observation != nil {
					byTitle[r.Observation.Title] = *r.Observation
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			o, c := byTitle["Refund retries come from config"], byTitle["Refund retries are fixed at 3"]
			if got := o.SupersededBy == c.ID && c.ID > 0; got != tc.retired {
				t.Errorf("old record superseded by %d, correction #%d: retired %v, want %v", o.SupersededBy, c.ID, got, tc.retired)
			}
			if c.SupersededBy != 0 {
				t.Errorf("correction retired by %d", c.SupersededBy)
			}
		})
	}
}
