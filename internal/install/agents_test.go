package install

import "testing"

// TestAgentsAreComplete: every agent in All declares each part mem uses,
// and no name or alias is taken twice.
func TestAgentsAreComplete(t *testing.T) {
	seen := map[string]bool{}
	p := Places{Home: "/h", ConfigHome: "/h/.config", Root: "/r", Getenv: func(string) string { return "" }}
	for _, a := range All.Get() {
		if a.Adapter == nil || a.Hooks == nil || a.MCP == nil || a.Settings.User == nil || a.MCPFile.User == nil ||
			a.Settings.Project == "" || a.MCPFile.Project == "" {
			t.Errorf("%s: incomplete: %+v", a.Name, a)
		}
		for _, n := range append([]string{a.Name}, a.Aliases...) {
			if seen[n] {
				t.Errorf("%s: the name %q is taken twice", a.Name, n)
			}
			seen[n] = true
			if got, ok := Lookup(n); !ok || got.Name != a.Name {
				t.Errorf("Lookup(%q) = %q, %v", n, got.Name, ok)
			}
		}
		if a.Settings.User != nil {
			if path, err := Path(a.Name, ScopeProject, p); err != nil || path[:3] != "/r/" {
				t.Errorf("%s: project settings %q (%v), want under the root", a.Name, path, err)
			}
		}
	}
	if _, ok := Lookup("vim"); ok {
		t.Error("Lookup(vim) found an agent")
	}
}
