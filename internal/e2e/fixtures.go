package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// saveFixtures writes the first event of each name the CLI sent (with the
// scratch folder replaced by /tmp/e2e) and mem's reply to it, into dir.
func (h *H) saveFixtures(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// One call per event name (and tool and source): the first that mem
	// answered, else the first.
	best := map[string]HookCall{}
	var names []string
	for _, c := range h.hookCalls() {
		if c.MemDB != h.DB {
			continue // a fault run
		}
		name := fixtureName(c)
		b, seen := best[name]
		if !seen {
			names = append(names, name)
		}
		if !seen || strings.TrimSpace(b.Reply) == "" && strings.TrimSpace(c.Reply) != "" {
			best[name] = c
		}
	}
	for _, name := range names {
		c := best[name]
		var ev bytes.Buffer
		if err := json.Indent(&ev, bytes.ReplaceAll(c.Event, []byte(h.Root), []byte("/tmp/e2e")), "", "  "); err != nil {
			ev.Reset()
			ev.Write(c.Event)
		}
		ev.WriteByte('\n')
		if err := os.WriteFile(filepath.Join(dir, name+".json"), ev.Bytes(), 0o644); err != nil {
			return err
		}
		if c.Reply != "" {
			reply := strings.ReplaceAll(c.Reply, h.Root, "/tmp/e2e")
			if err := os.WriteFile(filepath.Join(dir, name+".reply.json"), []byte(reply), 0o644); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(h.out, "     %-8s saved %d fixtures to %s\n", h.Agent.Name, len(names), dir)
	return nil
}

// fixtureName names a recorded call by its event, tool and source.
func fixtureName(c HookCall) string {
	name := eventName(c)
	if t := toolName(c); t != "" {
		name += "-" + t
	}
	var e struct {
		Source  string `json:"source"`
		Trigger string `json:"trigger"`
	}
	json.Unmarshal(c.Event, &e)
	if e.Source+e.Trigger != "" {
		name += "-" + e.Source + e.Trigger
	}
	return strings.Trim(unsafeName.ReplaceAllString(name, "_"), "_")
}

// toolName returns the tool a recorded tool event names.
func toolName(c HookCall) string {
	var e struct {
		A string `json:"tool_name"`
		B string `json:"tool"`
	}
	json.Unmarshal(c.Event, &e)
	if e.A != "" {
		return e.A
	}
	return e.B
}
