package agentmem

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/memhq/mem/internal/interchange"
	"github.com/memhq/mem/internal/lazy"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/text"
)

// Entry is one memory of an agent's file, before it becomes an observation.
type Entry struct {
	// Key names the entry within its file when the format gives it one (a
	// Claude topic file is one entry, its name the key); empty for a bullet,
	// which is matched to what was read last time by its text and place.
	Key      string
	Section  string // the heading the entry is under
	Title    string
	Text     string
	Type     memory.Type
	Personal bool // about the user, not the project: the personal tier

	// A repository's record carries its own uuid, date and lists.
	UUID                                      string
	Created                                   time.Time
	Facts, Concepts, FilesRead, FilesModified []string
}

// parseRepository reads a repository's memory file (mem share --git):
// every record that is not a tombstone is an entry, under its own uuid.
func parseRepository(data []byte) []Entry {
	var out []Entry
	for _, l := range interchange.ReadRepository(data) {
		if l.Forgotten != nil || !l.Type.Valid() {
			continue
		}
		out = append(out, Entry{Key: l.UUID, UUID: l.UUID, Title: l.Title, Text: l.Narrative, Type: l.Type,
			Created: l.Created, Facts: l.Facts, Concepts: l.Concepts, FilesRead: l.FilesRead, FilesModified: l.FilesModified})
	}
	return out
}

// parseBullets returns the bullets ("- " or "* " at the start of a line, with
// their indented continuation lines) of md, each with the heading it is
// under. With only, just the bullets under that heading (e.g. "## Gemini
// Added Memories") count. Fenced code is skipped.
func parseBullets(md, only string) []Entry {
	var (
		out     []Entry
		section string
		fenced  bool
		cur     *Entry
	)
	flush := func() {
		if cur != nil && strings.TrimSpace(cur.Text) != "" {
			cur.Text = strings.TrimSpace(cur.Text)
			out = append(out, *cur)
		}
		cur = nil
	}
	for _, line := range strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n") {
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~") {
			fenced = !fenced
			flush()
			continue
		}
		if fenced {
			continue
		}
		switch {
		case strings.HasPrefix(line, "#"):
			flush()
			section = strings.TrimSpace(line)
		case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "* "):
			flush()
			if only == "" || section == only {
				cur = &Entry{Section: section, Text: line[2:], Type: memory.TypeNote}
			}
		case cur != nil && trim != "" && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")):
			cur.Text += "\n" + trim
		default:
			flush()
		}
	}
	flush()
	for i := range out {
		out[i].Title = text.FirstLine(out[i].Text)
	}
	return out
}

// frontmatter splits a "---" header of key: value lines from the body.
func frontmatter(md string) (map[string]string, string) {
	md = strings.ReplaceAll(md, "\r\n", "\n")
	if !strings.HasPrefix(md, "---\n") {
		return nil, md
	}
	head, body, ok := strings.Cut(md[4:], "\n---")
	if !ok {
		return nil, md
	}
	fields := map[string]string{}
	for _, l := range strings.Split(head, "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, " ") {
			fields[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	body = strings.TrimPrefix(body, "-") // a "----" closing line
	return fields, strings.TrimSpace(strings.TrimPrefix(body, "\n"))
}

// indexLink matches a bullet of Claude's MEMORY.md that points to a topic
// file beside it: "[Title](topic.md)".
var indexLink = lazy.NewRegexp(`\]\(([^)/\\]+\.md)\)`)

// claudeType maps the type of a Claude Code memory to an observation type
// (a switch: a map would be built at every start of mem).
func claudeType(t string) (memory.Type, bool) {
	switch t {
	case "user": // who the user is: personal
		return memory.TypeNote, true
	case "feedback": // how the user wants work done
		return memory.TypePattern, true
	case "project": // goals, decisions, constraints of the work
		return memory.TypeDecision, true
	case "reference": // where things are
		return memory.TypeDiscovery, true
	}
	return "", false
}

// parseClaude reads a file of Claude Code's auto memory folder: MEMORY.md is
// an index whose bullets link to topic files (those bullets are the topic
// files' entries, not their own) and may hold memories of its own; any other
// .md file is one memory, with an optional name/description/type header.
func parseClaude(name, md string) []Entry {
	if name == "MEMORY.md" {
		var out []Entry
		for _, e := range parseBullets(md, "") {
			if !indexLink.Get().MatchString(e.Text) {
				out = append(out, e)
			}
		}
		return out
	}
	fields, body := frontmatter(md)
	if body == "" && fields["description"] == "" {
		return nil
	}
	e := Entry{Key: name, Text: body, Type: memory.TypeNote}
	if t, ok := claudeType(fields["type"]); ok {
		e.Type = t
	}
	e.Personal = fields["type"] == "user"
	switch {
	case fields["description"] != "":
		e.Title = fields["description"]
	case fields["name"] != "":
		e.Title = fields["name"]
	default:
		e.Title = strings.TrimLeft(text.FirstLine(body), "# ")
	}
	if e.Text == "" {
		e.Text = e.Title
	}
	return []Entry{e}
}

// codexCwd matches the cwd= annotation of a rollout summary in a Codex
// MEMORY.md block header.
var codexCwd = lazy.NewRegexp(`cwd=([^,)]+)`)

// parseCodex reads Codex's consolidated MEMORY.md: blocks, each a "---"
// header (rollout_summary_files with cwd= annotations, description,
// keywords) and a body of bullets. A block is an entry of the project when
// one of its cwds is inside root.
func parseCodex(md, root string) []Entry {
	md = strings.ReplaceAll(md, "\r\n", "\n")
	var out []Entry
	blocks := strings.Split("\n"+md, "\n---\n")
	// blocks alternate: text before the first header, header, body, header, body...
	for i := 1; i < len(blocks); i += 2 {
		head := blocks[i]
		body := ""
		if i+1 < len(blocks) {
			body = strings.TrimSpace(blocks[i+1])
		}
		if !inside(head, root) {
			continue
		}
		desc := ""
		for _, l := range strings.Split(head, "\n") {
			if v, ok := strings.CutPrefix(l, "description:"); ok {
				desc = strings.TrimSpace(v)
			}
		}
		if desc == "" && body == "" {
			continue
		}
		title := desc
		if title == "" {
			title = strings.TrimPrefix(text.FirstLine(body), "- ")
		}
		out = append(out, Entry{Section: "codex", Title: title, Text: strings.TrimSpace(desc + "\n\n" + body), Type: memory.TypePattern})
	}
	return out
}

// inside reports whether one of the cwd annotations of a Codex block header
// is root or a folder under it.
func inside(head, root string) bool {
	if root == "" {
		return false
	}
	for _, m := range codexCwd.Get().FindAllStringSubmatch(head, -1) {
		cwd := filepath.Clean(strings.TrimSpace(m[1]))
		if cwd == root || strings.HasPrefix(cwd, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// geminiSection is the heading under which Gemini CLI's save_memory added
// facts to the global GEMINI.md.
const geminiSection = "## Gemini Added Memories"

// parseGemini reads a Gemini CLI memory file: the global GEMINI.md's
// save_memory section (personal facts), or a project's private MEMORY.md
// (every bullet).
func parseGemini(global bool, md string) []Entry {
	if global {
		es := parseBullets(md, geminiSection)
		for i := range es {
			es[i].Personal = true
		}
		return es
	}
	return parseBullets(md, "")
}
