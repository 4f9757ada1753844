package lazy

import (
	"sync"
	"testing"
)

func TestRegexpCompilesOnce(t *testing.T) {
	r := NewRegexp(`^a+b$`)
	if r.re != nil {
		t.Fatal("compiled before first use")
	}
	var wg sync.WaitGroup
	got := make([]bool, 8)
	for i := range got {
		wg.Go(func() { got[i] = r.Get().MatchString("aab") })
	}
	wg.Wait()
	for i, ok := range got {
		if !ok {
			t.Errorf("goroutine %d: no match", i)
		}
	}
	if r.Get() != r.Get() {
		t.Error("compiled twice")
	}
}

func TestValueBuildsOnce(t *testing.T) {
	calls := 0
	v := &Value[map[string]int]{New: func() map[string]int { calls++; return map[string]int{"x": 1} }}
	if calls != 0 {
		t.Fatal("built before first use")
	}
	for range 3 {
		if v.Get()["x"] != 1 {
			t.Fatal("wrong value")
		}
	}
	if calls != 1 {
		t.Errorf("New called %d times, want 1", calls)
	}
}
