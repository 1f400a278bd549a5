package eval

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// GoldenSplitJSON divides the golden set into a tuning half and a frozen
// test half (issue 11): within each class, items ordered by id go
// alternately to tune and test, the odd one to tune. Changes are tuned on
// the tune half; the test half, and its paraphrases, only report.
//
//go:embed golden_split.json
var GoldenSplitJSON []byte

// GoldenParaphrasesJSONL holds one paraphrase of every test-half item: the
// item with a new id (p and the original's digits), a reworded question
// and paraphrase_of naming the original; every other field is the
// original's.
//
//go:embed golden_paraphrases.jsonl
var GoldenParaphrasesJSONL []byte

// Split is the part of the golden evaluation a result belongs to.
type Split string

// The splits. A result of an item the split file does not name (a custom
// golden file) has SplitAll, and is reported only in the whole-set table.
const (
	SplitAll        Split = ""           // not in the split: the whole set ("all")
	SplitTune       Split = "tune"       // the half choices are tuned on
	SplitTest       Split = "test"       // the frozen half that only reports
	SplitParaphrase Split = "paraphrase" // a test-half item asked in other words
)

// Splits returns the reported splits in the order reports show them: the
// test half, its paraphrases, then the tuning half.
func Splits() []Split {
	return []Split{SplitTest, SplitParaphrase, SplitTune}
}

// Label is the split's name, or "all" for SplitAll.
func (s Split) Label() string {
	if s == SplitAll {
		return "all"
	}
	return string(s)
}

// GoldenSplit is the file format of golden_split.json.
type GoldenSplit struct {
	About string   `json:"about"` // how the split was made
	Tune  []string `json:"tune"`  // golden ids to tune on
	Test  []string `json:"test"`  // golden ids held out
}

// Halves is a golden split as two sets of golden ids.
type Halves struct {
	Tune map[string]bool
	Test map[string]bool
}

// SplitOf returns the split of an item: SplitParaphrase for a paraphrase,
// else the half that names its id, else SplitAll. A nil Halves puts every
// item that is not a paraphrase in SplitAll.
func (h *Halves) SplitOf(it GoldenItem) Split {
	switch {
	case it.ParaphraseOf != "":
		return SplitParaphrase
	case h == nil:
		return SplitAll
	case h.Tune[it.ID]:
		return SplitTune
	case h.Test[it.ID]:
		return SplitTest
	}
	return SplitAll
}

// LoadGoldenSplit reads the embedded split and checks it against the
// embedded golden set: every golden id in exactly one half, and no id the
// golden set lacks.
func LoadGoldenSplit() (*Halves, error) {
	golden, err := LoadGoldenSet(bytes.NewReader(GoldenSetJSONL))
	if err != nil {
		return nil, fmt.Errorf("golden set: %v", err)
	}
	return parseGoldenSplit(GoldenSplitJSON, golden)
}

// parseGoldenSplit reads a split file and checks it against the golden
// items it divides. It fails on an unknown field, a malformed or repeated
// id, an id in both halves, an id the golden set lacks, or a golden item
// in neither half.
func parseGoldenSplit(raw []byte, golden []GoldenItem) (*Halves, error) {
	var s GoldenSplit
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("golden split: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("golden split: more than one JSON value")
	}
	if s.About == "" {
		return nil, fmt.Errorf("golden split: about is required: say how the split was made")
	}
	known := map[string]bool{}
	for _, it := range golden {
		if it.ParaphraseOf == "" {
			known[it.ID] = true
		}
	}
	h := &Halves{Tune: map[string]bool{}, Test: map[string]bool{}}
	for _, half := range []struct {
		name string
		ids  []string
		set  map[string]bool
	}{{"tune", s.Tune, h.Tune}, {"test", s.Test, h.Test}} {
		if len(half.ids) == 0 {
			return nil, fmt.Errorf("golden split: the %s half is empty", half.name)
		}
		for _, id := range half.ids {
			switch {
			case !goldenID.MatchString(id):
				return nil, fmt.Errorf("golden split: %s: id %q is not g and three digits", half.name, id)
			case half.set[id]:
				return nil, fmt.Errorf("golden split: %s: id %s is listed twice", half.name, id)
			case !known[id]:
				return nil, fmt.Errorf("golden split: %s: id %s is not in the golden set", half.name, id)
			}
			half.set[id] = true
		}
	}
	for _, id := range s.Test {
		if h.Tune[id] {
			return nil, fmt.Errorf("golden split: id %s is in both halves", id)
		}
	}
	for _, it := range golden {
		if it.ParaphraseOf == "" && !h.Tune[it.ID] && !h.Test[it.ID] {
			return nil, fmt.Errorf("golden split: %s is in neither half: add it to tune or test", it.ID)
		}
	}
	return h, nil
}

