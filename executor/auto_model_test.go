package executor

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/llm/llmtest"
	"github.com/ledgerline/research/planner"
)

// endStates are the statuses a run that is not refused may end in.
var endStates = []ledger.RunStatus{
	ledger.StatusSupported, ledger.StatusPartial, ledger.StatusInsufficientEvidence,
	ledger.StatusConflictingEvidence, ledger.StatusBudgetExhausted,
}

// TestAutoModeForModel: with a model configured every class but refusal
// runs in model mode; without one, the per-class table.
func TestAutoModeForModel(t *testing.T) {
	store := corpustest.Store(t)
	docs, err := store.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cat := planner.NewCatalog(docs)
	tests := []struct {
		question string
		class    string
		offline  ledger.Mode
		model    ledger.Mode
	}{
		{"What was Apple's total net sales in fiscal 2024?", "fact", ledger.ModeRules, ledger.ModeModel},
		{threeIssuers, "comparison", ledger.ModeRules, ledger.ModeModel},
		{"Does Apple expect its gross margin to remain under pressure?", "outlook", ledger.ModeRules, ledger.ModeModel},
		{"What does Netflix say drives its content amortization?", "explanation", ledger.ModeRules, ledger.ModeModel},
		{aiTrap, "trap", ledger.ModeRules, ledger.ModeModel},
		{"Compare Apple's and Samsung's gross margins in fiscal 2024.", "out_of_corpus", ledger.ModeRules, ledger.ModeModel},
		{"Should I buy Apple stock?", "refusal", ledger.ModeBaseline, ledger.ModeBaseline},
	}
	offline, _ := newEngineOver(t, store, nil)
	withModel, _, _ := modelEngine(t, store)
	for _, tt := range tests {
		rt := planner.RouteQuestion(tt.question, cat, nil)
		for _, c := range []struct {
			name string
			got  func(planner.Route) (ledger.Mode, string)
			want ledger.Mode
		}{
			{"AutoMode", AutoMode, tt.offline},
			{"AutoModeFor without a model", func(rt planner.Route) (ledger.Mode, string) { return AutoModeFor(rt, false) }, tt.offline},
			{"AutoModeFor with a model", func(rt planner.Route) (ledger.Mode, string) { return AutoModeFor(rt, true) }, tt.model},
			{"an engine without a model", offline.AutoMode, tt.offline},
			{"an engine with a model", withModel.AutoMode, tt.model},
		} {
			mode, class := c.got(rt)
			if mode != c.want || class != tt.class {
				t.Errorf("%s: %q is class %s in %s mode; want class %s in %s mode", c.name, tt.question, class, mode, tt.class, c.want)
			}
		}
	}
}

// TestAutoModeWithModel: auto mode on an engine with a model plans and
// writes with the model; the result says so, names the class, and its
// status is the validator's, not the one the model proposed.
func TestAutoModeWithModel(t *testing.T) {
	store := corpustest.Store(t)
	tests := []struct {
		question string
		class    string
		mode     ledger.Mode
		status   []ledger.RunStatus // what the validator may decide
	}{
		{"What was Apple's total net sales in fiscal 2024?", "fact", ledger.ModeModel, []ledger.RunStatus{ledger.StatusSupported}},
		{threeIssuers, "comparison", ledger.ModeModel, []ledger.RunStatus{ledger.StatusSupported}},
		// The model says supported; the validator knows Samsung is not in
		// the corpus.
		{"Compare Apple's and Samsung's gross margins in fiscal 2024.", "out_of_corpus", ledger.ModeModel, []ledger.RunStatus{ledger.StatusPartial}},
		{"Should I buy Apple stock?", "refusal", ledger.ModeBaseline, []ledger.RunStatus{ledger.StatusRefused}},
	}
	for _, tt := range tests {
		t.Run(tt.class, func(t *testing.T) {
			eng, lg, srv := modelEngine(t, store)
			srv.On("task_graph", llmtest.Reply{Content: rulesPlanReply(t, store, tt.question)})
			srv.OnFunc("answer", citingAnswer(nil))
			res, err := eng.Run(context.Background(), Request{Question: tt.question, Mode: ModeAuto})
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, lg, res)
			if res.Mode != tt.mode || res.RequestedMode != ModeAuto || res.Class != tt.class {
				t.Errorf("mode %s requested %q class %q; want auto → %s, class %s", res.Mode, res.RequestedMode, res.Class, tt.mode, tt.class)
			}
			if !slices.Contains(tt.status, res.Status) {
				t.Errorf("status %s; want one of %v\n%s\nnotes %v", res.Status, tt.status, res.Answer, res.Notes)
			}
			notes := strings.Join(res.Notes, "\n")
			if strings.Contains(notes, "fell back") {
				t.Errorf("a good model fell back: %v", res.Notes)
			}
			if tt.mode != ledger.ModeModel {
				if n := len(srv.Requests()); n != 0 {
					t.Errorf("%d model calls for a refused question; want none", n)
				}
				return
			}
			if !strings.Contains(notes, "a model is configured") || !strings.Contains(notes, "class "+tt.class) {
				t.Errorf("notes %v: want auto mode's choice of the model, with the class", res.Notes)
			}
			if !strings.HasPrefix(res.Planner, "model:") || srv.Count("task_graph") != 1 || srv.Count("answer") != 1 {
				t.Errorf("planner %q, %d plan and %d answer requests; want the model's plan and answer", res.Planner, srv.Count("task_graph"), srv.Count("answer"))
			}
			led, err := lg.Load(context.Background(), res.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if led.Run.Mode != ledger.ModeModel {
				t.Errorf("the ledger recorded %s mode; want model, the mode that ran", led.Run.Mode)
			}
		})
	}
}

