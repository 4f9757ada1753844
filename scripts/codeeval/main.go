// Command codeeval measures what mem gives back on real coding work: it
// replays the histories of public repositories as agent sessions through
// the hook path (the commit message as the prompt, a Read of each file it
// touches, an Edit per diff hunk, SessionEnd), and for each commit whose
// Fixes: trailer names an earlier replayed commit, asks, before replaying
// it, whether mem brings back the session of the commit it fixes: by search
// (its description, its subject), by the context a Read of its files gets,
// by what the agent gets at the prompt alone and at the prompt and those
// Reads, and by the start
// block; with plain BM25 over commit messages and `git log -- FILES` as
// baselines in the same run. It is run by `scripts/eval code`; README.md
// beside it has the design and the table.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memhq/mem/internal/search"
	"github.com/memhq/mem/internal/tokens"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "eval code:", err)
		os.Exit(1)
	}
}

// The channels a question is asked on.
const (
	chSearchFull = iota
	chSearchSubject
	chFileTouch
	chPrompt
	chAgent
	chStart
	chBM25Full
	chBM25Subject
	chGitLog
	nChannels
)

var channelNames = [nChannels]string{
	"mem search, description", "mem search, subject", "mem file-touch context", "mem prompt-time context",
	"mem prompt + file-touch context",
	"mem session start block", "bm25 over messages, description", "bm25 over subjects, subject", "git log -- FILES",
}

// injects reports whether a channel is context mem injects (tokens and
// precision apply).
func injects(ch int) bool {
	return ch == chFileTouch || ch == chPrompt || ch == chAgent || ch == chStart
}

// answer is what one channel gave one question.
type answer struct {
	rank     int // of the first session of a fixed commit, 1-based; 0: not there
	given    bool
	tokens   int
	entries  int // records cited
	relevant int // records cited from a fixed commit's session
}

type question struct {
	repo, fold, sha string
	a               [nChannels]answer
	st              staleness // with -tree: what the citation check did to the start block
}

// defaultRepos are the repositories -generate lists, with their folds.
const defaultRepos = "linux-nvme/nvme-cli:tune libbpf/bpftool:tune xdp-project/xdp-tools:tune libbpf/libbpf:test thom311/libnl:test linux-nvme/libnvme:test"

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("eval code", flag.ContinueOnError)
	list := fs.String("list", "scripts/codeeval/repos.txt", "the repositories and fix pairs (written by -generate)")
	mirror := fs.String("mirror", "/work/.mirror", "folder holding the repositories: OWNER+NAME/repo (the fetch layout), NAME.git or NAME/.git")
	window := fs.Int("window", 0, "replay at most this many commits per repository, the newest (0: the list's window)")
	maxFixes := fs.Int("fixes", 0, "ask at most this many fixes per repository (0: all)")
	only := fs.String("repos", "", "comma-separated repositories to run (default: all of the list)")
	gen := fs.Bool("generate", false, "write the list for -generate-repos to stdout instead of measuring")
	genRepos := fs.String("generate-repos", defaultRepos, "OWNER/NAME:FOLD[@HEAD] items -generate lists")
	genWindow := fs.Int("generate-window", 1000, "commits per repository -generate replays")
	keep := fs.String("keep", "", "build the databases in this folder and keep them (default: a temporary folder)")
	verbose := fs.Bool("v", false, "print each question's ranks to stderr")
	tree := fs.Bool("tree", false, "replay in a real work tree of each repository, checked out at each commit, and report what the citation check does to each fix's start block")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *gen {
		var specs []*repoSpec
		for _, item := range strings.Fields(*genRepos) {
			repo, rest, _ := strings.Cut(item, ":")
			fold, head, _ := strings.Cut(rest, "@")
			if fold != "tune" && fold != "test" {
				return fmt.Errorf("-generate-repos: %q: want OWNER/NAME:tune|test[@HEAD]", item)
			}
			specs = append(specs, &repoSpec{Repo: repo, Fold: fold, Head: head, Window: *genWindow})
		}
		return generate(out, *mirror, specs)
	}
	specs, err := readList(*list)
	if err != nil {
		return err
	}
	dir := *keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "mem-eval-code-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	started := time.Now()
	var qs []question
	for _, s := range specs {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), s.Repo) {
			continue
		}
		w := s.Window
		if *window > 0 && *window < w {
			w = *window
		}
		t0 := time.Now()
		got, n, err := replayRepo(ctx, dir, *mirror, s, w, *maxFixes, *tree, *verbose)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Repo, err)
		}
		fmt.Fprintf(os.Stderr, "%s (%s): %d commits replayed, %d fixes asked, %s\n", s.Repo, s.Fold, n, len(got), time.Since(t0).Round(time.Second))
		qs = append(qs, got...)
	}
	report(out, specs, qs)
	if *tree {
		reportStaleness(out, qs)
	}
	fmt.Fprintf(out, "\nRun time %s.\n", time.Since(started).Round(time.Second))
	return nil
}

