package team_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/team"
)

// TestStatusNamesEachNode: mem sync --status says which node answered,
// which leads and which is down, and with no quorum it says so within its
// bound (5 s) rather than waiting for the whole sync deadline.
func TestStatusNamesEachNode(t *testing.T) {
	c := startCluster(t, 3, "", "")
	m := newMember(t, "alice", c, c.urls(), "")
	m.run("--project", "github.com/acme/api", "share")
	m.run("--project", "github.com/acme/api", "sync")

	out := m.run("sync", "--status")
	if !strings.Contains(out, "3 of 3 nodes up") || strings.Count(out, "  node ") != 3 || !strings.Contains(out, ": leader, id ") {
		t.Fatalf("every node up:\n%s", out)
	}

	lead := c.leader()
	var down *node
	for _, nd := range c.nodes {
		if nd != lead {
			down = nd
			break
		}
	}
	c.kill(down)
	out = m.run("sync", "--status")
	if !strings.Contains(out, "2 of 3 nodes up") {
		t.Errorf("one node down, the summary line:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^  node http://` + regexp.QuoteMeta(down.http) + `: down \(.+\)$`).MatchString(out) {
		t.Errorf("the node down is not named:\n%s", out)
	}
	var st team.StatusReport
	if err := json.Unmarshal([]byte(m.run("--json", "sync", "--status")), &st); err != nil {
		t.Fatal(err)
	}
	if st.NodesUp != 2 || len(st.Nodes) != 3 || !st.Reachable {
		t.Errorf("--json with one node down: nodes_up %d of %d, reachable %v (%s)", st.NodesUp, len(st.Nodes), st.Reachable, st.Problem)
	}

	// No quorum: two of three down. The answer comes within the bound.
	c.kill(lead)
	start := time.Now()
	out, errOut, code := m.try("", "sync", "--status")
	took := time.Since(start)
	if code != 0 {
		t.Fatalf("sync --status with no quorum: exit %d\n%s%s", code, out, errOut)
	}
	if took > 8*time.Second { // 5 s, and a process's start and end on a loaded machine
		t.Errorf("sync --status with no quorum took %v", took)
	}
	if !strings.Contains(out, "cluster unreachable (1 of 3 nodes up)") || strings.Count(out, ": down (") != 2 {
		t.Errorf("no quorum:\n%s", out)
	}
}
