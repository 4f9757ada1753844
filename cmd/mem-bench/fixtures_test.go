package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookChecksNeedEvents: a fixtures folder without events makes the hook
// check fail, instead of passing on nothing.
func TestHookChecksNeedEvents(t *testing.T) {
	dir := t.TempDir()
	for _, fixtures := range []string{dir, filepath.Join(dir, "missing")} {
		s := &stress{mem: filepath.Join(dir, "no-mem"), dir: dir, fixtures: fixtures}
		err := s.hookExitsZero(filepath.Join(dir, "mem.db"))
		if err == nil || !strings.Contains(err.Error(), fixtures) {
			t.Errorf("fixtures %s: got %v, want an error naming the folder", fixtures, err)
		}
	}
}

// TestDefaultFixturesAreInTheRepository: the default -fixtures is the
// repository's own copy, found from any folder inside it, so a fresh clone
// runs scripts/stress and scripts/bench with nothing beside it.
func TestDefaultFixturesAreInTheRepository(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, wd := range []string{root, filepath.Join(root, "internal", "cli"), "."} {
		t.Run(wd, func(t *testing.T) {
			t.Chdir(wd)
			dir := defaultFixtures()
			if rel, err := filepath.Rel(root, dir); err != nil || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
				t.Fatalf("default fixtures %s are not inside the repository %s", dir, root)
			}
			files, err := claudeEvents(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) < 10 {
				t.Errorf("%d events in %s", len(files), dir)
			}
			for _, name := range stormEvents {
				if _, err := os.Stat(filepath.Join(dir, "claude-code", name)); err != nil {
					t.Error(err)
				}
			}
			for _, h := range agentHooks {
				if _, _, err := hookEvent(dir, h); err != nil {
					t.Errorf("hook %s %s: %v", h.agent, h.event, err)
				}
			}
		})
	}
}
