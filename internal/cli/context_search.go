package cli

import (
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/triggers"
)

// memorySearcher is how memory triggers search the project's observations.
// Until the store's full-text search lands, symbol and question triggers
// find nothing; path triggers and file activity work through
// ObservationsForFile.
func memorySearcher(db *store.DB) triggers.Searcher { return nil }