// TestAutoModeModelFallsBack: a configured model that fails, or returns
// plans and answers that cannot be used, is stood in for by the rules
// planner and synthesizer; the notes say which step fell back and why,
// and the validator decides the status over valid citations.
func TestAutoModeModelFallsBack(t *testing.T) {
	store := corpustest.Store(t)
	q := threeIssuers
	badTool := func(t *testing.T) string {
		g := rulesGraph(t, store, q)
		g.Nodes[0].Tool = "shell"
		s, err := planner.EncodeModelGraph(g)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	down := llmtest.Reply{Status: 500, Content: "the model server is down"}
	tests := []struct {
		name     string
		model    string // "" means testModel
		plan     func(t *testing.T) []llmtest.Reply
		answer   func(llmtest.Request) llmtest.Reply
		notes    []string // each in the result's notes
		planner  string
		problems bool // the validator removed something
	}{
		{
			name: "plans and answers that are not JSON",
			plan: func(*testing.T) []llmtest.Reply {
				return []llmtest.Reply{{Content: "Sure! I would search the filings."}}
			},
			answer:  func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "Margins were fine."} },
			notes:   []string{"planning fell back to rules: 3 replies rejected", "the rules planner planned this run", "synthesis fell back to rules: 3 replies rejected", "the rules synthesizer wrote this answer"},
			planner: fallbackPlanner,
		},
		{
			name:    "a plan that fails validation",
			plan:    func(t *testing.T) []llmtest.Reply { return []llmtest.Reply{{Content: badTool(t)}} },
			answer:  citingAnswer(nil),
			notes:   []string{"planning fell back to rules: 3 replies rejected", "shell"},
			planner: fallbackPlanner,
		},
		{
			name:    "a model server that is down",
			plan:    func(*testing.T) []llmtest.Reply { return []llmtest.Reply{down} },
			answer:  func(llmtest.Request) llmtest.Reply { return down },
			notes:   []string{"planning fell back to rules: the model call failed", "synthesis fell back to rules: the model call failed"},
			planner: fallbackPlanner,
		},
		{
			name: "an answer citing evidence it was not shown",
			plan: func(t *testing.T) []llmtest.Reply { return []llmtest.Reply{{Content: rulesPlanReply(t, store, q)}} },
			answer: citingAnswer(func(cits []map[string]any) {
				for _, c := range cits {
					c["evidence_id"] = "Edeadbeef0000"
				}
			}),
			planner:  "model:" + testModel,
			problems: true,
		},
		{
			name:    "a model without a price under a spend limit",
			model:   "no-such-model-7b",
			plan:    func(*testing.T) []llmtest.Reply { return nil },
			answer:  func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "not to be called"} },
			notes:   []string{"model mode without a model call: the model cannot be priced", "the rules planner plans this run"},
			planner: fallbackPlanner,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng, lg, srv := modelEngine(t, store)
			if tt.model != "" {
				eng.cfg.Model.Model = tt.model
			}
			srv.On("task_graph", tt.plan(t)...)
			srv.OnFunc("answer", tt.answer)
			res, err := eng.Run(context.Background(), Request{Question: q, Mode: ModeAuto})
			if err != nil {
				t.Fatal(err)
			}
			led := checkResult(t, lg, res)
			if res.Mode != ledger.ModeModel || res.RequestedMode != ModeAuto || res.Class != "comparison" {
				t.Errorf("mode %s requested %q class %q; want auto → model, class comparison", res.Mode, res.RequestedMode, res.Class)
			}
			if !slices.Contains(endStates, res.Status) {
				t.Errorf("status %s; want an end state", res.Status)
			}
			if res.Planner != tt.planner {
				t.Errorf("planner %q; want %q", res.Planner, tt.planner)
			}
			notes := strings.Join(res.Notes, "\n")
			for _, want := range tt.notes {
				if !strings.Contains(notes, want) {
					t.Errorf("notes lack %q:\n%s", want, notes)
				}
			}
			for _, want := range tt.notes {
				if strings.Contains(want, "fell back") && !hasEvent(led, ledger.EventDecision, want) {
					t.Errorf("the ledger's decisions lack %q", want)
				}
			}
			if (len(res.Problems) > 0) != tt.problems {
				t.Errorf("problems %+v; want some: %v", res.Problems, tt.problems)
			}
			if tt.model != "" && len(srv.Requests()) != 0 {
				t.Errorf("%d requests to a model that cannot be priced; want none", len(srv.Requests()))
			}
			// Whatever wrote the answer, the status is the validator's:
			// the rules synthesizer's answer over what was gathered here
			// is supported, and the invented citations leave nothing to
			// support it with.
			if tt.problems && (res.Status == ledger.StatusSupported || len(res.Citations) != 0) {
				t.Errorf("status %s with %d citations; the validator must not accept invented citations", res.Status, len(res.Citations))
			}
		})
	}
}

