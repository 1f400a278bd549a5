package jobs

import (
	"github.com/riverqueue/river"

	"github.com/ledgerline/research/budget"
)

// Kind is the River job kind of a research run.
const Kind = "research_run"

// QueueName is the River queue research runs are enqueued on and workers
// fetch from.
const QueueName = "research"

// MaxAttempts is how many times a run's job is attempted before River
// discards it. A run that reaches a verdict is done at its first
// successful attempt; attempts are spent by errors that stop a run from
// being recorded (a database that does not answer) and by workers that
// die mid-run. A worker that hands a job back while stopping spends none.
const MaxAttempts = 5

// RunArgs are a research run's job arguments, as River stores them.
type RunArgs struct {
	Tenant        string         `json:"tenant"`
	RunID         string         `json:"run_id"`
	Question      string         `json:"question"`
	Tickers       []string       `json:"tickers,omitempty"`
	Mode          string         `json:"mode,omitempty"`           // rules, model or baseline, as recorded; "" means rules
	RequestedMode string         `json:"requested_mode,omitempty"` // "auto" when auto mode chose Mode at submission
	Limits        *budget.Limits `json:"limits,omitempty"`         // nil means executor.DefaultLimits
	MaxCalls      int            `json:"max_calls,omitempty"`
	BatchID       string         `json:"batch_id,omitempty"` // the batch that submitted the run, if any
}

// Kind is the job kind, "research_run".
func (RunArgs) Kind() string { return Kind }

// InsertOpts puts runs on QueueName with MaxAttempts.
func (RunArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueName, MaxAttempts: MaxAttempts}
}
