package agent

import "testing"

// lookup is the registry's agent of that name or alias.
func lookup(t *testing.T, name string) Agent {
	t.Helper()
	a, ok := Lookup(name)
	if !ok {
		t.Fatalf("no agent %q", name)
	}
	return a
}

// TestRegistry: every agent has an adapter, no name or alias is taken
// twice, and Lookup finds each by every name.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range All() {
		if a.Name == "" || a.Adapter == nil {
			t.Errorf("incomplete agent: %+v", a)
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
	}
	if _, ok := Lookup("vim"); ok {
		t.Error("Lookup(vim) found an agent")
	}
}
