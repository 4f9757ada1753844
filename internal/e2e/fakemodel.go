// Package e2e drives the real agent CLIs against a fake model server and
// checks, from what the model was sent and from mem's database, that mem
// works inside them. cmd/mem-e2e runs it; scripts/e2e is the entry point.
package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Step is one answer of the scripted model: a tool call or a text reply.
type Step struct {
	Tool string            // abstract tool: read, grep, edit, shell, mcp_search, remember; "" for text
	Args map[string]string // abstract arguments (file, pattern, old, new, command, query)
	Text string
	// PromptTokens is the prompt size the answer reports (Gemini's
	// usageMetadata); 0: 100. A full context makes the CLI compress.
	PromptTokens int
	// Seen is every string of the request the step answers (set by the
	// server): a step may take an argument from what the CLI told the
	// model, such as the path of its memory file.
	Seen string
}

// Call is a concrete tool call in one CLI's terms.
type Call struct {
	Name      string
	Args      any
	Namespace string // Responses API: the namespace tool Name belongs to
	// Input is the raw text of a freeform tool call (Responses API custom
	// tools, such as Codex's apply_patch); Args is then unused.
	Input string
	// Search, when set, is a Responses API tool_search call for these
	// words instead: Codex defers MCP tools behind it.
	Search string
}

// Script is the conversation the fake model plays for one prompt.
type Script struct {
	Prompt string
	Steps  []Step
	// ToolCall turns an abstract step into the CLI's tool call; tools are
	// the tool names the request offered.
	ToolCall func(s Step, tools []string) Call
}

// Request is one logged request.
type Request struct {
	Seq    int             `json:"seq"`
	Label  string          `json:"label"` // the run the harness was in
	API    string          `json:"api"`   // anthropic, responses, gemini, chat
	Path   string          `json:"path"`
	Agent  bool            `json:"agent"` // carried the scripted prompt and tools
	Step   int             `json:"step"`  // scripted step answered (-1: side request)
	Tools  []string        `json:"tools,omitempty"`
	Body   json.RawMessage `json:"body"`
	Time   time.Time       `json:"time"`
	texts  string
	stream bool
}

// Texts returns every string in the request body, one per line: what the
// model read, whatever escaping the JSON encoder chose.
func (r *Request) Texts() string { return r.texts }

// Server is the fake model. It is stateless per request: the scripted step
// to answer is the number of tool results that follow the message holding
// the script's prompt.
type Server struct {
	URL string
	ln  net.Listener
	srv *http.Server
	log *os.File

	mu     sync.Mutex
	script Script
	label  string
	reqs   []*Request
}

// StartServer listens on 127.0.0.1 and logs every request to logPath (JSON lines).
func StartServer(logPath string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake model: %w", err)
	}
	f, err := os.Create(logPath)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("fake model log: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln, log: f}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() {
	s.srv.Close()
	s.log.Close()
}

// Play sets the script the next requests are answered from, and the label
// they are logged under.
func (s *Server) Play(label string, sc Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.label, s.script = label, sc
}

// Requests returns the requests logged under label.
func (s *Server) Requests(label string) []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Request
	for _, r := range s.reqs {
		if r.Label == label {
			out = append(out, r)
		}
	}
	return out
}

// turn is a request reduced to what the script needs.
type turn struct {
	tools []string
	// msgs are the conversation's messages in order: their texts, and how
	// many tool results each carries.
	msgs   []msg
	stream bool
}

type msg struct {
	texts   []string
	results int
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var api string
	var t turn
	var err error
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 100})
		return
	case strings.HasSuffix(p, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 100})
		return
	case strings.HasSuffix(p, "/messages"):
		api = "anthropic"
		t, err = parseAnthropic(body)
	case strings.HasSuffix(p, "/responses"):
		api = "responses"
		t, err = parseResponses(body)
	case strings.Contains(p, ":generateContent") || strings.Contains(p, ":streamGenerateContent"):
		api = "gemini"
		t, err = parseGemini(body)
		t.stream = strings.Contains(p, ":stream")
	case strings.HasSuffix(p, "/chat/completions"):
		api = "chat"
		t, err = parseChat(body)
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
		return
	default:
		http.Error(w, "fake model: no such endpoint "+p, http.StatusNotFound)
		return
	}
	if err != nil {
		http.Error(w, "fake model: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	sc, label := s.script, s.label
	req := &Request{Seq: len(s.reqs) + 1, Label: label, API: api, Path: r.URL.String(), Body: json.RawMessage(compact(body)),
		Time: time.Now(), Tools: t.tools, Step: -1, texts: allStrings(body), stream: t.stream}
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()

	step := Step{Text: "ok"}
	if n, ok := t.stepIndex(sc.Prompt); ok && len(t.tools) > 0 {
		req.Agent, req.Step = true, n
		if n < len(sc.Steps) {
			step = sc.Steps[n]
		} else {
			step = Step{Text: "done"}
		}
	} else if api == "gemini" {
		// Gemini CLI's side requests (next speaker, routing) parse JSON.
		step = Step{Text: `{"reasoning":"scripted","next_speaker":"user","model_choice":"flash"}`}
	}
	var call *Call
	step.Seen = req.texts
	if step.Tool != "" && sc.ToolCall != nil {
		c := sc.ToolCall(step, t.tools)
		call = &c
	}
	line, _ := json.Marshal(req)
	s.mu.Lock()
	s.log.Write(append(line, '\n'))
	s.mu.Unlock()
	id := fmt.Sprintf("%d", req.Seq)
	switch api {
	case "anthropic":
		replyAnthropic(w, id, step.Text, call, t.stream)
	case "responses":
		replyResponses(w, id, step.Text, call)
	case "gemini":
		replyGemini(w, step.Text, call, t.stream, step.PromptTokens)
	case "chat":
		replyChat(w, id, step.Text, call, t.stream)
	}
}

// stepIndex finds the last message holding prompt and counts the tool
// results after it.
func (t turn) stepIndex(prompt string) (int, bool) {
	if prompt == "" {
		return 0, false
	}
	at := -1
	for i, m := range t.msgs {
		for _, x := range m.texts {
			if strings.Contains(x, prompt) {
				at = i
			}
		}
	}
	if at < 0 {
		return 0, false
	}
	n := 0
	for _, m := range t.msgs[at:] {
		n += m.results
	}
	return n, true
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// compact returns the body as one line of JSON (a JSON string when it is not JSON).
func compact(b []byte) []byte {
	var v any
	if json.Unmarshal(b, &v) == nil {
		c, _ := json.Marshal(v)
		return c
	}
	q, _ := json.Marshal(string(b))
	return q
}

// allStrings returns every string value of a JSON document, one per line.
func allStrings(body []byte) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return string(body)
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteByte('\n')
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// sse writes one server-sent event.
func sse(w http.ResponseWriter, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func argsJSON(c *Call) string {
	b, _ := json.Marshal(c.Args)
	return string(b)
}

func argsMap(c *Call) map[string]any {
	var m map[string]any
	json.Unmarshal([]byte(argsJSON(c)), &m)
	return m
}
