package configs

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
)

//go:embed prices.json
var pricesJSON []byte

// million is the number of tokens a price is quoted for.
var million = decimal.NewFromInt(1_000_000)

// PriceEntry is one model's price: USD per million input (prompt) tokens and
// per million output (completion) tokens.
type PriceEntry struct {
	// Model is the name the table knows the model by.
	Model string
	// InputPerMillion is the USD price of a million input tokens.
	InputPerMillion decimal.Decimal
	// OutputPerMillion is the USD price of a million output tokens.
	OutputPerMillion decimal.Decimal
}

// Cost is the exact USD cost of a call that used the given tokens.
func (p PriceEntry) Cost(inputTokens, outputTokens int64) decimal.Decimal {
	in := p.InputPerMillion.Mul(decimal.NewFromInt(inputTokens))
	out := p.OutputPerMillion.Mul(decimal.NewFromInt(outputTokens))
	return in.Add(out).Div(million)
}

// PriceTable maps model names to prices. It is read-only once loaded and
// safe for concurrent use.
type PriceTable struct {
	entries map[string]PriceEntry
}

// UnknownModelError is returned for a model the price table does not list.
// It matches ErrUnknownModel under errors.Is.
type UnknownModelError struct {
	Model string
}

// ErrUnknownModel is the sentinel an *UnknownModelError matches.
var ErrUnknownModel = errors.New("configs: model has no price")

// Error names the model.
func (e *UnknownModelError) Error() string {
	return fmt.Sprintf("configs: model %q has no price in the price table", e.Model)
}

// Is reports whether target is ErrUnknownModel.
func (e *UnknownModelError) Is(target error) bool { return target == ErrUnknownModel }

// Price returns the price of model, matched exactly after trimming spaces,
// or an *UnknownModelError.
func (t *PriceTable) Price(model string) (PriceEntry, error) {
	if t != nil {
		if p, ok := t.entries[strings.TrimSpace(model)]; ok {
			return p, nil
		}
	}
	return PriceEntry{}, &UnknownModelError{Model: model}
}

// Models returns the priced model names, sorted.
func (t *PriceTable) Models() []string {
	if t == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(t.entries))
}

// priceFile is the JSON shape of a price table.
type priceFile struct {
	Currency string `json:"currency"`
	Models   map[string]struct {
		Input  *string `json:"input"`
		Output *string `json:"output"`
	} `json:"models"`
}

// LoadPrices reads a price table in the shape of the embedded prices.json:
// {"currency": "USD", "models": {"NAME": {"input": "0.15", "output": "0.60"}}},
// prices in USD per million tokens as decimal strings. Every model needs
// both prices, non-negative; unknown fields are errors, so a typo cannot
// silently drop a price.
func LoadPrices(r io.Reader) (*PriceTable, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f struct {
		priceFile
		Unit string `json:"unit"`
		AsOf string `json:"as_of"`
	}
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("configs: price table: %w", err)
	}
	if f.Currency != "" && f.Currency != "USD" {
		return nil, fmt.Errorf("configs: price table: currency %q: want USD", f.Currency)
	}
	if len(f.Models) == 0 {
		return nil, errors.New("configs: price table: models: none listed")
	}
	t := &PriceTable{entries: make(map[string]PriceEntry, len(f.Models))}
	for name, m := range f.Models {
		if strings.TrimSpace(name) != name || name == "" {
			return nil, fmt.Errorf("configs: price table: model name %q: want a non-empty name without surrounding spaces", name)
		}
		in, err := parsePrice(name, "input", m.Input)
		if err != nil {
			return nil, err
		}
		out, err := parsePrice(name, "output", m.Output)
		if err != nil {
			return nil, err
		}
		t.entries[name] = PriceEntry{Model: name, InputPerMillion: in, OutputPerMillion: out}
	}
	return t, nil
}

func parsePrice(model, field string, s *string) (decimal.Decimal, error) {
	if s == nil {
		return decimal.Decimal{}, fmt.Errorf("configs: price table: models.%s.%s: missing", model, field)
	}
	d, err := decimal.NewFromString(*s)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("configs: price table: models.%s.%s: %q is not a decimal", model, field, *s)
	}
	if d.IsNegative() {
		return decimal.Decimal{}, fmt.Errorf("configs: price table: models.%s.%s: %s is negative", model, field, *s)
	}
	return d, nil
}

// Prices returns the price table embedded in the binary (prices.json). It
// panics if that file is malformed, a programmer error the tests catch.
func Prices() *PriceTable {
	t, err := LoadPrices(bytes.NewReader(pricesJSON))
	if err != nil {
		panic(err)
	}
	return t
}
