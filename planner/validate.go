package planner

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/tools"
)

// DefaultMaxNodes bounds a graph's size when Limits.MaxNodes is 0.
const DefaultMaxNodes = 64

// Limits bound a graph.
type Limits struct {
	MaxNodes int // most nodes a graph may have; 0 means DefaultMaxNodes
}

func (l Limits) maxNodes() int {
	if l.MaxNodes <= 0 {
		return DefaultMaxNodes
	}
	return l.MaxNodes
}

// PlanError is one problem of a graph: Path names the part
// ("nodes[3].args", "requirements[0].completion.all_of") and Msg says what
// is wrong and what to do about it.
type PlanError struct {
	Path string
	Msg  string
	Err  error // the underlying error, when there is one (a tools.ArgError)
}

// Error implements error: "nodes[3].args: ...".
func (e *PlanError) Error() string { return e.Path + ": " + e.Msg }

// Unwrap returns the underlying error, so errors.Is(err, tools.ErrOutOfScope)
// tells a scope violation.
func (e *PlanError) Unwrap() error { return e.Err }

var periodPattern = regexp.MustCompile(`^FY\d{4}$`)

// Validate checks a graph before anything runs and returns every problem
// it finds, joined (errors.Join of *PlanError values): unique requirement
// and node ids; at most lim.MaxNodes nodes; known tools whose arguments
// pass tools.CheckArgs against the graph's scope (its Tickers and
// FiscalYears); dependencies that exist, are not the node itself and form
// no cycle; served requirements that exist; every required requirement
// served by a node; complete conditions (a passage names its issuer and
// word groups, a fact its issuer and concepts, a calculation or comparison
// the requirements it builds on); issuers and periods within the scope.
func Validate(g *Graph, lim Limits) error {
	if g == nil {
		return &PlanError{Path: "graph", Msg: "no graph"}
	}
	var errs []error
	add := func(path, format string, a ...any) {
		errs = append(errs, &PlanError{Path: path, Msg: fmt.Sprintf(format, a...)})
	}

	tickers := map[string]bool{}
	for i, t := range g.Tickers {
		if !corpus.ValidTicker(t) {
			add(fmt.Sprintf("tickers[%d]", i), "%q is not an upper-case ticker", t)
		}
		tickers[t] = true
	}
	if len(g.Nodes) > 0 && len(g.Tickers) == 0 {
		add("tickers", "empty: a graph with nodes needs the issuers it may read")
	}
	years := map[int]bool{}
	for i, y := range g.FiscalYears {
		if y < 1993 || y > 2100 {
			add(fmt.Sprintf("fiscal_years[%d]", i), "%d is not a fiscal year (1993-2100)", y)
		}
		years[y] = true
	}
	inScope := func(path, issuer string) {
		if issuer != "" && !tickers[issuer] {
			add(path, "issuer %q is not one of the graph's tickers %v", issuer, g.Tickers)
		}
	}
	checkPeriod := func(path, period string) {
		if period == "" {
			return
		}
		if !periodPattern.MatchString(period) {
			add(path, "%q is not a period like \"FY2024\"", period)
			return
		}
		if fy, _ := FiscalYearOf(period); len(years) > 0 && !years[fy] {
			add(path, "%s is not one of the graph's fiscal years %v", period, g.FiscalYears)
		}
	}

	reqIDs := map[string]int{}
	for i, r := range g.Requirements {
		p := fmt.Sprintf("requirements[%d]", i)
		switch {
		case r.ID == "":
			add(p+".id", "empty")
		case strings.TrimSpace(r.ID) != r.ID || strings.ContainsAny(r.ID, " \t\n"):
			add(p+".id", "%q has white space", r.ID)
		default:
			if j, dup := reqIDs[r.ID]; dup {
				add(p+".id", "%q is also the id of requirements[%d]", r.ID, j)
			} else {
				reqIDs[r.ID] = i
			}
		}
		switch r.Kind {
		case KindFigure, KindExplanation, KindOutlook, KindRisk, KindCalculation, KindComparability:
		default:
			add(p+".kind", "%q is not figure, explanation, outlook, risk, calculation or comparability", r.Kind)
		}
		inScope(p+".issuer", r.Issuer)
		checkPeriod(p+".period", r.Period)
	}
	for i, r := range g.Requirements {
		p := fmt.Sprintf("requirements[%d].completion", i)
		c := r.Completion
		if c.Issuer != "" && r.Issuer != "" && c.Issuer != r.Issuer {
			add(p+".issuer", "%q differs from the requirement's issuer %q", c.Issuer, r.Issuer)
		}
		inScope(p+".issuer", c.Issuer)
		checkPeriod(p+".period", c.Period)
		issuer := cmpOr(c.Issuer, r.Issuer)
		switch c.Kind {
		case CondPassage:
			if issuer == "" {
				add(p+".issuer", "a passage condition names the issuer whose filing holds the passage")
			}
			if len(c.AllOf) == 0 {
				add(p+".all_of", "a passage condition needs at least one group of words a sentence must hold")
			}
			for j, grp := range c.AllOf {
				if len(grp) == 0 || slices.ContainsFunc(grp, func(w string) bool { return strings.TrimSpace(w) == "" }) {
					add(fmt.Sprintf("%s.all_of[%d]", p, j), "a group needs words, none of them empty")
				}
			}
		case CondFact:
			if issuer == "" {
				add(p+".issuer", "a fact condition names the issuer whose fact it needs")
			}
			if len(c.Concepts) == 0 || slices.Contains(c.Concepts, "") {
				add(p+".concepts", "a fact condition needs the concepts that can meet it, none empty")
			}
		case CondCalculation, CondComparable:
			if len(c.Of) == 0 {
				add(p+".of", "a %s condition names the requirements it builds on", c.Kind)
			}
			for j, id := range c.Of {
				switch _, ok := reqIDs[id]; {
				case id == r.ID:
					add(fmt.Sprintf("%s.of[%d]", p, j), "%q is the requirement itself", id)
				case !ok:
					add(fmt.Sprintf("%s.of[%d]", p, j), "no requirement has the id %q", id)
				}
			}
		default:
			add(p+".kind", "%q is not passage, fact, calculation or comparable", c.Kind)
		}
	}

	if n, max := len(g.Nodes), lim.maxNodes(); n > max {
		add("nodes", "%d nodes, more than the limit of %d: plan fewer calls", n, max)
	}
	scope := tools.Scope{Tickers: g.Tickers, FiscalYears: g.FiscalYears}
	known := tools.Names()
	nodeIDs := map[string]int{}
	for i, n := range g.Nodes {
		p := fmt.Sprintf("nodes[%d]", i)
		switch {
		case n.ID == "":
			add(p+".id", "empty")
		default:
			if j, dup := nodeIDs[n.ID]; dup {
				add(p+".id", "%q is also the id of nodes[%d]", n.ID, j)
			} else {
				nodeIDs[n.ID] = i
			}
		}
		if !slices.Contains(known, n.Tool) {
			add(p+".tool", "%q is not a tool; the tools are %s", n.Tool, strings.Join(known, ", "))
		} else if err := tools.CheckArgs(n.Tool, n.Args, scope); err != nil {
			errs = append(errs, &PlanError{Path: p + ".args", Msg: err.Error(), Err: err})
		}
		if len(n.Serves) == 0 {
			add(p+".serves", "a node must serve at least one requirement")
		}
		for j, id := range n.Serves {
			if _, ok := reqIDs[id]; !ok {
				add(fmt.Sprintf("%s.serves[%d]", p, j), "no requirement has the id %q", id)
			}
		}
	}
	depsOK := true
	for i, n := range g.Nodes {
		for j, d := range n.DependsOn {
			p := fmt.Sprintf("nodes[%d].depends_on[%d]", i, j)
			switch _, ok := nodeIDs[d]; {
			case d == n.ID:
				add(p, "node %q depends on itself", d)
				depsOK = false
			case !ok:
				add(p, "no node has the id %q", d)
				depsOK = false
			}
		}
	}
	if depsOK && len(nodeIDs) == len(g.Nodes) {
		if _, err := Order(g); err != nil {
			errs = append(errs, err)
		}
	}

	served := map[string]bool{}
	for _, n := range g.Nodes {
		for _, id := range n.Serves {
			served[id] = true
		}
	}
	for i, r := range g.Requirements {
		if r.Required && r.ID != "" && !served[r.ID] {
			add(fmt.Sprintf("requirements[%d]", i), "required requirement %q is served by no node", r.ID)
		}
	}
	return errors.Join(errs...)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Order returns the graph's node ids in dependency levels (Kahn's
// algorithm): the nodes of a level depend only on nodes of earlier levels,
// and within a level they keep the graph's order. It fails on a duplicate
// node id, an unknown dependency or a cycle, naming it ("n1 -> n3 -> n1").
func Order(g *Graph) ([][]string, error) {
	index := make(map[string]int, len(g.Nodes))
	for i, n := range g.Nodes {
		if _, dup := index[n.ID]; dup {
			return nil, &PlanError{Path: fmt.Sprintf("nodes[%d].id", i), Msg: fmt.Sprintf("%q appears twice", n.ID)}
		}
		index[n.ID] = i
	}
	indegree := make([]int, len(g.Nodes))
	dependents := make([][]int, len(g.Nodes))
	for i, n := range g.Nodes {
		seen := map[string]bool{}
		for _, d := range n.DependsOn {
			j, ok := index[d]
			if !ok {
				return nil, &PlanError{Path: fmt.Sprintf("nodes[%d].depends_on", i), Msg: fmt.Sprintf("no node has the id %q", d)}
			}
			if seen[d] {
				continue
			}
			seen[d] = true
			indegree[i]++
			dependents[j] = append(dependents[j], i)
		}
	}
	var levels [][]string
	var ready []int
	for i := range g.Nodes {
		if indegree[i] == 0 {
			ready = append(ready, i)
		}
	}
	done := 0
	for len(ready) > 0 {
		slices.Sort(ready)
		level := make([]string, len(ready))
		var next []int
		for k, i := range ready {
			level[k] = g.Nodes[i].ID
			for _, j := range dependents[i] {
				if indegree[j]--; indegree[j] == 0 {
					next = append(next, j)
				}
			}
		}
		done += len(ready)
		levels = append(levels, level)
		ready = next
	}
	if done < len(g.Nodes) {
		return nil, &PlanError{Path: "nodes", Msg: "dependency cycle " + findCycle(g, index, indegree)}
	}
	return levels, nil
}

// findCycle names a cycle among the nodes Kahn's algorithm could not
// order (indegree > 0).
func findCycle(g *Graph, index map[string]int, indegree []int) string {
	const (
		unvisited = iota
		onPath
		finished
	)
	state := make([]int, len(g.Nodes))
	var path []int
	var cycle []int
	var visit func(i int) bool
	visit = func(i int) bool {
		state[i] = onPath
		path = append(path, i)
		for _, d := range g.Nodes[i].DependsOn {
			j := index[d]
			if indegree[j] == 0 {
				continue
			}
			switch state[j] {
			case onPath:
				k := slices.Index(path, j)
				cycle = append(slices.Clone(path[k:]), j)
				return true
			case unvisited:
				if visit(j) {
					return true
				}
			}
		}
		path = path[:len(path)-1]
		state[i] = finished
		return false
	}
	for i := range g.Nodes {
		if indegree[i] > 0 && state[i] == unvisited && visit(i) {
			break
		}
	}
	ids := make([]string, len(cycle))
	for k, i := range cycle {
		ids[k] = g.Nodes[i].ID
	}
	// Written in the direction of the dependencies: a depends on b -> "a -> b".
	return strings.Join(ids, " -> ")
}
