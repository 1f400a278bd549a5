package executor

import (
	"context"
	"strings"
	"testing"

	"github.com/ledgerline/research/ledger"
)

func TestAutoModeChoosesPerClass(t *testing.T) {
	eng, lg := newEngine(t, nil)
	tests := []struct {
		question string
		class    string
		mode     ledger.Mode
	}{
		{"What was Apple's total net sales in fiscal 2024?", "fact", ledger.ModeRules},
		{threeIssuers, "comparison", ledger.ModeRules},
		{"Does Apple expect its gross margin to remain under pressure?", "outlook", ledger.ModeRules},
		{"Compare Apple's and NVIDIA's gross margins.", "comparison", ledger.ModeRules},
		{"What does Netflix say drives its content amortization?", "explanation", ledger.ModeRules},
		{aiTrap, "trap", ledger.ModeRules},
		{"Compare Apple's and Samsung's gross margins in fiscal 2024.", "out_of_corpus", ledger.ModeRules},
	}
	for _, tt := range tests {
		res, err := eng.Run(context.Background(), Request{Question: tt.question, Mode: ModeAuto})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, lg, res)
		if res.Mode != tt.mode || !strings.Contains(strings.Join(res.Notes, "\n"), "class "+tt.class) {
			t.Errorf("%q: ran in %s (notes %v); want class %s in %s mode", tt.question, res.Mode, res.Notes, tt.class, tt.mode)
		}
		if res.RequestedMode != ModeAuto || res.Class != tt.class {
			t.Errorf("%q: requested mode %q class %q; want auto and %s", tt.question, res.RequestedMode, res.Class, tt.class)
		}
		led, err := lg.Load(context.Background(), res.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if led.Run.Mode != tt.mode {
			t.Errorf("%q: the ledger recorded the run in %s mode; want %s, the mode that ran", tt.question, led.Run.Mode, tt.mode)
		}
	}
}

// A mode asked for is not auto's choice, and the result still names the
// question's class.
func TestExplicitModeNamesClass(t *testing.T) {
	eng, lg := newEngine(t, nil)
	for _, mode := range []ledger.Mode{ledger.ModeRules, ledger.ModeBaseline} {
		res, err := eng.Run(context.Background(), Request{Question: threeIssuers, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, lg, res)
		if res.Mode != mode || res.RequestedMode != "" || res.Class != "comparison" {
			t.Errorf("mode %s requested %q class %q; want %s, not auto, class comparison", res.Mode, res.RequestedMode, res.Class, mode)
		}
		if strings.Contains(strings.Join(res.Notes, "\n"), "auto mode") {
			t.Errorf("notes %v speak of auto mode for a mode asked for", res.Notes)
		}
	}
}
