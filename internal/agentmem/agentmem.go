// Package agentmem reads the memories the agents keep themselves (Claude
// Code's auto memory, Codex memories, Gemini CLI's memory files) into mem as
// observations, each with where it came from, and keeps them in step with
// the files: an edited entry updates its observation, a deleted one retires
// it. Refresh costs a stat per file when nothing changed. Formats and
// locations: README.md.
package agentmem

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/guard"
	"github.com/memhq/mem/internal/interchange"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/switches"
	"github.com/memhq/mem/internal/text"
)

// Kinds are the agents whose memories mem reads, as mem import --from names them.
var Kinds = []string{memory.SourceClaude, memory.SourceCodex, memory.SourceGemini}

// Store is what Refresh reads and writes. *store.DB satisfies it.
type Store interface {
	SourceFiles(ctx context.Context, projects ...string) ([]memory.SourceFile, error)
	SourceEntries(ctx context.Context, path, project string) ([]memory.SourceEntry, error)
	ReplaceSource(ctx context.Context, f memory.SourceFile, s memory.Session, entries []memory.Sourced) (memory.SourceResult, error)
	TouchSource(ctx context.Context, f memory.SourceFile) error
}

// Env is where the agents keep their files.
type Env struct {
	Home   string
	Getenv func(string) string
	Now    func() time.Time
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// File is one memory file of an agent for a project.
type File struct {
	Kind    string
	Path    string
	Project string // the project its entries go to; memory.PersonalProject for a personal file
	parse   func(data []byte) []Entry
	// root is the work tree a repository's file is read from: only when
	// its real path, every link resolved, is inside it ("" for the
	// agents' own files).
	root string
}

// read returns the file's content; fsafe.ErrOutside for a repository's
// file whose real path leaves its work tree.
func (f File) read() ([]byte, error) {
	if f.root == "" {
		return os.ReadFile(f.Path)
	}
	return fsafe.ReadFileIn(f.root, f.Path, 0)
}

// claudeDir is Claude Code's auto memory folder of a project: under its
// config folder (CLAUDE_CONFIG_DIR, else ~/.claude), projects/, the git
// root with every character that is not a letter or a digit made "-".
func claudeDir(env Env, root string) string {
	base := env.getenv("CLAUDE_CONFIG_DIR")
	if base == "" {
		base = filepath.Join(env.Home, ".claude")
	}
	var b strings.Builder
	for _, r := range root {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return filepath.Join(base, "projects", b.String(), "memory")
}

// geminiProjectID is the folder name Gemini CLI gives a project under
// ~/.gemini/tmp: its short id in ~/.gemini/projects.json, else (before the
// registry) the sha256 of its path.
func geminiProjectID(base, root string) string {
	data, err := os.ReadFile(filepath.Join(base, "projects.json"))
	// Decoded only when it may name root (its last element is in it).
	if err == nil && bytes.Contains(data, []byte(filepath.Base(root))) {
		var reg struct {
			Projects map[string]string `json:"projects"`
		}
		if json.Unmarshal(data, &reg) == nil && reg.Projects[root] != "" {
			return reg.Projects[root]
		}
	}
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:])
}

