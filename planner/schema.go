package planner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ledgerline/research/llm"
	"github.com/ledgerline/research/tools"
)

// The JSON shapes a model replies with are Go types, and the schema a
// model is held to is inferred from the type its reply decodes into
// (strictSchema), so the two cannot drift apart. Structured outputs in
// strict mode cannot express a free-form object, so a node's arguments
// are one object holding the union of every tool's arguments, each
// nullable; null means absent. DecodeModelGraph turns that shape into a
// Graph.

// GraphSchema is the JSON Schema (strict structured-outputs compatible:
// every object closed with additionalProperties false and every property
// required, optional values nullable) of the plan a model returns:
// requirements with completion conditions, and the tool nodes that serve
// them.
func GraphSchema() map[string]any {
	return llm.StrictSchema[modelGraph](replySchemaOpts())
}

// NodesSchema is the JSON Schema of a re-planning reply: the nodes to add
// and the reason for them.
func NodesSchema() map[string]any {
	return llm.StrictSchema[modelNodes](replySchemaOpts())
}

// replySchemaOpts says what the reply types alone do not: the values of
// their enums, and the shape of the parts whose decoding is deferred.
func replySchemaOpts() *jsonschema.ForOptions {
	opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[RequirementKind](): llm.EnumSchema(KindFigure, KindExplanation, KindOutlook, KindRisk, KindCalculation, KindComparability),
		reflect.TypeFor[ConditionKind]():   llm.EnumSchema(CondPassage, CondFact, CondCalculation, CondComparable),
		reflect.TypeFor[toolName]():        llm.EnumSchema(tools.Names()...),
	}}
	deferSchema[modelRequirement](opts)
	deferSchema[modelArgs](opts)
	deferSchema[modelNode](opts) // after modelArgs, which a node holds
	return opts
}

// Model reply shapes. They are decoded strictly, and pointers tell a null
// or missing value from an empty one. For the schema, a field marked
// omitempty is one the model may set to null; every other field must hold
// a value (see strictSchema). Requirements, nodes and arguments are
// decoded one by one (deferred), so that each error names its place and
// one bad node does not hide the others.
type modelGraph struct {
	Requirements []deferred[modelRequirement] `json:"requirements"`
	Nodes        []deferred[modelNode]        `json:"nodes"`
}

type modelNodes struct {
	Nodes  []deferred[modelNode] `json:"nodes"`
	Reason *string               `json:"reason"`
}

type modelRequirement struct {
	ID         *string          `json:"id" jsonschema:"unique id, letters, digits, '-', '_', '.' or ':', e.g. \"ABCD-FY2024-margins-explanation\""`
	Issuer     *string          `json:"issuer,omitempty" jsonschema:"ticker of the issuer; null for a cross-issuer requirement"`
	Period     *string          `json:"period,omitempty" jsonschema:"period like \"FY2024\"; null when it has none"`
	Aspect     *string          `json:"aspect" jsonschema:"e.g. \"margins\", \"revenue_growth\", \"ai\""`
	Kind       *RequirementKind `json:"kind"`
	Need       *string          `json:"need" jsonschema:"what is needed, in words"`
	Required   *bool            `json:"required"`
	Completion *modelCondition  `json:"completion"`
}

type modelCondition struct {
	Kind     *ConditionKind `json:"kind"`
	Issuer   *string        `json:"issuer,omitempty"`
	Period   *string        `json:"period,omitempty"`
	Topic    *string        `json:"topic,omitempty" jsonschema:"passage: what it must discuss"`
	AllOf    [][]string     `json:"all_of,omitempty" jsonschema:"passage: groups of lower-case words; one sentence must hold a word of every group"`
	Concepts []string       `json:"concepts,omitempty" jsonschema:"fact: XBRL concepts that meet it, any of them, e.g. \"us-gaap:GrossProfit\""`
	Of       []string       `json:"of,omitempty" jsonschema:"calculation and comparable: the requirement ids it builds on"`
}

type modelNode struct {
	ID        *string             `json:"id" jsonschema:"unique node id"`
	Tool      *toolName           `json:"tool"`
	Args      deferred[modelArgs] `json:"args" jsonschema:"the tool's arguments; every argument another tool takes is null"`
	Serves    []string            `json:"serves" jsonschema:"ids of the requirements this call gathers evidence for"`
	DependsOn []string            `json:"depends_on" jsonschema:"ids of nodes that must finish first; [] for none"`
}

// toolName is a tool's name in a reply: one of tools.Names.
type toolName string

