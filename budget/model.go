package budget

import (
	"errors"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/configs"
)

// Prices is the price lookup ModelReservation needs; *configs.PriceTable
// implements it.
type Prices interface {
	Price(model string) (configs.PriceEntry, error)
}

// ModelReservation is the most a model call may use: one call,
// promptTokens of input (an estimate that must not fall short: Settle
// refuses more than was reserved) and maxTokens of output, at the model's
// price. A call without an output cap (maxTokens <= 0) returns
// ErrNoOutputCap; a model without a price returns the table's
// *configs.UnknownModelError, before any call is made.
func ModelReservation(prices Prices, model string, promptTokens, maxTokens int64) (Amounts, error) {
	if maxTokens <= 0 {
		return Amounts{}, fmt.Errorf("%w: model %q, max_tokens %d", ErrNoOutputCap, model, maxTokens)
	}
	if promptTokens < 0 {
		return Amounts{}, fmt.Errorf("budget: promptTokens %d is negative", promptTokens)
	}
	return ModelUsage(prices, model, promptTokens, maxTokens)
}

// ModelUsage is what a model call used, priced: the amounts to settle it
// with, from the token counts the provider reported.
func ModelUsage(prices Prices, model string, inputTokens, outputTokens int64) (Amounts, error) {
	if inputTokens < 0 || outputTokens < 0 {
		return Amounts{}, fmt.Errorf("budget: model %q: negative token count (%d in, %d out)", model, inputTokens, outputTokens)
	}
	if prices == nil {
		return Amounts{}, &configs.UnknownModelError{Model: model}
	}
	p, err := prices.Price(model)
	if err != nil {
		return Amounts{}, err
	}
	return Amounts{
		ModelCalls:   1,
		InputTokens:  inputTokens,
		OutputTokens: outputTokens,
		SpendUSD:     p.Cost(inputTokens, outputTokens),
	}, nil
}

// CheckModels is the preflight of a run: with a spend limit, every model
// the run may call must have a price, so that no call is ever free by
// accident. Without a spend limit it accepts any model.
func CheckModels(limits Limits, prices Prices, models ...string) error {
	if !limits.Limited(SpendUSD) {
		return nil
	}
	var errs []error
	for _, m := range models {
		if prices == nil {
			errs = append(errs, &configs.UnknownModelError{Model: m})
			continue
		}
		if _, err := prices.Price(m); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ToolKind is a kind of tool call, each counted in its own dimension.
type ToolKind string

// The tool kinds.
const (
	ToolSearch    ToolKind = "search"
	ToolRead      ToolKind = "read"
	ToolFact      ToolKind = "fact"
	ToolCalculate ToolKind = "calculate"
)

// ToolReservation is one call of a tool of kind k that may return up to
// candidates retrieval candidates.
func ToolReservation(k ToolKind, candidates int64) (Amounts, error) {
	if candidates < 0 {
		return Amounts{}, &NegativeAmountError{Dimension: Candidates, Value: decimal.NewFromInt(candidates)}
	}
	a := Amounts{Candidates: candidates}
	switch k {
	case ToolSearch:
		a.SearchCalls = 1
	case ToolRead:
		a.ReadCalls = 1
	case ToolFact:
		a.FactCalls = 1
	case ToolCalculate:
		a.CalculateCalls = 1
	default:
		return Amounts{}, fmt.Errorf("budget: tool kind %q: want search, read, fact or calculate", k)
	}
	return a, nil
}
