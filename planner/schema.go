package planner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/ledgerline/research/llm"
	"github.com/ledgerline/research/tools"
)

// The JSON shapes a model replies with. Structured outputs in strict mode
// cannot express a free-form object, so a node's arguments are one object
// holding the union of every tool's arguments, each nullable; null means
// absent. DecodeModelGraph turns that shape into a Graph.

// GraphSchema is the JSON Schema (strict structured-outputs compatible:
// every object closed with additionalProperties false and every property
// required, optional values nullable) of the plan a model returns:
// requirements with completion conditions, and the tool nodes that serve
// them.
func GraphSchema() map[string]any {
	return object(map[string]any{
		"requirements": array(requirementSchema()),
		"nodes":        array(nodeSchema()),
	})
}

// NodesSchema is the JSON Schema of a re-planning reply: the nodes to add
// and the reason for them.
func NodesSchema() map[string]any {
	return object(map[string]any{
		"nodes":  array(nodeSchema()),
		"reason": str(),
	})
}

func requirementSchema() map[string]any {
	return object(map[string]any{
		"id":       described(str(), "unique id, letters, digits, '-', '_', '.' or ':', e.g. \"ABCD-FY2024-margins-explanation\""),
		"issuer":   described(nullable(str()), "ticker of the issuer; null for a cross-issuer requirement"),
		"period":   described(nullable(str()), "period like \"FY2024\"; null when it has none"),
		"aspect":   described(str(), "e.g. \"margins\", \"revenue_growth\", \"ai\""),
		"kind":     enum(KindFigure, KindExplanation, KindOutlook, KindRisk, KindCalculation, KindComparability),
		"need":     described(str(), "what is needed, in words"),
		"required": map[string]any{"type": "boolean"},
		"completion": object(map[string]any{
			"kind":     enum(CondPassage, CondFact, CondCalculation, CondComparable),
			"issuer":   nullable(str()),
			"period":   nullable(str()),
			"topic":    described(nullable(str()), "passage: what it must discuss"),
			"all_of":   described(nullable(array(array(str()))), "passage: groups of lower-case words; one sentence must hold a word of every group"),
			"concepts": described(nullable(array(str())), "fact: XBRL concepts that meet it, any of them, e.g. \"us-gaap:GrossProfit\""),
			"of":       described(nullable(array(str())), "calculation and comparable: the requirement ids it builds on"),
		}),
	})
}

func nodeSchema() map[string]any {
	return object(map[string]any{
		"id":         described(str(), "unique node id"),
		"tool":       enum(tools.Names()...),
		"args":       argsSchema(),
		"serves":     described(array(str()), "ids of the requirements this call gathers evidence for"),
		"depends_on": described(array(str()), "ids of nodes that must finish first; [] for none"),
	})
}

// argsSchema is the union of every tool's arguments; a tool reads its own
// and the others must be null.
func argsSchema() map[string]any {
	return described(object(map[string]any{
		"query":        described(nullable(str()), "search_filings: what to search for"),
		"tickers":      described(nullable(array(str())), "search_filings: issuers to search; null means all in scope"),
		"form":         described(nullable(str()), "search_filings: \"10-K\" or \"10-Q\""),
		"fiscal_years": described(nullable(array(integer())), "search_filings: fiscal years to search"),
		"section":      described(nullable(str()), "search_filings: e.g. \"Item 7\", \"Item 1A\""),
		"k":            described(nullable(integer()), "search_filings: results, at most 20"),
		"ids":          described(nullable(array(str())), "read_chunks: chunk ids, at most 10"),
		"id":           described(nullable(str()), "read_surrounding: a chunk id"),
		"before":       described(nullable(integer()), "read_surrounding: chunks before, 0..3"),
		"after":        described(nullable(integer()), "read_surrounding: chunks after, 0..3"),
		"ticker":       described(nullable(str()), "lookup_fact: the issuer"),
		"concept":      described(nullable(str()), "lookup_fact: an XBRL concept"),
		"label":        described(nullable(str()), "lookup_fact: a label such as \"gross profit\""),
		"period":       described(nullable(str()), "lookup_fact: \"FY2024\""),
		"expression":   described(nullable(str()), "calculate: arithmetic over the fact names, e.g. \"gross_profit / revenue\""),
		"facts": described(nullable(array(object(map[string]any{
			"name":    str(),
			"ticker":  str(),
			"concept": str(),
			"period":  nullable(str()),
		}))), "calculate: the named facts the expression uses"),
	}), "the tool's arguments; every argument another tool takes is null")
}

