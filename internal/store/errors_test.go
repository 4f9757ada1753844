package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/memhq/mem/internal/memory"
)

// TestErrorsKeepTheSQLiteError: above the store, an error is both one of
// the store's errors and the *sqlite.Error it came from, mapped once.
func TestErrorsKeepTheSQLiteError(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	busyPath := filepath.Join(dir, "busy.db")
	tests := []struct {
		name string
		run  func(t *testing.T) error
		is   error // nil: not mapped
		code int   // primary result code
	}{
		{"busy write", func(t *testing.T) error {
			db, err := Open(ctx, busyPath, Options{BusyTimeoutMillis: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			release := holdWrite(t, busyPath)
			defer release()
			_, _, err = db.StartSession(ctx, memory.Session{ID: "s", Project: "p"})
			return err
		}, ErrBusy, sqlite3.SQLITE_BUSY},
		{"constraint", func(t *testing.T) error {
			db := openTest(t)
			_, err := db.x.ExecContext(ctx, `INSERT INTO sessions (id) VALUES (NULL)`)
			return mapErr(err)
		}, nil, sqlite3.SQLITE_CONSTRAINT},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run(t)
			var se *sqlite.Error
			if !errors.As(err, &se) {
				t.Fatalf("err %v (%T): no *sqlite.Error in its chain", err, err)
			}
			if se.Code()&0xff != tt.code {
				t.Errorf("code %d, want %d", se.Code()&0xff, tt.code)
			}
			if tt.is != nil {
				if !errors.Is(err, tt.is) {
					t.Errorf("err %v is not %v", err, tt.is)
				}
				if n := strings.Count(err.Error(), tt.is.Error()); n != 1 {
					t.Errorf("err %q says %q %d times", err, tt.is, n)
				}
				if again := mapErr(err); again != err {
					t.Errorf("mapped twice: %v", again)
				}
			}
		})
	}
}
