// A variant of internal/e2e/mockmodel that answers with tool calls, to
// record the real agents' session formats (learn/history's fixtures):
//
//	go run mockmodel.go -log requests.jsonl -port-file port -script scenarios.json
//
// The scenario file, read again on every request, maps a phrase of the
// latest user prompt to the tool calls to make, one per request, while the
// request offers that tool; then the reply is text.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
)

type call struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

type scenario struct {
	Match string `json:"match"`
	Calls []call `json:"calls"`
	Reply string `json:"reply"`
}

var scenarios []scenario
var scriptPath string

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "")
	logPath := flag.String("log", "requests.jsonl", "")
	portFile := flag.String("port-file", "", "")
	script := flag.String("script", "", "")
	flag.Parse()
	scriptPath = *script
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	if *portFile != "" {
		os.WriteFile(*portFile, []byte(fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)), 0o644)
	}
	rec, _ := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	s := &server{rec: rec}
	log.Fatal(http.Serve(ln, s))
}

type server struct {
	mu  sync.Mutex
	rec io.Writer
	n   int
}

// next decides the reply: a call to make, or text.
func next(lastPrompt string, after int, toolNames string) (*call, string) {
	scenarios = nil
	if b, err := os.ReadFile(scriptPath); err == nil {
		if err := json.Unmarshal(b, &scenarios); err != nil {
			log.Print(err)
		}
	}
	for _, sc := range scenarios {
		if !strings.Contains(lastPrompt, sc.Match) {
			continue
		}
		if after < len(sc.Calls) && strings.Contains(toolNames, `"`+sc.Calls[after].Name+`"`) {
			return &sc.Calls[after], ""
		}
		if sc.Reply != "" {
			return nil, sc.Reply
		}
		return nil, "Done."
	}
	return nil, "Done."
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	s.mu.Lock()
	s.n++
	n := s.n
	line, _ := json.Marshal(map[string]any{"n": n, "method": r.Method, "path": r.URL.Path, "body": json.RawMessage(orNull(body))})
	fmt.Fprintf(s.rec, "%s\n", line)
	s.mu.Unlock()

	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 100})
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages"):
		var req struct {
			Stream   bool              `json:"stream"`
			Model    string            `json:"model"`
			Messages []json.RawMessage `json:"messages"`
			Tools    json.RawMessage   `json:"tools"`
		}
		_ = json.Unmarshal(body, &req)
		// The latest typed prompt: the last user message with no tool_result.
		idx := -1
		for i, m := range req.Messages {
			var t struct {
				Role string `json:"role"`
			}
			json.Unmarshal(m, &t)
			if t.Role == "user" && !strings.Contains(string(m), `"tool_result"`) {
				idx = i
			}
		}
		prompt, after := "", 0
		if idx >= 0 {
			prompt = string(req.Messages[idx])
			for _, m := range req.Messages[idx+1:] {
				if strings.Contains(string(m), `"tool_use"`) && strings.Contains(string(m), `"assistant"`) {
					after++
				}
			}
		}
		c, text := next(prompt, after, toolList(req.Tools))
		if req.Stream {
			stream(w, req.Model, text, c, n)
			return
		}
		writeJSON(w, message(req.Model, text, c, n))
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
		var req struct {
			Model string            `json:"model"`
			Input []json.RawMessage `json:"input"`
			Tools json.RawMessage   `json:"tools"`
		}
		_ = json.Unmarshal(body, &req)
		idx := -1
		for i, m := range req.Input {
			var t struct {
				Type string `json:"type"`
				Role string `json:"role"`
			}
			json.Unmarshal(m, &t)
			if t.Role == "user" && (t.Type == "message" || t.Type == "") {
				idx = i
			}
		}
		prompt, after := "", 0
		if idx >= 0 {
			prompt = string(req.Input[idx])
			for _, m := range req.Input[idx+1:] {
				var t struct {
					Type string `json:"type"`
				}
				json.Unmarshal(m, &t)
				if t.Type == "function_call" || t.Type == "custom_tool_call" || t.Type == "local_shell_call" {
					after++
				}
			}
		}
		c, text := next(prompt, after, toolList(req.Tools))
		responses(w, req.Model, text, c, n)
	case r.Method == http.MethodPost && strings.Contains(r.URL.Path, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 100})
	case r.Method == http.MethodPost && (strings.Contains(r.URL.Path, ":streamGenerateContent") || strings.Contains(r.URL.Path, ":generateContent")):
		var req struct {
			Contents         []json.RawMessage `json:"contents"`
			Tools            json.RawMessage   `json:"tools"`
			GenerationConfig struct {
				MimeType string         `json:"responseMimeType"`
				Schema   map[string]any `json:"responseJsonSchema"`
			} `json:"generationConfig"`
		}
		_ = json.Unmarshal(body, &req)
		idx := -1
		for i, m := range req.Contents {
			var t struct {
				Role string `json:"role"`
			}
			json.Unmarshal(m, &t)
			if t.Role == "user" && !strings.Contains(string(m), `"functionResponse"`) {
				idx = i
			}
		}
		prompt, after := "", 0
		if idx >= 0 {
			prompt = string(req.Contents[idx])
			for _, m := range req.Contents[idx+1:] {
				if strings.Contains(string(m), `"functionCall"`) {
					after++
				}
			}
		}
		c, text := next(prompt, after, toolList(req.Tools))
		var parts []any
		if c != nil {
			parts = []any{map[string]any{"functionCall": map[string]any{"name": c.Name, "args": c.Args}}}
		} else {
			parts = []any{map[string]any{"text": text}}
		}
		if req.GenerationConfig.MimeType == "application/json" {
			b, _ := json.Marshal(fill(req.GenerationConfig.Schema))
			parts = []any{map[string]any{"text": string(b)}}
		}
		reply := map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
		}
		if strings.Contains(r.URL.Path, ":streamGenerateContent") {
			w.Header().Set("Content-Type", "text/event-stream")
			b, _ := json.Marshal(reply)
			fmt.Fprintf(w, "data: %s\n\n", b)
			return
		}
		writeJSON(w, reply)
	default:
		w.WriteHeader(http.StatusNotFound)
		writeJSON(w, map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": "mock: " + r.URL.Path}})
	}
}

