package executor

import (
	"fmt"

	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/planner"
)

// ModeAuto asks the engine to choose the path. With a model configured
// (Config.Model), every question the router does not refuse runs in model
// mode: the model plans and writes, and the rules planner and synthesizer
// stand in, saying so, where it fails. Without one, the choice is per
// question class between the offline paths: the planned, multi-step path
// (rules) where the evaluation shows it beats one fixed retrieval pass,
// and the fixed path (baseline) where it does not. It is resolved before
// the run is recorded; the result names the mode that ran, the class and
// that auto mode chose it.
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

// autoModes is the path auto mode takes per class, chosen on the tuning
// half of the golden set only (eval/golden_split.json; the test half and
// its paraphrases are reported, never tuned to: docs/evaluation.md). On
// the tuning half rules mode wins facts (10/12 against 3/12), comparisons
// (5/6 against 0/6), causal traps (4/4 against 3/4, since a causal link
// must be a sentence that states it) and questions naming issuers outside
// the corpus (3/3 against 2/3); outlook ties (4/4 each) and keeps the
// fixed path. The fixed path first won explanations (6/7 against 5/7);
// once explanations were ranked by what they explain, rules mode won them
// on the tuning half (7/7 against 6/7) and on the even (tuning) ids of the
// two blind sets (6/7 against 3/7), where the fixed path then still won
// outlook (2/5 against 0/5). Once the plan searched for what a figure is
// expected to be in the filing's own label and for the year the guidance is
// for, and ranked a guidance sentence's numbers and year first, rules mode
// won outlook on the even (tuning) ids of the five blind sets (8/12 against
// 5/12) and tied on the golden set's tuning half (4/4 each). A question
// that names a figure of the catalogue is a fact question, whatever its
// aspect.
var autoModes = map[string]ledger.Mode{
	"fact":          ledger.ModeRules,
	"comparison":    ledger.ModeRules,
	"out_of_corpus": ledger.ModeRules,
	"explanation":   ledger.ModeRules,
	"outlook":       ledger.ModeRules,
	"trap":          ledger.ModeRules,
	"refusal":       ledger.ModeBaseline,
}

// AutoMode returns the mode auto mode runs a routed question in when no
// model is configured, and its class: the per-class table above. Callers
// with an engine use (*Engine).AutoMode, which knows whether it has a
// model; callers that record a run for another process to execute (a job
// queue) use AutoModeFor with what they know of that process.
func AutoMode(rt planner.Route) (ledger.Mode, string) {
	return AutoModeFor(rt, false)
}

// AutoModeFor returns the mode auto mode runs a routed question in, and
// its class, for an engine that has a model configured (withModel) or
// not. With a model every class runs in model mode but refusal: a refused
// question is refused before any path, and is recorded in the offline
// table's mode.
func AutoModeFor(rt planner.Route, withModel bool) (ledger.Mode, string) {
	class := QuestionClass(rt)
	if withModel && class != "refusal" {
		return ledger.ModeModel, class
	}
	if m, ok := autoModes[class]; ok {
		return m, class
	}
	return ledger.ModeBaseline, class
}

// AutoMode returns the mode auto mode runs a routed question in on this
// engine, and its class: model mode when the engine has a model
// configured, the per-class choice of the offline paths otherwise.
func (e *Engine) AutoMode(rt planner.Route) (ledger.Mode, string) {
	return AutoModeFor(rt, e.cfg.Model != nil)
}

// autoNote says why auto mode chose mode for a question of class.
func (e *Engine) autoNote(class string, mode ledger.Mode) string {
	if mode == ledger.ModeModel {
		return fmt.Sprintf("auto mode: a model is configured (%s), so a question of class %s runs in model mode; the rules planner and synthesizer stand in where the model fails", e.cfg.Model.Model, class)
	}
	if class == "refusal" {
		return fmt.Sprintf("auto mode: the question is refused before any path (recorded in %s mode)", mode)
	}
	return fmt.Sprintf("auto mode: no model is configured, so a question of class %s runs in %s mode, the offline path the evaluation found better for it (docs/evaluation.md)", class, mode)
}
