package server

import (
	"context"
	"net/http"
	"testing"

	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
	"github.com/ledgerline/research/llm/llmtest"
	"github.com/ledgerline/research/planner"
)

// TestAutoModeWithModel: a run in auto mode (the default) on a server
// whose workers have a model is recorded and run in model mode, and its
// result says auto chose it and for which class; a tenant whose day has no
// money left for the model gets the offline path instead, recorded as such.
func TestAutoModeWithModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		dailySpend string
		want       ledger.Mode
		calls      bool // the model is called
	}{
		{"money left for the day", "5", ledger.ModeModel, true},
		{"the day's spend used up", "0", "", false}, // "" means an offline mode
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := llmtest.New(t)
			l := generous()
			l.DailySpendUSD = mustDecimal(tt.dailySpend)
			h := newHarness(t, harnessOpts{acme: l, model: &executor.ModelConfig{Caller: model.Client(t), Model: "gpt-4o-mini"}})
			model.On("task_graph", llmtest.Reply{Content: acmePlan(t, h)})
			model.On("answer", llmtest.Reply{Content: "Margins were fine."}) // not JSON: the rules synthesizer stands in

			accepted := h.do("POST", "/v1/runs", h.acmeKey, map[string]any{"question": acmeQuestion})
			if accepted.code != http.StatusAccepted {
				t.Fatalf("POST /v1/runs = %d %s", accepted.code, accepted.body)
			}
			reply := accepted.json(t)
			id, _ := reply["run_id"].(string)
			res := h.waitDone(h.acmeKey, id)
			led, err := pgledger.New(h.pool, &pgledger.Config{Tenant: "acme"})
			if err != nil {
				t.Fatal(err)
			}
			run, err := led.Run(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			offline := run.Mode == ledger.ModeRules || run.Mode == ledger.ModeBaseline
			if (tt.want != "" && run.Mode != tt.want) || (tt.want == "" && !offline) {
				t.Errorf("recorded in %s mode; want %q (\"\" for rules or baseline)", run.Mode, tt.want)
			}
			// The 202 says the mode auto chose, as the result does.
			if reply["mode"] != string(run.Mode) {
				t.Errorf("202 reply mode %v; want the recorded %s", reply["mode"], run.Mode)
			}
			if res["mode"] != string(run.Mode) || res["requested_mode"] != "auto" || res["class"] == nil || res["class"] == "" {
				t.Errorf("result mode %v requested %v class %v; want the recorded %s, chosen by auto, with the class", res["mode"], res["requested_mode"], res["class"], run.Mode)
			}
			if got := len(model.Requests()) > 0; got != tt.calls {
				t.Errorf("%d model calls; want calls: %v", len(model.Requests()), tt.calls)
			}
		})
	}
}

// acmePlan is a valid plan for acmeQuestion, as a model would return it.
func acmePlan(t *testing.T, h *harness) string {
	t.Helper()
	store, err := pgstore.New(h.pool, &pgstore.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := store.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cat := planner.NewCatalog(docs)
	g, err := (&planner.RulesPlanner{}).Plan(context.Background(), acmeQuestion, planner.RouteQuestion(acmeQuestion, cat, nil), cat)
	if err != nil {
		t.Fatal(err)
	}
	s, err := planner.EncodeModelGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