// Locate lists the memory files of the given kinds for the project whose
// work tree is root. Files that do not exist are listed too (a file that
// was read before and is gone retires its entries), except Claude's topic
// files, which are found by listing their folder.
func Locate(env Env, kinds []string, project, root string) []File {
	var out []File
	for _, k := range kinds {
		switch k {
		case memory.SourceClaude:
			if root == "" {
				continue
			}
			dir := claudeDir(env, root)
			names := []string{"MEMORY.md"}
			if ents, err := os.ReadDir(dir); err == nil {
				for _, e := range ents {
					if n := e.Name(); strings.HasSuffix(n, ".md") && n != "MEMORY.md" && e.Type().IsRegular() {
						names = append(names, n)
					}
				}
			}
			for _, n := range names {
				out = append(out, File{Kind: k, Path: filepath.Join(dir, n), Project: project,
					parse: func(d []byte) []Entry { return parseClaude(n, string(d)) }})
			}
		case memory.SourceCodex:
			base := env.getenv("CODEX_HOME")
			if base == "" {
				base = filepath.Join(env.Home, ".codex")
			}
			out = append(out, File{Kind: k, Path: filepath.Join(base, "memories", "MEMORY.md"), Project: project,
				parse: func(d []byte) []Entry { return parseCodex(string(d), root) }})
		case memory.SourceRepository:
			if root != "" {
				out = append(out, File{Kind: k, Path: RepoPath(root), Project: project, parse: parseRepository, root: root})
			}
		case memory.SourceGemini:
			base := filepath.Join(env.Home, ".gemini")
			out = append(out, File{Kind: k, Path: filepath.Join(base, "GEMINI.md"), Project: memory.PersonalProject,
				parse: func(d []byte) []Entry { return parseGemini(true, string(d)) }})
			if root != "" {
				out = append(out, File{Kind: k, Project: project,
					Path:  filepath.Join(base, "tmp", geminiProjectID(base, root), "memory", "MEMORY.md"),
					parse: func(d []byte) []Entry { return parseGemini(false, string(d)) }})
			}
		}
	}
	return out
}

// RepoPath is the repository's memory file of the work tree at root: the
// path the team recorded in its .mem (mem share --git PATH), else
// interchange.RepoFile at the root.
func RepoPath(root string) string {
	if f, err := switches.ReadFile(root); err == nil && f.Share != "" {
		return filepath.Join(root, filepath.FromSlash(f.Share))
	}
	return filepath.Join(root, interchange.RepoFile)
}

// Report says what a refresh did.
type Report struct {
	Files  []FileReport        `json:"files"`
	Totals memory.SourceResult `json:"totals"`
}

// FileReport is what reading one file changed.
type FileReport struct {
	Kind    string              `json:"kind"`
	Path    string              `json:"path"`
	Project string              `json:"project"`
	Result  memory.SourceResult `json:"result"`
}

// Refresh reads the memory files of the given kinds for a project again
// when they changed since last read (size or modification time, then
// content hash), or always with force, and makes their observations what
// their entries are now. A file that was read before and is gone retires
// its entries. Entries pass the privacy filter.
func Refresh(ctx context.Context, st Store, env Env, kinds []string, project, root string, force bool) (Report, error) {
	files := Locate(env, kinds, project, root)
	return refresh(ctx, st, env, kinds, project, files, force)
}

