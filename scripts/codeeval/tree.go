package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"

	"github.com/memhq/mem/internal/cite"
	"github.com/memhq/mem/internal/recall"
	"github.com/memhq/mem/internal/store"
)

// workTree is a checkout of the replayed repository that follows the
// replay (-tree): a session's prompt and Reads see the tree as it was
// before its commit, its Edits the tree the commit left, so the files its
// observations cite are fingerprinted as they were, and the citation check
// at a later session start compares them with the tree of that moment.
type workTree struct{ dir string }

// newWorkTree clones the git directory gd into dir without checking out:
// --shared borrows the objects, so the mirror is read, never written.
func newWorkTree(gd, dir string) (*workTree, error) {
	if _, err := run1("", "git", "clone", "--quiet", "--shared", "--no-checkout", gd, dir); err != nil {
		return nil, err
	}
	return &workTree{dir: dir}, nil
}

// checkout makes the tree rev's, whatever was there.
func (t *workTree) checkout(rev string) error {
	_, err := run1(t.dir, "git", "checkout", "--quiet", "--force", "--detach", rev)
	return err
}

// before checks out the parent of sha (sha itself for a root commit).
func (t *workTree) before(sha string) error {
	if err := t.checkout(sha + "^"); err != nil {
		return t.checkout(sha)
	}
	return nil
}

func run1(dir, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// staleness is what the citation check did to one session-start block.
type staleness struct {
	// The block the hook gives (the check on).
	entries int // entries shown
	marked  int // of them, marked stale
	gone    int // candidates left out because every file they cite went
	tokens  int
	// The same Build with the check off, and what the check says of its
	// entries.
	offEntries, offTokens   int
	offStale, offGone       int  // observation entries whose files changed / all went
	offOut                  int  // entries the block with the check does not show
	staleTokens, goneTokens int  // the tokens of those entries
	same                    bool // the Build with the check is the hook's block
}

// startStaleness builds the start block of session sid twice from one
// snapshot, with the citation check (what the hook gives: hookBlock) and
// without, and checks the entries of the second.
func (r *replayer) startStaleness(ctx context.Context, sid, hookBlock string) (staleness, error) {
	var st staleness
	err := r.db.Read(ctx, func(rx *store.DB) error {
		req := recall.Request{Project: r.project(), SessionID: sid, Mode: recall.ModeStart, Format: recall.FormatXML}
		ck := &cite.Checker{Store: rx}
		req.Citations = ck
		on, err := recall.Build(ctx, rx, req, r.recall)
		if err != nil {
			return err
		}
		req.Citations = nil
		off, err := recall.Build(ctx, rx, req, r.recall)
		if err != nil {
			return err
		}
		st.entries, st.tokens, st.gone = len(on.Entries), on.Tokens, on.GoneN
		for _, e := range on.Entries {
			if e.Stale != "" {
				st.marked++
			}
		}
		st.same = strings.TrimSpace(on.Text) == strings.TrimSpace(hookBlock)
		st.offEntries, st.offTokens = len(off.Entries), off.Tokens
		shown := map[string]bool{}
		for _, e := range on.Entries {
			shown[e.Ref] = true
		}
		var ids []int64
		for _, e := range off.Entries {
			if e.Kind == "observation" {
				ids = append(ids, e.ID)
			}
		}
		standing, err := ck.Check(ctx, ids)
		if err != nil {
			return err
		}
		for _, e := range off.Entries {
			if !shown[e.Ref] {
				st.offOut++
			}
			s, ok := standing[e.ID]
			switch {
			case e.Kind != "observation" || !ok || !s.Stale:
			case s.Gone:
				st.offGone++
				st.goneTokens += e.Tokens
			default:
				st.offStale++
				st.staleTokens += e.Tokens
			}
		}
		return nil
	})
	return st, err
}

// reportStaleness prints, per repository and in all, what the check did
// to the session-start blocks of the fixes.
func reportStaleness(out io.Writer, qs []question) {
	var repos []string
	seen := map[string]bool{}
	for _, q := range qs {
		if !seen[q.repo] {
			seen[q.repo] = true
			repos = append(repos, q.repo)
		}
	}
	fmt.Fprintf(out, "\nSession start with a real work tree: the citation check at each fix's session start\n\n")
	fmt.Fprintln(out, "| repository | fixes | entries | marked stale | left out as gone | fixes with gone | tokens | without the check: entries | stale | gone | not in the checked block | gone share of tokens | stale share of tokens | tokens | same as the hook |")
	fmt.Fprintln(out, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	row := func(name string, keep func(question) bool) {
		var n, ent, marked, gone, withGone, offEnt, offOut, offStale, offGone, goneTok, staleTok, offTok, same int
		var tok, offT []int
		for _, q := range qs {
			if !keep(q) {
				continue
			}
			s := q.st
			n++
			ent += s.entries
			marked += s.marked
			gone += s.gone
			if s.gone > 0 {
				withGone++
			}
			offEnt += s.offEntries
			offOut += s.offOut
			offStale += s.offStale
			offGone += s.offGone
			goneTok += s.goneTokens
			staleTok += s.staleTokens
			offTok += s.offTokens
			tok = append(tok, s.tokens)
			offT = append(offT, s.offTokens)
			if s.same {
				same++
			}
		}
		if n == 0 {
			return
		}
		mean := func(v int) string { return fmt.Sprintf("%.1f", float64(v)/float64(n)) }
		fmt.Fprintf(out, "| %s | %d | %s | %s (%.1f%%) | %s | %d | %d | %s | %s (%.1f%%) | %s | %s | %.1f%% | %.1f%% | %d | %d |\n",
			name, n, mean(ent), mean(marked), pc(marked, ent), mean(gone), withGone, median(tok),
			mean(offEnt), mean(offStale), pc(offStale, offEnt), mean(offGone), mean(offOut), pc(goneTok, offTok), pc(staleTok, offTok), median(offT), same)
	}
	sort.Strings(repos)
	for _, name := range repos {
		row(name, func(q question) bool { return q.repo == name })
	}
	if len(repos) > 1 {
		row("all", func(question) bool { return true })
	}
	fmt.Fprintln(out, "\nPer fix: entries, marked, gone and tokens are means (tokens: medians) of the block the hook gives;")
	fmt.Fprintln(out, "the columns after are the same Build with the check off, its observation entries checked;")
	fmt.Fprintln(out, "shares are of the summed tokens of those blocks.")
}