// modelArgs is the union of the tools' arguments; a tool reads its own
// and the others must be null. omitempty also drops the nulls when
// encodeArgs re-encodes them as the tool's own arguments.
type modelArgs struct {
	Query       *string     `json:"query,omitempty" jsonschema:"search_filings: what to search for"`
	Tickers     []string    `json:"tickers,omitempty" jsonschema:"search_filings: issuers to search; null means all in scope"`
	Form        *string     `json:"form,omitempty" jsonschema:"search_filings: \"10-K\" or \"10-Q\""`
	FiscalYears []int       `json:"fiscal_years,omitempty" jsonschema:"search_filings: fiscal years to search"`
	Section     *string     `json:"section,omitempty" jsonschema:"search_filings: e.g. \"Item 7\", \"Item 1A\""`
	K           *int        `json:"k,omitempty" jsonschema:"search_filings: results, at most 20"`
	IDs         []string    `json:"ids,omitempty" jsonschema:"read_chunks: chunk ids, at most 10"`
	ID          *string     `json:"id,omitempty" jsonschema:"read_surrounding: a chunk id"`
	Before      *int        `json:"before,omitempty" jsonschema:"read_surrounding: chunks before, 0..3"`
	After       *int        `json:"after,omitempty" jsonschema:"read_surrounding: chunks after, 0..3"`
	Ticker      *string     `json:"ticker,omitempty" jsonschema:"lookup_fact: the issuer"`
	Concept     *string     `json:"concept,omitempty" jsonschema:"lookup_fact: an XBRL concept"`
	Label       *string     `json:"label,omitempty" jsonschema:"lookup_fact: a label such as \"gross profit\""`
	Period      *string     `json:"period,omitempty" jsonschema:"lookup_fact: \"FY2024\""`
	Expression  *string     `json:"expression,omitempty" jsonschema:"calculate: arithmetic over the fact names, e.g. \"gross_profit / revenue\""`
	Facts       []modelFact `json:"facts,omitempty" jsonschema:"calculate: the named facts the expression uses"`
}

type modelFact struct {
	Name    *string `json:"name"`
	Ticker  *string `json:"ticker"`
	Concept *string `json:"concept"`
	Period  *string `json:"period,omitempty"`
}

// argNames are the arguments a node's args may hold: modelArgs' fields,
// in their order.
var argNames = jsonNames[modelArgs]()

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

func decodeRequirement(raw deferred[modelRequirement], p string) (Requirement, error) {
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

func decodeNode(raw deferred[modelNode], p string) (Node, error) {
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
	} else if args, err = encodeArgs(string(tool), mn.Args); err != nil {
		errs = append(errs, fmt.Errorf("%s.args: %v", p, err))
	}
	if err := errors.Join(errs...); err != nil {
		return Node{}, err
	}
	return Node{ID: id, Tool: string(tool), Args: args, Serves: mn.Serves, DependsOn: mn.DependsOn}, nil
}

// encodeArgs re-encodes the union of arguments as the tool's JSON: nulls
// dropped, calculate's facts array as a map by name. Arguments that belong
// to another tool are kept, so that tools.CheckArgs names them.
func encodeArgs(tool string, raw deferred[modelArgs]) (json.RawMessage, error) {
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

func mustInfer[T any](opts *jsonschema.ForOptions) *jsonschema.Schema {
	s, err := jsonschema.For[T](opts)
	if err != nil {
		panic(fmt.Sprintf("planner: no schema for a reply type: %v", err))
	}
	return s
}

// deferred is a part of a reply kept as raw JSON, to be decoded on its own
// later; its schema is T's (deferSchema). It decodes as json.RawMessage
// does: a JSON null is kept as "null", a missing field leaves it empty.
type deferred[T any] []byte

// UnmarshalJSON keeps a copy of data.
func (d *deferred[T]) UnmarshalJSON(data []byte) error {
	*d = append((*d)[:0], data...)
	return nil
}

// MarshalJSON returns d as it was read, or null when empty.
func (d deferred[T]) MarshalJSON() ([]byte, error) {
	if len(d) == 0 {
		return []byte("null"), nil
	}
	return d, nil
}

// deferSchema teaches opts the schema of deferred[T]: T's, inferred with
// the options opts already holds.
func deferSchema[T any](opts *jsonschema.ForOptions) {
	opts.TypeSchemas[reflect.TypeFor[deferred[T]]()] = mustInfer[T](opts)
}

// jsonNames lists the JSON names of struct T's fields, in their order.
func jsonNames[T any]() []string {
	t := reflect.TypeFor[T]()
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}
