package install

import (
	"testing"

	"github.com/memhq/mem/internal/agent"
)

// TestAgentsAreComplete: every agent of the registry has what mem installs
// for it, declaring each part mem uses, found by each of its names.
func TestAgentsAreComplete(t *testing.T) {
	p := Places{Home: "/h", ConfigHome: "/h/.config", Root: "/r", Getenv: func(string) string { return "" }}
	if got, want := len(All()), len(agent.All()); got != want {
		t.Errorf("%d agents to install into, %d in the registry", got, want)
	}
	for _, r := range agent.All() {
		a, ok := forAgent(r.Name)
		if !ok || a.Name != r.Name {
			t.Errorf("%s: nothing to install (got %q)", r.Name, a.Name)
			continue
		}
		if a.Hooks == nil || a.MCP == nil || a.Settings.User == nil || a.MCPFile.User == nil ||
			a.Settings.Project == "" || a.MCPFile.Project == "" {
			t.Errorf("%s: incomplete: %+v", a.Name, a)
		}
		for _, n := range append([]string{r.Name}, r.Aliases...) {
			if got, ok := Lookup(n); !ok || got.Name != a.Name {
				t.Errorf("Lookup(%q) = %q, %v", n, got.Name, ok)
			}
		}
		if path, err := Path(a.Name, ScopeProject, p); err != nil || path[:3] != "/r/" {
			t.Errorf("%s: project settings %q (%v), want under the root", a.Name, path, err)
		}
	}
	if _, ok := Lookup("vim"); ok {
		t.Error("Lookup(vim) found an agent")
	}
}
