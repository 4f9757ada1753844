package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/config"
)

// mcpServerName is the name mem's server is registered under in every agent.
const mcpServerName = "mem"

// mcpAgents lists the agents install-mcp knows, for help and errors.
const mcpAgents = "claude, codex, gemini, opencode"

type installMCPOptions struct {
	Agent   string
	Scope   string
	DryRun  bool
	Command string
	Remove  bool
}

// mcpTarget is where and how one agent keeps its MCP servers.
type mcpTarget struct {
	Agent string
	Path  string
	TOML  bool   // codex: config.toml; the others: JSON
	Key   string // JSON: the object holding the servers
	Entry any    // JSON: mem's entry; TOML: unused
	Cmd   string
	Args  []string
}

// mcpResult is what install-mcp and uninstall-mcp report.
type mcpResult struct {
	Agent   string `json:"agent"`
	Scope   string `json:"scope"`
	File    string `json:"file"`
	Action  string `json:"action"` // added, updated, unchanged, removed, absent
	Backup  string `json:"backup,omitempty"`
	DryRun  bool   `json:"dry_run"`
	Content string `json:"content,omitempty"` // the new file, with --dry-run
}

func newInstallMCPCmd(app *App) *cobra.Command {
	var o installMCPOptions
	cmd := &cobra.Command{
		Use:   "install-mcp AGENT",
		Short: "Register mem's MCP server in an agent's configuration (" + mcpAgents + ")",
		Long: `Register "mem mcp" as the MCP server "mem" in the configuration of an agent: claude (Claude
Code), codex (Codex CLI), gemini (Gemini CLI) or opencode. --scope user (the default) writes the agent's
user file, --scope project the project's own file at the project root. Everything else in the file is
kept; the file is backed up to FILE.mem-backup before it changes, and nothing is written when mem is
already registered the same way. The command is this mem binary's absolute path unless --command says
otherwise; a database set with --db or MEM_DB is passed on. --dry-run prints the new file instead.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Agent = args[0]
			return runInstallMCP(cmd.Context(), app, o)
		},
	}
	addMCPScopeFlags(cmd, &o)
	cmd.Flags().StringVar(&o.Command, "command", "", "the command the agent runs (default: this mem binary's absolute path)")
	return cmd
}

func newUninstallMCPCmd(app *App) *cobra.Command {
	var o installMCPOptions
	o.Remove = true
	cmd := &cobra.Command{
		Use:   "uninstall-mcp AGENT",
		Short: "Remove mem's MCP server from an agent's configuration",
		Long: `Remove the MCP server "mem" from the configuration of an agent (` + mcpAgents + `), and nothing
else. The file is backed up to FILE.mem-backup before it changes.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Agent = args[0]
			return runInstallMCP(cmd.Context(), app, o)
		},
	}
	addMCPScopeFlags(cmd, &o)
	return cmd
}

func addMCPScopeFlags(cmd *cobra.Command, o *installMCPOptions) {
	cmd.Flags().StringVar(&o.Scope, "scope", "user", "user (the agent's user configuration) or project (the project's file)")
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "print what the file would become and write nothing")
}

func runInstallMCP(_ context.Context, app *App, o installMCPOptions) error {
	if o.Scope != "user" && o.Scope != "project" {
		return invalid("--scope", "user or project", o.Scope)
	}
	t, err := mcpTargetFor(app, o)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(t.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading %s: %w", t.Path, err)
	}
	exists := err == nil
	var content []byte
	var action string
	if t.TOML {
		content, action, err = editCodexConfig(old, t, o.Remove)
	} else {
		content, action, err = editJSONConfig(old, t, o.Remove)
	}
	if err != nil {
		return usageErr(fmt.Errorf("%s: %w", t.Path, err))
	}
	res := mcpResult{Agent: t.Agent, Scope: o.Scope, File: t.Path, Action: action, DryRun: o.DryRun}
	changed := action != "unchanged" && action != "absent"
	switch {
	case o.DryRun:
		res.Content = string(content)
	case changed:
		if exists {
			res.Backup = t.Path + ".mem-backup"
			if err := writeFileLike(res.Backup, old, t.Path); err != nil {
				return fmt.Errorf("backing up %s: %w", t.Path, err)
			}
		}
		if err := writeFileLike(t.Path, content, t.Path); err != nil {
			return fmt.Errorf("writing %s: %w", t.Path, err)
		}
	}
	if app.JSON {
		return printJSON(app.Out, res)
	}
	if o.DryRun {
		fmt.Fprintf(app.Out, "would %s %s (%s); the file would read:\n%s", dryVerb(action), t.Path, action, content)
		return nil
	}
	switch action {
	case "unchanged":
		fmt.Fprintf(app.Out, "mem is already registered in %s\n", t.Path)
	case "absent":
		fmt.Fprintf(app.Out, "mem is not registered in %s; nothing to remove\n", t.Path)
	default:
		fmt.Fprintf(app.Out, "%s mem's MCP server in %s", action, t.Path)
		if res.Backup != "" {
			fmt.Fprintf(app.Out, " (backup: %s)", res.Backup)
		}
		fmt.Fprintln(app.Out)
	}
	return nil
}

