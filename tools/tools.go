// Package tools holds the five tools a research run gathers evidence with:
// search_filings, read_chunks, read_surrounding, lookup_fact and calculate.
//
// Every tool validates its arguments on the server side against the run's
// Scope, bounds what it returns (an excerpt shown to a model is at most
// MaxExcerpt characters, a whole response at most MaxResponse), and registers
// every passage and fact it returns in the run's ledger before returning, so
// only registered evidence can ever be cited.
package tools

import (
	"encoding/json"

	"github.com/ledgerline/research/contract"
	"github.com/ledgerline/research/ledger"
)

// Tool names.
const (
	SearchFilings   = "search_filings"
	ReadChunks      = "read_chunks"
	ReadSurrounding = "read_surrounding"
	LookupFact      = "lookup_fact"
	Calculate       = "calculate"
)

// Names lists the tools in the order documentation shows them.
func Names() []string {
	return []string{SearchFilings, ReadChunks, ReadSurrounding, LookupFact, Calculate}
}

// Output bounds.
const (
	MaxExcerpt  = 800    // characters of one excerpt in a response
	MaxResponse = 12_000 // characters of a whole response
)

// Scope is what a run may touch. Tool arguments outside it are refused,
// whatever asked for them: the planner, a model, or text a model read.
type Scope struct {
	Tenant      string   // the run's tenant; a tool never reads another's
	Tickers     []string // issuers the run may read (upper case); never empty for a run
	FiscalYears []int    // fiscal years it may read; empty means any
}

// SearchArgs are search_filings' arguments.
type SearchArgs struct {
	Query       string   `json:"query"`
	Tickers     []string `json:"tickers,omitempty"` // empty means every ticker in scope
	Form        string   `json:"form,omitempty"`    // "10-K", "10-Q"
	FiscalYears []int    `json:"fiscal_years,omitempty"`
	Section     string   `json:"section,omitempty"` // "Item 7", "7", "1A", ...
	K           int      `json:"k,omitempty"`       // results; 0 means 6, at most 20
}

// ReadChunksArgs are read_chunks' arguments.
type ReadChunksArgs struct {
	IDs []string `json:"ids"` // chunk ids, at most 10
}

// ReadSurroundingArgs are read_surrounding's arguments.
type ReadSurroundingArgs struct {
	ID     string `json:"id"`     // a chunk id
	Before int    `json:"before"` // chunks before it, 0..3
	After  int    `json:"after"`  // chunks after it, 0..3
}

// LookupFactArgs are lookup_fact's arguments: a concept or a label.
type LookupFactArgs struct {
	Ticker string `json:"ticker"`
	// Concept is a concept ("us-gaap:GrossProfit" or "GrossProfit"), or a
	// figure key: a segment's figure "us-gaap:Revenues[aapl:IPhoneMember]",
	// or a table row of a text filing "table:Total net sales".
	Concept string `json:"concept,omitempty"`
	Label   string `json:"label,omitempty"`  // "gross margin", "total net sales", ...
	Period  string `json:"period,omitempty"` // "FY2024"; "" means the latest annual period in scope
	// YearToDate asks a quarterly report for its year-to-date column (six
	// or nine months) rather than its quarter.
	YearToDate bool `json:"year_to_date,omitempty"`
	// Quarter asks a quarterly report for its quarter's own column only
	// (three months): a figure the report prints for its year to date
	// alone (a cash-flow statement's nine months) does not answer a
	// question about the quarter.
	Quarter bool `json:"quarter,omitempty"`
	// FiscalQuarter asks an annual report for one quarter (1-4) of the
	// fiscal year Period names, from its table of quarters ("Financial
	// Information by Quarter"): three months ending in that quarter of the
	// year the report ends. 0 asks for no quarter.
	FiscalQuarter int `json:"fiscal_quarter,omitempty"`
	// Outflow reads a table row's amount as a cost or a payment: its
	// magnitude, as the tagged concept of one is positive though a table
	// may print it in parentheses.
	Outflow bool `json:"outflow,omitempty"`
	// Flow reads a figure over a period (revenue, income, a cash flow),
	// never a balance at a date: a table row's label may be printed in a
	// balance table too ("Hardware" among deferred revenues).
	Flow bool `json:"flow,omitempty"`
	// Stated reads a count a sentence of the filing states instead of a
	// tagged fact or a table row ("we employed approximately 221,000
	// people"): the words of which the sentence holds one, with Concept a
	// stated key ("stated:employees") that calculate can name.
	Stated []string `json:"stated,omitempty"`
	// Above is, for a table row, the key of the total row it is printed
	// above (a table key): among rows of one label in several tables
	// ("Foreign" of income before taxes and of current taxes), the one
	// whose table totals to it.
	Above string `json:"above,omitempty"`
}

// FactRef names a fact for calculate: the fact the same lookup would find.
type FactRef struct {
	Ticker  string `json:"ticker"`
	Concept string `json:"concept"`
	Period  string `json:"period,omitempty"`
	// Prior names instead the figure for the period a year before
	// Period's fact, as the same filing shows it beside that fact: a
	// quarter's year-ago quarter in a 10-Q, the prior year in a 10-K. A
	// quarterly filing's comparative has no fiscal-year label of its own.
	Prior bool `json:"prior,omitempty"`
	// FiscalQuarter names instead the fact of that quarter (1-4) of
	// Period's fiscal year that an annual report's table of quarters
	// shows (LookupFactArgs.FiscalQuarter); 0 for none.
	FiscalQuarter int `json:"fiscal_quarter,omitempty"`
}

// CalculateArgs are calculate's arguments: an arithmetic expression
// (+ - * / and parentheses, decimal literals) over named facts. Each name
// is bound to a fact the run's ledger holds already; calculate never reads
// a number the run has not registered.
type CalculateArgs struct {
	Expression string             `json:"expression"` // e.g. "gross_profit / revenue"
	Facts      map[string]FactRef `json:"facts"`
}

// Call is one tool call of a run.
type Call struct {
	ID            string          // unique in the run; the ledger's tool call id and the budget key's stem
	Tool          string          // one of Names()
	Args          json.RawMessage // the tool's arguments as JSON
	RequirementID string          // the requirement it serves; "" for none
}

// Calculation is what calculate computed.
type Calculation = contract.Calculation

// Output is what a tool call returned, already recorded in the ledger.
type Output struct {
	Evidence       []ledger.Evidence    // registered passages and fact spans, in the tool's order
	Facts          []ledger.Fact        // registered facts
	Calculation    *Calculation         // calculate's result; nil for the other tools
	CandidatesSeen int                  // retrieval candidates the call looked at (the budget's dimension)
	Record         *ledger.RecordResult // what recording did (new, duplicate, contained)
	Text           string               // the bounded response a model is shown: at most MaxResponse characters
}
