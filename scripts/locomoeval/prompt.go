package main

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memhq/mem/internal/cli"
	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/hook"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/tokens"
)

//go:embed memoryfree.txt
var builtinMemoryFree string

// entryRe finds the entries of a delivered block: source and id.
var entryRe = regexp.MustCompile(`<context source="([^"]*)" id="([^"]*)"`)

// promptRun is what one prompt got.
type promptRun struct {
	block   string
	obs     []int64 // observations injected (any source)
	entries int     // entries of any source
	took    time.Duration
}

// promptTurn runs prompt as a prompt hook does for session id in the
// conversation's project: the prompt passes the privacy filter and goes
// through `mem hook`'s context function with the default settings and the
// agent's character cap.
func (e *evaluation) promptTurn(ctx context.Context, fn hook.ContextFunc, room int, project, id, prompt string) (promptRun, error) {
	start := time.Now()
	block, err := fn(ctx, e.db, hook.ContextTurn{Session: memory.Session{ID: id, Project: project},
		Event: hook.Event{Agent: hook.AgentClaude, Kind: hook.KindPrompt, SessionID: id, Prompt: privacy.Filter(prompt)},
		Room:  room})
	r := promptRun{block: block, took: time.Since(start)}
	if err != nil {
		return r, fmt.Errorf("prompt %q: %w", prompt, err)
	}
	for _, m := range entryRe.FindAllStringSubmatch(block, -1) {
		r.entries++
		if n, ok := strings.CutPrefix(m[2], "#"); ok {
			if v, err := strconv.ParseInt(n, 10, 64); err == nil {
				r.obs = append(r.obs, v)
			}
		}
	}
	return r, nil
}