// Trailers and references to other commits are taken out of every message
// before it is a prompt or a question: a fix's Fixes: line quotes the
// subject of the commit it fixes, which would give the answer away.
var (
	trailerRe = regexp.MustCompile(`(?m)^(Fixes|Link|Closes|Cc|Bug|Change-Id|Message-I[dD]|[A-Z][A-Za-z]*(-[a-z]+)*-by):.*$`)
	shaRefRe  = regexp.MustCompile(`\b[0-9a-f]{8,40}\b(\s*\("[^"]*"\))?`)
	blankRe   = regexp.MustCompile(`\n{3,}`)
)

func cleanMessage(msg string) string {
	msg = trailerRe.ReplaceAllString(msg, "")
	msg = shaRefRe.ReplaceAllString(msg, "")
	return strings.TrimSpace(blankRe.ReplaceAllString(msg, "\n\n"))
}

// replayRepo replays the window of s and asks its fixes.
func replayRepo(ctx context.Context, dir, mirror string, s *repoSpec, window, maxFixes int, tree, verbose bool) ([]question, int, error) {
	gd, err := gitDir(mirror, s.Repo)
	if err != nil {
		return nil, 0, err
	}
	commits, err := readCommits(gd, s.Head, window)
	if err != nil {
		return nil, 0, err
	}
	rdir, err := os.MkdirTemp(dir, strings.ReplaceAll(s.Repo, "/", "+")+"-")
	if err != nil {
		return nil, 0, err
	}
	treeOf := ""
	if tree {
		treeOf = gd
	}
	r, err := newReplayer(ctx, rdir, s.Repo, treeOf)
	if err != nil {
		return nil, 0, err
	}
	defer r.db.Close()
	full, subj := newBM25(), newBM25()
	replayed := map[string]bool{}
	var qs []question
	for i, c := range commits {
		r.clock = c.At
		if r.tree != nil {
			if err := r.tree.before(c.SHA); err != nil {
				return nil, 0, err
			}
		}
		sid := sessionOf(c.SHA)
		msg := cleanMessage(c.Message)
		subject := strings.SplitN(msg, "\n", 2)[0]
		targets := map[string]bool{}
		for _, f := range s.Pairs[c.SHA] {
			if replayed[f] {
				targets[sessionOf(f)] = true
			}
		}
		if len(targets) > 0 && (maxFixes == 0 || len(qs) < maxFixes) {
			q := question{repo: s.Repo, fold: s.Fold, sha: c.SHA}
			if err := ask(ctx, r, &q, commits[:i], c, msg, subject, targets, full, subj); err != nil {
				return nil, 0, fmt.Errorf("asking %s: %w", c.SHA[:12], err)
			}
			if verbose {
				fmt.Fprintf(os.Stderr, "%s %s %q:", s.Repo, c.SHA[:12], subject)
				for ch := range q.a {
					fmt.Fprintf(os.Stderr, " %d", q.a[ch].rank)
				}
				if tree {
					fmt.Fprintf(os.Stderr, " start: %d entries, %d stale, %d gone, %d tokens (unchecked: %d entries, %d stale, %d gone, %d tokens, %d of them gone's)",
						q.st.entries, q.st.marked, q.st.gone, q.st.tokens, q.st.offEntries, q.st.offStale, q.st.offGone, q.st.offTokens, q.st.goneTokens)
				}
				fmt.Fprintln(os.Stderr)
			}
			qs = append(qs, q)
		} else {
			if _, err := r.prompt(ctx, sid, msg); err != nil {
				return nil, 0, err
			}
			if _, err := r.read(ctx, sid, c.touched(), maxFiles); err != nil {
				return nil, 0, err
			}
		}
		if r.tree != nil {
			if err := r.tree.checkout(c.SHA); err != nil {
				return nil, 0, err
			}
		}
		if err := r.change(ctx, sid, c); err != nil {
			return nil, 0, err
		}
		if err := r.end(ctx, sid); err != nil {
			return nil, 0, err
		}
		full.add(msg)
		subj.add(subject)
		replayed[c.SHA] = true
	}
	return qs, len(commits), nil
}

