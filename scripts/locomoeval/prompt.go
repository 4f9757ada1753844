package main

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/lazy"
	"github.com/memhq/mem/internal/locomo"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/remember"
	"github.com/memhq/mem/internal/tokens"
)

//go:embed memoryfree.txt
var builtinMemoryFree string

// entryRe finds the entries of a delivered block: source and id.
var entryRe = lazy.NewRegexp(`<context source="([^"]*)" id="([^"]*)"`)

// promptRun is what one prompt got.
type promptRun struct {
	block   string
	obs     []int64 // observations injected (any source)
	entries int     // entries of any source
	took    time.Duration
}

// promptTurn runs prompt as a prompt hook does for session id in the
// conversation's project: the prompt passes the privacy filter and goes
// through the prompt-time context `mem hook` gives, with the agent's
// character cap.
func (e *evaluation) promptTurn(ctx context.Context, fn *remember.Engine, room int, project, id, prompt string) (promptRun, error) {
	start := time.Now()
	block, err := fn.TurnContext(ctx, e.db, remember.Turn{Session: memory.Session{ID: id, Project: project},
		Prompt: privacy.Filter(prompt), Room: room})
	r := promptRun{block: block, took: time.Since(start)}
	if err != nil {
		return r, fmt.Errorf("prompt %q: %w", prompt, err)
	}
	for _, m := range entryRe.Get().FindAllStringSubmatch(block, -1) {
		r.entries++
		if n, ok := strings.CutPrefix(m[2], "#"); ok {
			if v, err := strconv.ParseInt(n, 10, 64); err == nil {
				r.obs = append(r.obs, v)
			}
		}
	}
	return r, nil
}

// questionResult is what one question got at prompt time.
type questionResult struct {
	evidence, hit, given bool
	injected, relevant   int
	tokens               int
	took                 time.Duration
}

// freeResult is whether a memory-free prompt got anything, in a fresh
// session and right after a turn that got context.
type freeResult struct {
	conv         int
	prompt       string
	fresh, after bool
	afterWhat    string
	tried        bool // a turn that got context was there to follow
}

