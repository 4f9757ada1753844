// Package migrations embeds the goose SQL migrations that build mem's schema,
// and the schema they build.
package migrations

import "embed"

// FS holds the migration files, applied in order of their numeric prefix
// (goose leaves schema.sql, which has none, alone).
//
//go:embed *.sql
var FS embed.FS

// Schema is what the migrations build, as one script (schema.sql, generated
// by scripts/schema and checked against them by a test): a new database is
// made by it in one transaction instead of by each migration in turn.
//
//go:embed schema.sql
var Schema string