func object(props map[string]any) map[string]any {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	slices.Sort(req)
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

func array(items map[string]any) map[string]any {
	return map[string]any{"type": "array", "items": items}
}

func str() map[string]any     { return map[string]any{"type": "string"} }
func integer() map[string]any { return map[string]any{"type": "integer"} }

// nullable widens a schema's type to admit null.
func nullable(s map[string]any) map[string]any {
	out := make(map[string]any, len(s))
	for k, v := range s {
		out[k] = v
	}
	out["type"] = []string{s["type"].(string), "null"}
	return out
}

func described(s map[string]any, d string) map[string]any {
	s["description"] = d
	return s
}

func enum[T ~string](vals ...T) map[string]any {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = string(v)
	}
	return map[string]any{"type": "string", "enum": out}
}

// Model reply shapes, decoded strictly: pointers tell a null or missing
// value from an empty one.
type modelGraph struct {
	Requirements []json.RawMessage `json:"requirements"`
	Nodes        []json.RawMessage `json:"nodes"`
}

type modelNodes struct {
	Nodes  []json.RawMessage `json:"nodes"`
	Reason *string           `json:"reason"`
}

type modelRequirement struct {
	ID         *string         `json:"id"`
	Issuer     *string         `json:"issuer"`
	Period     *string         `json:"period"`
	Aspect     *string         `json:"aspect"`
	Kind       *string         `json:"kind"`
	Need       *string         `json:"need"`
	Required   *bool           `json:"required"`
	Completion *modelCondition `json:"completion"`
}

type modelCondition struct {
	Kind     *string    `json:"kind"`
	Issuer   *string    `json:"issuer"`
	Period   *string    `json:"period"`
	Topic    *string    `json:"topic"`
	AllOf    [][]string `json:"all_of"`
	Concepts []string   `json:"concepts"`
	Of       []string   `json:"of"`
}

type modelNode struct {
	ID        *string         `json:"id"`
	Tool      *string         `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Serves    []string        `json:"serves"`
	DependsOn []string        `json:"depends_on"`
}

// modelArgs is the union of the tools' arguments.
type modelArgs struct {
	Query       *string     `json:"query,omitempty"`
	Tickers     []string    `json:"tickers,omitempty"`
	Form        *string     `json:"form,omitempty"`
	FiscalYears []int       `json:"fiscal_years,omitempty"`
	Section     *string     `json:"section,omitempty"`
	K           *int        `json:"k,omitempty"`
	IDs         []string    `json:"ids,omitempty"`
	ID          *string     `json:"id,omitempty"`
	Before      *int        `json:"before,omitempty"`
	After       *int        `json:"after,omitempty"`
	Ticker      *string     `json:"ticker,omitempty"`
	Concept     *string     `json:"concept,omitempty"`
	Label       *string     `json:"label,omitempty"`
	Period      *string     `json:"period,omitempty"`
	Expression  *string     `json:"expression,omitempty"`
	Facts       []modelFact `json:"facts,omitempty"`
}

type modelFact struct {
	Name    *string `json:"name"`
	Ticker  *string `json:"ticker"`
	Concept *string `json:"concept"`
	Period  *string `json:"period"`
}

// argNames are the arguments argsSchema allows, in its order.
var argNames = []string{"query", "tickers", "form", "fiscal_years", "section", "k", "ids", "id", "before", "after",
	"ticker", "concept", "label", "period", "expression", "facts"}

// idPattern is what a model-chosen requirement or node id may look like:
// it becomes a ledger key and appears in logs.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,119}$`)