// ask measures every channel for fix c (the prompt and Reads of its own
// session included: the session goes on with its edits afterwards).
func ask(ctx context.Context, r *replayer, q *question, before []commit, c commit, msg, subject string,
	targets map[string]bool, full, subj *bm25) error {
	sid := sessionOf(c.SHA)
	// Search, as mem search and the MCP search tool run it.
	for ch, text := range map[int]string{chSearchFull: msg, chSearchSubject: subject} {
		hits, err := search.SearchWith(ctx, r.db, search.Query{Text: text, Project: r.project(), Limit: 50}, search.DefaultRanking())
		if err != nil {
			return err
		}
		var ss []string
		for _, h := range hits {
			ss = append(ss, h.SessionID)
		}
		q.a[ch].rank = rankOf(ss, targets)
	}
	// Baselines over the commits replayed so far.
	sessions := func(idx []int) []string {
		out := make([]string, len(idx))
		for i, j := range idx {
			out[i] = sessionOf(before[j].SHA)
		}
		return out
	}
	q.a[chBM25Full].rank = rankOf(sessions(full.rank(msg)), targets)
	q.a[chBM25Subject].rank = rankOf(sessions(subj.rank(subject)), targets)
	files := map[string]bool{}
	for _, f := range c.Files {
		files[f.Path] = true
	}
	var logged []string
	for j := len(before) - 1; j >= 0; j-- {
		for _, f := range before[j].Files {
			if files[f.Path] {
				logged = append(logged, sessionOf(before[j].SHA))
				break
			}
		}
	}
	q.a[chGitLog].rank = rankOf(logged, targets)

	// File-touch context alone: a throwaway session reads the fix's files,
	// then is forgotten.
	probe := "probe-" + c.SHA[:12]
	blocks, err := r.read(ctx, probe, c.touched(), maxAskFiles)
	if err != nil {
		return err
	}
	if err := r.measureBlock(ctx, &q.a[chFileTouch], strings.Join(blocks, "\n"), targets); err != nil {
		return err
	}
	if _, err := r.db.DeleteSession(ctx, probe); err != nil {
		return err
	}
	// The fix's own session: its start block, then what its prompt and its
	// Reads get.
	start, err := r.start(ctx, sid)
	if err != nil {
		return err
	}
	if err := r.measureBlock(ctx, &q.a[chStart], start, targets); err != nil {
		return err
	}
	if r.tree != nil {
		if q.st, err = r.startStaleness(ctx, sid, start); err != nil {
			return err
		}
	}
	p, err := r.prompt(ctx, sid, msg)
	if err != nil {
		return err
	}
	if err := r.measureBlock(ctx, &q.a[chPrompt], p, targets); err != nil {
		return err
	}
	reads, err := r.read(ctx, sid, c.touched(), maxFiles)
	if err != nil {
		return err
	}
	return r.measureBlock(ctx, &q.a[chAgent], strings.Join(append([]string{p}, reads...), "\n"), targets)
}

func (r *replayer) measureBlock(ctx context.Context, a *answer, block string, targets map[string]bool) error {
	block = strings.TrimSpace(block)
	ss, err := r.sessionsIn(ctx, block)
	if err != nil {
		return err
	}
	a.rank = rankOf(ss, targets)
	a.given = block != ""
	if a.given {
		a.tokens = tokens.Estimate(block)
	}
	a.entries = len(ss)
	for _, s := range ss {
		if targets[s] {
			a.relevant++
		}
	}
	return nil
}

// rankOf returns the 1-based rank, among the distinct sessions of ss in
// order, of the first one in targets; 0 when none is.
func rankOf(ss []string, targets map[string]bool) int {
	seen := map[string]bool{}
	for _, s := range ss {
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		if targets[s] {
			return len(seen)
		}
	}
	return 0
}

