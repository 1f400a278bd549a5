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
		{"Does Apple expect its gross margin to remain under pressure?", "outlook", ledger.ModeBaseline},
		{"Compare Apple's and NVIDIA's gross margins.", "comparison", ledger.ModeRules},
		{"What does Netflix say drives its content amortization?", "explanation", ledger.ModeBaseline},
		{aiTrap, "trap", ledger.ModeBaseline},
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
	}
}