// An explicit model mode with a model that cannot be priced is refused,
// as before: only auto mode stands the rules in for it.
func TestModelModeUnpricedRefused(t *testing.T) {
	store := corpustest.Store(t)
	eng, _, _ := modelEngine(t, store)
	eng.cfg.Model.Model = "no-such-model-7b"
	_, err := eng.Run(context.Background(), Request{Question: threeIssuers, Mode: ledger.ModeModel})
	var re *RequestError
	if !errors.As(err, &re) || re.Field != "model" {
		t.Fatalf("error %v; want a RequestError naming the model", err)
	}
}

// TestAutoModeResume: the mode auto mode chose, the class and that auto
// chose it are kept when a run is resumed or read back.
func TestAutoModeResume(t *testing.T) {
	store := corpustest.Store(t)
	ctx := context.Background()
	q := "What was Apple's total net sales in fiscal 2024?"
	tests := []struct {
		name     string
		model    bool        // the engine resuming has a model
		recorded ledger.Mode // the mode the run was recorded in; "" means a fresh run, run twice
		want     ledger.Mode
		note     string
	}{
		{"a finished run read back", true, "", ledger.ModeModel, "a model is configured"},
		{"recorded offline, resumed with a model", true, ledger.ModeRules, ledger.ModeRules, "recorded in rules mode when it was first opened"},
		{"recorded in model mode, resumed without a model", false, ledger.ModeModel, ledger.ModeModel, "this engine has no model configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				eng *Engine
				lg  ledger.Store
			)
			if tt.model {
				var srv *llmtest.Server
				eng, lg, srv = modelEngine(t, store)
				srv.On("task_graph", llmtest.Reply{Content: rulesPlanReply(t, store, q)})
				srv.OnFunc("answer", citingAnswer(nil))
			} else {
				eng, lg = newEngineOver(t, store, func(c *Config) { c.Prices = configs.Prices() })
			}
			id := "auto-resume"
			if tt.recorded != "" {
				if _, _, err := lg.OpenRun(ctx, ledger.Run{ID: id, Question: q, Mode: tt.recorded}); err != nil {
					t.Fatal(err)
				}
			}
			res, err := eng.Run(ctx, Request{RunID: id, Question: q, Mode: ModeAuto})
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, lg, res)
			if tt.recorded == "" {
				if res, err = eng.Run(ctx, Request{RunID: id, Question: q, Mode: ModeAuto}); err != nil {
					t.Fatal(err)
				}
			}
			recorded, ok, err := RecordedResult(ctx, lg, id)
			if err != nil || !ok {
				t.Fatalf("recorded result: %v, %v", ok, err)
			}
			for _, r := range []*Result{res, recorded} {
				if r.Mode != tt.want || r.RequestedMode != ModeAuto || r.Class != "fact" {
					t.Errorf("mode %s requested %q class %q; want auto → %s, class fact", r.Mode, r.RequestedMode, r.Class, tt.want)
				}
				if !strings.Contains(strings.Join(r.Notes, "\n"), tt.note) {
					t.Errorf("notes %v; want %q", r.Notes, tt.note)
				}
			}
			// The result's JSON carries them.
			data, _ := json.Marshal(recorded)
			if !strings.Contains(string(data), `"requested_mode":"auto"`) || !strings.Contains(string(data), `"class":"fact"`) {
				t.Errorf("result JSON lacks requested_mode or class: %s", data)
			}
		})
	}
}

// rulesGraph is the rules planner's graph for question over store.
func rulesGraph(t *testing.T, store corpus.Store, question string) *planner.Graph {
	t.Helper()
	docs, err := store.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cat := planner.NewCatalog(docs)
	g, err := (&planner.RulesPlanner{}).Plan(context.Background(), question, planner.RouteQuestion(question, cat, nil), cat)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
