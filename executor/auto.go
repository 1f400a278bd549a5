package executor

import (
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/planner"
)

// ModeAuto asks the engine to choose the path per question class: the
// planned, multi-step path (rules) where the evaluation shows it beats one
// fixed retrieval pass, and the fixed path (baseline) where it does not.
// It is resolved before the run is recorded; the result names the mode
// that ran.
const ModeAuto ledger.Mode = "auto"

// QuestionClass names the evaluation's task class a routed question falls
// in, as far as the router can tell before any call.
func QuestionClass(rt planner.Route) string {
	switch {
	case rt.Refused:
		return "refusal"
	case len(rt.Issuers) == 0:
		return "out_of_corpus"
	case rt.Causal != nil:
		return "trap"
	case len(rt.NotCovered) > 0:
		return "out_of_corpus"
	case len(rt.Issuers) >= 2:
		// Before outlook: a comparison asking whether something persists
		// is still a comparison, and the fixed path covers one issuer.
		return "comparison"
	case rt.Outlook:
		return "outlook"
	}
	if len(rt.Figures) > 0 || rt.AsksFigure {
		return "fact"
	}
	for _, name := range rt.Aspects {
		if a, ok := planner.AspectByName(name); ok && len(a.Metrics) > 0 {
			return "fact"
		}
	}
	return "explanation"
}

// autoModes is the path auto mode takes per class, from the layer-1
// evaluation in docs/evaluation.md (pass rate over the golden set, rules
// against baseline): rules wins facts (0.78 against 0.17), comparisons
// (0.64 against 0.00) and questions naming issuers outside the corpus
// (1.00 against 0.67); the fixed path wins explanations (0.85 against
// 0.69) and causal traps (0.57 against 0.29), ties outlook (0.86 each),
// and keeps the default where the two tie. Over the whole set auto mode
// passes 0.79, rules 0.77 and baseline 0.55. A question that names a
// figure of the catalogue is a fact question, whatever its aspect.
var autoModes = map[string]ledger.Mode{
	"fact":          ledger.ModeRules,
	"comparison":    ledger.ModeRules,
	"out_of_corpus": ledger.ModeRules,
	"explanation":   ledger.ModeBaseline,
	"outlook":       ledger.ModeBaseline,
	"trap":          ledger.ModeBaseline,
	"refusal":       ledger.ModeBaseline,
}

// AutoMode returns the mode auto mode runs a routed question in, and its
// class. Callers that record a run before it starts (a job queue) resolve
// auto mode with it, so the run's recorded mode is the one that runs.
func AutoMode(rt planner.Route) (ledger.Mode, string) {
	class := QuestionClass(rt)
	if m, ok := autoModes[class]; ok {
		return m, class
	}
	return ledger.ModeBaseline, class
}
