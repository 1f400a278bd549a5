package server

import (
	"context"
	"errors"
	"testing"

	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
)

// fakeRuns is a runReader and nothing more: no ledger.Store.
type fakeRuns struct {
	events map[string][]ledger.Event
}

func (f fakeRuns) Run(_ context.Context, id string) (ledger.Run, error) {
	if _, ok := f.events[id]; !ok {
		return ledger.Run{}, ledger.ErrNotFound
	}
	return ledger.Run{ID: id}, nil
}

func (f fakeRuns) Events(_ context.Context, id string) ([]ledger.Event, error) {
	evs, ok := f.events[id]
	if !ok {
		return nil, ledger.ErrNotFound
	}
	return evs, nil
}

func (f fakeRuns) Load(ctx context.Context, id string) (*ledger.RunLedger, error) {
	run, err := f.Run(ctx, id)
	if err != nil {
		return nil, err
	}
	return &ledger.RunLedger{Run: run, Events: f.events[id]}, nil
}

// TestRecordedResultOverRunReader: a run's answer is read through the
// API's runReader, which has no write to offer.
func TestRecordedResultOverRunReader(t *testing.T) {
	runs := fakeRuns{events: map[string][]ledger.Event{
		"done": {
			{Kind: ledger.EventRunCreated},
			{Kind: executor.EventAnswer, Data: []byte(`{"run_id":"done","status":"supported","answer":"yes"}`)},
		},
		"going": {{Kind: ledger.EventRunCreated}},
	}}
	ctx := context.Background()
	for _, c := range []struct {
		run    string
		wantOK bool
		err    error
	}{
		{run: "done", wantOK: true},
		{run: "going"},
		{run: "missing", err: ledger.ErrNotFound},
	} {
		res, ok, err := executor.RecordedResult(ctx, runs, c.run)
		if !errors.Is(err, c.err) || ok != c.wantOK {
			t.Errorf("%s: ok %v, err %v; want %v, %v", c.run, ok, err, c.wantOK, c.err)
			continue
		}
		if ok && (res.Status != ledger.StatusSupported || res.Citations == nil) {
			t.Errorf("%s: %+v, want supported with its lists filled", c.run, res)
		}
	}
}
