// Package planner turns a research question into a task graph: the
// evidence requirements the answer needs, each with a concrete completion
// condition, and the tool nodes that can satisfy them, with dependencies.
// A graph is validated before anything runs.
package planner

import (
	"encoding/json"

	"github.com/ledgerline/research/contract"
)

// RequirementKind says what kind of evidence a requirement needs.
type RequirementKind = contract.RequirementKind

// Requirement kinds.
const (
	KindFigure        = contract.KindFigure
	KindExplanation   = contract.KindExplanation
	KindOutlook       = contract.KindOutlook
	KindRisk          = contract.KindRisk
	KindCalculation   = contract.KindCalculation
	KindComparability = contract.KindComparability
)

// ConditionKind is how a requirement's completion is judged.
type ConditionKind = contract.ConditionKind

// Condition kinds.
const (
	CondPassage     = contract.CondPassage
	CondFact        = contract.CondFact
	CondCalculation = contract.CondCalculation
	CondComparable  = contract.CondComparable
	CondPrinted     = contract.CondPrinted
)

// Condition is a requirement's completion condition.
type Condition = contract.Condition

// Requirement is one piece of evidence the answer needs.
type Requirement = contract.Requirement

// Node is one tool call the graph plans.
type Node struct {
	ID        string          `json:"id"`
	Tool      string          `json:"tool"` // one of tools.Names()
	Args      json.RawMessage `json:"args"`
	Serves    []string        `json:"serves"`               // requirement ids
	DependsOn []string        `json:"depends_on,omitempty"` // node ids that must finish first
}

// Graph is a run's plan.
type Graph struct {
	Question     string        `json:"question"`
	Tickers      []string      `json:"tickers"`      // the issuers in scope
	FiscalYears  []int         `json:"fiscal_years"` // the fiscal years in scope; empty means any
	Requirements []Requirement `json:"requirements"`
	Nodes        []Node        `json:"nodes"`
	Planner      string        `json:"planner"` // "rules" or "model:<name>"
	Notes        []string      `json:"notes,omitempty"`
}
