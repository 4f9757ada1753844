package e2e

import (
	"encoding/json"
	"net/http"
)

// Each provider's request is reduced to its tool names and its messages
// (texts and the number of tool results), and each answer is written in the
// provider's streaming form (or as one JSON body when the client did not
// ask for a stream).

func texts(v any) []string {
	s := allStrings(mustJSON(v))
	if s == "" {
		return nil
	}
	return []string{s}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// Anthropic Messages.

func parseAnthropic(body []byte) (turn, error) {
	var req struct {
		Stream   bool                    `json:"stream"`
		Tools    []struct{ Name string } `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return turn{}, err
	}
	t := turn{stream: req.Stream}
	for _, x := range req.Tools {
		t.tools = append(t.tools, x.Name)
	}
	for _, m := range req.Messages {
		var blocks []struct {
			Type string `json:"type"`
		}
		json.Unmarshal(m.Content, &blocks)
		n := 0
		for _, b := range blocks {
			if b.Type == "tool_result" {
				n++
			}
		}
		var c any
		json.Unmarshal(m.Content, &c)
		t.msgs = append(t.msgs, msg{texts: texts(c), results: n})
	}
	return t, nil
}

func replyAnthropic(w http.ResponseWriter, id, text string, call *Call, stream bool) {
	stop := "end_turn"
	block := map[string]any{"type": "text", "text": text}
	if call != nil {
		stop = "tool_use"
		block = map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": call.Name, "input": argsMap(call)}
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 10}
	if !stream {
		writeJSON(w, map[string]any{"id": "msg_" + id, "type": "message", "role": "assistant", "model": "fake",
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_" + id, "type": "message",
		"role": "assistant", "model": "fake", "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 1}}})
	if call != nil {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": call.Name, "input": map[string]any{}}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": argsJSON(call)}})
	} else {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": text}})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 10}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// OpenAI Responses (Codex).

func parseResponses(body []byte) (turn, error) {
	var req struct {
		Tools []struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"` // a namespace's tools (Codex's MCP servers)
		} `json:"tools"`
		Instructions string            `json:"instructions"`
		Input        []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return turn{}, err
	}
	t := turn{stream: true}
	for _, x := range req.Tools {
		name := x.Name
		if name == "" {
			name = x.Type
		}
		t.tools = append(t.tools, name)
		for _, in := range x.Tools {
			t.tools = append(t.tools, name+"__"+in.Name)
		}
	}
	for _, raw := range req.Input {
		var item struct {
			Type  string `json:"type"`
			Tools []struct {
				Name  string `json:"name"`
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"tools"` // what a tool_search call found
		}
		json.Unmarshal(raw, &item)
		if item.Type == "tool_search_output" {
			// Tools found by a search are offered from then on; the search
			// is not a step of the script.
			for _, x := range item.Tools {
				t.tools = append(t.tools, x.Name)
				for _, in := range x.Tools {
					t.tools = append(t.tools, x.Name+"__"+in.Name)
				}
			}
		}
		var c any
		json.Unmarshal(raw, &c)
		m := msg{texts: texts(c)}
		switch item.Type {
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			m.results = 1
		}
		t.msgs = append(t.msgs, m)
	}
	return t, nil
}

func replyResponses(w http.ResponseWriter, id, text string, call *Call) {
	w.Header().Set("Content-Type", "text/event-stream")
	resp := map[string]any{"id": "resp_" + id, "object": "response", "status": "in_progress", "model": "fake", "output": []any{}}
	sse(w, "response.created", map[string]any{"type": "response.created", "response": resp})
	var item map[string]any
	switch {
	case call != nil && call.Search != "":
		item = map[string]any{"type": "tool_search_call", "id": "tsc_" + id, "call_id": "call_" + id, "execution": "client",
			"arguments": map[string]any{"query": call.Search, "limit": 8}, "status": "completed"}
	case call != nil && call.Input != "":
		item = map[string]any{"type": "custom_tool_call", "id": "ctc_" + id, "call_id": "call_" + id, "name": call.Name,
			"input": call.Input, "status": "completed"}
	case call != nil:
		item = map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": "call_" + id, "name": call.Name,
			"arguments": argsJSON(call), "status": "completed"}
		if call.Namespace != "" {
			item["namespace"] = call.Namespace
		}
	default:
		item = map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
		sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0,
			"item": map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "in_progress", "content": []any{}}})
		sse(w, "response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": "msg_" + id,
			"output_index": 0, "content_index": 0, "delta": text})
	}
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	resp["status"] = "completed"
	resp["output"] = []any{item}
	resp["usage"] = map[string]any{"input_tokens": 100, "output_tokens": 10, "total_tokens": 110,
		"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": resp})
}

// Gemini generateContent / streamGenerateContent.

func parseGemini(body []byte) (turn, error) {
	var req struct {
		Contents []struct {
			Role  string            `json:"role"`
			Parts []json.RawMessage `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct{ Name string } `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return turn{}, err
	}
	var t turn
	for _, x := range req.Tools {
		for _, f := range x.FunctionDeclarations {
			t.tools = append(t.tools, f.Name)
		}
	}
	for _, c := range req.Contents {
		m := msg{}
		for _, raw := range c.Parts {
			var p struct {
				FunctionResponse json.RawMessage `json:"functionResponse"`
			}
			json.Unmarshal(raw, &p)
			if p.FunctionResponse != nil {
				m.results++
			}
			var v any
			json.Unmarshal(raw, &v)
			m.texts = append(m.texts, texts(v)...)
		}
		t.msgs = append(t.msgs, m)
	}
	return t, nil
}

func replyGemini(w http.ResponseWriter, text string, call *Call, stream bool, promptTokens int) {
	if promptTokens == 0 {
		promptTokens = 100
	}
	part := map[string]any{"text": text}
	if call != nil {
		part = map[string]any{"functionCall": map[string]any{"name": call.Name, "args": argsMap(call)}}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": promptTokens, "candidatesTokenCount": 10, "totalTokenCount": promptTokens + 10},
		"modelVersion":  "fake",
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "", resp)
}

// OpenAI chat completions (OpenCode with a custom provider).

func parseChat(body []byte) (turn, error) {
	var req struct {
		Stream bool `json:"stream"`
		Tools  []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return turn{}, err
	}
	t := turn{stream: req.Stream}
	for _, x := range req.Tools {
		t.tools = append(t.tools, x.Function.Name)
	}
	for _, raw := range req.Messages {
		var m struct {
			Role string `json:"role"`
		}
		json.Unmarshal(raw, &m)
		var v any
		json.Unmarshal(raw, &v)
		x := msg{texts: texts(v)}
		if m.Role == "tool" {
			x.results = 1
		}
		t.msgs = append(t.msgs, x)
	}
	return t, nil
}

func replyChat(w http.ResponseWriter, id, text string, call *Call, stream bool) {
	finish := "stop"
	delta := map[string]any{"role": "assistant", "content": text}
	if call != nil {
		finish = "tool_calls"
		delta = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"index": 0, "id": "call_" + id,
			"type": "function", "function": map[string]any{"name": call.Name, "arguments": argsJSON(call)}}}}
	}
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
	if !stream {
		delete(delta, "index")
		writeJSON(w, map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion", "created": 0, "model": "fake",
			"choices": []any{map[string]any{"index": 0, "message": delta, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(choices []any, usage any) map[string]any {
		c := map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "created": 0, "model": "fake", "choices": choices}
		if usage != nil {
			c["usage"] = usage
		}
		return c
	}
	sse(w, "", chunk([]any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}, nil))
	sse(w, "", chunk([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}, nil))
	sse(w, "", chunk([]any{}, usage))
	w.Write([]byte("data: [DONE]\n\n"))
}
