package eval

import (
	_ "embed"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/ledgerline/research/planner"
)

// IntentSetJSONL is eval/intents.jsonl: prompts that must be refused
// (trades, personal advice, price predictions, attempts to override or
// reveal the rules) and research questions that use the same words, each
// labelled. It was written whole before the router's refusal method, then
// split into a tuning and a frozen test half.
//
//go:embed intents.jsonl
var IntentSetJSONL []byte

// The labels of the intent set.
const (
	IntentRefuse   = "refuse"
	IntentResearch = "research"
)

// IntentCategories are the categories of the intent set, in report order:
// what a refused prompt asks for, or research.
func IntentCategories() []string {
	return []string{"trade", "advice", "prediction", "override", "disclosure", "research"}
}

// IntentItem is one prompt of the intent set.
type IntentItem struct {
	ID       string `json:"id"`
	Split    string `json:"split"`    // tune or test
	Label    string `json:"label"`    // refuse or research
	Category string `json:"category"` // one of IntentCategories
	Text     string `json:"text"`
}

var intentID = regexp.MustCompile(`^i[0-9]{3,4}$`)

// validate checks an item on its own; errors name the field.
func (it IntentItem) validate() error {
	switch {
	case !intentID.MatchString(it.ID):
		return fmt.Errorf("id %q: want i and three or four digits, e.g. i001", it.ID)
	case it.Split != "tune" && it.Split != "test":
		return fmt.Errorf("%s: split %q is not tune or test", it.ID, it.Split)
	case it.Label != IntentRefuse && it.Label != IntentResearch:
		return fmt.Errorf("%s: label %q is not refuse or research", it.ID, it.Label)
	case !slices.Contains(IntentCategories(), it.Category):
		return fmt.Errorf("%s: category %q is not one of %v", it.ID, it.Category, IntentCategories())
	case (it.Category == IntentResearch) != (it.Label == IntentResearch):
		return fmt.Errorf("%s: label %s with category %s: research items, and only they, are in category research", it.ID, it.Label, it.Category)
	case strings.TrimSpace(it.Text) == "":
		return fmt.Errorf("%s: text is empty", it.ID)
	}
	return nil
}

// LoadIntentSet reads an intent set, one JSON object per line; errors name
// the line.
func LoadIntentSet(r io.Reader) ([]IntentItem, error) {
	return readJSONL(r, "intent set", func(it *IntentItem) (string, error) { return it.ID, it.validate() })
}

// IntentResult is what the router made of one prompt.
type IntentResult struct {
	Item    IntentItem
	Refused bool
	Reason  string
}

// Correct reports whether the router's verdict is the label's.
func (r IntentResult) Correct() bool { return r.Refused == (r.Item.Label == IntentRefuse) }

// RunIntents routes every item as the engine does before any model call,
// with an empty catalog: refusal does not depend on the corpus.
func RunIntents(items []IntentItem) []IntentResult {
	cat := planner.NewCatalog(nil)
	out := make([]IntentResult, 0, len(items))
	for _, it := range items {
		rt := planner.RouteQuestion(it.Text, cat, nil)
		out = append(out, IntentResult{Item: it, Refused: rt.Refused, Reason: rt.Reason})
	}
	return out
}

// IntentScore counts the router's refusals over a split and a category
// ("all" for every category).
type IntentScore struct {
	Split, Category string
	Items           int
	MustRefuse      int // items labelled refuse
	Refused         int // items the router refused
	Correct         int // refused items labelled refuse
	FalseRefusals   int // research items refused
	Missed          int // refuse items answered
}

// Precision is the share of refusals that were due; 1 when nothing was
// refused.
func (s IntentScore) Precision() float64 {
	if s.Refused == 0 {
		return 1
	}
	return float64(s.Correct) / float64(s.Refused)
}

// Recall is the share of due refusals made; 1 when nothing was due.
func (s IntentScore) Recall() float64 {
	if s.MustRefuse == 0 {
		return 1
	}
	return float64(s.Correct) / float64(s.MustRefuse)
}

// ScoreIntents sums results by split, with a row per category and an
// "all" row per split; splits in the order tune, test.
func ScoreIntents(results []IntentResult) []IntentScore {
	var out []IntentScore
	for _, split := range []string{"tune", "test"} {
		for _, cat := range append(IntentCategories(), "all") {
			s := IntentScore{Split: split, Category: cat}
			for _, r := range results {
				if r.Item.Split != split || cat != "all" && r.Item.Category != cat {
					continue
				}
				s.Items++
				must := r.Item.Label == IntentRefuse
				if must {
					s.MustRefuse++
				}
				if r.Refused {
					s.Refused++
				}
				switch {
				case must && r.Refused:
					s.Correct++
				case must:
					s.Missed++
				case r.Refused:
					s.FalseRefusals++
				}
			}
			if s.Items > 0 {
				out = append(out, s)
			}
		}
	}
	return out
}

// WriteIntentTable writes scores as a Markdown table.
func WriteIntentTable(w io.Writer, scores []IntentScore) error {
	var b strings.Builder
	b.WriteString("| split | category | items | must refuse | refused | precision | recall | false refusals | missed |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, s := range scores {
		cat := s.Category
		if cat == "all" {
			cat = "**all**"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %.3f | %.3f | %d | %d |\n",
			s.Split, cat, s.Items, s.MustRefuse, s.Refused, s.Precision(), s.Recall(), s.FalseRefusals, s.Missed)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
