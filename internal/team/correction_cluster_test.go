package team_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestCorrectionTravels, on a real three-node cluster: a record a made
// reaches b; a corrects it (mem observe --supersedes); after both sync, b's
// start block no longer gives the old record, and mem get of it on b shows
// the chain to the correction.
func TestCorrectionTravels(t *testing.T) {
	c := startCluster(t, 3, "", "")
	a := newMember(t, "a", c, c.urls(), "")
	b := newMember(t, "b", c, c.urls(c.nodes[1]), "")
	for _, m := range []*member{a, b} {
		m.run("--project", project, "share")
	}
	a.importObservations(project, "s-a", "a", 1)
	a.run("sync")
	b.run("sync")
	if out := b.run("--project", project, "inject"); !strings.Contains(out, "decided wax0") {
		t.Fatalf("b's block lacks a's record before the correction: %s", out)
	}
	oldA := a.count(`SELECT id FROM observations WHERE title LIKE 'decided wax0%'`)
	a.run("--project", project, "observe", "--session", "s-a", "--type", "decision",
		"--title", "corrected wax0: the cache key leaves the toolchain out", "--supersedes", fmt.Sprint(oldA))
	a.run("sync")
	b.run("sync")

	oldB := b.count(`SELECT id FROM observations WHERE title LIKE 'decided wax0%'`)
	newB := b.count(`SELECT id FROM observations WHERE title LIKE 'corrected wax0%'`)
	if newB == 0 {
		t.Fatal("the correction did not reach b")
	}
	out := b.run("--project", project, "inject")
	if strings.Contains(out, "decided wax0") || !strings.Contains(out, "corrected wax0") {
		t.Errorf("b's block after the correction, want the correction and not the old record: %s", out)
	}
	got := b.run("--project", project, "get", fmt.Sprint(oldB))
	for _, want := range []string{
		fmt.Sprintf(`(?m)^retired: corrected by #%d$`, newB),
		fmt.Sprintf(`(?m)^corrections: #%d -> #%d \(the last is current\)$`, oldB, newB),
	} {
		if !regexp.MustCompile(want).MatchString(got) {
			t.Errorf("mem get %d on b lacks %q:\n%s", oldB, want, got)
		}
	}
}
