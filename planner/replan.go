package planner

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/tools"
)

// Replan returns nodes to add for the required requirements of unmet that
// are still unmet after their nodes ran (round counts from 1), or none
// when it has nothing new to try. Optional requirements are left alone.
//
// For a passage requirement it widens the search that served it: first the
// same query without its section filter and with more results, then the
// aspect's alternate queries, then the condition's own words, then any
// form of the year. For a fact requirement it looks the fact up by each of
// its concepts in turn, then by its metric's label — unless a lookup by
// that label (which tries every concept of the metric) ran already. It never repeats a search already in the graph
// (compared by ledger.QueryKey over the query and its filters) nor a
// lookup, so the caller must append the nodes it returns to g.Nodes before
// the next round; a round then tries the next alternative, and once they
// are spent Replan returns none. Node ids are "r<round>-n1", "r<round>-n2",
// ..., unique in the graph. A calculation or comparison is not re-planned:
// it is met once the requirements it builds on are.
func Replan(g *Graph, unmet []Requirement, round int) []Node {
	if g == nil {
		return nil
	}
	ids := map[string]bool{}
	used := map[string]bool{}
	for _, n := range g.Nodes {
		ids[n.ID] = true
		if k, ok := nodeKey(n); ok {
			used[k] = true
		}
	}
	var out []Node
	seq := 0
	newID := func() string {
		for {
			seq++
			id := fmt.Sprintf("r%d-n%d", round, seq)
			if !ids[id] {
				ids[id] = true
				return id
			}
		}
	}
	planned := map[string]bool{}
	for _, r := range unmet {
		if !r.Required || planned[r.ID] {
			continue
		}
		planned[r.ID] = true
		var n Node
		var ok bool
		switch r.Completion.Kind {
		case CondPassage:
			n, ok = nextSearch(g, r, used)
		case CondFact:
			n, ok = nextLookup(g, r, used)
		}
		if !ok {
			continue
		}
		k, _ := nodeKey(n)
		used[k] = true
		n.ID = newID()
		n.Serves = []string{r.ID}
		out = append(out, n)
	}
	return out
}

// nodeKey identifies what a search or lookup node asks, for "not again".
func nodeKey(n Node) (string, bool) {
	switch n.Tool {
	case tools.SearchFilings:
		var a tools.SearchArgs
		if json.Unmarshal(n.Args, &a) != nil {
			return "", false
		}
		return searchKey(a), true
	case tools.LookupFact:
		var a tools.LookupFactArgs
		if json.Unmarshal(n.Args, &a) != nil {
			return "", false
		}
		return lookupKey(a), true
	}
	return "", false
}

// searchKey is ledger.QueryKey over a search's query and filters (the
// number of results is not a filter).
func searchKey(a tools.SearchArgs) string {
	tickers := slices.Sorted(slices.Values(a.Tickers))
	years := make([]string, 0, len(a.FiscalYears))
	for _, y := range slices.Sorted(slices.Values(a.FiscalYears)) {
		years = append(years, strconv.Itoa(y))
	}
	section := a.Section
	if s, ok := normalizeSectionArg(section); ok {
		section = s
	}
	return "search|" + ledger.QueryKey(a.Query, map[string]string{
		"tickers":      strings.Join(tickers, ","),
		"form":         strings.ToUpper(a.Form),
		"fiscal_years": strings.Join(years, ","),
		"section":      section,
	})
}

func lookupKey(a tools.LookupFactArgs) string {
	concept := a.Concept
	if concept != "" {
		concept = localName(concept)
	}
	return "lookup|" + strings.ToUpper(a.Ticker) + "|" + concept + "|" + strings.ToLower(strings.TrimSpace(a.Label)) + "|" + a.Period
}

func normalizeSectionArg(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	return corpus.NormalizeSection(s)
}

// servingNodes returns the nodes of g that serve the requirement id with
// the given tool.
func servingNodes(g *Graph, id, tool string) []Node {
	var out []Node
	for _, n := range g.Nodes {
		if n.Tool == tool && slices.Contains(n.Serves, id) {
			out = append(out, n)
		}
	}
	return out
}

