package planner

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

// TestEncodeModelGraphRoundTrips checks that a rules plan written in the
// model's shape decodes to the same requirements and nodes.
func TestEncodeModelGraphRoundTrips(t *testing.T) {
	cat := sampleCatalog(t)
	for _, q := range []string{
		"Compare gross-margin pressure at AAPL, NVDA and GOOGL in their latest fiscal year and say whether management expects it to persist.",
		"How did Microsoft's revenue grow in fiscal 2022?",
		"Did generative AI improve Meta's margins?",
	} {
		rt := RouteQuestion(q, cat, nil)
		g, err := (&RulesPlanner{}).Plan(context.Background(), q, rt, cat)
		if err != nil {
			t.Fatal(err)
		}
		s, err := EncodeModelGraph(g)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeModelGraph(s)
		if err != nil {
			t.Fatalf("%q: decoding the encoded plan: %v", q, err)
		}
		if !reflect.DeepEqual(normReqs(back.Requirements), normReqs(g.Requirements)) {
			t.Errorf("%q: requirements differ after the round trip", q)
		}
		if len(back.Nodes) != len(g.Nodes) {
			t.Fatalf("%q: %d nodes back, want %d", q, len(back.Nodes), len(g.Nodes))
		}
		for i := range g.Nodes {
			if !jsonEqual(t, back.Nodes[i].Args, g.Nodes[i].Args) || back.Nodes[i].Tool != g.Nodes[i].Tool ||
				!reflect.DeepEqual(back.Nodes[i].Serves, g.Nodes[i].Serves) {
				t.Errorf("%q: node %s differs: %s vs %s", q, g.Nodes[i].ID, back.Nodes[i].Args, g.Nodes[i].Args)
			}
		}
	}
}

func normReqs(rs []Requirement) []Requirement {
	out := make([]Requirement, len(rs))
	for i, r := range rs {
		if len(r.Completion.AllOf) == 0 {
			r.Completion.AllOf = nil
		}
		if len(r.Completion.Concepts) == 0 {
			r.Completion.Concepts = nil
		}
		if len(r.Completion.Of) == 0 {
			r.Completion.Of = nil
		}
		out[i] = r
	}
	return out
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}