// stats sums one channel over questions.
type stats struct {
	n, h1, h5, h10, given, entries, relevant int
	rr                                       float64
	tokens                                   []int // of the answered questions
	all                                      []int // of every question, 0 for one not answered
}

func sum(qs []question, ch int, keep func(question) bool) stats {
	var s stats
	for _, q := range qs {
		if !keep(q) {
			continue
		}
		a := q.a[ch]
		s.n++
		if a.rank > 0 {
			s.rr += 1 / float64(a.rank)
			if a.rank <= 1 {
				s.h1++
			}
			if a.rank <= 5 {
				s.h5++
			}
			if a.rank <= 10 {
				s.h10++
			}
		}
		if a.given {
			s.given++
			s.tokens = append(s.tokens, a.tokens)
		}
		s.all = append(s.all, a.tokens)
		s.entries += a.entries
		s.relevant += a.relevant
	}
	return s
}

func pc(a, b int) float64 { return 100 * float64(a) / math.Max(float64(b), 1) }

func median(v []int) int {
	if len(v) == 0 {
		return 0
	}
	s := append([]int(nil), v...)
	sort.Ints(s)
	return s[len(s)/2]
}

func report(out io.Writer, specs []*repoSpec, qs []question) {
	folds := []struct{ name, fold string }{{"held out (test)", "test"}, {"tuning (tune)", "tune"}}
	for _, f := range folds {
		var names []string
		for _, s := range specs {
			if s.Fold == f.fold {
				names = append(names, s.Repo)
			}
		}
		keep := func(q question) bool { return q.fold == f.fold }
		n := sum(qs, 0, keep).n
		if n == 0 {
			continue
		}
		fmt.Fprintf(out, "\n%s: %s; %d fixes (session-level: does the fixed commit's session come back)\n\n", f.name, strings.Join(names, ", "), n)
		fmt.Fprintf(out, "| %-33s | %5s | %5s | %5s | %5s | %8s | %9s | %6s | %6s |\n", "channel", "hit@1", "hit@5", "hit@10", "MRR", "answered", "precision", "tokens", "all")
		fmt.Fprintf(out, "|%s|------:|------:|-------:|------:|---------:|----------:|-------:|-------:|\n", strings.Repeat("-", 35))
		for ch := 0; ch < nChannels; ch++ {
			s := sum(qs, ch, keep)
			ans, prec, tok, all := "", "", "", ""
			if injects(ch) {
				ans = fmt.Sprintf("%.1f%%", pc(s.given, s.n))
				prec = fmt.Sprintf("%.1f%%", pc(s.relevant, s.entries))
				tok, all = fmt.Sprint(median(s.tokens)), fmt.Sprint(median(s.all))
			}
			fmt.Fprintf(out, "| %-33s | %5.1f | %5.1f | %6.1f | %5.3f | %8s | %9s | %6s | %6s |\n", channelNames[ch],
				pc(s.h1, s.n), pc(s.h5, s.n), pc(s.h10, s.n), s.rr/math.Max(float64(s.n), 1), ans, prec, tok, all)
		}
	}
	fmt.Fprintf(out, "\nhit@10 per repository\n\n| %-22s | %4s |", "repository", "n")
	for ch := 0; ch < nChannels; ch++ {
		fmt.Fprintf(out, " %d |", ch+1)
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "|%s|-----:|%s\n", strings.Repeat("-", 24), strings.Repeat("----:|", nChannels))
	for _, s := range specs {
		keep := func(q question) bool { return q.repo == s.Repo }
		n := sum(qs, 0, keep).n
		if n == 0 {
			continue
		}
		fmt.Fprintf(out, "| %-22s | %4d |", s.Repo+" ("+s.Fold+")", n)
		for ch := 0; ch < nChannels; ch++ {
			fmt.Fprintf(out, " %3.0f |", pc(sum(qs, ch, keep).h10, n))
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintf(out, "\nColumns: ")
	for ch := 0; ch < nChannels; ch++ {
		fmt.Fprintf(out, "%d %s; ", ch+1, channelNames[ch])
	}
	fmt.Fprintln(out)
}
