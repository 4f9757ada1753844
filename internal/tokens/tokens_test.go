package tokens

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

// corpusSample is one text of the calibration corpus and its kind.
type corpusSample struct {
	kind, text string
}

// The words generated samples are made of: identifiers, English, paths.
var (
	words = strings.Fields(`the a of to and in is it that for on with as was be by this are from at or
		an not but have retry backoff database session observation summary token budget index recall
		store query migration lock timeout refund order payment user agent project editor hook file
		cache prompt context memory search result error handler config test build plan release`)
	idents = strings.Fields(`ctx err db tx cfg NewRootCmd AddObservation ListSummaries busy_timeout
		WAL json_each observation_files ErrNotFound http.Client sqlx.Tx uuid.NewString MaxTextLen
		createdAt prompt_number contentHash x509 utf8.ValidString fmt.Errorf io.Reader strconv.Itoa
		RefundService retryPolicy maxAttempts onConflict HTTPServer parseJSON getUserByID`)
	exts = strings.Fields(`.go .md .json .sql .ts .js .py .yaml .toml .txt .lock .sh`)
)

// prose are sentences written for this corpus.
var prose = []string{
	"We decided to keep one summary per session and to replace it when the session resumes.",
	"The refund test failed because the retry count defaulted to 3 instead of 5; raising it fixed the flake.",
	"Hooks must never block the editor: when the database is locked they answer with no context.",
	"After the migration, searches for camelCase identifiers like parseJSON found nothing until we indexed their parts.",
	"Compaction drops the middle of the conversation, so the decisions made there have to come back from memory.",
	"Use exponential backoff (base 200ms, factor 2, cap 30s) for the payment client.",
	"Why is the build slow? The linker spends 40% of its time on debug info; -ldflags=-s halves it.",
	"Session s-42 touched internal/store/db.go and internal/cli/root.go, then ran go test ./... twice.",
	"Don't hand raw user text to MATCH: terms like db.go or NOT x are syntax errors in FTS5.",
	"Note: the nightly job summarizes sessions idle for more than 2h; it holds a lease so two runs never overlap.",
	"Le cache est invalidé à chaque démarrage, ce qui coûte près de 120 ms.",
	"Die Datenbank bleibt gesperrt, solange der Schreibvorgang läuft.",
	"数据库被锁定时，钩子返回空上下文。",
	"Deploy finished ✅ — 3 warnings, 0 errors; see logs → /var/log/app.log",
}

