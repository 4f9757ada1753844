package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/retain"
	"github.com/memhq/mem/internal/store"
)

// retentionPolicy is the [retention] section as retain takes it.
func retentionPolicy(cfg *config.Config) retain.Policy {
	return func(t memory.Type) time.Duration { return cfg.Settings.Retention.For(string(t)) }
}

// retentionLine says in a few words what retention did or would do.
func retentionLine(r retain.Report) string {
	var by []string
	for t, n := range r.Forgotten {
		by = append(by, fmt.Sprintf("%d %s", n, t))
	}
	sort.Strings(by)
	verb, fold := "forgot", "folded"
	if r.DryRun {
		verb, fold = "would forget", "would fold"
	}
	s := fmt.Sprintf("retention: %s %d expired observations", verb, r.Total()-r.Folded)
	if len(by) > 0 {
		s += " (" + strings.Join(by, ", ") + ")"
	}
	if r.Quoted > 0 {
		s += fmt.Sprintf(", kept %d a summary quotes", r.Quoted)
	}
	return s + fmt.Sprintf(", %s %d near-duplicates into %d records", fold, r.Folded, r.Groups)
}

// retentionCheck is mem doctor's report of what the nightly job's retention
// would forget now.
func retentionCheck(ctx context.Context, app *App, db *store.DB) store.Check {
	r, err := retain.Run(ctx, db, retentionPolicy(app.Config()), app.Now(), true)
	if err != nil {
		return store.Check{Name: "retention", OK: true, Detail: "not checked: " + err.Error()}
	}
	return store.Check{Name: "retention", OK: true, Detail: retentionLine(r) + " (mem summarize --pending, nightly)"}
}
