package store

import (
	"context"
	"fmt"
	"github.com/jmoiron/sqlx"
	"os"
)

// ProjectStats counts one project's memory.
type ProjectStats struct {
	Project      string `json:"project" db:"project"`
	Sessions     int    `json:"sessions" db:"sessions"`
	Observations int    `json:"observations" db:"observations"`
	Summaries    int    `json:"summaries" db:"summaries"`
	Prompts      int    `json:"prompts" db:"prompts"`
}

// Stats describes the whole database.
type Stats struct {
	Path         string         `json:"path"`
	Project      string         `json:"project,omitempty"` // the project counted; empty: every project
	SizeBytes    int64          `json:"size_bytes"`
	WALBytes     int64          `json:"wal_bytes"`
	Sessions     int            `json:"sessions"`
	Observations int            `json:"observations"`
	Summaries    int            `json:"summaries"`
	Prompts      int            `json:"prompts"`
	Projects     []ProjectStats `json:"projects"`
}

// Stats counts sessions, observations, summaries and prompts per project.
func (db *DB) Stats(ctx context.Context, project string) (Stats, error) {
	st := Stats{Path: db.path, Project: project, Projects: []ProjectStats{}}
	st.SizeBytes = fileSize(db.path)
	st.WALBytes = fileSize(db.path + "-wal")
	q := `SELECT s.project AS project, count(*) AS sessions,
		coalesce(sum((SELECT count(*) FROM observations o WHERE o.session_id = s.id)), 0) AS observations,
		coalesce(sum((SELECT count(*) FROM summaries m WHERE m.session_id = s.id)), 0) AS summaries,
		coalesce(sum((SELECT count(*) FROM prompts p WHERE p.session_id = s.id)), 0) AS prompts
		FROM sessions s WHERE ? = '' OR s.project = ? GROUP BY s.project ORDER BY s.project`
	err := db.read(ctx, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &st.Projects, q, project, project)
	})
	if err != nil {
		return Stats{}, fmt.Errorf("counting memory: %w", err)
	}
	for _, p := range st.Projects {
		st.Sessions += p.Sessions
		st.Observations += p.Observations
		st.Summaries += p.Summaries
		st.Prompts += p.Prompts
	}
	return st, nil
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