// DecodeModelGraph decodes a model's plan (the shape GraphSchema
// describes) into a Graph holding its Requirements and Nodes; the caller
// sets the question, scope and planner. Decoding is strict: unknown
// fields, missing or null required fields, ids that are not simple names
// and text after the JSON object are errors, each naming where. Node
// arguments are re-encoded as the tool's own JSON with nulls dropped,
// calculate's facts array becoming the map CalculateArgs holds; whether
// they suit the tool is for Validate (tools.CheckArgs) to say.
func DecodeModelGraph(content string) (*Graph, error) {
	var mg modelGraph
	if err := llm.DecodeReply(content, &mg); err != nil {
		return nil, err
	}
	var errs []error
	if mg.Requirements == nil {
		errs = append(errs, errors.New("requirements: missing or null"))
	}
	if mg.Nodes == nil {
		errs = append(errs, errors.New("nodes: missing or null"))
	}
	g := &Graph{Requirements: make([]Requirement, 0, len(mg.Requirements)), Nodes: make([]Node, 0, len(mg.Nodes))}
	for i, raw := range mg.Requirements {
		r, err := decodeRequirement(raw, fmt.Sprintf("requirements[%d]", i))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		g.Requirements = append(g.Requirements, r)
	}
	for i, raw := range mg.Nodes {
		n, err := decodeNode(raw, fmt.Sprintf("nodes[%d]", i))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		g.Nodes = append(g.Nodes, n)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return g, nil
}

// DecodeModelNodes decodes a model's re-planning reply (the shape
// NodesSchema describes) strictly: the nodes and the model's reason. One
// node that does not decode fails the whole reply.
func DecodeModelNodes(content string) ([]Node, string, error) {
	nodes, reason, err := decodeNodesReply(content)
	if err != nil {
		return nil, "", err
	}
	out := make([]Node, 0, len(nodes))
	var errs []error
	for _, n := range nodes {
		if n.err != nil {
			errs = append(errs, n.err)
			continue
		}
		out = append(out, n.node)
	}
	if len(errs) > 0 {
		return nil, "", errors.Join(errs...)
	}
	return out, reason, nil
}

// decodedNode is one node of a re-planning reply: the node, or why it
// does not decode, and the name to report it by.
type decodedNode struct {
	node Node
	name string // the model's id, else "nodes[i]"
	err  error
}

// decodeNodesReply decodes a re-planning reply node by node, so that one
// bad node is rejected on its own.
func decodeNodesReply(content string) ([]decodedNode, string, error) {
	var mn modelNodes
	if err := llm.DecodeReply(content, &mn); err != nil {
		return nil, "", err
	}
	if mn.Nodes == nil {
		return nil, "", errors.New("nodes: missing or null")
	}
	out := make([]decodedNode, len(mn.Nodes))
	for i, raw := range mn.Nodes {
		p := fmt.Sprintf("nodes[%d]", i)
		n, err := decodeNode(raw, p)
		out[i] = decodedNode{node: n, name: p, err: err}
		if n.ID != "" {
			out[i].name = n.ID
		} else {
			var probe struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(raw, &probe) == nil && idPattern.MatchString(probe.ID) {
				out[i].name = probe.ID
			}
		}
	}
	reason := ""
	if mn.Reason != nil {
		reason = strings.TrimSpace(*mn.Reason)
	}
	return out, reason, nil
}

func need[T any](path string, v *T) (T, error) {
	if v == nil {
		var zero T
		return zero, fmt.Errorf("%s: missing or null", path)
	}
	return *v, nil
}

func opt(v *string) string {
	if v == nil {
		return ""
	}
	return strings.TrimSpace(*v)
}

func checkID(path, id string) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("%s: %q is not an id (a letter or digit, then letters, digits, '.', '_', ':' or '-'; at most 120)", path, id)
	}
	return nil
}

