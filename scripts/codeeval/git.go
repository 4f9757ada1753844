package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// commit is one replayed commit: its message and what its diff did.
type commit struct {
	SHA     string
	At      time.Time
	Message string
	Subject string
	Files   []fileChange
	Fixes   []fixRef // the Fixes: trailers of its message
}

// fileChange is what a commit did to one file.
type fileChange struct {
	Path    string
	New     bool   // created: Content is the whole file
	Deleted bool   // removed
	Content string // a created file's text
	Hunks   []hunk // an edited file's hunks
}

// hunk is one hunk of a unified diff as an Edit call would carry it: the
// text before (context and removed lines) and after (context and added).
type hunk struct{ Old, New string }

// fixRef is a Fixes: trailer: the sha it names and the subject in quotes.
type fixRef struct{ SHA, Subject string }

var fixesRe = regexp.MustCompile(`(?m)^Fixes:\s+([0-9a-fA-F]{12,40})(?:\s+\("(.*)"\))?\s*$`)

// gitDir finds the git directory of repo ("owner/name") under mirror: the
// fetch layout (mirror/owner+name/repo), a bare clone (mirror/name.git) or
// a work tree (mirror/name/.git).
func gitDir(mirror, repo string) (string, error) {
	owner, name, _ := strings.Cut(repo, "/")
	for _, c := range []string{
		filepath.Join(mirror, owner+"+"+name, "repo"),
		filepath.Join(mirror, owner+"+"+name),
		filepath.Join(mirror, name+".git"),
		filepath.Join(mirror, name, ".git"),
	} {
		if fi, err := os.Stat(filepath.Join(c, "HEAD")); err == nil && !fi.IsDir() {
			return c, nil
		}
	}
	return "", fmt.Errorf("no git directory for %s under -mirror %s (want %s/%s+%s/repo, %s/%s.git or %s/%s/.git)",
		repo, mirror, mirror, owner, name, mirror, name, mirror, name)
}

func git(dir string, args ...string) ([]byte, error) {
	return run1("", "git", append([]string{"--git-dir=" + dir}, args...)...)
}

// readCommits returns the n newest commits up to head that are not merges,
// oldest first (parents before children), with their diffs.
func readCommits(dir, head string, n int) ([]commit, error) {
	out, err := git(dir, "log", "--no-merges", "--topo-order", "-n", strconv.Itoa(n),
		"--format=%x00%x01%H%x02%at%x02%B%x00", "-p", "--no-color", "--no-ext-diff", "-M", "--unified=3", head)
	if err != nil {
		return nil, err
	}
	var cs []commit
	for _, chunk := range bytes.Split(out, []byte("\x00\x01")) {
		if len(bytes.TrimSpace(chunk)) == 0 {
			continue
		}
		head, diff, _ := bytes.Cut(chunk, []byte("\x00"))
		f := strings.SplitN(string(head), "\x02", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("git log: unexpected record %.80q", head)
		}
		sec, _ := strconv.ParseInt(f[1], 10, 64)
		msg := strings.TrimSpace(f[2])
		c := commit{SHA: f[0], At: time.Unix(sec, 0).UTC(), Message: msg, Subject: strings.SplitN(msg, "\n", 2)[0],
			Files: parseDiff(string(diff))}
		for _, m := range fixesRe.FindAllStringSubmatch(msg, -1) {
			c.Fixes = append(c.Fixes, fixRef{SHA: strings.ToLower(m[1]), Subject: m[2]})
		}
		cs = append(cs, c)
	}
	for i, j := 0, len(cs)-1; i < j; i, j = i+1, j-1 {
		cs[i], cs[j] = cs[j], cs[i]
	}
	return cs, nil
}

// parseDiff reads a unified diff (git's) into file changes.
func parseDiff(d string) []fileChange {
	var files []fileChange
	var cur *fileChange
	var old, nw strings.Builder
	inHunk := false
	flush := func() {
		if cur != nil && inHunk {
			if cur.New {
				cur.Content += nw.String()
			} else {
				cur.Hunks = append(cur.Hunks, hunk{Old: old.String(), New: nw.String()})
			}
		}
		old.Reset()
		nw.Reset()
		inHunk = false
	}
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			flush()
			files = append(files, fileChange{})
			cur = &files[len(files)-1]
			if i := strings.LastIndex(l, " b/"); i >= 0 {
				cur.Path = l[i+3:]
			}
			continue
		case cur == nil:
			continue
		case !inHunk && strings.HasPrefix(l, "new file mode"):
			cur.New = true
			continue
		case !inHunk && strings.HasPrefix(l, "deleted file mode"):
			cur.Deleted = true
			continue
		case !inHunk && strings.HasPrefix(l, "+++ "):
			if p, ok := strings.CutPrefix(l, "+++ b/"); ok {
				cur.Path = p
			}
			continue
		case strings.HasPrefix(l, "@@"):
			flush()
			inHunk = true
			continue
		case !inHunk:
			continue
		}
		switch {
		case strings.HasPrefix(l, "-"):
			old.WriteString(l[1:] + "\n")
		case strings.HasPrefix(l, "+"):
			nw.WriteString(l[1:] + "\n")
		case strings.HasPrefix(l, " "):
			old.WriteString(l[1:] + "\n")
			nw.WriteString(l[1:] + "\n")
		case strings.HasPrefix(l, `\`): // no newline at end of file
		case l == "":
		}
	}
	flush()
	return files
}
