package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/memhq/mem/internal/agent"
	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/hook"
	"github.com/memhq/mem/internal/project"
	"github.com/memhq/mem/internal/recall"
	"github.com/memhq/mem/internal/remember"
	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/switches"
)

// Caps on what one commit's session replays, so that a tree-wide commit
// (a sync, a reformat) does not dominate the run.
const (
	maxFiles    = 25   // files read and edited per session
	maxHunks    = 40   // Edit calls per session
	maxEditText = 4000 // characters of each side of an Edit
	maxWrite    = 8000 // characters of a Write
	maxAskFiles = 10   // files read by the file-touch questions
)

// replayer drives one repository's commits through the hook handler as
// Claude Code sessions, in one database.
type replayer struct {
	db      *store.DB
	h       *hook.Handler
	adapter hook.Adapter
	repo    string
	root    string
	clock   time.Time
	recall  recall.Settings
	tree    *workTree // nil: the work folder stays empty
}

// newReplayer opens the database in dir; with gd set (-tree), the events'
// work folder is a checkout of gd that the replay moves commit by commit.
func newReplayer(ctx context.Context, dir, repo, gd string) (*replayer, error) {
	dbPath := filepath.Join(dir, "mem.db")
	db, err := store.Open(ctx, dbPath, store.Options{})
	if err != nil {
		return nil, err
	}
	root := filepath.Join(dir, "work", strings.ReplaceAll(repo, "/", "+"))
	var tree *workTree
	if gd != "" {
		if tree, err = newWorkTree(gd, root); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	cfg := &config.Config{Settings: config.Defaults(config.Dirs{Data: dir, State: dir, Config: dir})}
	cfg.Settings.DB = dbPath
	claude, ok := agent.Lookup("claude")
	if !ok {
		return nil, fmt.Errorf("no claude agent in the registry")
	}
	r := &replayer{db: db, adapter: claude.Adapter, repo: repo, root: root, tree: tree,
		recall: recall.SettingsFrom(cfg.Settings)}
	mem, err := remember.New(cfg, func() time.Time { return r.clock })
	if err != nil {
		return nil, err
	}
	sp := spool.Beside(dbPath)
	r.h, err = hook.New(hook.Deps{
		Open:     func(context.Context) (*store.DB, error) { return db, nil },
		Project:  func(string) (project.Identity, error) { return project.Identity{Key: "code/" + repo, Root: root}, nil },
		Switches: func(string) switches.Decision { return switches.Decision{Inject: true, Capture: true} },
		Memory:   mem,
		Getwd:    func() (string, error) { return root, nil },
		Now:      func() time.Time { return r.clock },
		Logf:     func(format string, a ...any) { fmt.Fprintf(os.Stderr, "hook: "+format+"\n", a...) },
		Spool:    &sp,
		MaxChars: cfg.Settings.Inject.MaxChars,
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (r *replayer) project() string { return "code/" + r.repo }

// send encodes ev as Claude Code sends it, decodes it with the real
// adapter and handles it; it returns the context the reply carries.
func (r *replayer) send(ctx context.Context, ev map[string]any) (string, error) {
	r.clock = r.clock.Add(time.Second)
	ev["cwd"] = r.root
	ev["transcript_path"] = ""
	data, err := json.Marshal(ev)
	if err != nil {
		return "", err
	}
	e, err := r.adapter.Decode(data, func(string) string { return "" })
	if err != nil {
		return "", fmt.Errorf("decoding %s: %w", ev["hook_event_name"], err)
	}
	reply, err := r.h.Handle(ctx, e)
	if err != nil {
		return "", fmt.Errorf("%s of %s: %w", ev["hook_event_name"], ev["session_id"], err)
	}
	return reply.Context, nil
}

func (r *replayer) path(p string) string { return filepath.Join(r.root, p) }

func sessionOf(sha string) string { return "code-" + sha[:12] }

// start sends SessionStart and returns the block it got.
func (r *replayer) start(ctx context.Context, sid string) (string, error) {
	return r.send(ctx, map[string]any{"hook_event_name": "SessionStart", "session_id": sid, "source": "startup"})
}

func (r *replayer) prompt(ctx context.Context, sid, text string) (string, error) {
	return r.send(ctx, map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": sid, "prompt": text})
}

// read sends a Read of each file (at most maxFiles) and returns the
// context each call got.
func (r *replayer) read(ctx context.Context, sid string, files []string, limit int) ([]string, error) {
	var out []string
	for i, f := range files {
		if i == limit {
			break
		}
		c, err := r.send(ctx, map[string]any{"hook_event_name": "PostToolUse", "session_id": sid, "tool_name": "Read",
			"tool_input":    map[string]any{"file_path": r.path(f)},
			"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": r.path(f), "numLines": 0}}})
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// change sends the commit's edits: a Write for each created file, an Edit
// for each hunk of an edited file, with the hunk's real old and new text.
func (r *replayer) change(ctx context.Context, sid string, c commit) error {
	hunks := 0
	for i, f := range c.Files {
		if i == maxFiles {
			break
		}
		switch {
		case f.Deleted:
			continue
		case f.New:
			_, err := r.send(ctx, map[string]any{"hook_event_name": "PostToolUse", "session_id": sid, "tool_name": "Write",
				"tool_input":    map[string]any{"file_path": r.path(f.Path), "content": cut(f.Content, maxWrite)},
				"tool_response": map[string]any{"type": "create", "filePath": r.path(f.Path)}})
			if err != nil {
				return err
			}
		default:
			for _, h := range f.Hunks {
				if hunks == maxHunks {
					break
				}
				hunks++
				_, err := r.send(ctx, map[string]any{"hook_event_name": "PostToolUse", "session_id": sid, "tool_name": "Edit",
					"tool_input": map[string]any{"file_path": r.path(f.Path), "old_string": cut(h.Old, maxEditText),
						"new_string": cut(h.New, maxEditText), "replace_all": false},
					"tool_response": map[string]any{"filePath": r.path(f.Path)}})
				if err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (r *replayer) end(ctx context.Context, sid string) error {
	_, err := r.send(ctx, map[string]any{"hook_event_name": "SessionEnd", "session_id": sid, "reason": "other"})
	return err
}

// touched returns the files c edits or creates that existed before it
// (the ones a session reads first).
func (c commit) touched() []string {
	var out []string
	for _, f := range c.Files {
		if !f.New && f.Path != "" {
			out = append(out, f.Path)
		}
	}
	return out
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

var refRe = regexp.MustCompile(`(?:ref|id)="(S\d+|#\d+)"|(?m)^(S\d+|#\d+) `)

// sessionsIn returns the refs a block cites, in order, mapped to their
// sessions: one entry per cited record (a session may come several times).
// A record is cited by its element's id or ref, by a line that starts with
// its id, or both (an element whose text starts with its own id): a ref
// right after the same ref is the same record.
func (r *replayer) sessionsIn(ctx context.Context, block string) ([]string, error) {
	var out []string
	prev := ""
	for _, m := range refRe.FindAllStringSubmatch(block, -1) {
		ref := m[1] + m[2]
		if ref == prev {
			continue
		}
		prev = ref
		n, _ := strconv.ParseInt(ref[1:], 10, 64)
		sid := ""
		if ref[0] == 'S' {
			s, err := r.db.Summary(ctx, n)
			if err != nil {
				return nil, fmt.Errorf("summary %s: %w", ref, err)
			}
			sid = s.SessionID
		} else {
			obs, err := r.db.Observations(ctx, []int64{n})
			if err != nil {
				return nil, err
			}
			if len(obs) == 1 {
				sid = obs[0].SessionID
			}
		}
		out = append(out, sid)
	}
	return out, nil
}
