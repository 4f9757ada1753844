package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestBadRequestsKeepTheServerServing runs the real `mem mcp` and sends it,
// after the handshake, each bad line followed by a valid tools/call: the bad
// line gets a JSON-RPC error (with the request's id when it can be found),
// and the call after it is still answered.
func TestBadRequestsKeepTheServerServing(t *testing.T) {
	_, path := openDB(t)
	root := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, memBin, "mcp")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HOME="+root, "XDG_CONFIG_HOME="+root+"/.config", "MEM_DB="+path,
		"MEM_PROJECT="+testProject)
	cmd.Stderr = testWriter{t}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	replies := bufio.NewReader(stdout)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("writing %.60q: %v (the server is gone)", line, err)
		}
	}
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	next := func() reply {
		t.Helper()
		line, err := replies.ReadBytes('\n')
		if err != nil {
			t.Fatalf("reading a reply: %v (the server is gone)", err)
		}
		var r reply
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("reply %.200q: %v", line, err)
		}
		return r
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r := next(); r.Error != nil {
		t.Fatalf("initialize: %+v", r)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	huge := strings.Repeat("x", 50<<20)
	tests := []struct {
		name string
		line string
		code int64
		id   string
	}{
		{"50 MB title, id first", `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"save_observation","arguments":{"type":"note","title":"` + huge + `"}}}`, -32600, `"big"`},
		{"50 MB title, id last", `{"method":"tools/call","params":{"name":"save_observation","arguments":{"type":"note","title":"` + huge + `","narrative":"a \"id\": 9 in text"}},"jsonrpc":"2.0","id":77}`, -32600, `77`},
		{"2 MB of one string", `"` + strings.Repeat("y", 2<<20) + `"`, -32600, `null`},
		{"not json", `{not json}`, -32700, `null`},
		{"truncated", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"sea`, -32700, `null`},
		{"binary", "\x00\x01\xff\xfe\x7f{\x80", -32700, `null`},
		{"empty batch", `[]`, -32600, `null`},
		{"batch", `[{"jsonrpc":"2.0","id":8,"method":"tools/list"}]`, -32600, `null`},
		{"a number", `42`, -32600, `null`},
		{"wrong version", `{"jsonrpc":"1.0","id":6,"method":"tools/list"}`, -32600, `6`},
		{"no method, no id", `{"jsonrpc":"2.0"}`, -32600, `null`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600, `null`},
		{"unknown method", `{"jsonrpc":"2.0","id":"u","method":"nope/nothing"}`, -32601, `"u"`},
		{"params not an object", `{"jsonrpc":"2.0","id":"p","method":"tools/call","params":"x"}`, -32602, `"p"`},
		{"method not a string", `{"jsonrpc":"2.0","id":9,"method":5}`, -32600, `9`},
	}
	for i, tt := range tests {
		send(tt.line)
		r := next()
		if r.Error == nil || r.Error.Code != tt.code || string(r.ID) != tt.id {
			t.Errorf("%s: reply id %s error %+v, want code %d id %s", tt.name, r.ID, r.Error, tt.code, tt.id)
		}
		id := 1000 + i
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"anything"}}}`, id))
		if r := next(); string(r.ID) != fmt.Sprint(id) || r.Error != nil || !bytes.Contains(r.Result, []byte("content")) {
			t.Fatalf("after %s: the next call got %+v", tt.name, r)
		}
	}
	// Blank lines and a response to nothing the server asked are not
	// answered, and do not stop it.
	send("")
	send("   ")
	send(`{"jsonrpc":"2.0","id":12345,"result":{}}`)
	send(`{"jsonrpc":"2.0","id":"last","method":"tools/list"}`)
	if r := next(); string(r.ID) != `"last"` || r.Error != nil {
		t.Fatalf("after blank lines: %+v", r)
	}
}

// TestIDFinder: the id of a request too large to keep is found wherever it
// is among the top-level members, and only there.
func TestIDFinder(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":12,"method":"x"}`, `12`},
		{`{"method":"x","params":{"id":3,"s":"\"id\":4"},"id":"a\"b"}`, `"a\"b"`},
		{`{"params":{"id":3},"id" : -7.5 }`, `-7.5`},
		{`{"params":{"id":3}}`, ``},
		{`{"id":{"x":1}}`, ``},
		{`{"id":[1]}`, ``},
		{`{"id":null}`, ``},
		{`{"id":tru`, ``},
		{`["id",1]`, ``},
		{`{"s":"{\"id\":2}","id":1}`, `1`},
	} {
		// Fed in pieces of every size, as the bytes arrive.
		for size := 1; size <= len(tc.in); size++ {
			var f idFinder
			for i := 0; i < len(tc.in); i += size {
				f.write([]byte(tc.in[i:min(i+size, len(tc.in))]))
			}
			if got := string(f.result()); got != tc.want {
				t.Errorf("%s (pieces of %d): id %q, want %q", tc.in, size, got, tc.want)
				break
			}
		}
	}
}
