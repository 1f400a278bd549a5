package main

import (
	"flag"
	"io"
	"testing"
	"time"
)

func TestBudgetFlags(t *testing.T) {
	tests := []struct {
		args       []string
		env        string
		wantLeases bool
		wantErr    bool
	}{
		{nil, "", true, false},
		{[]string{"--budget-leases"}, "", true, false},
		{[]string{"--budget-leases=false"}, "", false, false},
		{nil, "false", false, false},
		{nil, "0", false, false},
		{[]string{"--budget-leases=true"}, "false", true, false},
		{nil, "maybe", false, true},
	}
	for _, tt := range tests {
		t.Setenv("RESEARCH_BUDGET_LEASES", tt.env)
		bf := parseBudgetFlags(t, tt.args)
		err := bf.check()
		if (err != nil) != tt.wantErr {
			t.Errorf("%v with RESEARCH_BUDGET_LEASES=%q: error %v, want one: %v", tt.args, tt.env, err, tt.wantErr)
			continue
		}
		if err == nil && bf.leases != tt.wantLeases {
			t.Errorf("%v with RESEARCH_BUDGET_LEASES=%q: leases %v, want %v", tt.args, tt.env, bf.leases, tt.wantLeases)
		}
	}
}

func TestBudgetSweepFlag(t *testing.T) {
	tests := []struct {
		args []string
		want time.Duration
		says string
	}{
		{nil, 0, "1m0s"},
		{[]string{"--budget-sweep-interval", "30s"}, 30 * time.Second, "30s"},
		{[]string{"--budget-sweep-interval=-1s"}, -time.Second, "off"},
	}
	for _, tt := range tests {
		bf := parseBudgetFlags(t, tt.args)
		if bf.sweep != tt.want || bf.sweepInterval() != tt.says {
			t.Errorf("%v: sweep %s (%s), want %s (%s)", tt.args, bf.sweep, bf.sweepInterval(), tt.want, tt.says)
		}
	}
}

// parseBudgetFlags parses args with the budget flags registered.
func parseBudgetFlags(t *testing.T, args []string) *budgetFlags {
	t.Helper()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var bf budgetFlags
	bf.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return &bf
}
