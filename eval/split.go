package eval

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
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

// GoldenSplit is the file format of golden_split.json.
type GoldenSplit struct {
	About string   `json:"about"` // how the split was made
	Tune  []string `json:"tune"`  // golden ids to tune on
	Test  []string `json:"test"`  // golden ids held out
}

// LoadGoldenSplit reads the embedded split and returns each half as a set
// of golden ids. It fails on an unknown field, a malformed or repeated id,
// or an id in both halves; whether the halves cover the golden set is for
// the caller (and TestGoldenSplitCoversGoldenSet) to check.
func LoadGoldenSplit() (tune, test map[string]bool, err error) {
	return parseGoldenSplit(GoldenSplitJSON)
}

func parseGoldenSplit(raw []byte) (tune, test map[string]bool, err error) {
	var s GoldenSplit
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, nil, fmt.Errorf("golden split: %v", err)
	}
	if dec.More() {
		return nil, nil, fmt.Errorf("golden split: more than one JSON value")
	}
	if s.About == "" {
		return nil, nil, fmt.Errorf("golden split: about is required: say how the split was made")
	}
	tune, test = map[string]bool{}, map[string]bool{}
	for _, half := range []struct {
		name string
		ids  []string
		set  map[string]bool
	}{{"tune", s.Tune, tune}, {"test", s.Test, test}} {
		if len(half.ids) == 0 {
			return nil, nil, fmt.Errorf("golden split: the %s half is empty", half.name)
		}
		for _, id := range half.ids {
			switch {
			case !goldenID.MatchString(id):
				return nil, nil, fmt.Errorf("golden split: %s: id %q is not g and three digits", half.name, id)
			case half.set[id]:
				return nil, nil, fmt.Errorf("golden split: %s: id %s is listed twice", half.name, id)
			}
			half.set[id] = true
		}
	}
	for id := range test {
		if tune[id] {
			return nil, nil, fmt.Errorf("golden split: id %s is in both halves", id)
		}
	}
	return tune, test, nil
}

// GoldenParaphrase is a test-half item asked in other words: the original
// item's fields with a new ID and Question, and ParaphraseOf naming the
// original.
type GoldenParaphrase struct {
	GoldenItem
	ParaphraseOf string `json:"paraphrase_of"`
}

var paraphraseID = regexp.MustCompile(`^p[0-9]{3}$`)

// LoadGoldenParaphrases reads paraphrases in JSONL (blank lines and lines
// starting with # are skipped); errors name the line. Each line is a golden
// line with an id of p and three digits and paraphrase_of the g id with the
// same digits; the item must be valid as a golden item.
func LoadGoldenParaphrases(r io.Reader) ([]GoldenParaphrase, error) {
	return readJSONL(r, "paraphrase set", func(p *GoldenParaphrase) (string, error) {
		switch {
		case !paraphraseID.MatchString(p.ID):
			return "", fmt.Errorf("id %q: want p and three digits, e.g. p002", p.ID)
		case !goldenID.MatchString(p.ParaphraseOf):
			return "", fmt.Errorf("%s: paraphrase_of %q is not a golden id", p.ID, p.ParaphraseOf)
		case p.ID[1:] != p.ParaphraseOf[1:]:
			return "", fmt.Errorf("%s paraphrases %s: the id must be p and the original's digits", p.ID, p.ParaphraseOf)
		}
		// Validate as the golden item it rewords (Validate wants a g id).
		it := p.GoldenItem
		it.ID = p.ParaphraseOf
		if err := it.Validate(); err != nil {
			return "", fmt.Errorf("%s: %v", p.ID, err)
		}
		return p.ID, nil
	})
}
