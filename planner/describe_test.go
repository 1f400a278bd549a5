package planner

import (
	"strings"
	"testing"

	"github.com/ledgerline/research/validator"
)

// TestTermsDescribed: every term the planner puts in a condition for a
// kind of figure or sentence reads as words in a gap (the validator
// describes them by their spelling, which this holds to the planner's).
func TestTermsDescribed(t *testing.T) {
	t.Parallel()
	for _, term := range []string{FigureTerm, AmountTerm, ExpectedTerm, CountTerm, LevelTerm, NumberTerm + "warehouses", SubjectTerm + "azure"} {
		got := validator.DescribeCondition(Condition{Kind: CondPassage, AllOf: [][]string{{term}}})
		if strings.Contains(got, "#") {
			t.Errorf("term %q reads %q in a gap; want words", term, got)
		}
	}
}
