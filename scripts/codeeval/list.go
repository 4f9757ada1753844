package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// repoSpec is one repository of the benchmark: the commit its window ends
// at, how many commits the window holds, its fold, and the fix pairs found
// in it (fix sha -> the shas it names, both inside the window).
type repoSpec struct {
	Repo   string
	Fold   string // "tune" or "test"
	Head   string
	Window int
	Pairs  map[string][]string
}

// readList reads the list the generator writes:
//
//	repo OWNER/NAME FOLD HEAD WINDOW
//	fix OWNER/NAME FIXSHA FIXEDSHA
func readList(path string) ([]*repoSpec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading -list: %w", err)
	}
	defer f.Close()
	var specs []*repoSpec
	by := map[string]*repoSpec{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		w := strings.Fields(l)
		switch {
		case w[0] == "repo" && len(w) == 5:
			win, err := strconv.Atoi(w[4])
			if err != nil || (w[2] != "tune" && w[2] != "test") {
				return nil, fmt.Errorf("%s:%d: want: repo OWNER/NAME tune|test HEAD WINDOW", path, n)
			}
			s := &repoSpec{Repo: w[1], Fold: w[2], Head: w[3], Window: win, Pairs: map[string][]string{}}
			specs = append(specs, s)
			by[s.Repo] = s
		case w[0] == "fix" && len(w) == 4 && by[w[1]] != nil:
			by[w[1]].Pairs[w[2]] = append(by[w[1]].Pairs[w[2]], w[3])
		default:
			return nil, fmt.Errorf("%s:%d: want \"repo OWNER/NAME tune|test HEAD WINDOW\" or \"fix OWNER/NAME FIX FIXED\" after its repo line", path, n)
		}
	}
	return specs, sc.Err()
}

// generate finds, for each repository, the fix pairs of the window of
// window commits ending at its HEAD (or at the head given): a fix is a
// commit whose Fixes: trailer names an earlier commit of the window, by
// sha, or, when the sha is not in this history (a mirror of another tree),
// by the subject the trailer quotes.
func generate(w io.Writer, mirror string, specs []*repoSpec) error {
	fmt.Fprintln(w, "# The repositories and fix pairs of scripts/eval code, written by it with -generate.")
	fmt.Fprintln(w, "# repo OWNER/NAME FOLD HEAD WINDOW: the WINDOW newest non-merge commits up to HEAD are replayed.")
	fmt.Fprintln(w, "# fix OWNER/NAME FIX FIXED: FIX's Fixes: trailer names FIXED, an earlier commit of the window.")
	for _, s := range specs {
		dir, err := gitDir(mirror, s.Repo)
		if err != nil {
			return err
		}
		if s.Head == "" || s.Head == "HEAD" {
			out, err := git(dir, "rev-parse", "HEAD")
			if err != nil {
				return err
			}
			s.Head = strings.TrimSpace(string(out))
		}
		cs, err := readCommits(dir, s.Head, s.Window)
		if err != nil {
			return err
		}
		pos := map[string]int{}
		bySubject := map[string]int{}
		pairs := 0
		fmt.Fprintf(w, "repo %s %s %s %d\n", s.Repo, s.Fold, s.Head, s.Window)
		for i, c := range cs {
			var fixed []string
			for _, f := range c.Fixes {
				j, ok := -1, false
				for sha, p := range pos {
					if strings.HasPrefix(sha, f.SHA) {
						j, ok = p, true
						break
					}
				}
				if !ok && f.Subject != "" {
					j, ok = bySubject[f.Subject]
				}
				if ok && !slices.Contains(fixed, cs[j].SHA) {
					fixed = append(fixed, cs[j].SHA)
				}
			}
			sort.Strings(fixed)
			for _, sha := range fixed {
				fmt.Fprintf(w, "fix %s %s %s\n", s.Repo, c.SHA, sha)
				pairs++
			}
			pos[c.SHA] = i
			bySubject[c.Subject] = i
		}
		fmt.Fprintf(os.Stderr, "%s: %d commits, %d fix pairs\n", s.Repo, len(cs), pairs)
	}
	return nil
}
