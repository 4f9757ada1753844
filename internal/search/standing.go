package search

import (
	"fmt"
	"sort"

	"github.com/memhq/mem/internal/memory"
)

// retiredWeight weighs a retired observation (a correction replaced it):
// it ranks below its correction. One whose cited files changed or went
// ranks below what still holds (memory.StaleWeight). Both are still found.
const retiredWeight = 0.3

// ObservationIDs are the ids of the observation hits.
func ObservationIDs(hits []Hit) []int64 {
	var ids []int64
	for _, h := range hits {
		if h.Observation != nil {
			ids = append(ids, h.ID)
		}
	}
	return ids
}

// Mark notes on each observation hit whether it was retired by a correction
// and how its cited files stand (standing may be nil: not checked), lowers
// the score of those that no longer hold, and orders the hits again, best
// first (a stable sort: equal scores keep their order).
func Mark(hits []Hit, standing map[int64]memory.Standing) {
	moved := false
	for i := range hits {
		h := &hits[i]
		if h.Observation == nil {
			continue
		}
		if s, ok := standing[h.ID]; ok && s.Stale {
			h.Observation.Standing = &s
			h.Note = s.Note()
			h.Score *= memory.StaleWeight
			moved = true
		}
		if by := h.Observation.SupersededBy; by > 0 {
			h.Note = fmt.Sprintf("retired: corrected by #%d", by)
			h.Score *= retiredWeight
			moved = true
		}
	}
	if moved {
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	}
}