// readParaphrases reads paraphrases in JSONL (blank lines and lines
// starting with # are skipped); errors name the line. Each line is a valid
// golden item with paraphrase_of naming the original and an id of p and
// the original's digits.
func readParaphrases(r io.Reader) ([]GoldenItem, error) {
	return readJSONL(r, "paraphrase set", func(it *GoldenItem) (string, error) {
		if it.ParaphraseOf == "" {
			return "", fmt.Errorf("%s: paraphrase_of is required: name the golden item it rewords", it.ID)
		}
		return it.ID, it.Validate()
	})
}

// CheckParaphrases checks every paraphrase among items (those with
// ParaphraseOf) against golden, the set it rewords: the original exists,
// is in the test half, and has the paraphrase's class. The first problem
// is the error.
func (h *Halves) CheckParaphrases(items, golden []GoldenItem) error {
	for _, p := range items {
		if p.ParaphraseOf == "" {
			continue
		}
		i := slices.IndexFunc(golden, func(g GoldenItem) bool { return g.ID == p.ParaphraseOf && g.ParaphraseOf == "" })
		switch {
		case i < 0:
			return fmt.Errorf("%s: paraphrase_of %s is not in the golden set", p.ID, p.ParaphraseOf)
		case h == nil || !h.Test[p.ParaphraseOf]:
			return fmt.Errorf("%s: paraphrase_of %s is not in the test half: only held-out items are paraphrased", p.ID, p.ParaphraseOf)
		case golden[i].Class != p.Class:
			return fmt.Errorf("%s: class %s differs from %s's class %s", p.ID, p.Class, p.ParaphraseOf, golden[i].Class)
		}
	}
	return nil
}

// LoadBuiltinParaphrases reads the embedded paraphrases
// (golden_paraphrases.jsonl) as LoadGoldenParaphrases does.
func LoadBuiltinParaphrases() ([]GoldenItem, error) {
	return LoadGoldenParaphrases(bytes.NewReader(GoldenParaphrasesJSONL))
}

// LoadGoldenParaphrases reads paraphrases in JSONL, one golden item a line
// with paraphrase_of naming the original and an id of p and the original's
// digits, and checks them against the embedded golden set and split, which
// they reword: each original exists, is in the test half and has the
// paraphrase's class. Errors name the line or the paraphrase.
func LoadGoldenParaphrases(r io.Reader) ([]GoldenItem, error) {
	paras, err := readParaphrases(r)
	if err != nil {
		return nil, fmt.Errorf("paraphrases: %w", err)
	}
	golden, err := LoadGoldenSet(bytes.NewReader(GoldenSetJSONL))
	if err != nil {
		return nil, fmt.Errorf("golden set: %w", err)
	}
	h, err := parseGoldenSplit(GoldenSplitJSON, golden)
	if err != nil {
		return nil, err
	}
	if err := h.CheckParaphrases(paras, golden); err != nil {
		return nil, fmt.Errorf("paraphrases: %w", err)
	}
	return paras, nil
}