func decodeRequirement(raw json.RawMessage, p string) (Requirement, error) {
	var mr modelRequirement
	if err := llm.DecodeStrict(raw, &mr); err != nil {
		return Requirement{}, fmt.Errorf("%s: %v", p, err)
	}
	var errs []error
	id, err := need(p+".id", mr.ID)
	if err == nil {
		err = checkID(p+".id", id)
	}
	errs = append(errs, err)
	aspect, err := need(p+".aspect", mr.Aspect)
	errs = append(errs, err)
	kind, err := need(p+".kind", mr.Kind)
	errs = append(errs, err)
	needText, err := need(p+".need", mr.Need)
	errs = append(errs, err)
	required, err := need(p+".required", mr.Required)
	errs = append(errs, err)
	var c Condition
	if mc := mr.Completion; mc == nil {
		errs = append(errs, fmt.Errorf("%s.completion: missing or null", p))
	} else {
		ck, err := need(p+".completion.kind", mc.Kind)
		errs = append(errs, err)
		c = Condition{
			Kind: ConditionKind(ck), Issuer: strings.ToUpper(opt(mc.Issuer)), Period: opt(mc.Period), Topic: opt(mc.Topic),
			AllOf: mc.AllOf, Concepts: mc.Concepts, Of: mc.Of,
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Requirement{}, err
	}
	return Requirement{
		ID: id, Issuer: strings.ToUpper(opt(mr.Issuer)), Period: opt(mr.Period), Aspect: strings.TrimSpace(aspect),
		Kind: RequirementKind(kind), Need: strings.TrimSpace(needText), Required: required, Completion: c,
	}, nil
}

func decodeNode(raw json.RawMessage, p string) (Node, error) {
	var mn modelNode
	if err := llm.DecodeStrict(raw, &mn); err != nil {
		return Node{}, fmt.Errorf("%s: %v", p, err)
	}
	var errs []error
	id, err := need(p+".id", mn.ID)
	if err == nil {
		err = checkID(p+".id", id)
	}
	errs = append(errs, err)
	tool, err := need(p+".tool", mn.Tool)
	errs = append(errs, err)
	var args json.RawMessage
	if len(mn.Args) == 0 || string(mn.Args) == "null" {
		errs = append(errs, fmt.Errorf("%s.args: missing or null", p))
	} else if args, err = encodeArgs(tool, mn.Args); err != nil {
		errs = append(errs, fmt.Errorf("%s.args: %v", p, err))
	}
	if err := errors.Join(errs...); err != nil {
		return Node{}, err
	}
	return Node{ID: id, Tool: tool, Args: args, Serves: mn.Serves, DependsOn: mn.DependsOn}, nil
}

// encodeArgs re-encodes the union of arguments as the tool's JSON: nulls
// dropped, calculate's facts array as a map by name. Arguments that belong
// to another tool are kept, so that tools.CheckArgs names them.
func encodeArgs(tool string, raw json.RawMessage) (json.RawMessage, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return nil, errors.New("want a JSON object")
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !slices.Contains(argNames, k) {
			return nil, fmt.Errorf("%s: unknown argument (the arguments are %s)", k, strings.Join(argNames, ", "))
		}
	}
	var a modelArgs
	if err := llm.DecodeStrict(raw, &a); err != nil {
		return nil, err
	}
	type factRef struct {
		Ticker  string `json:"ticker"`
		Concept string `json:"concept"`
		Period  string `json:"period,omitempty"`
	}
	type wire struct {
		modelArgs
		Facts map[string]factRef `json:"facts,omitempty"`
	}
	w := wire{modelArgs: a}
	w.modelArgs.Facts = nil
	if a.Facts != nil {
		if tool != tools.Calculate {
			return nil, fmt.Errorf("facts: an argument of %s, not of %s; set it to null", tools.Calculate, tool)
		}
		w.Facts = make(map[string]factRef, len(a.Facts))
		for i, f := range a.Facts {
			name, ticker, concept := opt(f.Name), opt(f.Ticker), opt(f.Concept)
			if name == "" || ticker == "" || concept == "" {
				return nil, fmt.Errorf("facts[%d]: name, ticker and concept are all needed", i)
			}
			if _, dup := w.Facts[name]; dup {
				return nil, fmt.Errorf("facts[%d]: the name %q is used twice", i, name)
			}
			w.Facts[name] = factRef{Ticker: strings.ToUpper(ticker), Concept: concept, Period: opt(f.Period)}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimSpace(buf.Bytes())), nil
}
