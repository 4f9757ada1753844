package recall

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/memhq/mem/internal/memory"
)

// firstCheckTokens is about what an index line costs: the first check
// covers the budget's worth of best-ranked lines; maxCheckRounds bounds the
// refills that check what a fill showed unchecked.
const (
	firstCheckTokens = 50
	maxCheckRounds   = 4
)

// citeCheck checks the files candidates cite, each candidate once: an
// observation whose files are all gone is left out, one whose files changed
// is marked and ranked lower.
type citeCheck struct {
	ck       Checker
	res      *Result
	checked  map[int64]bool
	standing map[int64]memory.Standing
	moved    map[string][]*item // by session: checked items whose files moved
}

func newCiteCheck(ck Checker, res *Result) *citeCheck {
	return &citeCheck{ck: ck, res: res, checked: map[int64]bool{}, standing: map[int64]memory.Standing{},
		moved: map[string][]*item{}}
}

// top ranks l and checks its first n items.
func (c *citeCheck) top(ctx context.Context, l []*item, n int) ([]*item, error) {
	rank(l)
	l, _, err := c.run(ctx, l, func(i int, _ *item) bool { return i < n })
	return l, err
}

// run checks the items of l that pick chooses and that were not checked,
// and returns l without the gone ones, and how many it checked.
func (c *citeCheck) run(ctx context.Context, l []*item, pick func(int, *item) bool) ([]*item, int, error) {
	var ids []int64
	for i, it := range l {
		if !c.checked[it.obs.ID] && pick(i, it) {
			ids = append(ids, it.obs.ID)
		}
	}
	if len(ids) == 0 {
		return l, 0, nil
	}
	got, err := c.ck.Check(ctx, ids)
	if err != nil {
		return l, 0, fmt.Errorf("checking cited files: %w", err)
	}
	c.res.Checked += len(ids)
	asked := map[int64]bool{}
	for _, id := range ids {
		asked[id] = true
	}
	out := l[:0]
	for _, it := range l {
		if !asked[it.obs.ID] {
			out = append(out, it)
			continue
		}
		c.checked[it.obs.ID] = true
		s, ok := got[it.obs.ID]
		if !ok || !s.Stale {
			out = append(out, it)
			continue
		}
		c.standing[it.obs.ID] = s
		c.moved[it.obs.SessionID] = append(c.moved[it.obs.SessionID], it)
		if s.Gone {
			c.res.GoneN++
			continue
		}
		c.res.StaleN++
		it.entry.Stale = s.Note()
		it.entry.Score = round(it.entry.Score * memory.StaleWeight)
		out = append(out, it)
	}
	return out, len(ids), nil
}

// summaryNote is what moved in the files of the observations of s's
// session that s quotes, "" when nothing did.
func (c *citeCheck) summaryNote(s *memory.Summary) string {
	var files []memory.FileState
	for _, o := range c.moved[s.SessionID] {
		if s.Quotes(o.obs.Title) {
			for _, f := range c.standing[o.obs.ID].Moved() {
				if !slices.Contains(files, f) {
					files = append(files, f)
				}
			}
		}
	}
	if len(files) == 0 {
		return ""
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].State != files[j].State {
			return files[i].State == memory.Changed
		}
		return files[i].Path < files[j].Path
	})
	return memory.Standing{Stale: true, Files: files}.Note()
}

// markSummaries sets each summary's note: what moved in the files of the
// observations it quotes (cc may be nil: not checked), and the retired
// observations it quotes.
func markSummaries(cc *citeCheck, summaries []*item) {
	for _, it := range summaries {
		var notes []string
		if cc != nil {
			if moved := cc.summaryNote(it.sum); moved != "" {
				notes = append(notes, moved)
			}
		}
		if it.retired != "" {
			notes = append(notes, it.retired)
		}
		it.entry.Stale = strings.Join(notes, "; ")
	}
}
