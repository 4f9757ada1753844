package cli

import (
	"bytes"
	"fmt"

	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/install"
)

// How uninstall leaves files (the backup policy): install keeps the file it
// replaced as <file>.mem.bak. Uninstall writes no backup of its own. When
// the file holds nothing but what install made of that backup, uninstall
// puts the backup back byte for byte; otherwise it takes mem's entries out
// and keeps the rest. Once the file holds none of mem's entries, the backup
// is removed: nothing is left behind.

// backupOf is where install keeps the file it replaced.
func backupOf(path string) string { return path + ".mem.bak" }

// fileEdits are the edits mem makes to one agent's file: add mem's
// entries, take them out.
type fileEdits struct {
	add, strip func(content []byte) (install.Plan, error)
}

// hookEdits edits the file of an agent's hooks.
func hookEdits(agent, path, bin string) fileEdits {
	return fileEdits{
		add:   func(b []byte) (install.Plan, error) { return install.Install(agent, path, b, bin) },
		strip: func(b []byte) (install.Plan, error) { return install.Uninstall(agent, path, b, bin) },
	}
}

// mcpEdits edits the file of an agent's MCP servers.
func mcpEdits(agent, path, bin string) fileEdits {
	return fileEdits{
		add:   func(b []byte) (install.Plan, error) { return install.InstallMCP(agent, path, b, bin, []string{"mcp"}) },
		strip: func(b []byte) (install.Plan, error) { return install.UninstallMCP(agent, path, b) },
	}
}

// restoring returns p, a plan that takes mem's entries out of its file, as
// the plan that writes the backup back byte for byte when the file holds
// nothing else that changed since install wrote it: the backup holds none
// of mem's entries, and the file less mem's entries is what the backup is
// once mem has added its entries and taken them out again.
func restoring(p install.Plan, root string, e fileEdits) install.Plan {
	if !p.Changed {
		return p
	}
	backup, err := install.Read(backupOf(p.Path), root)
	if err != nil || backup == nil {
		return p
	}
	if s, err := e.strip(backup); err != nil || s.Changed {
		return p
	}
	added, err := e.add(backup)
	if err != nil {
		return p
	}
	norm, err := e.strip(added.After)
	if err != nil || !bytes.Equal(norm.After, p.After) {
		return p
	}
	p.After = backup
	p.Changed = !bytes.Equal(p.Before, backup)
	return p
}

// applyRemoval writes a plan that takes mem's entries out (unless a dry
// run), keeping no backup of its own, and removes install's backup when the
// file is left with none of mem's entries (clean says so).
func applyRemoval(p install.Plan, root string, dryRun bool, clean func([]byte) bool) (removedBackup string, err error) {
	if dryRun || !p.Changed {
		return "", nil
	}
	write := p
	write.Before = nil // no backup of what uninstall replaces
	if _, err := install.Apply(write, root); err != nil {
		return "", err
	}
	if !clean(p.After) {
		return "", nil
	}
	backup := backupOf(p.Path)
	if b, err := install.Read(backup, root); err != nil || b == nil {
		return "", nil
	}
	if err := fsafe.Remove(backup); err != nil {
		return "", fmt.Errorf("removing %s: %w", backup, err)
	}
	return backup, nil
}

// holdsNone reports whether content holds none of the entries the edits
// take out (an unreadable file counts as holding some).
func holdsNone(edits ...fileEdits) func([]byte) bool {
	return func(content []byte) bool {
		if content == nil {
			return true
		}
		for _, e := range edits {
			if p, err := e.strip(content); err != nil || p.Changed {
				return false
			}
		}
		return true
	}
}

// runUninstallAll takes mem out of every agent it is wired into, in the
// scope asked for: hooks, MCP server and hook trust, as mem install with no
// agent named put them in. Agents mem is not in are left alone and not
// listed.
func runUninstallAll(app *App, o installOptions) error {
	if o.Scope != install.ScopeUser && o.Scope != install.ScopeProject {
		return Invalid("--scope", "user or project", o.Scope)
	}
	bin, _ := memBinary(o.Bin, "--bin") // without it, entries of a binary named mem are still recognised
	var out []wired
	for _, a := range install.All() {
		if w, ok := unwireAgent(app, a.Name, o, bin); ok {
			out = append(out, w)
		}
	}
	return reportAgents(app, out, o.DryRun, printUnwired, "unwired")
}

// unwireAgent takes mem's hooks, MCP server and hook trust out of one
// agent's files; ok is false when mem is in none of them.
func unwireAgent(app *App, agent string, o installOptions, bin string) (w wired, ok bool) {
	w = wired{Agent: agent}
	fail := func(err error) (wired, bool) {
		w.failed, w.Error = err, oneLine(err.Error())
		return w, true
	}
	rs, hooks, root, err := stripEntries(app, agent, o.Scope, bin)
	if err != nil {
		return fail(err)
	}
	if rs, err = stripTrust(app, agent, o.Scope, bin, hooks, rs); err != nil {
		return fail(err)
	}
	for _, r := range rs {
		ok = ok || r.plan.Changed
		w.Files = append(w.Files, wiredFile{What: r.what, Path: r.plan.Path, Changed: r.plan.Changed})
	}
	if !ok {
		return w, false
	}
	for i, r := range rs {
		removed, err := applyRemoval(r.plan, root, o.DryRun, r.clean)
		if err != nil {
			return fail(err)
		}
		w.Files[i].Backup = removed
	}
	return w, true
}