func dryVerb(action string) string {
	if action == "unchanged" || action == "absent" {
		return "leave"
	}
	return "change"
}

// mcpTargetFor works out the file and the entry for an agent and scope.
func mcpTargetFor(app *App, o installMCPOptions) (mcpTarget, error) {
	cmdPath := o.Command
	if cmdPath == "" {
		exe, err := os.Executable()
		if err != nil {
			return mcpTarget{}, fmt.Errorf("finding the mem binary: %w; give --command", err)
		}
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		cmdPath = exe
	}
	args := []string{"mcp"}
	if db := app.Config().Get("db"); db.Source == config.SourceFlag || db.Source == config.SourceEnv {
		args = append(args, "--db", db.Value)
	}
	home := app.Getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return mcpTarget{}, fmt.Errorf("finding the home directory: %w", err)
		}
		home = h
	}
	var root string
	if o.Scope == "project" {
		id, err := app.Project()
		if err != nil {
			return mcpTarget{}, err
		}
		root = id.Root
	}
	pick := func(user, project string) string {
		if o.Scope == "project" {
			return filepath.Join(root, project)
		}
		return user
	}
	t := mcpTarget{Cmd: cmdPath, Args: args}
	switch strings.ToLower(strings.TrimSpace(o.Agent)) {
	case "claude", "claude-code":
		t.Agent, t.Key = "claude", "mcpServers"
		t.Path = pick(filepath.Join(home, ".claude.json"), ".mcp.json")
		t.Entry = struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
		}{"stdio", cmdPath, args}
	case "gemini", "gemini-cli":
		t.Agent, t.Key = "gemini", "mcpServers"
		t.Path = pick(filepath.Join(home, ".gemini", "settings.json"), filepath.Join(".gemini", "settings.json"))
		t.Entry = struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		}{cmdPath, args}
	case "opencode":
		t.Agent, t.Key = "opencode", "mcp"
		cfgHome := app.Getenv("XDG_CONFIG_HOME")
		if cfgHome == "" || !filepath.IsAbs(cfgHome) {
			cfgHome = filepath.Join(home, ".config")
		}
		t.Path = pick(filepath.Join(cfgHome, "opencode", "opencode.json"), "opencode.json")
		t.Entry = struct {
			Type    string   `json:"type"`
			Command []string `json:"command"`
			Enabled bool     `json:"enabled"`
		}{"local", append([]string{cmdPath}, args...), true}
	case "codex":
		t.Agent, t.TOML = "codex", true
		codexHome := app.Getenv("CODEX_HOME")
		if codexHome == "" {
			codexHome = filepath.Join(home, ".codex")
		}
		t.Path = pick(filepath.Join(codexHome, "config.toml"), filepath.Join(".codex", "config.toml"))
	default:
		return mcpTarget{}, invalid("agent", "one of "+mcpAgents, o.Agent)
	}
	return t, nil
}

// writeFileLike writes data to path atomically, with the mode of like when
// it exists (agent files may be private), creating the folder if needed.
func writeFileLike(path string, data []byte, like string) error {
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(like); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// jsonMember is one member of a JSON object, kept in file order.
type jsonMember struct {
	Key   string
	Value json.RawMessage
}

// parseJSONObject reads an object's members in order, so that rewriting the
// file keeps everything the user had where it was.
func parseJSONObject(b []byte) ([]jsonMember, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []jsonMember
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, jsonMember{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("more than one JSON value")
	}
	return out, nil
}

// encodeJSONObject writes members as an indented object.
func encodeJSONObject(ms []jsonMember) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{")
	for i, m := range ms {
		if i > 0 {
			b.WriteString(",")
		}
		k, _ := json.Marshal(m.Key)
		b.WriteString("\n  ")
		b.Write(k)
		b.WriteString(": ")
		if err := json.Indent(&b, m.Value, "  ", "  "); err != nil {
			return nil, err
		}
	}
	if len(ms) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}")
	return b.Bytes(), nil
}

func findMember(ms []jsonMember, key string) int {
	for i, m := range ms {
		if m.Key == key {
			return i
		}
	}
	return -1
}