// nextSearch returns the first search for a passage requirement that the
// graph has not run yet.
func nextSearch(g *Graph, r Requirement, used map[string]bool) (Node, bool) {
	c := r.Completion
	issuer := cmpOr(c.Issuer, r.Issuer)
	period := cmpOr(c.Period, r.Period)
	var base tools.SearchArgs
	if ns := servingNodes(g, r.ID, tools.SearchFilings); len(ns) > 0 {
		_ = json.Unmarshal(ns[0].Args, &base)
	}
	if base.Query == "" {
		base.Query = groupWords(c.AllOf, 2)
	}
	if len(base.Tickers) == 0 && issuer != "" {
		base.Tickers = []string{issuer}
	}
	if len(base.FiscalYears) == 0 {
		if fy, ok := FiscalYearOf(period); ok {
			base.FiscalYears = []int{fy}
		}
	}
	wide := base.K * 2
	if wide < 12 {
		wide = 12
	}
	if wide > 20 {
		wide = 20
	}
	var candidates []tools.SearchArgs
	with := func(query, form string) tools.SearchArgs {
		a := base
		a.Query, a.Form, a.Section, a.K = query, form, "", wide
		return a
	}
	candidates = append(candidates, with(base.Query, base.Form))
	a, _ := AspectByName(r.Aspect)
	for _, q := range a.AltQueries {
		candidates = append(candidates, with(q, base.Form))
	}
	if q := groupWords(c.AllOf, 2); q != "" {
		candidates = append(candidates, with(q, base.Form))
	}
	if a.Query != "" {
		candidates = append(candidates, with(a.Query, base.Form))
	}
	if base.Form != "" {
		candidates = append(candidates, with(base.Query, ""))
		if q := groupWords(c.AllOf, 2); q != "" {
			candidates = append(candidates, with(q, ""))
		}
	}
	for _, cand := range candidates {
		if strings.TrimSpace(cand.Query) == "" || used[searchKey(cand)] {
			continue
		}
		raw, err := json.Marshal(cand)
		if err != nil {
			continue
		}
		return Node{Tool: tools.SearchFilings, Args: raw}, true
	}
	return Node{}, false
}

// groupWords joins the first n words of each group, for a search made from
// a condition.
func groupWords(groups [][]string, n int) string {
	var words []string
	for _, g := range groups {
		k := 0
		for _, w := range g {
			if IsNumberTerm(w) || k == n {
				continue
			}
			words = appendNew(words, w)
			k++
		}
	}
	return strings.Join(words, " ")
}

// nextLookup returns the first lookup of a fact requirement's concepts that
// the graph has not made yet.
func nextLookup(g *Graph, r Requirement, used map[string]bool) (Node, bool) {
	c := r.Completion
	issuer := cmpOr(c.Issuer, r.Issuer)
	period := cmpOr(c.Period, r.Period)
	if issuer == "" {
		return Node{}, false
	}
	metric, hasMetric := metricOfConcept(firstOr(c.Concepts))
	// A lookup by the metric's label tried every concept of the metric
	// already: looking them up one by one would find nothing new.
	for _, n := range servingNodes(g, r.ID, tools.LookupFact) {
		var a tools.LookupFactArgs
		if json.Unmarshal(n.Args, &a) != nil || a.Label == "" || a.Period != period {
			continue
		}
		if m, ok := tools.MetricForLabel(a.Label); ok && hasMetric && m.Name == metric.Name && coversConcepts(m, c.Concepts) {
			return Node{}, false
		}
	}
	// The column the plan asked of a quarterly report (its quarter, or
	// its year to date) is the one asked again.
	var quarter, yearToDate bool
	for _, n := range servingNodes(g, r.ID, tools.LookupFact) {
		var a tools.LookupFactArgs
		if json.Unmarshal(n.Args, &a) == nil {
			quarter, yearToDate = quarter || a.Quarter, yearToDate || a.YearToDate
		}
	}
	candidates := make([]tools.LookupFactArgs, 0, len(c.Concepts)+1)
	for _, concept := range c.Concepts {
		candidates = append(candidates, tools.LookupFactArgs{Ticker: issuer, Concept: concept, Period: period, Quarter: quarter, YearToDate: yearToDate})
	}
	if hasMetric {
		candidates = append(candidates, tools.LookupFactArgs{Ticker: issuer, Label: metric.Name, Period: period, Quarter: quarter, YearToDate: yearToDate})
	}
	for _, cand := range candidates {
		if used[lookupKey(cand)] {
			continue
		}
		raw, err := json.Marshal(cand)
		if err != nil {
			continue
		}
		return Node{Tool: tools.LookupFact, Args: raw}, true
	}
	return Node{}, false
}

// coversConcepts reports whether a lookup of metric m tries every concept.
func coversConcepts(m tools.Metric, concepts []string) bool {
	for _, c := range concepts {
		if !slices.ContainsFunc(m.Concepts, func(mc string) bool { return localName(mc) == localName(c) }) {
			return false
		}
	}
	return true
}

func firstOr(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
