package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"time"

	_ "modernc.org/sqlite"
)

// holdLock takes the write lock of a database and keeps it for a while, as
// a long import or a person's sqlite3 session does. With -exclusive it also
// shuts readers out (locking_mode EXCLUSIVE). It prints "locked" once it
// holds the lock.
func holdLock(args []string) error {
	fs := flag.NewFlagSet("hold-lock", flag.ExitOnError)
	db := fs.String("db", "", "the database")
	hold := fs.Duration("for", 3*time.Second, "how long to hold the lock")
	exclusive := fs.Bool("exclusive", false, "shut readers out too")
	fs.Parse(args)
	d, err := sql.Open("sqlite", "file:"+*db)
	if err != nil {
		return err
	}
	defer d.Close()
	ctx := context.Background()
	c, err := d.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	stmts := []string{"PRAGMA busy_timeout = 10000"}
	if *exclusive {
		stmts = append(stmts, "PRAGMA locking_mode = EXCLUSIVE")
	}
	stmts = append(stmts, "BEGIN EXCLUSIVE", "CREATE TABLE IF NOT EXISTS bench_lock (x)", "INSERT INTO bench_lock VALUES (1)")
	for _, s := range stmts {
		if _, err := c.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	fmt.Println("locked")
	time.Sleep(*hold)
	_, err = c.ExecContext(ctx, "ROLLBACK")
	return err
}
