package cli

import (
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/text"
)

// ownFolders are the folders that are mem's alone, which no other user
// needs to enter: the data folder, the state folder (logs) and the spool
// beside the database at db.
func ownFolders(app *App, db string) []string {
	dirs := config.UserDirs(app.Getenv)
	return []string{dirs.Data, dirs.State, spool.Beside(db).Path()}
}

// makeFoldersPrivate takes from mem's own folders what other users may do
// in them, as an older mem created them 0755. The database's files are
// made private by store.Open.
func makeFoldersPrivate(app *App, db string) {
	for _, d := range ownFolders(app, db) {
		_, _, _ = fsafe.MakePrivate(d)
	}
}

// permissionChecks warns, one line each, of the database files and mem's
// own folders that other users may read or enter, with the command that
// makes each private. It says nothing of the database's folder when it is
// not mem's own (a --db of the user's choosing).
func permissionChecks(app *App, db string) []store.Check {
	var checks []store.Check
	warn := func(path string, mode, want fs.FileMode) {
		checks = append(checks, store.Check{Name: "permissions", OK: true, Warn: true,
			Detail: fmt.Sprintf("%s is %04o, open to other users: chmod %o %s", path, mode, want, text.ShellQuote(path))})
	}
	for _, f := range store.DBFiles(db) {
		if mode, loose := fsafe.Loose(f); loose {
			warn(f, mode, mode&^fsafe.Shared)
		}
	}
	for _, d := range ownFolders(app, db) {
		if mode, loose := fsafe.Loose(d); loose {
			warn(d, mode, mode&^fsafe.Shared)
		}
	}
	if len(checks) == 0 {
		checks = append(checks, store.Check{Name: "permissions", OK: true,
			Detail: fmt.Sprintf("%s, its -wal and -shm, the data, log and spool folders: private to the user", filepath.Base(db))})
	}
	return checks
}
