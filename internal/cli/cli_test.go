package cli

import (
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScripts runs every testdata/script/*.txtar. Each script gets its own
// HOME and database (MEM_DB) in its work directory.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/home/.config")
			env.Setenv("XDG_DATA_HOME", env.WorkDir+"/home/.local/share")
			env.Setenv("XDG_STATE_HOME", env.WorkDir+"/home/.local/state")
			env.Setenv("MEM_DB", env.WorkDir+"/mem.db")
			env.Setenv("MEM_PROJECT", "test/project")
			env.Setenv("NO_COLOR", "1")
			// The hook events recorded from the agents (and Cursor's, from
			// its documentation), for `stdin $EVENTS/<agent>/<event>.json`.
			events, err := filepath.Abs(filepath.Join("..", "e2e", "testdata", "events"))
			env.Setenv("EVENTS", events)
			return err
		},
		RequireExplicitExec: false,
		Cmds:                hookCmds(),
	})
}