// repoGo returns chunks of this repository's own Go source.
func repoGo(t *testing.T) []string {
	var out []string
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines := strings.Split(string(b), "\n")
		for i := 0; i < len(lines); i += 15 {
			chunk := strings.Join(lines[i:min(i+15, len(lines))], "\n")
			if strings.TrimSpace(chunk) != "" {
				out = append(out, chunk)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func pick(r *rand.Rand, l []string) string { return l[r.IntN(len(l))] }

func genPath(r *rand.Rand) string {
	n := 1 + r.IntN(5)
	parts := make([]string, n)
	for i := range parts {
		if r.IntN(3) == 0 {
			parts[i] = pick(r, idents)
		} else {
			parts[i] = pick(r, words)
		}
	}
	p := strings.Join(parts, "/") + pick(r, exts)
	if r.IntN(2) == 0 {
		p = "/home/dev/src/" + p
	}
	return p
}

func genSentence(r *rand.Rand) string {
	n := 4 + r.IntN(16)
	ws := make([]string, n)
	for i := range ws {
		switch r.IntN(10) {
		case 0:
			ws[i] = pick(r, idents)
		case 1:
			ws[i] = fmt.Sprint(r.IntN(100000))
		default:
			ws[i] = pick(r, words)
		}
	}
	s := strings.Join(ws, " ")
	return strings.ToUpper(s[:1]) + s[1:] + pick(r, []string{".", ".", "!", "?", ";", ":"})
}

func genJSON(r *rand.Rand) string {
	files := make([]string, r.IntN(4))
	for i := range files {
		files[i] = genPath(r)
	}
	v := map[string]any{
		"id":             r.IntN(1000000),
		"type":           pick(r, []string{"decision", "problem", "change", "note"}),
		"title":          genSentence(r),
		"facts":          []string{genSentence(r), genSentence(r)},
		"files_modified": files,
		"created_at":     fmt.Sprintf("2026-%02d-%02dT%02d:%02d:00Z", 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60)),
		"uuid":           fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", r.Uint32(), r.IntN(65536), r.IntN(65536), r.IntN(65536), r.Uint64()&0xffffffffffff),
	}
	var b []byte
	if r.IntN(2) == 0 {
		b, _ = json.Marshal(v)
	} else {
		b, _ = json.MarshalIndent(v, "", "  ")
	}
	return string(b)
}

func genXML(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString(`<memory_context project="github.com/acme/` + pick(r, words) + `">` + "\n<index>\n")
	for range 1 + r.IntN(8) {
		fmt.Fprintf(&b, "#%d %s 2026-%02d-%02d %s\n", r.IntN(200000), pick(r, []string{"decision", "problem", "change"}),
			1+r.IntN(12), 1+r.IntN(28), strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(genSentence(r)))
	}
	b.WriteString("</index>\n</memory_context>")
	return b.String()
}

func genIdentifiers(r *rand.Rand) string {
	n := 3 + r.IntN(12)
	ws := make([]string, n)
	for i := range ws {
		switch r.IntN(4) {
		case 0:
			ws[i] = fmt.Sprintf("%x", r.Uint64())
		case 1:
			ws[i] = pick(r, idents) + "(" + pick(r, idents) + ")"
		default:
			ws[i] = pick(r, idents)
		}
	}
	return strings.Join(ws, pick(r, []string{" ", ", ", "\n", "."}))
}

// corpus builds the calibration corpus: fixed prose, this repository's Go
// code, and generated JSON, paths, XML and identifier soup.
func corpus(t *testing.T) []corpusSample {
	r := rand.New(rand.NewPCG(1, 2))
	var out []corpusSample
	for _, s := range prose {
		out = append(out, corpusSample{"prose", s})
	}
	for range 200 {
		n := 1 + r.IntN(6)
		ss := make([]string, n)
		for i := range ss {
			ss[i] = genSentence(r)
		}
		out = append(out, corpusSample{"prose", strings.Join(ss, " ")})
	}
	for _, c := range repoGo(t) {
		out = append(out, corpusSample{"go", c})
	}
	for range 200 {
		out = append(out, corpusSample{"json", genJSON(r)})
		n := 1 + r.IntN(6)
		ps := make([]string, n)
		for i := range ps {
			ps[i] = genPath(r)
		}
		out = append(out, corpusSample{"paths", strings.Join(ps, pick(r, []string{"\n", ", ", " "}))})
		out = append(out, corpusSample{"xml", genXML(r)})
		out = append(out, corpusSample{"identifiers", genIdentifiers(r)})
	}
	return out
}

// TestEstimateIsConservative checks the estimate against the o200k BPE
// tokenizer: it must be at least the real count for 95% of the corpus, and
// not wildly above it on average.
func TestEstimateIsConservative(t *testing.T) {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	type stat struct {
		n, ok     int
		est, real int
		ratios    []float64
	}
	stats := map[string]*stat{}
	total, ok := 0, 0
	for _, s := range corpus(t) {
		ids, _, err := enc.Encode(s.text)
		if err != nil {
			t.Fatal(err)
		}
		e := Estimate(s.text)
		st := stats[s.kind]
		if st == nil {
			st = &stat{}
			stats[s.kind] = st
		}
		st.n++
		total++
		st.est += e
		st.real += len(ids)
		if len(ids) > 0 {
			st.ratios = append(st.ratios, float64(e)/float64(len(ids)))
		}
		if e >= len(ids) {
			st.ok++
			ok++
		} else if testing.Verbose() {
			t.Logf("under: %s est=%d real=%d %q", s.kind, e, len(ids), s.text[:min(len(s.text), 80)])
		}
	}
	kinds := make([]string, 0, len(stats))
	for k := range stats {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		st := stats[k]
		sort.Float64s(st.ratios)
		t.Logf("%-12s samples %4d  estimate>=real %5.1f%%  estimate/real total %.2f  min %.2f median %.2f",
			k, st.n, 100*float64(st.ok)/float64(st.n), float64(st.est)/float64(st.real), st.ratios[0], st.ratios[len(st.ratios)/2])
	}
	share := float64(ok) / float64(total)
	t.Logf("all          samples %4d  estimate>=real %5.1f%%", total, 100*share)
	if share < 0.95 {
		t.Errorf("estimate >= o200k count on %.1f%% of %d samples, want >= 95%%", 100*share, total)
	}
	for _, k := range kinds {
		if st := stats[k]; float64(st.est) > 2.5*float64(st.real) {
			t.Errorf("%s: estimate is %.2f times the real count: too wasteful", k, float64(st.est)/float64(st.real))
		}
	}
}

// TestEstimateSubadditive checks that joining texts never costs more than
// the parts: recall sums the estimates of pieces to bound the whole.
func TestEstimateSubadditive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"", "a", "abcd", "abcde", " ", "\n", "<x>", "é", "数据", "12", "foo.go", "&amp;"}
	for range 5000 {
		a := pick(r, pieces) + pick(r, pieces)
		b := pick(r, pieces) + pick(r, pieces)
		if Estimate(a+b) > Estimate(a)+Estimate(b) {
			t.Fatalf("Estimate(%q+%q) = %d > %d + %d", a, b, Estimate(a+b), Estimate(a), Estimate(b))
		}
	}
}

func BenchmarkEstimate(b *testing.B) {
	s := strings.Repeat("Use exponential backoff (base 200ms) in internal/payments/client.go; see #1234. ", 20)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Estimate(s)
	}
}