// removal is one file uninstall changes: the plan that writes it, what it
// takes out, and whether a content holds none of mem's entries (then
// install's backup goes too: applyRemoval).
type removal struct {
	plan  install.Plan
	what  string
	clean func([]byte) bool
}

// stripEntries plans taking mem's hooks and MCP server out of an agent's
// files, each plan writing the backup back when that is all that is left
// (restoring): one plan when both are in one file (Gemini), one each
// otherwise. hooks is the plan of the hooks alone, which the hook trust is
// read against; root is the root the files are written under.
func stripEntries(app *App, agent, scope, bin string) (rs []removal, hooks install.Plan, root string, err error) {
	path, root, before, err := installTarget(app, agent, scope, install.Path)
	if err != nil {
		return nil, hooks, "", err
	}
	mpath, _, mbefore, err := installTarget(app, agent, scope, install.MCPPath)
	if err != nil {
		return nil, hooks, "", err
	}
	he, me := hookEdits(agent, path, bin), mcpEdits(agent, mpath, bin)
	if hooks, err = he.strip(before); err != nil {
		return nil, hooks, "", UsageErr(err)
	}
	if mpath == path {
		// One file: both taken out at once, one write.
		both := bothEdits(he, me)
		p, err := both.strip(before)
		if err != nil {
			return nil, hooks, "", UsageErr(err)
		}
		return []removal{{restoring(p, root, both), "hooks and MCP server", holdsNone(he, me)}}, hooks, root, nil
	}
	mcp, err := me.strip(mbefore)
	if err != nil {
		return nil, hooks, "", UsageErr(err)
	}
	return []removal{
		{restoring(hooks, root, he), "hooks", holdsNone(he)},
		{restoring(mcp, root, me), "MCP server", holdsNone(me)},
	}, hooks, root, nil
}

// bothEdits edits one file that holds an agent's hooks and MCP server:
// first a's entries, then b's, as one plan over the file.
func bothEdits(a, b fileEdits) fileEdits {
	return fileEdits{
		add: func(c []byte) (install.Plan, error) {
			p, err := a.add(c)
			if err != nil {
				return p, err
			}
			return b.add(p.After)
		},
		strip: func(c []byte) (install.Plan, error) {
			p, err := a.strip(c)
			if err != nil {
				return p, err
			}
			q, err := b.strip(p.After)
			return q.Over(c), err
		},
	}
}

// stripTrust adds to rs the removal of the trust recorded for the hooks
// (Codex), read from its file as rs leaves it: in the same write when that
// file is one of rs's (the MCP file), else as a removal of its own.
func stripTrust(app *App, agent, scope, bin string, hooks install.Plan, rs []removal) ([]removal, error) {
	trust, err := trustPlan(app, installOptions{Agent: agent, Scope: scope}, hooks, bin, true,
		func(p string) ([]byte, error) {
			for _, r := range rs {
				if r.plan.Path == p {
					return r.plan.After, nil
				}
			}
			return readFile(p)
		})
	if err != nil || trust == nil {
		return rs, err
	}
	for i := range rs {
		if rs[i].plan.Path == trust.Path {
			rs[i].plan, rs[i].what = trust.Over(rs[i].plan.Before), rs[i].what+" and hook trust"
			return rs, nil
		}
	}
	return append(rs, removal{*trust, "hook trust", holdsNone(mcpEdits(agent, trust.Path, bin))}), nil
}

func printUnwired(app *App, ws []wired, dryRun bool) {
	if len(ws) == 0 {
		fmt.Fprintln(app.Out, "mem is wired into no agent here: nothing to remove")
		return
	}
	for _, w := range ws {
		fmt.Fprintf(app.Out, "%s:\n", w.Agent)
		for _, f := range w.Files {
			switch {
			case !f.Changed:
			case dryRun:
				fmt.Fprintf(app.Out, "  %s: would be removed from %s\n", f.What, f.Path)
			default:
				fmt.Fprintf(app.Out, "  %s: removed from %s\n", f.What, f.Path)
				if f.Backup != "" {
					fmt.Fprintf(app.Out, "    install's backup %s removed\n", f.Backup)
				}
			}
		}
		if w.Error != "" {
			fmt.Fprintf(app.Out, "  not unwired: %s\n", w.Error)
		}
	}
	if dryRun {
		fmt.Fprintln(app.Out, "dry run: nothing was written")
	}
}
