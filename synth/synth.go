// Package synth writes a run's answer from what its ledger holds: plain
// text with [n] markers whose citations point at ledger evidence and carry
// verbatim excerpts of it. Rules is the extractive synthesizer of rules
// mode; a model synthesizer answers from the same Input. Either answer is
// checked by package validator, which decides the run's status.
package synth

import (
	"context"

	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/planner"
	"github.com/ledgerline/research/tools"
	"github.com/ledgerline/research/validator"
)

// Input is what a synthesizer answers from: the plan and everything the run
// recorded.
type Input struct {
	Question     string
	Route        planner.Route
	Graph        *planner.Graph
	Catalog      *planner.Catalog
	Ledger       *ledger.RunLedger
	Met          map[string]bool               // requirement id -> its completion condition is met
	Calculations map[string]*tools.Calculation // requirement id -> what calculate computed for it
	Gaps         []validator.Gap               // gaps the executor recorded
}

// Synthesizer writes an answer from a run's input. The answer's status is
// a proposal: the validator decides the final one.
type Synthesizer interface {
	Synthesize(ctx context.Context, in *Input) (*validator.Answer, error)
}

// SynthesizerFunc adapts a function to Synthesizer.
type SynthesizerFunc func(ctx context.Context, in *Input) (*validator.Answer, error)

// Synthesize calls f.
func (f SynthesizerFunc) Synthesize(ctx context.Context, in *Input) (*validator.Answer, error) {
	return f(ctx, in)
}
