package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// fixturesDir holds the Claude Code hook events the bench and the stress
// suite feed `mem hook claude`, relative to the repository root (copied
// from the team's shared fixtures, so a fresh clone has them).
const fixturesDir = "cmd/mem-bench/testdata/hooks"

// The events the stress suite sends during its storm of writers and
// readers (its hook checks send every event).
var stormEvents = []string{"session-start-startup.json", "user-prompt-submit.json"}

// defaultFixtures returns fixturesDir under the nearest folder, from the
// working directory up, that has it: the repository root from anywhere in
// the repository. Elsewhere it returns fixturesDir as is, which the checks
// then report as missing.
func defaultFixtures() string {
	dir, err := os.Getwd()
	if err != nil {
		return fixturesDir
	}
	for {
		if fi, err := os.Stat(filepath.Join(dir, fixturesDir)); err == nil && fi.IsDir() {
			return filepath.Join(dir, fixturesDir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return fixturesDir
		}
		dir = parent
	}
}

// claudeEvents lists the Claude Code events under dir. None is an error:
// a hook check over no events would pass without checking anything.
func claudeEvents(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "claude-code", "*.json"))
	if err != nil {
		return nil, fmt.Errorf("-fixtures %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("-fixtures %s: no Claude Code hook events (claude-code/*.json) there; the repository's are in %s", dir, fixturesDir)
	}
	return files, nil
}

// claudeEvent reads the Claude Code event name under dir.
func claudeEvent(dir, name string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, "claude-code", name))
	if err != nil {
		return nil, fmt.Errorf("-fixtures %s: %w", dir, err)
	}
	return b, nil
}

// loadEvents reads the named Claude Code events under dir.
func loadEvents(dir string, names []string) (map[string][]byte, error) {
	events := map[string][]byte{}
	for _, name := range names {
		b, err := claudeEvent(dir, name)
		if err != nil {
			return nil, err
		}
		events[name] = b
	}
	return events, nil
}
