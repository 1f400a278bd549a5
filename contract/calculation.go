package contract

import (
	"maps"

	"github.com/shopspring/decimal"
)

// Calculation is an expression evaluated over facts the run's ledger
// holds, with the facts it read and its exact result.
type Calculation struct {
	Expression string            `json:"expression"`
	Inputs     map[string]string `json:"inputs"` // name -> ledger fact id
	Values     map[string]string `json:"values"` // name -> the fact's value, exactly
	Result     decimal.Decimal   `json:"result"`
}

// Clone returns a copy of c whose Inputs and Values maps are its own
// (never nil), so that the copy may be changed without changing c.
func (c Calculation) Clone() Calculation {
	out := c
	out.Inputs = make(map[string]string, len(c.Inputs))
	maps.Copy(out.Inputs, c.Inputs)
	out.Values = make(map[string]string, len(c.Values))
	maps.Copy(out.Values, c.Values)
	return out
}
