package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeEmbeddings is an OpenAI-compatible /embeddings endpoint whose reply
// each test scripts.
type fakeEmbeddings struct {
	calls atomic.Int32
	// reply answers one request; nil means a well-formed reply whose
	// vector i is filled with float(len(input i)).
	reply func(n int32, inputs []string, dims int, w http.ResponseWriter)
}

func (f *fakeEmbeddings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.calls.Add(1)
	if r.URL.Path != "/embeddings" || r.Method != http.MethodPost {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var req struct {
		Input      []string `json:"input"`
		Model      string   `json:"model"`
		Dimensions int      `json:"dimensions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if f.reply != nil {
		f.reply(n, req.Input, req.Dimensions, w)
		return
	}
	writeVectors(w, req.Input, req.Dimensions, false)
}

func writeVectors(w http.ResponseWriter, inputs []string, dims int, reversed bool) {
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	}
	data := make([]item, len(inputs))
	for i, in := range inputs {
		v := make([]float64, dims)
		for j := range v {
			v[j] = float64(len(in))
		}
		j := i
		if reversed {
			j = len(inputs) - 1 - i
		}
		data[j] = item{Object: "embedding", Index: i, Embedding: v}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "model": "m", "data": data,
		"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1},
	})
}

func newTestEmbedder(t *testing.T, f *fakeEmbeddings, cfg EmbedderConfig) *Embedder {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL
	cfg.APIKey = "test"
	e, err := NewEmbedder(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEmbedderBatchesInOrder(t *testing.T) {
	f := &fakeEmbeddings{reply: func(_ int32, inputs []string, dims int, w http.ResponseWriter) {
		writeVectors(w, inputs, dims, true) // data out of order: Index decides
	}}
	e := newTestEmbedder(t, f, EmbedderConfig{Dimensions: 8, BatchSize: 2})
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.calls.Load(); got != 3 {
		t.Errorf("requests = %d, want 3 batches of at most 2", got)
	}
	for i, v := range vecs {
		if len(v) != 8 || v[0] != float32(len(texts[i])) {
			t.Errorf("vector %d = %v, want 8 values of %d", i, v, len(texts[i]))
		}
	}
	if e.Name() != "openai:text-embedding-3-small:8" {
		t.Errorf("Name() = %q", e.Name())
	}
}

func TestEmbedderRetriesRateLimit(t *testing.T) {
	f := &fakeEmbeddings{reply: func(n int32, inputs []string, dims int, w http.ResponseWriter) {
		if n == 1 {
			w.Header().Set("Retry-After-Ms", "1")
			http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
			return
		}
		writeVectors(w, inputs, dims, false)
	}}
	e := newTestEmbedder(t, f, EmbedderConfig{Dimensions: 4})
	if _, err := e.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatalf("Embed after one 429: %v", err)
	}
	if f.calls.Load() != 2 {
		t.Fatalf("requests = %d, want 2 (one retry)", f.calls.Load())
	}
}

func TestEmbedderRejectsBadReplies(t *testing.T) {
	tests := []struct {
		name  string
		reply func(n int32, inputs []string, dims int, w http.ResponseWriter)
		want  string
	}{
		{"wrong width", func(_ int32, in []string, dims int, w http.ResponseWriter) { writeVectors(w, in, dims+1, false) }, "dimensions"},
		{"missing vectors", func(_ int32, in []string, dims int, w http.ResponseWriter) { writeVectors(w, in[:1], dims, false) }, "asked for 2 vectors"},
		{"server error", func(_ int32, _ []string, _ int, w http.ResponseWriter) {
			http.Error(w, `{"error":{"message":"boom"}}`, http.StatusBadRequest)
		}, "400"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEmbedder(t, &fakeEmbeddings{reply: tt.reply}, EmbedderConfig{Dimensions: 4})
			_, err := e.Embed(context.Background(), []string{"a", "b"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Embed error = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestEmbedderConfigValidation(t *testing.T) {
	for _, cfg := range []EmbedderConfig{{Dimensions: -1}, {BatchSize: 5000}, {MaxRetries: -2}} {
		if _, err := NewEmbedder(&cfg); err == nil {
			t.Errorf("NewEmbedder(%+v) accepted an invalid config", cfg)
		}
	}
}
