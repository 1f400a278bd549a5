package validator

import (
	"strings"
	"testing"

	"github.com/ledgerline/research/contract"
)

// TestDescribeConditionReadable: a passage condition's terms of kinds of
// figures read as words, and a long group of names is cut to its first
// terms with a count of the rest.
func TestDescribeConditionReadable(t *testing.T) {
	names := []string{"revenue", "revenues", "net revenue", "net revenues", "total revenue", "total revenues", "net sales", "total net sales", "sales", "total net revenue"}
	got := DescribeCondition(contract.Condition{Kind: contract.CondPassage, Issuer: "MSFT", Period: "FY2022", Topic: "Activision revenue",
		AllOf: [][]string{{"Activision"}, names, {"#level"}, {"#subject:Activision"}, {"#number:warehouses"}, {"#figure"}}})
	for _, want := range []string{"Activision; revenue / revenues", "… (2 more)", "an amount stated as a level, not a change", "Activision as what is stated, not a reason", "a number of warehouses", "a figure"} {
		if !strings.Contains(got, want) {
			t.Errorf("DescribeCondition = %q; want %q in it", got, want)
		}
	}
	if strings.Contains(got, "#") || strings.Contains(got, "total net revenue") {
		t.Errorf("DescribeCondition = %q; want no raw term and no name past the eighth", got)
	}
}