// editJSONConfig adds, replaces or removes mem's entry in t.Key of a JSON
// configuration and returns the new file and what was done.
func editJSONConfig(old []byte, t mcpTarget, remove bool) ([]byte, string, error) {
	top, err := parseJSONObject(old)
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, "", fmt.Errorf("cannot edit: %v at byte %d (JSON with comments is not supported); add mem by hand, see docs/mcp.md", err, se.Offset)
		}
		return nil, "", fmt.Errorf("cannot edit: %v; add mem by hand, see docs/mcp.md", err)
	}
	var servers []jsonMember
	ti := findMember(top, t.Key)
	if ti >= 0 {
		if servers, err = parseJSONObject(top[ti].Value); err != nil {
			return nil, "", fmt.Errorf("%q is not an object: %v", t.Key, err)
		}
	}
	si := findMember(servers, mcpServerName)
	var action string
	switch {
	case remove && si < 0:
		return old, "absent", nil
	case remove:
		servers = append(servers[:si], servers[si+1:]...)
		action = "removed"
	default:
		entry, err := json.Marshal(t.Entry)
		if err != nil {
			return nil, "", err
		}
		if si >= 0 {
			if sameJSON(servers[si].Value, entry) {
				return old, "unchanged", nil
			}
			servers[si].Value, action = entry, "updated"
		} else {
			servers, action = append(servers, jsonMember{mcpServerName, entry}), "added"
		}
	}
	inner, err := encodeJSONObject(servers)
	if err != nil {
		return nil, "", err
	}
	if ti >= 0 {
		top[ti].Value = inner
	} else {
		top = append(top, jsonMember{t.Key, inner})
	}
	out, err := encodeJSONObject(top)
	if err != nil {
		return nil, "", err
	}
	return append(out, '\n'), action, nil
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// TOML table headers: [table] or [[array]], with an optional comment.
var (
	tomlHeader    = regexp.MustCompile(`^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$`)
	tomlMemHeader = regexp.MustCompile(`^mcp_servers\s*\.\s*("mem"|'mem'|mem)(\s*\..*)?$`)
	tomlDottedMem = regexp.MustCompile(`^\s*mcp_servers\s*\.\s*("mem"|'mem'|mem)\s*[.=]`)
	tomlMemKey    = regexp.MustCompile(`^\s*("mem"|'mem'|mem)\s*[.=]`)
)

// editCodexConfig adds, replaces or removes the [mcp_servers.mem] table (and
// its subtables) of a Codex config.toml, leaving every other line as it was.
func editCodexConfig(old []byte, t mcpTarget, remove bool) ([]byte, string, error) {
	lines := strings.SplitAfter(string(old), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var kept, section []string
	at := -1 // where mem's table was, in kept
	inMem, table := false, ""
	for _, l := range lines {
		if m := tomlHeader.FindStringSubmatch(l); m != nil && !strings.HasPrefix(strings.TrimSpace(l), "#") {
			table = m[1]
			inMem = tomlMemHeader.MatchString(table)
			if inMem && at < 0 {
				at = len(kept)
			}
		} else if !inMem && ((table == "" && tomlDottedMem.MatchString(l)) || (table == "mcp_servers" && tomlMemKey.MatchString(l))) {
			return nil, "", errors.New("mem is defined with a dotted or inline key; edit it by hand, see docs/mcp.md")
		}
		if inMem {
			section = append(section, l)
		} else {
			kept = append(kept, l)
		}
	}
	block := codexBlock(t)
	switch {
	case remove && at < 0:
		return old, "absent", nil
	case remove:
		// Drop the blank line that separated the table from what came before.
		if at > 0 && at == len(kept) && strings.TrimSpace(kept[at-1]) == "" {
			kept = kept[:at-1]
		}
		return []byte(strings.Join(kept, "")), "removed", nil
	case at >= 0 && strings.TrimSpace(strings.Join(section, "")) == strings.TrimSpace(block):
		return old, "unchanged", nil
	case at >= 0:
		if n := len(section); n > 0 && strings.TrimSpace(section[n-1]) == "" {
			block += "\n" // keep the blank line before the next table
		}
		out := strings.Join(kept[:at], "") + block + strings.Join(kept[at:], "")
		return []byte(out), "updated", nil
	}
	out := strings.Join(kept, "")
	if out != "" {
		if !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += "\n"
	}
	return []byte(out + block), "added", nil
}

// codexBlock is mem's table in a Codex config.toml.
func codexBlock(t mcpTarget) string {
	args := make([]string, len(t.Args))
	for i, a := range t.Args {
		args[i] = tomlString(a)
	}
	return "[mcp_servers." + mcpServerName + "]\ncommand = " + tomlString(t.Cmd) + "\nargs = [" + strings.Join(args, ", ") + "]\n"
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
