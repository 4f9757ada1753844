// Package migrations embeds the goose SQL migrations that build mem's schema.
package migrations

import "embed"

// FS holds the migration files, applied in order of their numeric prefix.
//
//go:embed *.sql
var FS embed.FS
