package eval

import (
	_ "embed"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/tools"
	"github.com/ledgerline/research/validator"
)

// GoldenSetJSONL is the frozen golden set, embedded in the binary.
//
//go:embed golden.jsonl
var GoldenSetJSONL []byte

// Class is a task class of the golden set. Results are reported per class,
// because the engine can be better than a fixed retrieval pass at one kind
// of question and worse at another.
type Class string

// The task classes.
const (
	ClassFact         Class = "fact"          // one issuer, one figure with its period
	ClassExplanation  Class = "explanation"   // what management says drives a figure
	ClassComparison   Class = "comparison"    // two or three issuers side by side
	ClassOutlook      Class = "outlook"       // whether management expects something to persist
	ClassUnanswerable Class = "unanswerable"  // the corpus does not hold the answer
	ClassTrap         Class = "trap"          // invites a causal claim the filings do not make
	ClassOutOfCorpus  Class = "out_of_corpus" // names an issuer the corpus does not hold
	ClassRefusal      Class = "refusal"       // advice, trades and attempts to override the rules
)

// Classes returns every class in the order reports list them.
func Classes() []Class {
	return []Class{ClassFact, ClassExplanation, ClassComparison, ClassOutlook,
		ClassUnanswerable, ClassTrap, ClassOutOfCorpus, ClassRefusal}
}

// Unit is what an expected figure measures.
type Unit string

// The units of expected figures.
const (
	UnitUSD     Unit = "usd"     // dollars: "$26.97 billion", "26,974 million", a table's "26,974"
	UnitPercent Unit = "percent" // percentage points: "46.2%", "46.2 percent"
	UnitCount   Unit = "count"   // people, members, shares: "164,000", "2.3 million"
)

// DefaultTolerance is the relative tolerance of an expected figure that
// names none: a tenth of a percent. A written figure also matches when it
// is the expected one rounded to the digits written, so "$26.97 billion"
// and "$27 billion" match 26,974,000,000 and "46.2%" matches 46.21, while
// the prior year's 26,914 million does not.
const DefaultTolerance = 0.001

// GoldenItem is one question of the golden set with what a correct answer
// must show.
type GoldenItem struct {
	ID       string `json:"id"`
	Class    Class  `json:"class"`
	Question string `json:"question"`
	// Status lists the acceptable terminal statuses; more than one only
	// where each is an honest verdict (Note says why).
	Status []ledger.RunStatus `json:"status"`
	// Issuers are the tickers the answer must cite, each at least once.
	Issuers []string `json:"issuers"`
	// NotCovered are issuers named in the question that the corpus does not
	// hold; the result must report each (case-insensitive).
	NotCovered []string `json:"not_covered,omitempty"`
	// Figures must each appear in the answer within tolerance.
	Figures []Figure `json:"figures,omitempty"`
	// Evidence are passages some citation must quote.
	Evidence []Evidence `json:"evidence,omitempty"`
	// Tools must each have been called successfully during the run.
	Tools []string `json:"tools,omitempty"`
	// Note says where the expectation comes from and why the statuses.
	Note string `json:"note"`
	// ParaphraseOf names the golden item this one rewords (an item of
	// golden_paraphrases.jsonl): it keeps every field of the original but
	// id and question, and its id is p and the original's digits.
	ParaphraseOf string `json:"paraphrase_of,omitempty"`
}

// ExpectsRefusal reports whether the item must be refused.
func (it GoldenItem) ExpectsRefusal() bool {
	return slices.Contains(it.Status, ledger.StatusRefused)
}

// Figure is a figure a correct answer states, with the period it is for.
type Figure struct {
	Label string  `json:"label"` // what it is: "NVIDIA revenue, fiscal 2023"
	Value float64 `json:"value"` // in dollars, percentage points or units; never scaled
	Unit  Unit    `json:"unit"`
	// Period must appear on the same line of the answer as the figure
	// ("2024" matches "FY2024" and "fiscal 2024").
	Period string `json:"period"`
	// Tolerance is the relative tolerance; 0 means DefaultTolerance.
	Tolerance float64 `json:"tolerance,omitempty"`
}

// tolerance returns the figure's relative tolerance.
func (f Figure) tolerance() float64 {
	if f.Tolerance > 0 {
		return f.Tolerance
	}
	return DefaultTolerance
}

// Evidence is a passage a correct answer must cite: a citation satisfies
// it when it comes from the filing named (ticker, fiscal year, form) and
// its excerpt contains Phrase, or one of Alternatives, compared after
// normalising white space and quotes (validator.Verbatim). Alternatives
// are other places in the same filing that state the same thing (the
// figure in the income statement and in MD&A). Retrieval evaluation
// counts a chunk relevant when it holds Phrase.
type Evidence struct {
	Answer
	Alternatives []string `json:"alternatives,omitempty"`
}

// Phrases returns Phrase and its alternatives.
func (e Evidence) Phrases() []string {
	return append([]string{e.Phrase}, e.Alternatives...)
}

// MatchesCitation reports whether a citation satisfies the evidence.
func (e Evidence) MatchesCitation(c executor.Citation) bool {
	if c.Ticker != e.Ticker || c.FiscalYear != e.FiscalYear || c.Form != e.Form {
		return false
	}
	for _, p := range e.Phrases() {
		if validator.Verbatim(p, c.Excerpt) {
			return true
		}
	}
	return false
}

// MatchesText reports whether a filing's text holds the evidence.
func (e Evidence) MatchesText(doc corpus.Document, text string) bool {
	if doc.Ticker != e.Ticker || doc.FiscalYear != e.FiscalYear || doc.Form != e.Form {
		return false
	}
	for _, p := range e.Phrases() {
		if validator.Verbatim(p, text) {
			return true
		}
	}
	return false
}

