// Command mockmodel is a model server for the end-to-end tests with the
// real agents (scripts/e2e-agents.sh): it answers the Anthropic Messages
// API on 127.0.0.1 (and OpenAI's Responses and Chat Completions APIs,
// Gemini's generateContent), streaming or not, records every request body as one
// JSON line, and replies with scripted text. A request whose last user
// message mentions "[[tag NAME VERDICT]]" gets a reply that reports that
// skill with a <skill-used/> tag; any other gets a short plain answer.
//
//	mockmodel -addr 127.0.0.1:0 -log requests.jsonl -port-file port
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
	"regexp"
	"strings"
	"sync"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	logPath := flag.String("log", "requests.jsonl", "where every request is recorded, one JSON line each")
	portFile := flag.String("port-file", "", "write the port listened on to this file")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	if *portFile != "" {
		port := ln.Addr().(*net.TCPAddr).Port
		if err := os.WriteFile(*portFile, []byte(fmt.Sprint(port)), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	rec, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	s := &server{rec: rec}
	log.Fatal(http.Serve(ln, s))
}

type server struct {
	mu  sync.Mutex
	rec io.Writer
	n   int
}

var tagRE = regexp.MustCompile(`\[\[tag ([a-z0-9:-]+) (HELPFUL|HARMFUL|NEUTRAL)\]\]`)

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
			Stream   bool `json:"stream"`
			Model    string
			Messages []turn `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		text := replyText(lastUser(req.Messages))
		if req.Stream {
			stream(w, req.Model, text, n)
			return
		}
		writeJSON(w, message(req.Model, text, n))
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
		var req struct {
			Stream bool `json:"stream"`
			Model  string
			Input  []turn `json:"input"`
		}
		_ = json.Unmarshal(body, &req)
		responses(w, req.Model, replyText(lastUser(req.Input)), n)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		var req struct {
			Stream   bool `json:"stream"`
			Model    string
			Messages []turn `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		chat(w, req.Model, replyText(lastUser(req.Messages)), n, req.Stream)
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		writeJSON(w, map[string]any{"object": "list", "data": []any{map[string]any{"id": "mock-model", "object": "model", "owned_by": "mock"}}})
	case r.Method == http.MethodPost && strings.Contains(r.URL.Path, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 100})
	case r.Method == http.MethodPost && (strings.Contains(r.URL.Path, ":streamGenerateContent") || strings.Contains(r.URL.Path, ":generateContent")):
		var req struct {
			Contents         []turn `json:"contents"`
			GenerationConfig struct {
				MimeType string         `json:"responseMimeType"`
				Schema   map[string]any `json:"responseJsonSchema"`
			} `json:"generationConfig"`
		}
		_ = json.Unmarshal(body, &req)
		text := replyText(lastUser(req.Contents))
		if req.GenerationConfig.MimeType == "application/json" {
			// The agent's own side questions (routing, next speaker) want
			// JSON of a schema: any value of the right shape will do.
			b, _ := json.Marshal(fill(req.GenerationConfig.Schema))
			text = string(b)
		}
		reply := map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}}, "finishReason": "STOP", "index": 0}},
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

// fill is a value of the JSON schema s: each property present, strings
// "user", numbers 1, booleans false; an enum takes its first value.
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

// turn is one message of a conversation in any of the three APIs: its
// role and its content (Anthropic, OpenAI) or parts (Gemini), as JSON.
type turn struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Parts   json.RawMessage `json:"parts"`
}

// lastUser is the raw JSON of the last user turn.
func lastUser(turns []turn) string {
	last := ""
	for _, t := range turns {
		if t.Role == "user" {
			last = string(t.Content) + string(t.Parts)
		}
	}
	return last
}

// replyText is the scripted answer to the last user message.
func replyText(last string) string {
	if m := tagRE.FindStringSubmatch(last); m != nil {
		return fmt.Sprintf("I followed the %s skill.\n<skill-used name=\"%s\" verdict=\"%s\" reason=\"the mock used it\"/>", m[1], m[1], m[2])
	}
	return "Done."
}

func orNull(b []byte) []byte {
	if json.Valid(b) {
		return b
	}
	q, _ := json.Marshal(string(b))
	return q
}

func message(model, text string, n int) map[string]any {
	return map[string]any{"id": fmt.Sprintf("msg_mock_%d", n), "type": "message", "role": "assistant", "model": model,
		"content":     []any{map[string]any{"type": "text", "text": text}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 10}}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// stream writes the reply as the Messages API's server-sent events.
func stream(w http.ResponseWriter, model, text string, n int) {
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
	start := message(model, "", n)
	start["content"] = []any{}
	start["stop_reason"] = nil
	ev("message_start", map[string]any{"type": "message_start", "message": start})
	ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
	ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}})
	ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	ev("message_stop", map[string]any{"type": "message_stop"})
}

// responses writes the reply as the OpenAI Responses API's stream of
// server-sent events.
func responses(w http.ResponseWriter, model, text string, n int) {
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
	msg := map[string]any{"type": "message", "id": item, "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
	resp := map[string]any{"id": id, "object": "response", "model": model, "status": "in_progress", "output": []any{}}
	ev(map[string]any{"type": "response.created", "response": resp})
	ev(map[string]any{"type": "response.output_item.added", "output_index": 0,
		"item": map[string]any{"type": "message", "id": item, "role": "assistant", "status": "in_progress", "content": []any{}}})
	ev(map[string]any{"type": "response.output_text.delta", "item_id": item, "output_index": 0, "content_index": 0, "delta": text})
	ev(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": msg})
	done := map[string]any{"id": id, "object": "response", "model": model, "status": "completed", "output": []any{msg},
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 10, "total_tokens": 110,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}
	ev(map[string]any{"type": "response.completed", "response": done})
}

// chat writes the reply as the OpenAI Chat Completions API's answer
// (opencode's OpenAI-compatible providers, Copilot CLI's BYOK provider):
// one JSON object, or with stream a chunk, a finish chunk with usage and
// [DONE] as server-sent events.
func chat(w http.ResponseWriter, model, text string, n int, stream bool) {
	id := fmt.Sprintf("chatcmpl-mock-%d", n)
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
	if !stream {
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
			"usage":   usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	f, _ := w.(http.Flusher)
	ev := func(choice map[string]any, extra map[string]any) {
		data := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": []any{choice}}
		for k, v := range extra {
			data[k] = v
		}
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f != nil {
			f.Flush()
		}
	}
	ev(map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": text}, "finish_reason": nil}, nil)
	ev(map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}, map[string]any{"usage": usage})
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f != nil {
		f.Flush()
	}
}
