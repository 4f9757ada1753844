package hook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/memhq/mem/internal/capture"
	"github.com/memhq/mem/internal/fsafe"
)

// transcriptTail bounds how much of a Codex transcript Stop reads: the end
// of the file, where the turn that just ended is.
const transcriptTail = 4 << 20

// codexShellPatches returns the patches a Codex turn applied through its
// shell (`apply_patch <<'PATCH' ... PATCH` run with exec_command), as
// apply_patch calls. Codex sends no tool event for them: it offers a model
// that is not in its catalogue no apply_patch tool, the model runs it in
// the shell, and Codex applies the patch itself. They are read from the
// turn's records in the transcript (at most its last few MiB); a patch that
// did not succeed, and anything unreadable, is left out.
func codexShellPatches(path, turnID string) []capture.Call {
	if path == "" || turnID == "" {
		return nil
	}
	f, err := fsafe.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > transcriptTail {
		if _, err := f.Seek(fi.Size()-transcriptTail, io.SeekStart); err != nil {
			return nil
		}
	}
	type record struct {
		Type    string `json:"type"`
		Payload struct {
			Type      string `json:"type"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
			CallID    string `json:"call_id"`
			Output    any    `json:"output"`
			Meta      struct {
				TurnID string `json:"turn_id"`
			} `json:"internal_chat_message_metadata_passthrough"`
		} `json:"payload"`
	}
	var order []string
	patches := map[string]string{}
	var calls []capture.Call
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), transcriptTail)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte(`"response_item"`)) || !bytes.Contains(line, []byte(turnID)) {
			continue // only the turn's records are decoded
		}
		var r record
		if json.Unmarshal(line, &r) != nil || r.Type != "response_item" || r.Payload.Meta.TurnID != turnID {
			continue
		}
		p := r.Payload
		switch p.Type {
		case "function_call":
			if capture.Kind(p.Name) != "command" {
				continue
			}
			if patch := shellPatch(p.Arguments); patch != "" {
				patches[p.CallID] = patch
				order = append(order, p.CallID)
			}
		case "function_call_output":
			patch, ok := patches[p.CallID]
			out, _ := p.Output.(string)
			if !ok || !strings.Contains(out, "Success.") {
				continue
			}
			delete(patches, p.CallID)
			in, _ := json.Marshal(map[string]string{"command": patch})
			resp, _ := json.Marshal(out)
			calls = append(calls, capture.Call{Tool: "apply_patch", Input: in, Response: resp})
		}
	}
	return calls
}

// shellPatch returns the patch a shell command's arguments pass to
// apply_patch ("" when the command is not apply_patch).
func shellPatch(arguments string) string {
	var args struct {
		Cmd     any `json:"cmd"`
		Command any `json:"command"`
	}
	if json.Unmarshal([]byte(arguments), &args) != nil {
		return ""
	}
	cmd := ""
	for _, v := range []any{args.Cmd, args.Command} {
		switch v := v.(type) {
		case string:
			cmd = v
		case []any: // ["bash", "-lc", "apply_patch <<'EOF' ..."]
			if n := len(v); n > 0 {
				cmd, _ = v[n-1].(string)
			}
		}
		if cmd != "" {
			break
		}
	}
	cmd = strings.TrimSpace(cmd)
	if !strings.HasPrefix(cmd, "apply_patch") && !strings.HasPrefix(cmd, "applypatch") {
		return ""
	}
	start := strings.Index(cmd, "*** Begin Patch")
	end := strings.LastIndex(cmd, "*** End Patch")
	if start < 0 || end < start {
		return ""
	}
	return cmd[start:end+len("*** End Patch")] + "\n"
}
