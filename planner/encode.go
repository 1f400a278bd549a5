package planner

import (
	"encoding/json"
	"fmt"
	"slices"
)

// EncodeModelGraph writes g's requirements and nodes in the shape
// GraphSchema describes, the inverse of DecodeModelGraph: every field
// present, absent ones null, tool arguments as the union object and
// calculate's facts as an array. It is what an OpenAI-compatible model
// returns for a plan, so tests and fakes can script one from any graph.
func EncodeModelGraph(g *Graph) (string, error) {
	reqs := make([]map[string]any, len(g.Requirements))
	for i, r := range g.Requirements {
		reqs[i] = map[string]any{
			"id": r.ID, "issuer": nullIfEmpty(r.Issuer), "period": nullIfEmpty(r.Period), "aspect": r.Aspect,
			"kind": string(r.Kind), "need": r.Need, "required": r.Required,
			"completion": map[string]any{
				"kind": string(r.Completion.Kind), "issuer": nullIfEmpty(r.Completion.Issuer),
				"period": nullIfEmpty(r.Completion.Period), "topic": nullIfEmpty(r.Completion.Topic),
				"all_of": nilIfEmpty(r.Completion.AllOf), "concepts": nilIfEmpty(r.Completion.Concepts), "of": nilIfEmpty(r.Completion.Of),
			},
		}
	}
	nodes, err := encodeNodes(g.Nodes)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]any{"requirements": reqs, "nodes": nodes})
	return string(b), err
}

// EncodeModelNodes writes nodes and a reason in the shape NodesSchema
// describes, the inverse of DecodeModelNodes.
func EncodeModelNodes(nodes []Node, reason string) (string, error) {
	enc, err := encodeNodes(nodes)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]any{"nodes": enc, "reason": reason})
	return string(b), err
}

func encodeNodes(nodes []Node) ([]map[string]any, error) {
	out := make([]map[string]any, len(nodes))
	for i, n := range nodes {
		args := map[string]any{}
		if len(n.Args) > 0 {
			if err := json.Unmarshal(n.Args, &args); err != nil {
				return nil, fmt.Errorf("planner: node %s: args: %w", n.ID, err)
			}
		}
		if facts, ok := args["facts"].(map[string]any); ok {
			names := make([]string, 0, len(facts))
			for name := range facts {
				names = append(names, name)
			}
			slices.Sort(names)
			list := make([]map[string]any, 0, len(facts))
			for _, name := range names {
				ref, _ := facts[name].(map[string]any)
				list = append(list, map[string]any{
					"name": name, "ticker": ref["ticker"], "concept": ref["concept"], "period": ref["period"],
				})
			}
			args["facts"] = list
		}
		for _, name := range argNames {
			if _, ok := args[name]; !ok {
				args[name] = nil
			}
		}
		out[i] = map[string]any{
			"id": n.ID, "tool": n.Tool, "args": args, "serves": nilIfEmpty(n.Serves), "depends_on": nilIfEmpty(n.DependsOn),
		}
	}
	return out, nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nilIfEmpty[T any](s []T) any {
	if len(s) == 0 {
		return []T{}
	}
	return s
}
