package store

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files and schema.sql")

// TestSchemaFile fails when the migrations and schema.sql disagree; run
// scripts/schema (go test -run TestSchemaFile -update) to regenerate it.
func TestSchemaFile(t *testing.T) {
	db := openTest(t)
	got, err := db.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "schema.sql")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading schema.sql: %v (run scripts/schema)", err)
	}
	if string(want) != got {
		t.Errorf("schema.sql does not match the migrations; run scripts/schema\n--- migrations give:\n%s", got)
	}
}