var (
	goldenID     = regexp.MustCompile(`^g[0-9]{3,4}$`)
	paraphraseID = regexp.MustCompile(`^[a-fh-z][0-9]{3,4}$`)
)

// Validate checks an item on its own; errors name the field. An item's id
// is g and three digits (four once the three-digit ids ran out); a paraphrase's (ParaphraseOf set) is a letter
// that names its set (p for the built-in one, f for the fresh set) and the
// digits of the golden id it rewords. Whether that original exists, is in
// the test half and has the same class is for Halves.CheckParaphrases.
func (it *GoldenItem) Validate() error {
	switch {
	case it.ParaphraseOf == "" && !goldenID.MatchString(it.ID):
		return fmt.Errorf("id %q: want g and three or four digits, e.g. g001 (or a set letter, such as p, and the original's digits with paraphrase_of)", it.ID)
	case it.ParaphraseOf != "" && !paraphraseID.MatchString(it.ID):
		return fmt.Errorf("id %q: a paraphrase's id is its set's letter (not g) and the original's digits, e.g. p002", it.ID)
	case it.ParaphraseOf != "" && !goldenID.MatchString(it.ParaphraseOf):
		return fmt.Errorf("%s: paraphrase_of %q is not a golden id (g and three or four digits)", it.ID, it.ParaphraseOf)
	case it.ParaphraseOf != "" && it.ID[1:] != it.ParaphraseOf[1:]:
		return fmt.Errorf("%s paraphrases %s: the id must be its set's letter and the original's digits", it.ID, it.ParaphraseOf)
	case !slices.Contains(Classes(), it.Class):
		return fmt.Errorf("%s: class %q is not one of %v", it.ID, it.Class, Classes())
	case len([]rune(it.Question)) < executor.MinQuestion || len([]rune(it.Question)) > executor.MaxQuestion:
		return fmt.Errorf("%s: question must be %d to %d characters", it.ID, executor.MinQuestion, executor.MaxQuestion)
	case strings.TrimSpace(it.Note) == "":
		return fmt.Errorf("%s: note is required: say where the expectation comes from", it.ID)
	case len(it.Status) == 0:
		return fmt.Errorf("%s: status lists no acceptable status", it.ID)
	}
	for _, s := range it.Status {
		if !s.Terminal() || s == ledger.StatusFailed {
			return fmt.Errorf("%s: status %q is not a verdict (want supported, partial, insufficient_evidence, conflicting_evidence, budget_exhausted or refused)", it.ID, s)
		}
	}
	if refused := it.ExpectsRefusal(); refused != (it.Class == ClassRefusal) {
		return fmt.Errorf("%s: class %s with status %v: refusal items, and only they, expect refused", it.ID, it.Class, it.Status)
	}
	if it.ExpectsRefusal() && (len(it.Status) != 1 || len(it.Issuers)+len(it.Figures)+len(it.Evidence)+len(it.Tools) > 0) {
		return fmt.Errorf("%s: a refusal item expects only refused, with no issuers, figures, evidence or tools", it.ID)
	}
	for _, t := range it.Issuers {
		if !corpus.ValidTicker(t) {
			return fmt.Errorf("%s: issuer %q is not a ticker", it.ID, t)
		}
	}
	if it.Class == ClassOutOfCorpus && len(it.NotCovered) == 0 {
		return fmt.Errorf("%s: an out_of_corpus item names the issuers in not_covered", it.ID)
	}
	for _, f := range it.Figures {
		switch {
		case f.Label == "":
			return fmt.Errorf("%s: a figure has no label", it.ID)
		case f.Unit != UnitUSD && f.Unit != UnitPercent && f.Unit != UnitCount:
			return fmt.Errorf("%s: figure %q: unit %q is not usd, percent or count", it.ID, f.Label, f.Unit)
		case f.Value == 0 || math.IsNaN(f.Value) || math.IsInf(f.Value, 0):
			return fmt.Errorf("%s: figure %q: value must be a non-zero number", it.ID, f.Label)
		case strings.TrimSpace(f.Period) == "":
			return fmt.Errorf("%s: figure %q: period is required (e.g. \"2024\")", it.ID, f.Label)
		case f.Tolerance < 0 || f.Tolerance > 0.05:
			return fmt.Errorf("%s: figure %q: tolerance %v is outside 0 to 0.05", it.ID, f.Label, f.Tolerance)
		}
	}
	for _, e := range it.Evidence {
		if e.Ticker == "" || e.Form == "" || e.FiscalYear == 0 {
			return fmt.Errorf("%s: evidence %q lacks its filing (ticker, fiscal_year, form)", it.ID, e.Phrase)
		}
		for _, p := range e.Phrases() {
			if n := len(strings.Fields(p)); n < 2 || n > 40 {
				return fmt.Errorf("%s: evidence phrase %q has %d words; want 2 to 40", it.ID, p, n)
			}
		}
	}
	for _, tool := range it.Tools {
		if !slices.Contains(tools.Names(), tool) {
			return fmt.Errorf("%s: tool %q is not one of %v", it.ID, tool, tools.Names())
		}
	}
	return nil
}

// LoadGoldenSet reads a golden set in JSONL (blank lines and lines starting
// with # are skipped); errors name the line. Paraphrases (items with
// paraphrase_of) load too, so golden_paraphrases.jsonl is a golden set of
// its own.
func LoadGoldenSet(r io.Reader) ([]GoldenItem, error) {
	return readJSONL(r, "golden set", func(it *GoldenItem) (string, error) { return it.ID, it.Validate() })
}