func refresh(ctx context.Context, st Store, env Env, kinds []string, project string, files []File, force bool) (Report, error) {
	var rep Report
	known, err := st.SourceFiles(ctx, project, memory.PersonalProject)
	if err != nil {
		return rep, err
	}
	byKey := map[[2]string]memory.SourceFile{}
	for _, f := range known {
		byKey[[2]string{f.Path, f.Project}] = f
	}
	located := map[string]bool{}
	for _, f := range files {
		located[f.Path] = true
		if err := refreshFile(ctx, st, env, f, byKey, force, &rep); err != nil {
			return rep, err
		}
	}
	// Files read for this project before and gone now (a Claude topic file
	// deleted): their entries retire. One that is still there is another
	// place's (another clone of the repository, another CODEX_HOME) and is
	// left alone.
	for _, k := range known {
		if k.Project != project || located[k.Path] || !slices.Contains(kinds, k.Kind) || k.Hash == "" {
			continue
		}
		if _, err := os.Lstat(k.Path); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		f := File{Kind: k.Kind, Path: k.Path, Project: k.Project}
		if err := refreshFile(ctx, st, env, f, byKey, force, &rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// refreshFile reads one file again when it changed.
func refreshFile(ctx context.Context, st Store, env Env, f File, known map[[2]string]memory.SourceFile, force bool, rep *Report) error {
	prev, had := known[[2]string{f.Path, f.Project}]
	sf := memory.SourceFile{Path: f.Path, Project: f.Project, Kind: f.Kind, ReadAt: now(env)}
	var data []byte
	fi, err := os.Stat(f.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist), err == nil && !fi.Mode().IsRegular():
		if !had || prev.Hash == "" {
			return nil // never read, or already retired
		}
	case err != nil:
		return fmt.Errorf("reading %s: %w", f.Path, err)
	default:
		sf.Size, sf.Mtime = fi.Size(), fi.ModTime().UnixNano()
		if had && !force && prev.Size == sf.Size && prev.Mtime == sf.Mtime {
			return nil // unchanged: the stat is all it costs
		}
		data, err = f.read()
		if errors.Is(err, fsafe.ErrOutside) {
			// A link in the repository that leads out of its work tree is
			// not followed: the file counts as gone.
			if !had || prev.Hash == "" {
				return nil
			}
			sf.Size, sf.Mtime = 0, 0
			break
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", f.Path, err)
		}
		sum := sha256.Sum256(data)
		sf.Hash = hex.EncodeToString(sum[:])
		if had && !force && prev.Hash == sf.Hash {
			return st.TouchSource(ctx, sf)
		}
	}
	var entries []Entry
	if data != nil && f.parse != nil {
		entries = f.parse(data)
	}
	// A personal entry of a project's file goes to the personal tier, under
	// the file's row for it.
	groups := map[string][]Entry{f.Project: nil}
	for _, e := range entries {
		p := f.Project
		if e.Personal {
			p = memory.PersonalProject
		}
		groups[p] = append(groups[p], e)
	}
	if _, ok := known[[2]string{f.Path, memory.PersonalProject}]; ok {
		if _, ok := groups[memory.PersonalProject]; !ok {
			groups[memory.PersonalProject] = nil
		}
	}
	projects := make([]string, 0, len(groups))
	for p := range groups {
		projects = append(projects, p)
	}
	slices.Sort(projects)
	for _, p := range projects {
		g := sf
		g.Project = p
		old, err := st.SourceEntries(ctx, f.Path, p)
		if err != nil {
			return err
		}
		at := time.Unix(0, sf.Mtime)
		if sf.Mtime == 0 {
			at = sf.ReadAt
		}
		sourced := Assign(f.Kind, f.Path, p, old, groups[p], at)
		res, err := st.ReplaceSource(ctx, g, Session(f.Kind, p, at), sourced)
		if err != nil {
			return err
		}
		rep.Files = append(rep.Files, FileReport{Kind: f.Kind, Path: f.Path, Project: p, Result: res})
		rep.Totals.Added += res.Added
		rep.Totals.Updated += res.Updated
		rep.Totals.Retired += res.Retired
		rep.Totals.Unchanged += res.Unchanged
	}
	return nil
}

func now(env Env) time.Time {
	if env.Now != nil {
		return env.Now()
	}
	return time.Now()
}

// Session is the session the observations of a kind of source are filed
// under in a project: one per agent and project, its agent the source kind
// and its agent type "memory".
func Session(kind, project string, at time.Time) memory.Session {
	sum := sha256.Sum256([]byte(project))
	return memory.Session{ID: "memory-" + kind + "-" + hex.EncodeToString(sum[:8]), Project: project,
		Agent: kind, AgentType: "memory", StartedAt: at}
}

// namespace makes the uuids of source entries (a uuid of its own, so they
// never meet another record's).
var namespace = uuid.UUID{0x6f, 0x1d, 0x4c, 0x1e, 0x4b, 0x7a, 0x4f, 0x0e, 0x9a, 0x53, 0x2d, 0x1c, 0x0f, 0x6e, 0x8b, 0x11}

// EntryUUID is the stable uuid of an entry: the same source kind, file,
// project and key give the same uuid on every run.
func EntryUUID(kind, path, project, key string) string {
	return uuid.NewSHA1(namespace, []byte(kind+"\x00"+path+"\x00"+project+"\x00"+key)).String()
}

// Assign gives each entry its key and uuid, keeping those of last time: an
// entry with a key of its own keeps it; a bullet whose text is unchanged
// keeps its key wherever it moved; an edited bullet takes the key of the
// bullet it replaced (the first one left in its section, in order); a new
// one gets a key from its text. Titles and text pass the privacy filter.
func Assign(kind, path, project string, old []memory.SourceEntry, entries []Entry, at time.Time) []memory.Sourced {
	out := make([]memory.Sourced, len(entries))
	used := map[string]bool{}
	byHash := map[string][]memory.SourceEntry{}
	for _, o := range old {
		byHash[o.Section+"\x00"+o.Hash] = append(byHash[o.Section+"\x00"+o.Hash], o)
	}
	hashes := make([]string, len(entries))
	keys := make([]string, len(entries))
	for i, e := range entries {
		hashes[i] = entryHash(e)
		if e.Key != "" {
			keys[i] = "k:" + e.Key
			used[keys[i]] = true
			continue
		}
		for _, o := range byHash[e.Section+"\x00"+hashes[i]] {
			if !used[o.Key] && strings.HasPrefix(o.Key, "b:") {
				keys[i] = o.Key
				used[o.Key] = true
				break
			}
		}
	}
	// Edited bullets: paired in order with the bullets of last time left in
	// their section.
	for i, e := range entries {
		if keys[i] != "" {
			continue
		}
		for _, o := range old {
			if !used[o.Key] && o.Section == e.Section && strings.HasPrefix(o.Key, "b:") {
				keys[i] = o.Key
				used[o.Key] = true
				break
			}
		}
	}
	for i, e := range entries {
		if keys[i] == "" {
			k := "b:" + e.Section + ":" + hashes[i][:16]
			for n := 2; used[k]; n++ {
				k = fmt.Sprintf("b:%s:%s#%d", e.Section, hashes[i][:16], n)
			}
			keys[i] = k
			used[k] = true
		}
		title := text.Cut(privacy.Filter(strings.TrimSpace(e.Title)), 200)
		if title == "" {
			title = text.Cut(privacy.Filter(text.FirstLine(e.Text)), 200)
		}
		o := memory.Observation{Type: e.Type, Title: title, Narrative: privacy.Filter(e.Text),
			ToolName: "memory:" + kind, Concepts: []string{kind + "-memory"}, CreatedAt: at,
			Provenance: memory.Provenance{Origin: origin(kind), Agent: kind, Event: filepath.Base(path)}}
		uid := EntryUUID(kind, path, project, keys[i])
		if e.UUID != "" { // a repository's record: the same record as on its author's machine
			uid, o.CreatedAt, o.Concepts = e.UUID, e.Created, filterAll(e.Concepts)
			o.Facts, o.FilesRead, o.FilesModified = filterAll(e.Facts), filterAll(e.FilesRead), filterAll(e.FilesModified)
			o.ToolName, o.Provenance.Agent = "", ""
		}
		guard.MarkObservation(&o) // instruction-shaped text is held back, as from any source
		out[i] = memory.Sourced{
			Entry:       memory.SourceEntry{Key: keys[i], UUID: uid, Hash: hashes[i], Section: e.Section},
			Observation: o,
		}
	}
	return out
}

// filterAll passes each item through the privacy filter.
func filterAll(items []string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = privacy.Filter(it)
	}
	return out
}

// origin is the provenance origin of a source kind's records.
func origin(kind string) string {
	if kind == memory.SourceRepository {
		return memory.OriginRepository
	}
	return memory.OriginAgentMemory
}

// entryHash identifies an entry's text as read.
func entryHash(e Entry) string {
	lists := strings.Join(e.Facts, "\x01") + "\x00" + strings.Join(e.Concepts, "\x01") + "\x00" +
		strings.Join(e.FilesRead, "\x01") + "\x00" + strings.Join(e.FilesModified, "\x01")
	sum := sha256.Sum256([]byte(e.Title + "\x00" + e.Text + "\x00" + string(e.Type) + "\x00" + lists))
	return hex.EncodeToString(sum[:])
}
