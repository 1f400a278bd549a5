package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3"
)

// EmbedderConfig configures an OpenAI-compatible embedder.
type EmbedderConfig struct {
	BaseURL    string       // "" means the OPENAI_BASE_URL environment variable, else OpenAI's API
	APIKey     string       // "" means OPENAI_API_KEY; a local server may need none
	Model      string       // "" means "text-embedding-3-small"
	Dimensions int          // 0 means 384, which fits a local bge-small server
	BatchSize  int          // texts per request; 0 means 128
	MaxRetries int          // retries of 429 and 5xx answers; 0 means 2
	HTTPClient *http.Client // nil means the client's default
}

func (c *EmbedderConfig) withDefaults() EmbedderConfig {
	out := EmbedderConfig{}
	if c != nil {
		out = *c
	}
	if out.Model == "" {
		out.Model = "text-embedding-3-small"
	}
	if out.Dimensions == 0 {
		out.Dimensions = 384
	}
	if out.BatchSize == 0 {
		out.BatchSize = 128
	}
	if out.MaxRetries == 0 {
		out.MaxRetries = 2
	}
	return out
}

func (c *EmbedderConfig) validate() error {
	switch {
	case c.Dimensions < 0:
		return errors.New("llm: EmbedderConfig.Dimensions is negative")
	case c.BatchSize < 0 || c.BatchSize > 2048:
		return errors.New("llm: EmbedderConfig.BatchSize must be between 1 and 2048")
	case c.MaxRetries < 0:
		return errors.New("llm: EmbedderConfig.MaxRetries is negative")
	}
	return nil
}

// Embedder embeds texts through an OpenAI-compatible /embeddings endpoint.
type Embedder struct {
	client openai.Client
	cfg    EmbedderConfig
}

// NewEmbedder returns an embedder for cfg (nil means defaults).
func NewEmbedder(cfg *EmbedderConfig) (*Embedder, error) {
	if cfg != nil {
		if err := cfg.validate(); err != nil {
			return nil, err
		}
	}
	c := cfg.withDefaults()
	return &Embedder{client: newOpenAI(c.BaseURL, c.APIKey, c.HTTPClient, c.MaxRetries), cfg: c}, nil
}

// Name identifies the model and width, e.g. "openai:text-embedding-3-small:384".
func (e *Embedder) Name() string {
	return fmt.Sprintf("openai:%s:%d", e.cfg.Model, e.cfg.Dimensions)
}

// Dimensions returns the width of the vectors.
func (e *Embedder) Dimensions() int { return e.cfg.Dimensions }

// Embed embeds texts in batches, in order. It fails when the endpoint
// returns vectors of another width than configured, or a count that does
// not match the request, rather than storing vectors that cannot be compared.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for lo := 0; lo < len(texts); lo += e.cfg.BatchSize {
		hi := min(lo+e.cfg.BatchSize, len(texts))
		batch := make([]string, hi-lo)
		for i, t := range texts[lo:hi] {
			if t == "" {
				t = " " // the API rejects empty strings
			}
			batch[i] = t
		}
		resp, err := e.client.Embeddings.New(ctx, openai.EmbeddingNewParams{
			Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: batch},
			Model:          openai.EmbeddingModel(e.cfg.Model),
			Dimensions:     openai.Int(int64(e.cfg.Dimensions)),
			EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
		})
		if err != nil {
			return nil, fmt.Errorf("llm: embeddings from %s: %w", e.cfg.Model, err)
		}
		if len(resp.Data) != len(batch) {
			return nil, fmt.Errorf("llm: embeddings: asked for %d vectors, got %d", len(batch), len(resp.Data))
		}
		for _, d := range resp.Data {
			if d.Index < 0 || int(d.Index) >= len(batch) {
				return nil, fmt.Errorf("llm: embeddings: vector index %d out of range", d.Index)
			}
			if len(d.Embedding) != e.cfg.Dimensions {
				return nil, fmt.Errorf("llm: embeddings: model %s returned %d dimensions, configured %d", e.cfg.Model, len(d.Embedding), e.cfg.Dimensions)
			}
			v := make([]float32, len(d.Embedding))
			for i, x := range d.Embedding {
				v[i] = float32(x)
			}
			out[lo+int(d.Index)] = v
		}
		for i := lo; i < hi; i++ {
			if out[i] == nil {
				return nil, fmt.Errorf("llm: embeddings: no vector for input %d", i)
			}
		}
	}
	return out, nil
}
