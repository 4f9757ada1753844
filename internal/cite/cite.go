// Package cite keeps what an observation cites true: at capture it takes a
// fingerprint of each cited file (size, modification time, git blob id, the
// line range an edit wrote and a hash of those lines), and when memory is
// given back it tells, per observation, whether the files it cites are
// unchanged, changed since or gone; an edit's file that changed elsewhere,
// the lines the edit wrote still in it, is unchanged for the memory of the
// edit. A check stats first and hashes only a file whose size or time
// moved, and keeps what it learnt so that the next check only stats.
package cite

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/text"
)

// MaxHashBytes is the largest file hashed; a bigger one is compared by size
// and time only.
const MaxHashBytes = 1 << 20

// MaxFiles bounds the files one observation cites.
const MaxFiles = 32

// File is a file to cite: its path relative to the root, its role, and
// (for an edit) the text the edit wrote, to find the lines it occupies.
type File struct {
	Path    string
	Role    string
	Written string
}

// Files are the files an observation cites; written is the text an edit
// of its one modified file wrote ("" when none).
func Files(o *memory.Observation, written string) []File {
	var fs []File
	for _, p := range o.FilesModified {
		f := File{Path: p, Role: memory.CiteModified}
		if len(o.FilesModified) == 1 {
			f.Written = written
		}
		fs = append(fs, f)
	}
	for _, p := range o.FilesRead {
		fs = append(fs, File{Path: p, Role: memory.CiteRead})
	}
	return fs
}

