// Package retain lets memory forget what no longer matters, in the nightly
// job: observations past their type's retention that no session summary
// quotes are forgotten, and near-duplicates (the same project, type, title
// and modified files) are folded into their newest record, which counts
// them. A dry run reports what would go and changes nothing.
package retain

import (
	"context"
	"sort"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// Store is what retention reads and changes. *store.DB satisfies it.
type Store interface {
	// ExpiredObservations: up to limit observations of type t recorded
	// before the cutoff, oldest first, none in a correction chain.
	ExpiredObservations(ctx context.Context, t memory.Type, before time.Time, limit int) ([]memory.Observation, error)
	SessionSummaries(ctx context.Context, sessionIDs []string) ([]memory.Summary, error)
	// DuplicateGroups: groups of near-duplicates, each newest first.
	DuplicateGroups(ctx context.Context, limit int) ([][]int64, error)
	Consolidate(ctx context.Context, keep int64, drop []int64) error
	ForgetObservations(ctx context.Context, ids []int64) error
}

// Policy is the retention of each observation type (0 or missing: kept).
type Policy func(t memory.Type) time.Duration

// Report says what a run forgot and consolidated (or would, in a dry run).
type Report struct {
	DryRun bool `json:"dry_run,omitempty"`
	// Forgotten counts the observations forgotten, by type.
	Forgotten map[memory.Type]int `json:"forgotten,omitempty"`
	// Quoted counts the expired observations kept because a summary
	// quotes them.
	Quoted int `json:"quoted,omitempty"`
	// Groups of near-duplicates consolidated, and the records folded away.
	Groups int `json:"groups,omitempty"`
	Folded int `json:"folded,omitempty"`
	// IDs are the observations that went (or would go).
	IDs []int64 `json:"ids,omitempty"`
}

// Total is the number of observations that went.
func (r Report) Total() int { return len(r.IDs) }

// batch bounds what one run reads of each type and of duplicate groups, so
// the nightly job's cost stays bounded; the next run goes on.
const batch = 5000

// Run applies the policy as of now.
func Run(ctx context.Context, s Store, p Policy, now time.Time, dryRun bool) (Report, error) {
	rep := Report{DryRun: dryRun, Forgotten: map[memory.Type]int{}}
	var forget []int64
	for _, t := range memory.Types() {
		keep := p(t)
		if keep <= 0 {
			continue
		}
		obs, err := s.ExpiredObservations(ctx, t, now.Add(-keep), batch)
		if err != nil {
			return rep, err
		}
		if len(obs) == 0 {
			continue
		}
		sums, err := summariesOf(ctx, s, obs)
		if err != nil {
			return rep, err
		}
		for _, o := range obs {
			if sm, ok := sums[o.SessionID]; ok && sm.Quotes(o.Title) {
				rep.Quoted++
				continue
			}
			forget = append(forget, o.ID)
			rep.Forgotten[t]++
		}
	}
	if !dryRun {
		if err := s.ForgetObservations(ctx, forget); err != nil {
			return rep, err
		}
	}
	rep.IDs = append(rep.IDs, forget...)
	gone := map[int64]bool{}
	for _, id := range forget {
		gone[id] = true
	}
	groups, err := s.DuplicateGroups(ctx, batch)
	if err != nil {
		return rep, err
	}
	for _, g := range groups {
		var live []int64
		for _, id := range g {
			if !gone[id] {
				live = append(live, id)
			}
		}
		if len(live) < 2 {
			continue
		}
		if !dryRun {
			if err := s.Consolidate(ctx, live[0], live[1:]); err != nil {
				return rep, err
			}
		}
		rep.Groups++
		rep.Folded += len(live) - 1
		rep.IDs = append(rep.IDs, live[1:]...)
	}
	sort.Slice(rep.IDs, func(i, j int) bool { return rep.IDs[i] < rep.IDs[j] })
	return rep, nil
}

// summariesOf reads the summaries of the observations' sessions, by session.
func summariesOf(ctx context.Context, s Store, obs []memory.Observation) (map[string]memory.Summary, error) {
	seen := map[string]bool{}
	var ids []string
	for _, o := range obs {
		if !seen[o.SessionID] {
			seen[o.SessionID] = true
			ids = append(ids, o.SessionID)
		}
	}
	list, err := s.SessionSummaries(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]memory.Summary, len(list))
	for _, sm := range list {
		out[sm.SessionID] = sm
	}
	return out, nil
}