// promptTime measures prompt-time context: each question as the first
// prompt of a fresh session, then the memory-free prompts in a fresh session
// and right after a turn that got context.
func (e *evaluation) promptTime(ctx context.Context, out io.Writer, memFreeFile string) error {
	dir, err := os.MkdirTemp("", "mem-eval-cfg-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg := &config.Config{Settings: config.Defaults(config.Dirs{Data: dir, State: dir, Config: dir})}
	fn := cli.HookContext(cfg, time.Now)
	room := cfg.Settings.Inject.MaxChars

	uuids := map[int64]string{}
	evidenceOf := func(ci int, ids []int64) ([][]string, error) {
		var missing []int64
		for _, id := range ids {
			if _, ok := uuids[id]; !ok {
				missing = append(missing, id)
			}
		}
		obs, err := e.db.Observations(ctx, missing)
		if err != nil {
			return nil, err
		}
		for _, o := range obs {
			uuids[o.ID] = o.UUID
		}
		ev := make([][]string, len(ids))
		for i, id := range ids {
			ev[i] = e.convs[ci].Evidence[uuids[id]]
		}
		return ev, nil
	}

	type tally struct {
		questions, withEvidence, given, hits, injected, relevant int
		tokens                                                   []int
		took                                                     []time.Duration
	}
	perConv := make([]tally, len(e.convs))
	var all tally
	gotContext := make([][]string, len(e.convs)) // questions that got context, per conversation
	for i, q := range e.qs {
		c := e.convs[q.conv]
		r, err := e.promptTurn(ctx, fn, room, "locomo/"+c.ID, fmt.Sprintf("eval-q%d", i), q.Text)
		if err != nil {
			return err
		}
		ev, err := evidenceOf(q.conv, r.obs)
		if err != nil {
			return err
		}
		want := map[string]bool{}
		for _, id := range q.Evidence {
			want[id] = true
		}
		relevant := 0
		for _, ids := range ev {
			for _, id := range ids {
				if want[id] {
					relevant++
					break
				}
			}
		}
		for _, t := range []*tally{&perConv[q.conv], &all} {
			t.questions++
			t.took = append(t.took, r.took)
			if len(q.Evidence) > 0 {
				t.withEvidence++
				if relevant > 0 {
					t.hits++
				}
			}
			if r.block != "" {
				t.given++
				t.tokens = append(t.tokens, tokens.Estimate(r.block))
			}
			t.injected += len(r.obs)
			t.relevant += relevant
		}
		if r.block != "" {
			gotContext[q.conv] = append(gotContext[q.conv], q.Text)
		}
	}

	fmt.Fprintf(out, "\nPrompt-time context: each question the first prompt of a fresh session, through the prompt hook's context path (default settings).\n")
	fmt.Fprintf(out, "hit: at least one injected observation derived from the evidence (questions with evidence); precision: injected observations derived from the evidence; tokens: median of what a prompt that got something got.\n\n")
	fmt.Fprintf(out, "| %-14s | %5s | %6s | %9s | %7s | %6s | %8s | %8s |\n", "conversation", "n", "hit %", "precision", "nothing", "tokens", "p50", "p95")
	fmt.Fprintf(out, "|%s|%s|%s|%s|%s|%s|%s|%s|\n", "----------------", "------:", "-------:", "----------:", "--------:", "-------:", "---------:", "---------:")
	row := func(name string, t tally) (hit, prec, none float64) {
		hit = 100 * float64(t.hits) / float64(max(t.withEvidence, 1))
		prec = 100 * float64(t.relevant) / float64(max(t.injected, 1))
		none = 100 * float64(t.questions-t.given) / float64(max(t.questions, 1))
		sort.Ints(t.tokens)
		med := 0
		if len(t.tokens) > 0 {
			med = t.tokens[len(t.tokens)/2]
		}
		sort.Slice(t.took, func(i, j int) bool { return t.took[i] < t.took[j] })
		fmt.Fprintf(out, "| %-14s | %5d | %6.1f | %9.1f | %6.1f%% | %6d | %8s | %8s |\n", name, t.questions, hit, prec, none, med,
			pct(t.took, 50), pct(t.took, 95))
		return hit, prec, none
	}
	var hits, precs, nones []float64
	for ci, t := range perConv {
		h, p, n := row(e.convs[ci].ID, t)
		hits, precs, nones = append(hits, h), append(precs, p), append(nones, n)
	}
	row("all", all)
	hm, hs := meanSD(hits)
	pm, ps := meanSD(precs)
	nm, ns := meanSD(nones)
	fmt.Fprintf(out, "| %-14s |       | %.1f ± %.1f | %.1f ± %.1f | %.1f ± %.1f |        |          |          |\n",
		"fold mean ± sd", hm, hs, pm, ps, nm, ns)

	// Memory-free prompts.
	list := builtinMemoryFree
	if memFreeFile != "" {
		b, err := os.ReadFile(memFreeFile)
		if err != nil {
			return fmt.Errorf("reading -memory-free: %w", err)
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
	var fresh, after, freshFP, afterFP int
	var examples []string
	for ci, c := range e.convs {
		project := "locomo/" + c.ID
		for j, p := range free {
			r, err := e.promptTurn(ctx, fn, room, project, fmt.Sprintf("eval-free-%d-%d", ci, j), p)
			if err != nil {
				return err
			}
			fresh++
			if r.block != "" {
				freshFP++
				examples = append(examples, fmt.Sprintf("%s (fresh, %d entries): %s", c.ID, r.entries, p))
			}
			if len(gotContext[ci]) == 0 {
				continue
			}
			// The same prompt right after a turn that got context.
			id := fmt.Sprintf("eval-after-%d-%d", ci, j)
			q := gotContext[ci][j%len(gotContext[ci])]
			if _, err := e.promptTurn(ctx, fn, room, project, id, q); err != nil {
				return err
			}
			r, err = e.promptTurn(ctx, fn, room, project, id, p)
			if err != nil {
				return err
			}
			after++
			if r.block != "" {
				afterFP++
				examples = append(examples, fmt.Sprintf("%s (after %q, %d entries): %s", c.ID, q, r.entries, p))
			}
		}
	}
	fmt.Fprintf(out, "\nMemory-free prompts (%d, in each conversation's project): false positives %d of %d in a fresh session (%.1f%%), %d of %d right after a turn that got context (%.1f%%), %.1f%% in all.\n",
		len(free), freshFP, fresh, 100*float64(freshFP)/float64(max(fresh, 1)), afterFP, after,
		100*float64(afterFP)/float64(max(after, 1)), 100*float64(freshFP+afterFP)/float64(max(fresh+after, 1)))
	for i, x := range examples {
		if i == 10 {
			fmt.Fprintf(out, "  … and %d more\n", len(examples)-10)
			break
		}
		fmt.Fprintln(out, "  "+x)
	}
	return nil
}