// Take fingerprints files of the work tree at root as they are now. Paths
// outside the root, through a link that leaves it, or that are not regular
// files are not cited; a file that does not exist is cited with size -1.
func Take(root string, files []File) []memory.Citation {
	if root == "" || !filepath.IsAbs(root) {
		return nil
	}
	var out []memory.Citation
	seen := map[string]bool{}
	for _, f := range files {
		p := filepath.ToSlash(filepath.Clean(f.Path))
		if p == "." || filepath.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") || seen[p] || len(out) >= MaxFiles {
			continue
		}
		seen[p] = true
		c := memory.Citation{Path: p, Root: root, Role: f.Role}
		st, err := stat(root, p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			c.Size = -1
		case err != nil || !st.Mode().IsRegular():
			continue
		default:
			c.Size, c.ModTime = st.Size(), st.ModTime().UnixNano()
			if c.Size <= MaxHashBytes {
				data, err := read(root, p, st)
				if err != nil {
					continue
				}
				c.Hash = BlobID(data)
				c.LineStart, c.LineEnd = lines(data, f.Written)
				if c.LineStart > 0 {
					c.Span = spanOf(linesAt(data, c.LineStart, c.LineEnd))
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// BlobID is git's id of a blob with content data (what `git hash-object`
// prints), so a tracked file's fingerprint is the id git already knows.
func BlobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// lines finds the 1-based line range of written in data (0, 0 when it is
// empty or not found once).
func lines(data []byte, written string) (int, int) {
	w := []byte(strings.TrimSpace(written))
	if len(w) == 0 {
		return 0, 0
	}
	i := bytes.Index(data, w)
	if i < 0 || bytes.Contains(data[i+1:], w) {
		return 0, 0
	}
	start := bytes.Count(data[:i], []byte("\n")) + 1
	return start, start + bytes.Count(w, []byte("\n"))
}

// A span fingerprints the lines an edit wrote (memory.Citation.Span), each
// line's surrounding space trimmed: the offset of the longest distinctive
// one (text.Distinctive), that line's hash and the hash of all of them, as
// "OFF:ANCHOR:ALL" (hex). The anchor finds where the lines may be now in
// one lookup; the whole hash says whether they are.

// spanOf returns the span of lines ls, "" when none of them is
// distinctive: such lines could be found again anywhere.
func spanOf(ls [][]byte) string {
	best := -1
	for i, l := range ls {
		l = bytes.TrimSpace(l)
		if text.Distinctive(string(l)) && (best < 0 || len(l) > len(bytes.TrimSpace(ls[best]))) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return fmt.Sprintf("%d:%x:%x", best, lineHash(ls[best]), linesHash(ls))
}

// splitLines splits data at line breaks.
func splitLines(data []byte) [][]byte { return bytes.Split(data, []byte("\n")) }

// linesAt returns lines from to to (1-based) of data, which has them.
func linesAt(data []byte, from, to int) [][]byte {
	for range from - 1 {
		data = data[bytes.IndexByte(data, '\n')+1:]
	}
	end := 0
	for range to - from + 1 {
		i := bytes.IndexByte(data[end:], '\n')
		if i < 0 {
			end = len(data) + 1
			break
		}
		end += i + 1
	}
	return splitLines(data[:end-1])
}

// lineHash hashes a line without its surrounding space.
func lineHash(l []byte) uint64 {
	h := fnv.New64a()
	h.Write(bytes.TrimSpace(l))
	return h.Sum64()
}

// linesHash hashes lines in order, each without its surrounding space.
func linesHash(ls [][]byte) uint64 {
	h := fnv.New64a()
	for _, l := range ls {
		h.Write(bytes.TrimSpace(l))
		h.Write([]byte{'\n'})
	}
	return h.Sum64()
}

// findSpan returns the first line (1-based) of n lines that span describes
// in the file f read (its data), the nearest to line near when they are
// there more than once; 0 when they are not there.
func (f *file) findSpan(span string, n, near int) int {
	var off int
	var anchor, all uint64
	if _, err := fmt.Sscanf(span, "%d:%x:%x", &off, &anchor, &all); err != nil || n < 1 || off < 0 || off >= n {
		return 0
	}
	if f.index == nil {
		f.lines = splitLines(f.data)
		f.index = make(map[uint64][]int, len(f.lines))
		for i, l := range f.lines {
			h := lineHash(l)
			f.index[h] = append(f.index[h], i)
		}
	}
	at := 0
	for _, i := range f.index[anchor] {
		start := i - off
		if start < 0 || start+n > len(f.lines) || linesHash(f.lines[start:start+n]) != all {
			continue
		}
		if at == 0 || abs(start+1-near) < abs(at-near) {
			at = start + 1
		}
	}
	return at
}

func abs(n int) int { return max(n, -n) }

// stat describes the file at root/p without following a final link; a link
// is followed only when its target stays inside the root.
func stat(root, p string) (fs.FileInfo, error) {
	full := filepath.Join(root, filepath.FromSlash(p))
	st, err := os.Lstat(full)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return st, err
	}
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return nil, err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	if !fsafe.Inside(realRoot, real) {
		return nil, fmt.Errorf("%s leads out of the project", p)
	}
	return os.Stat(real)
}

// read reads the file st describes, at most MaxHashBytes of it: only
// inside the root (fsafe.OpenIn refuses a link that leads out, and FIFOs
// and devices before they can block), and only when it is still that file.
func read(root, p string, st fs.FileInfo) ([]byte, error) {
	f, err := fsafe.OpenIn(root, filepath.FromSlash(p))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	now, err := f.Stat()
	if err != nil || !os.SameFile(now, st) {
		return nil, fmt.Errorf("%s changed while being read", p)
	}
	return io.ReadAll(io.LimitReader(f, MaxHashBytes+1))
}

// Store is what a check reads and keeps. *store.DB satisfies it.
type Store interface {
	// Citations: the citations of the given observations, but those of the
	// paths except.
	Citations(ctx context.Context, ids []int64, except []string) ([]memory.Citation, error)
	// UpdateCitations keeps the fingerprints and Seen* a check moved.
	UpdateCitations(ctx context.Context, cs []memory.Citation) error
}

// Checker checks citations against the work trees they came from.
type Checker struct {
	Store Store
	// Keep says whether what a check learns is written back through Store
	// at once; off, it is held for Learnt (a check inside a read-only
	// snapshot, or a command that must not write).
	Keep bool
	Logf func(format string, args ...any)

	learnt []memory.Citation
}

// Learnt returns what the checks learnt and did not keep.
func (c *Checker) Learnt() []memory.Citation { return c.learnt }

// Check returns the standing of each given observation that cites files.
// An observation whose cited work tree is not on this machine is left out
// (nothing can be said of it).
func (c *Checker) Check(ctx context.Context, ids []int64) (map[int64]memory.Standing, error) {
	return c.CheckBesides(ctx, ids, nil)
}

// CheckBesides is Check by the files the observations cite besides paths:
// the spellings of a file the caller has in hand (one being read or
// edited), which it neither reads from the store nor stats nor hashes.
func (c *Checker) CheckBesides(ctx context.Context, ids []int64, paths []string) (map[int64]memory.Standing, error) {
	cs, err := c.Store.Citations(ctx, ids, paths)
	if err != nil {
		return nil, err
	}
	return c.check(ctx, cs)
}

// file is what a check found of one file of a work tree.
type file struct {
	st  fs.FileInfo
	err error
	// hash is its blob id now, once hashed (known), and data its content.
	hash  string
	known bool
	data  []byte
	// lines and index (a line's hash: where it is) are data's lines, once
	// a span is looked for.
	lines [][]byte
	index map[uint64][]int
}

// check classifies citations read from the store. Each file is statted
// once; one whose size or time moved since it was cited, and is not where
// a check last saw other content, is hashed (once), and what that teaches
// is kept in the citation: the same content moves its fingerprint to the
// new size and time, other content is remembered at them. So a file that
// moved is hashed once, and later checks only stat it.
func (c *Checker) check(ctx context.Context, cs []memory.Citation) (map[int64]memory.Standing, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	type key struct{ root, path string }
	roots := map[string]bool{}
	files := map[key]*file{}
	var learnt []memory.Citation
	out := map[int64]memory.Standing{}
	for _, ct := range cs {
		present, ok := roots[ct.Root]
		if !ok {
			st, err := os.Stat(ct.Root)
			present = err == nil && st.IsDir()
			roots[ct.Root] = present
		}
		state := memory.Unknown
		if present {
			k := key{ct.Root, ct.Path}
			f := files[k]
			if f == nil {
				f = &file{}
				f.st, f.err = stat(ct.Root, ct.Path)
				files[k] = f
			}
			var upd *memory.Citation
			if state, upd = classify(ct, f); upd != nil {
				learnt = append(learnt, *upd)
			}
		}
		s := out[ct.ObservationID]
		s.Files = append(s.Files, memory.FileState{Path: ct.Path, State: state})
		out[ct.ObservationID] = s
	}
	for id, s := range out {
		gone := 0
		for _, f := range s.Files {
			switch f.State {
			case memory.Changed:
				s.Stale = true
			case memory.Gone:
				s.Stale = true
				gone++
			}
		}
		s.Gone = gone > 0 && gone == len(s.Files)
		out[id] = s
	}
	switch {
	case len(learnt) == 0:
	case !c.Keep:
		c.learnt = append(c.learnt, learnt...)
	default:
		if err := c.Store.UpdateCitations(ctx, learnt); err != nil && c.Logf != nil {
			c.Logf("keeping what the citation check learnt: %v", err)
		}
	}
	return out, nil
}

// classify compares a citation with its file now (hashing it when its size
// or time moved and its content is not known yet); upd is the citation
// with what was learnt, to keep, or nil.
func classify(ct memory.Citation, f *file) (state memory.Freshness, upd *memory.Citation) {
	switch {
	case errors.Is(f.err, fs.ErrNotExist):
		if ct.Size < 0 {
			return memory.Unchanged, nil
		}
		return memory.Gone, nil
	case f.err != nil:
		return memory.Unknown, nil
	case !f.st.Mode().IsRegular():
		return memory.Gone, nil // a folder or a device where a file was
	case ct.Size < 0:
		return memory.Changed, nil // created since
	}
	size, mtime := f.st.Size(), f.st.ModTime().UnixNano()
	switch {
	case size == ct.Size && mtime == ct.ModTime:
		return memory.Unchanged, nil
	case size == ct.SeenSize && mtime == ct.SeenModTime:
		return memory.Changed, nil // as the last check found it
	case ct.Hash == "" || size > MaxHashBytes:
		return memory.Changed, nil // too big to hash: its size or time says enough
	}
	if !f.known {
		data, err := read(ct.Root, ct.Path, f.st)
		if err != nil {
			return memory.Unknown, nil
		}
		f.hash, f.known, f.data = BlobID(data), true, data
	}
	if f.hash == ct.Hash {
		// Touched, or checked out again, with the same content: the
		// fingerprint moves to where the file is now.
		ct.Size, ct.ModTime = size, mtime
		return memory.Unchanged, &ct
	}
	if n := ct.LineEnd - ct.LineStart + 1; ct.Span != "" {
		if at := f.findSpan(ct.Span, n, ct.LineStart); at > 0 {
			// The file changed elsewhere: the lines the edit wrote are
			// still there, so what its memory says of them holds. The
			// fingerprint moves to the file as it is now.
			ct.Size, ct.ModTime, ct.Hash = size, mtime, f.hash
			ct.LineStart, ct.LineEnd = at, at+n-1
			return memory.Unchanged, &ct
		}
	}
	ct.SeenSize, ct.SeenModTime = size, mtime
	return memory.Changed, &ct
}

// Annotate sets the Standing of each observation that cites files, and its
// Citations, so that a reader sees what changed since it was recorded.
func Annotate(ctx context.Context, c *Checker, obs []memory.Observation) error {
	ids := make([]int64, len(obs))
	for i := range obs {
		ids[i] = obs[i].ID
	}
	cs, err := c.Store.Citations(ctx, ids, nil)
	if err != nil {
		return err
	}
	standing, err := c.check(ctx, cs)
	if err != nil {
		return err
	}
	byID := map[int64][]memory.Citation{}
	for _, ct := range cs {
		byID[ct.ObservationID] = append(byID[ct.ObservationID], ct)
	}
	for i := range obs {
		obs[i].Citations = byID[obs[i].ID]
		if s, ok := standing[obs[i].ID]; ok {
			obs[i].Standing = &s
		}
	}
	return nil
}
