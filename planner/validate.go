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
// The checks are the rules of validationRules, run in order; the problems
// come in that order, and within a rule in the graph's order.
func Validate(g *Graph, lim Limits) error {
	if g == nil {
		return &PlanError{Path: "graph", Msg: "no graph"}
	}
	v := newValidation(g, lim)
	for _, r := range validationRules {
		r.check(v)
	}
	return errors.Join(v.errs...)
}

// A validationRule is one check of Validate: a name to know it by and a
// function that records what it finds in the validation.
type validationRule struct {
	name  string
	check func(v *validation)
}

// validationRules are Validate's checks, in the order it runs them.
var validationRules = []validationRule{
	{"tickers", checkTickers},
	{"fiscal_years", checkFiscalYears},
	{"requirements", checkRequirements},
	{"conditions", checkConditions},
	{"node_count", checkNodeCount},
	{"nodes", checkNodes},
	{"dependencies", checkDependencies},
	{"acyclic", checkAcyclic},
	{"coverage", checkCoverage},
}

// validation is one run of Validate: the graph, what the rules look
// things up in, and the problems found so far.
type validation struct {
	g       *Graph
	lim     Limits
	tickers map[string]bool // the graph's scope
	years   map[int]bool    // the graph's scope; empty means any
	// reqIDs and nodeIDs index the well-formed ids (a requirement's
	// without white space, a node's not empty) by their first use.
	reqIDs  map[string]int
	nodeIDs map[string]int
	errs    []error
}

func newValidation(g *Graph, lim Limits) *validation {
	v := &validation{g: g, lim: lim, tickers: map[string]bool{}, years: map[int]bool{}, reqIDs: map[string]int{}, nodeIDs: map[string]int{}}
	for _, t := range g.Tickers {
		v.tickers[t] = true
	}
	for _, y := range g.FiscalYears {
		v.years[y] = true
	}
	for i, r := range g.Requirements {
		if _, dup := v.reqIDs[r.ID]; !dup && wellFormedRequirementID(r.ID) {
			v.reqIDs[r.ID] = i
		}
	}
	for i, n := range g.Nodes {
		if _, dup := v.nodeIDs[n.ID]; !dup && n.ID != "" {
			v.nodeIDs[n.ID] = i
		}
	}
	return v
}

func wellFormedRequirementID(id string) bool {
	return id != "" && strings.TrimSpace(id) == id && !strings.ContainsAny(id, " \t\n")
}

func (v *validation) add(path, format string, a ...any) {
	v.errs = append(v.errs, &PlanError{Path: path, Msg: fmt.Sprintf(format, a...)})
}

// inScope checks that an issuer, when named, is one of the graph's.
func (v *validation) inScope(path, issuer string) {
	if issuer != "" && !v.tickers[issuer] {
		v.add(path, "issuer %q is not one of the graph's tickers %v", issuer, v.g.Tickers)
	}
}

// checkPeriod checks that a period, when given, is written "FY2024" and
// is one of the graph's fiscal years.
func (v *validation) checkPeriod(path, period string) {
	if period == "" {
		return
	}
	if !periodPattern.MatchString(period) {
		v.add(path, "%q is not a period like \"FY2024\"", period)
		return
	}
	if fy, _ := FiscalYearOf(period); len(v.years) > 0 && !v.years[fy] {
		v.add(path, "%s is not one of the graph's fiscal years %v", period, v.g.FiscalYears)
	}
}

// checkTickers: the scope's issuers are tickers, and a graph that calls
// tools names them.
func checkTickers(v *validation) {
	for i, t := range v.g.Tickers {
		if !corpus.ValidTicker(t) {
			v.add(fmt.Sprintf("tickers[%d]", i), "%q is not an upper-case ticker", t)
		}
	}
	if len(v.g.Nodes) > 0 && len(v.g.Tickers) == 0 {
		v.add("tickers", "empty: a graph with nodes needs the issuers it may read")
	}
}

// checkFiscalYears: the scope's years are fiscal years EDGAR can hold.
func checkFiscalYears(v *validation) {
	for i, y := range v.g.FiscalYears {
		if y < 1993 || y > 2100 {
			v.add(fmt.Sprintf("fiscal_years[%d]", i), "%d is not a fiscal year (1993-2100)", y)
		}
	}
}

// checkRequirements: each requirement has a unique id without white
// space, a known kind, and an issuer and period within the scope.
func checkRequirements(v *validation) {
	for i, r := range v.g.Requirements {
		p := fmt.Sprintf("requirements[%d]", i)
		switch {
		case r.ID == "":
			v.add(p+".id", "empty")
		case !wellFormedRequirementID(r.ID):
			v.add(p+".id", "%q has white space", r.ID)
		case v.reqIDs[r.ID] != i:
			v.add(p+".id", "%q is also the id of requirements[%d]", r.ID, v.reqIDs[r.ID])
		}
		switch r.Kind {
		case KindFigure, KindExplanation, KindOutlook, KindRisk, KindCalculation, KindComparability:
		default:
			v.add(p+".kind", "%q is not figure, explanation, outlook, risk, calculation or comparability", r.Kind)
		}
		v.inScope(p+".issuer", r.Issuer)
		v.checkPeriod(p+".period", r.Period)
	}
}

