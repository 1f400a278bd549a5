package planner

import (
	"slices"
	"strings"
	"testing"
)

// A formula's operand closes with the issuer it is asked of ("total revenue
// for SHTX"), and the words before the definition may name only the form
// of the answer ("Give me a table:"): the operands are the figures' names,
// and the figure computed is named by its formula, not "table".
func TestFormulaOperandIssuerTail(t *testing.T) {
	cat := textFilingCatalog("Operating income", "Total revenue", "Provision for income taxes", "Cost of revenue")
	for _, tt := range []struct {
		question, topic string
	}{
		{"Give me a table: operating income divided by total revenue for SHTX (fiscal 2022).", "operating income divided by total revenue"},
		// "for" inside a row's name stays.
		{"SHTX FY22 tax burden: provision for income taxes divided by operating income?", "tax burden"},
		// The issuer's "for" after another "of" in the operand.
		{"Give me a table: cost of revenue for SHTX divided by total revenue for SHTX (fiscal 2022).", "cost of revenue divided by total revenue"},
	} {
		g := planOver(t, cat, tt.question)
		if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
			return r.Kind == KindCalculation && strings.EqualFold(r.Completion.Topic, tt.topic)
		}) {
			t.Errorf("%q: no calculation of %q\n%v", tt.question, tt.topic, g.Requirements)
		}
	}
}

// "Is it true that" asks whether a claim holds; "true" is no word a
// filing's passage must hold.
func TestTruthAskedIsNoTopic(t *testing.T) {
	words := QuestionWords("Is it true that SHTX's gross merchandise volume kept growing in 2022?", textFilingCatalog("Revenue"), []string{"SHTX"})
	if slices.Contains(words, "true") {
		t.Errorf("QuestionWords = %v, want no %q", words, "true")
	}
}