// promptPass runs every question as the first prompt of a fresh session,
// then each memory-free prompt in a fresh session and right after a turn
// that got context, with the given context.min_relevance.
func (e *evaluation) promptPass(ctx context.Context, pass int, minRelevance float64, free []string) ([]questionResult, []freeResult, error) {
	dir, err := os.MkdirTemp("", "mem-eval-cfg-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	cfg := &config.Config{Settings: config.Defaults(config.Dirs{Data: dir, State: dir, Config: dir})}
	cfg.Settings.Context.MinRelevance = minRelevance
	fn, err := remember.New(cfg, time.Now)
	if err != nil {
		return nil, nil, err
	}
	room := cfg.Settings.Inject.MaxChars
	ses := func(kind string, a, b int) string { return fmt.Sprintf("eval-p%d-%s-%d-%d", pass, kind, a, b) }

	qs := make([]questionResult, len(e.qs))
	gotContext := make([][]string, len(e.convs)) // questions that got context, per conversation
	for i, q := range e.qs {
		c := e.convs[q.conv]
		r, err := e.promptTurn(ctx, fn, room, "locomo/"+c.ID, ses("q", q.conv, i), q.Text)
		if err != nil {
			return nil, nil, err
		}
		ev, err := e.evidenceOf(ctx, q.conv, r.obs)
		if err != nil {
			return nil, nil, err
		}
		want := map[string]bool{}
		for _, id := range q.Evidence {
			want[id] = true
		}
		res := questionResult{evidence: len(q.Evidence) > 0, given: r.block != "", injected: len(r.obs), took: r.took}
		for _, ids := range ev {
			for _, id := range ids {
				if want[id] {
					res.relevant++
					break
				}
			}
		}
		res.hit = res.evidence && res.relevant > 0
		if res.given {
			res.tokens = tokens.Estimate(r.block)
			gotContext[q.conv] = append(gotContext[q.conv], q.Text)
		}
		qs[i] = res
	}
	var fr []freeResult
	for ci, c := range e.convs {
		project := "locomo/" + c.ID
		for j, p := range free {
			res := freeResult{conv: ci, prompt: p}
			r, err := e.promptTurn(ctx, fn, room, project, ses("free", ci, j), p)
			if err != nil {
				return nil, nil, err
			}
			res.fresh = r.block != ""
			if len(gotContext[ci]) > 0 {
				id := ses("after", ci, j)
				res.afterWhat = gotContext[ci][j%len(gotContext[ci])]
				if _, err := e.promptTurn(ctx, fn, room, project, id, res.afterWhat); err != nil {
					return nil, nil, err
				}
				if r, err = e.promptTurn(ctx, fn, room, project, id, p); err != nil {
					return nil, nil, err
				}
				res.tried, res.after = true, r.block != ""
			}
			fr = append(fr, res)
		}
	}
	return qs, fr, nil
}

// evidenceOf returns the dia_ids each of the observations ids was derived from.
func (e *evaluation) evidenceOf(ctx context.Context, ci int, ids []int64) ([][]string, error) {
	var missing []int64
	for _, id := range ids {
		if _, ok := e.uuids[id]; !ok {
			missing = append(missing, id)
		}
	}
	obs, err := e.db.Observations(ctx, missing)
	if err != nil {
		return nil, err
	}
	for _, o := range obs {
		e.uuids[o.ID] = o.UUID
	}
	ev := make([][]string, len(ids))
	for i, id := range ids {
		ev[i] = e.convs[ci].Evidence[e.uuids[id]]
	}
	return ev, nil
}

// promptStats sums question results.
type promptStats struct {
	questions, withEvidence, given, hits, injected, relevant int
	tokens                                                   []int
	took                                                     []time.Duration
}

func (e *evaluation) promptStats(qs []questionResult, keep func(conv int) bool) promptStats {
	var t promptStats
	for i, r := range qs {
		if !keep(e.conv[i]) {
			continue
		}
		t.questions++
		t.took = append(t.took, r.took)
		if r.evidence {
			t.withEvidence++
		}
		if r.hit {
			t.hits++
		}
		if r.given {
			t.given++
			t.tokens = append(t.tokens, r.tokens)
		}
		t.injected += r.injected
		t.relevant += r.relevant
	}
	return t
}

func (t promptStats) hit() float64  { return 100 * float64(t.hits) / float64(max(t.withEvidence, 1)) }
func (t promptStats) prec() float64 { return 100 * float64(t.relevant) / float64(max(t.injected, 1)) }
func (t promptStats) none() float64 {
	return 100 * float64(t.questions-t.given) / float64(max(t.questions, 1))
}
func (t promptStats) medianTokens() int {
	s := append([]int(nil), t.tokens...)
	sort.Ints(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// objective is what a fold maximises when it chooses a setting: hit rate
// and precision count alike.
func (t promptStats) objective() float64 { return t.hit() + t.prec() }

// falsePositives counts the memory-free prompts that got something.
func falsePositives(fr []freeResult) (fresh, after, tried int) {
	for _, f := range fr {
		if f.fresh {
			fresh++
		}
		if f.tried {
			tried++
			if f.after {
				after++
			}
		}
	}
	return fresh, after, tried
}

// promptTime measures prompt-time context for each value of
// context.min_relevance in grid (the first is the default): per
// conversation at the default, then held out (the value with the best hit
// rate + precision on the other conversations, measured on the one held
// out), then every value on all conversations, with the false positives on
// memory-free prompts.
func (e *evaluation) promptTime(ctx context.Context, out io.Writer, memFreeFile string, grid []float64) error {
	free, err := memoryFree(memFreeFile)
	if err != nil {
		return err
	}
	e.uuids = map[int64]string{}
	passes := make([][]questionResult, len(grid))
	frees := make([][]freeResult, len(grid))
	for i, v := range grid {
		if passes[i], frees[i], err = e.promptPass(ctx, i, v, free); err != nil {
			return err
		}
	}
	every := func(int) bool { return true }

	fmt.Fprintf(out, "\nPrompt-time context: each question the first prompt of a fresh session, through the prompt hook's context path (default settings, context.min_relevance %.2f).\n", grid[0])
	fmt.Fprintf(out, "hit: at least one injected observation derived from the evidence (questions with evidence); precision: injected observations derived from the evidence; tokens: median of what a prompt that got something got.\n\n")
	fmt.Fprintf(out, "| %-14s | %5s | %6s | %9s | %7s | %6s | %8s | %8s |\n", "conversation", "n", "hit %", "precision", "nothing", "tokens", "p50", "p95")
	fmt.Fprintf(out, "|%s|%s|%s|%s|%s|%s|%s|%s|\n", "----------------", "------:", "-------:", "----------:", "--------:", "-------:", "---------:", "---------:")
	row := func(name string, t promptStats) {
		sort.Slice(t.took, func(i, j int) bool { return t.took[i] < t.took[j] })
		fmt.Fprintf(out, "| %-14s | %5d | %6.1f | %9.1f | %6.1f%% | %6d | %8s | %8s |\n", name, t.questions, t.hit(), t.prec(), t.none(),
			t.medianTokens(), pct(t.took, 50), pct(t.took, 95))
	}
	for ci, c := range e.convs {
		row(c.ID, e.promptStats(passes[0], func(x int) bool { return x == ci }))
	}
	row("all", e.promptStats(passes[0], every))

	// Held-out folds over the setting.
	fmt.Fprintf(out, "\nHeld out: for each conversation, the context.min_relevance of %v with the best hit + precision on the others, measured on it.\n\n", grid)
	fmt.Fprintf(out, "| %-14s | %6s | %6s | %9s | %7s | %6s |\n", "held out", "chosen", "hit %", "precision", "nothing", "tokens")
	fmt.Fprintf(out, "|%s|%s|%s|%s|%s|%s|\n", "----------------", "-------:", "-------:", "----------:", "--------:", "-------:")
	var hits, precs, nones []float64
	for ci, c := range e.convs {
		best := 0
		for i := range grid {
			train := func(x int) bool { return x != ci }
			if e.promptStats(passes[i], train).objective() > e.promptStats(passes[best], train).objective() {
				best = i
			}
		}
		t := e.promptStats(passes[best], func(x int) bool { return x == ci })
		fmt.Fprintf(out, "| %-14s | %6.2f | %6.1f | %9.1f | %6.1f%% | %6d |\n", c.ID, grid[best], t.hit(), t.prec(), t.none(), t.medianTokens())
		hits, precs, nones = append(hits, t.hit()), append(precs, t.prec()), append(nones, t.none())
	}
	hm, hs := locomo.MeanSD(hits)
	pm, ps := locomo.MeanSD(precs)
	nm, ns := locomo.MeanSD(nones)
	fmt.Fprintf(out, "| %-14s |        | %.1f ± %.1f | %.1f ± %.1f | %.1f ± %.1f%% |        |\n", "fold mean ± sd", hm, hs, pm, ps, nm, ns)

	// Every setting on everything, with the false positives.
	fmt.Fprintf(out, "\nEach setting on all conversations (all-in), with false positives on %d memory-free prompts run in each conversation's project, in a fresh session and right after a turn that got context.\n\n", len(free))
	fmt.Fprintf(out, "| %-13s | %6s | %9s | %7s | %6s | %-14s | %-14s |\n", "min_relevance", "hit %", "precision", "nothing", "tokens", "FP fresh", "FP after")
	fmt.Fprintf(out, "|%s|%s|%s|%s|%s|%s|%s|\n", "--------------:", "-------:", "----------:", "--------:", "-------:", "----------------", "----------------")
	for i, v := range grid {
		t := e.promptStats(passes[i], every)
		f, a, tried := falsePositives(frees[i])
		n := len(frees[i])
		fmt.Fprintf(out, "| %13.2f | %6.1f | %9.1f | %6.1f%% | %6d | %-14s | %-14s |\n", v, t.hit(), t.prec(), t.none(), t.medianTokens(),
			fmt.Sprintf("%d/%d %.1f%%", f, n, 100*float64(f)/float64(max(n, 1))),
			fmt.Sprintf("%d/%d %.1f%%", a, tried, 100*float64(a)/float64(max(tried, 1))))
	}
	shown := 0
	for _, f := range frees[0] {
		if (f.fresh || f.after) && shown < 10 {
			shown++
			fmt.Fprintf(out, "  false positive at %.2f in %s (fresh %v, after %q %v): %s\n", grid[0], e.convs[f.conv].ID, f.fresh, f.afterWhat, f.after, f.prompt)
		}
	}
	return nil
}

// memoryFree reads the memory-free prompts: the file's lines, or the
// built-in list; blank lines and lines starting with # are skipped.
func memoryFree(file string) ([]string, error) {
	list := builtinMemoryFree
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("reading -memory-free: %w", err)
		}
		list = string(b)
	}
	var free []string
	sc := bufio.NewScanner(strings.NewReader(list))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			free = append(free, l)
		}
	}
	return free, sc.Err()
}
