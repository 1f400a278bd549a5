// Package validator checks an answer against the run's ledger and decides
// its terminal status. The same checks apply to the rules and the model
// synthesizer.
package validator

import "github.com/ledgerline/research/contract"

// Citation is one cited piece of evidence.
type Citation = contract.Citation

// Gap is something the answer needed and could not support.
type Gap = contract.Gap

// Answer is a synthesizer's answer, and after Validate the validated one.
type Answer = contract.Answer
