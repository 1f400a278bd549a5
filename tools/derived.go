package tools

import "strings"

// Derived is a figure computed from reported ones: a formula over metric
// names that calculate recomputes from the facts it cites.
type Derived struct {
	Name    string   // "operating_margin"
	Label   string   // how an answer names it
	Aliases []string // lower-case phrases a question uses for it
	// Expression is over metric names; a name ending in "_prior" is the
	// metric a fiscal year earlier.
	Expression string
	Ratio      bool // a ratio, shown as a percentage
}

// DerivedMetrics is the catalogue of derived figures.
var DerivedMetrics = []Derived{
	{Name: "gross_margin", Label: "gross margin", Ratio: true, Expression: "(revenue - cost_of_revenue) / revenue",
		Aliases: []string{"gross margin percentage", "gross margin rate", "gross profit margin"}},
	{Name: "operating_margin", Label: "operating margin", Ratio: true, Expression: "operating_income / revenue",
		Aliases: []string{"operating margin", "operating profit margin", "operating income margin", "ebit margin", "operating margins", "op margin", "op margins"}},
	{Name: "net_margin", Label: "net margin", Ratio: true, Expression: "net_income / revenue",
		Aliases: []string{"net margin", "net profit margin", "net income margin", "profit margin", "net margins"}},
	{Name: "rd_intensity", Label: "R&D as a percentage of revenue", Ratio: true, Expression: "rd_expense / revenue",
		Aliases: []string{"r&d as a percentage of revenue", "r&d as a share of revenue", "r&d intensity", "r&d to revenue",
			"research and development as a percentage of revenue", "r&d as a percent of revenue", "r&d as % of revenue",
			"r&d as a percentage of sales", "research and development intensity", "r&d-to-revenue", "r&d as a proportion of revenue"}},
	{Name: "sga_intensity", Label: "SG&A as a percentage of revenue", Ratio: true, Expression: "sga_expense / revenue",
		Aliases: []string{"sg&a as a percentage of revenue", "sg&a as a share of revenue", "sg&a to revenue", "sg&a intensity",
			"sg&a as a percent of revenue", "sg&a as % of revenue", "sg&a as a percentage of sales"}},
	{Name: "capex_intensity", Label: "capital expenditures as a percentage of revenue", Ratio: true, Expression: "capex / revenue",
		Aliases: []string{"capex as a percentage of revenue", "capex as a share of revenue", "capex intensity", "capex to revenue",
			"capital expenditure intensity", "capital intensity", "capex as a percent of revenue", "capex as % of revenue",
			"capital expenditures as a percentage of revenue", "capex-to-revenue", "capex as a percentage of sales"}},
	{Name: "free_cash_flow", Label: "free cash flow", Expression: "operating_cash_flow - capex",
		Aliases: []string{"free cash flow", "fcf", "free cash-flow"}},
	{Name: "free_cash_flow_margin", Label: "free cash flow margin", Ratio: true, Expression: "(operating_cash_flow - capex) / revenue",
		Aliases: []string{"free cash flow margin", "fcf margin", "free cash flow as a percentage of revenue", "fcf as a percentage of revenue",
			"fcf as a share of revenue", "fcf as % of revenue", "fcf to revenue", "free cash flow to revenue", "fcf margins"}},
	{Name: "effective_tax_rate", Label: "effective tax rate", Ratio: true, Expression: "income_tax / pretax_income",
		Aliases: []string{"effective tax rate", "effective income tax rate", "tax rate", "etr"}},
	{Name: "revenue_growth", Label: "revenue growth", Ratio: true, Expression: "(revenue - revenue_prior) / revenue_prior",
		Aliases: []string{"revenue growth", "sales growth", "top-line growth", "growth in revenue", "growth in sales", "revenue growth rate", "yoy revenue growth"}},
}

// Identities are reported figures an income statement may print no row
// for, and still reports through its own arithmetic: a statement that
// lists each operating expense and no total ("Research and development",
// "Sales and marketing", "General and administrative", then "Operating
// income") reports its operating expenses as revenue less cost of revenue
// (its gross profit, whatever it calls that row) less operating income.
// Each is named as the metric it stands for.
var Identities = []Derived{
	{Name: "operating_expenses", Label: "operating expenses", Expression: "revenue - cost_of_revenue - operating_income"},
}

// IdentityFor returns the identity that computes the reported metric
// called name, or false.
func IdentityFor(name string) (Derived, bool) {
	for _, d := range Identities {
		if d.Name == name {
			return d, true
		}
	}
	return Derived{}, false
}

// ToRevenue is the suffix of a derived name that is a reported metric as
// a share of revenue: "capex_to_revenue".
const ToRevenue = "_to_revenue"

// DerivedByName returns the derived metric called name, or false. Besides
// the catalogue, any reported metric as a share of revenue is one:
// "sbc_to_revenue" is stock-based compensation / revenue.
func DerivedByName(name string) (Derived, bool) {
	for _, d := range DerivedMetrics {
		if d.Name == name {
			return d, true
		}
	}
	if base, ok := strings.CutSuffix(name, ToRevenue); ok && base != "revenue" {
		if m, ok := MetricByName(base); ok {
			return Derived{Name: name, Label: m.Label + " as a percentage of revenue", Expression: base + " / revenue", Ratio: true}, true
		}
	}
	return Derived{}, false
}

// Inputs returns the metric names the expression uses, in order of first
// use; a "_prior" name is listed as it is written.
func (d Derived) Inputs() []string {
	tree, err := parseExpr(d.Expression)
	if err != nil { // the catalogue's expressions parse; a test holds it
		return nil
	}
	return tree.names()
}