// toolList is the raw tools JSON, in which a name shows as "NAME".
func toolList(raw json.RawMessage) string { return string(raw) }

func fill(s map[string]any) any {
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch strings.ToLower(fmt.Sprint(s["type"])) {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for k, v := range props {
			if m, ok := v.(map[string]any); ok {
				out[k] = fill(m)
			}
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		return 1
	case "boolean":
		return false
	}
	return "user"
}

func orNull(b []byte) []byte {
	if json.Valid(b) {
		return b
	}
	q, _ := json.Marshal(string(b))
	return q
}

func message(model, text string, c *call, n int) map[string]any {
	content := []any{map[string]any{"type": "text", "text": text}}
	stop := "end_turn"
	if c != nil {
		content = []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_mock_%d", n), "name": c.Name, "input": c.Args}}
		stop = "tool_use"
	}
	return map[string]any{"id": fmt.Sprintf("msg_mock_%d", n), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 10}}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func stream(w http.ResponseWriter, model, text string, c *call, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	f, _ := w.(http.Flusher)
	ev := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if f != nil {
			f.Flush()
		}
	}
	start := message(model, "", nil, n)
	start["content"] = []any{}
	start["stop_reason"] = nil
	ev("message_start", map[string]any{"type": "message_start", "message": start})
	stop := "end_turn"
	if c != nil {
		stop = "tool_use"
		args, _ := json.Marshal(c.Args)
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_mock_%d", n), "name": c.Name, "input": map[string]any{}}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}})
	} else {
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}})
	}
	ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	ev("message_stop", map[string]any{"type": "message_stop"})
}

func responses(w http.ResponseWriter, model, text string, c *call, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	f, _ := w.(http.Flusher)
	ev := func(data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], b)
		if f != nil {
			f.Flush()
		}
	}
	id, item := fmt.Sprintf("resp_mock_%d", n), fmt.Sprintf("msg_mock_%d", n)
	var out map[string]any
	if c != nil {
		args, _ := json.Marshal(c.Args)
		out = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_mock_%d", n), "call_id": fmt.Sprintf("call_mock_%d", n), "name": c.Name, "arguments": string(args), "status": "completed"}
	} else {
		out = map[string]any{"type": "message", "id": item, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
	}
	resp := map[string]any{"id": id, "object": "response", "model": model, "status": "in_progress", "output": []any{}}
	ev(map[string]any{"type": "response.created", "response": resp})
	ev(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": out})
	if c == nil {
		ev(map[string]any{"type": "response.output_text.delta", "item_id": item, "output_index": 0, "content_index": 0, "delta": text})
	}
	ev(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": out})
	done := map[string]any{"id": id, "object": "response", "model": model, "status": "completed", "output": []any{out},
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 10, "total_tokens": 110,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}
	ev(map[string]any{"type": "response.completed", "response": done})
}