// checkConditions: each completion condition can be checked against the
// ledger: its issuer agrees with the requirement's, it is within the
// scope, and it holds what its kind needs.
func checkConditions(v *validation) {
	for i, r := range v.g.Requirements {
		p := fmt.Sprintf("requirements[%d].completion", i)
		c := r.Completion
		if c.Issuer != "" && r.Issuer != "" && c.Issuer != r.Issuer {
			v.add(p+".issuer", "%q differs from the requirement's issuer %q", c.Issuer, r.Issuer)
		}
		v.inScope(p+".issuer", c.Issuer)
		v.checkPeriod(p+".period", c.Period)
		issuer := cmpOr(c.Issuer, r.Issuer)
		switch c.Kind {
		case CondPassage:
			if issuer == "" {
				v.add(p+".issuer", "a passage condition names the issuer whose filing holds the passage")
			}
			if len(c.AllOf) == 0 {
				v.add(p+".all_of", "a passage condition needs at least one group of words a sentence must hold")
			}
			for j, grp := range c.AllOf {
				if len(grp) == 0 || slices.ContainsFunc(grp, func(w string) bool { return strings.TrimSpace(w) == "" }) {
					v.add(fmt.Sprintf("%s.all_of[%d]", p, j), "a group needs words, none of them empty")
				}
			}
		case CondFact:
			if issuer == "" {
				v.add(p+".issuer", "a fact condition names the issuer whose fact it needs")
			}
			if len(c.Concepts) == 0 || slices.Contains(c.Concepts, "") {
				v.add(p+".concepts", "a fact condition needs the concepts that can meet it, none empty")
			}
		case CondCalculation, CondComparable, CondPrinted:
			if c.Kind == CondPrinted && len(c.AllOf) == 0 {
				v.add(p+".all_of", "a printed condition needs the names a line may give the figure")
			}
			if len(c.Of) == 0 {
				v.add(p+".of", "a %s condition names the requirements it builds on", c.Kind)
			}
			for j, id := range c.Of {
				switch _, ok := v.reqIDs[id]; {
				case id == r.ID:
					v.add(fmt.Sprintf("%s.of[%d]", p, j), "%q is the requirement itself", id)
				case !ok:
					v.add(fmt.Sprintf("%s.of[%d]", p, j), "no requirement has the id %q", id)
				}
			}
		default:
			v.add(p+".kind", "%q is not passage, fact, calculation, comparable or printed", c.Kind)
		}
	}
}

// checkNodeCount: the graph is within its size limit.
func checkNodeCount(v *validation) {
	if n, max := len(v.g.Nodes), v.lim.maxNodes(); n > max {
		v.add("nodes", "%d nodes, more than the limit of %d: plan fewer calls", n, max)
	}
}

// checkNodes: each node has a unique id, calls a known tool with
// arguments it accepts within the scope, and serves requirements that
// exist.
func checkNodes(v *validation) {
	scope := tools.Scope{Tickers: v.g.Tickers, FiscalYears: v.g.FiscalYears}
	known := tools.Names()
	for i, n := range v.g.Nodes {
		p := fmt.Sprintf("nodes[%d]", i)
		switch {
		case n.ID == "":
			v.add(p+".id", "empty")
		case v.nodeIDs[n.ID] != i:
			v.add(p+".id", "%q is also the id of nodes[%d]", n.ID, v.nodeIDs[n.ID])
		}
		if !slices.Contains(known, n.Tool) {
			v.add(p+".tool", "%q is not a tool; the tools are %s", n.Tool, strings.Join(known, ", "))
		} else if err := tools.CheckArgs(n.Tool, n.Args, scope); err != nil {
			v.errs = append(v.errs, &PlanError{Path: p + ".args", Msg: err.Error(), Err: err})
		}
		if len(n.Serves) == 0 {
			v.add(p+".serves", "a node must serve at least one requirement")
		}
		for j, id := range n.Serves {
			if _, ok := v.reqIDs[id]; !ok {
				v.add(fmt.Sprintf("%s.serves[%d]", p, j), "no requirement has the id %q", id)
			}
		}
	}
}

// checkDependencies: each dependency names another node of the graph.
func checkDependencies(v *validation) {
	for i, n := range v.g.Nodes {
		for j, d := range n.DependsOn {
			p := fmt.Sprintf("nodes[%d].depends_on[%d]", i, j)
			switch _, ok := v.nodeIDs[d]; {
			case d == n.ID:
				v.add(p, "node %q depends on itself", d)
			case !ok:
				v.add(p, "no node has the id %q", d)
			}
		}
	}
}

// checkAcyclic: the dependencies form no cycle. It is left to the
// "nodes" and "dependencies" rules to report a graph whose node ids are
// not unique or whose dependencies do not resolve, so that the same
// problem is not reported twice.
func checkAcyclic(v *validation) {
	if len(v.nodeIDs) != len(v.g.Nodes) {
		return
	}
	for _, n := range v.g.Nodes {
		for _, d := range n.DependsOn {
			if _, ok := v.nodeIDs[d]; d == n.ID || !ok {
				return
			}
		}
	}
	if _, err := Order(v.g); err != nil {
		v.errs = append(v.errs, err)
	}
}

// checkCoverage: every required requirement is served by a node.
func checkCoverage(v *validation) {
	served := map[string]bool{}
	for _, n := range v.g.Nodes {
		for _, id := range n.Serves {
			served[id] = true
		}
	}
	for i, r := range v.g.Requirements {
		if r.Required && r.ID != "" && !served[r.ID] {
			v.add(fmt.Sprintf("requirements[%d]", i), "required requirement %q is served by no node", r.ID)
		}
	}
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
