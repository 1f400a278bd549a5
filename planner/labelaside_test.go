package planner

import (
	"slices"
	"strings"
	"testing"
)

// A label that prints a word in parentheses and closes with ", net"
// ("Other income (expense), net") is named as a question writes it
// ("other income (expense)"), and of two rows holding the same words the
// one in the question's order is looked up, not the cash flow
// statement's "Other expense (income), net", whose sign is the other way.
func TestLabelWithParenthesisAndNet(t *testing.T) {
	cat := textFilingCatalog("Other expense (income), net", "Net sales", "Other income (expense), net", "Operating income")
	g := planOver(t, cat, "SHTX FY22: other income (expense) swung to a loss. How big was it?")
	if !slices.ContainsFunc(g.Nodes, func(n Node) bool {
		return strings.Contains(string(n.Args), "Other income (expense), net")
	}) {
		t.Errorf("no lookup of the row \"Other income (expense), net\":\n%v\n%v", g.Requirements, g.Nodes)
	}
	if slices.ContainsFunc(g.Nodes, func(n Node) bool {
		return strings.Contains(string(n.Args), "Other expense (income), net")
	}) {
		t.Errorf("the cash flow statement's row looked up:\n%v", g.Nodes)
	}
}
