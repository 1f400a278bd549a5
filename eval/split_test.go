package eval

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
)

func loadSplit(t *testing.T) (tune, test map[string]bool) {
	t.Helper()
	tune, test, err := LoadGoldenSplit()
	if err != nil {
		t.Fatalf("eval/golden_split.json: %v", err)
	}
	return tune, test
}

// TestGoldenSplitCoversGoldenSet checks that every golden id is in exactly
// one half, that the split names no id the golden set lacks, that within
// each class the halves differ by at most one item, and that the split is
// the one golden_split.json describes (alternating by id within a class,
// tune first), so no item moves between halves.
func TestGoldenSplitCoversGoldenSet(t *testing.T) {
	items := loadGolden(t)
	tune, test := loadSplit(t)

	ids := map[string]bool{}
	for _, it := range items {
		ids[it.ID] = true
		switch inTune, inTest := tune[it.ID], test[it.ID]; {
		case inTune && inTest:
			t.Errorf("%s is in both halves", it.ID)
		case !inTune && !inTest:
			t.Errorf("%s is in neither half: add it to golden_split.json", it.ID)
		}
	}
	for _, half := range []map[string]bool{tune, test} {
		for id := range half {
			if !ids[id] {
				t.Errorf("the split names %s, which is not in golden.jsonl", id)
			}
		}
	}

	byClass := map[Class][]string{}
	for _, it := range items {
		byClass[it.Class] = append(byClass[it.Class], it.ID)
	}
	for _, c := range Classes() {
		classIDs := slices.Sorted(slices.Values(byClass[c]))
		nTune, nTest := 0, 0
		for i, id := range classIDs {
			if tune[id] {
				nTune++
			}
			if test[id] {
				nTest++
			}
			if want := i%2 == 0; tune[id] != want {
				t.Errorf("%s (class %s, #%d by id): in tune = %v; the split alternates tune, test, ... by id", id, c, i+1, tune[id])
			}
		}
		if d := nTune - nTest; d < -1 || d > 1 {
			t.Errorf("class %s: %d tune, %d test; the halves may differ by at most one", c, nTune, nTest)
		}
		t.Logf("%-13s tune %2d  test %2d", c, nTune, nTest)
	}
}

// normQuestion lowercases a question and keeps only its letters and
// digits, so a paraphrase that changes only case or punctuation is caught.
func normQuestion(q string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, q)
}

// TestGoldenParaphrases checks that every test-half item has exactly one
// paraphrase, that no other item has one, that a paraphrase keeps every
// field of its original except id, question and paraphrase_of, and that its
// question is worded differently.
func TestGoldenParaphrases(t *testing.T) {
	items := loadGolden(t)
	_, test := loadSplit(t)
	paras, err := LoadGoldenParaphrases(bytes.NewReader(GoldenParaphrasesJSONL))
	if err != nil {
		t.Fatalf("eval/golden_paraphrases.jsonl: %v", err)
	}

	golden := map[string]GoldenItem{}
	for _, it := range items {
		golden[it.ID] = it
	}
	count := map[string]int{}
	for i, p := range paras {
		if i > 0 && p.ID <= paras[i-1].ID {
			t.Errorf("%s follows %s: ids must ascend in file order", p.ID, paras[i-1].ID)
		}
		count[p.ParaphraseOf]++
		orig, ok := golden[p.ParaphraseOf]
		switch {
		case !ok:
			t.Errorf("%s paraphrases %s, which is not in golden.jsonl", p.ID, p.ParaphraseOf)
			continue
		case !test[p.ParaphraseOf]:
			t.Errorf("%s paraphrases %s, which is not in the test half", p.ID, p.ParaphraseOf)
		}
		got, want := p.GoldenItem, orig
		got.ID, got.Question = "", ""
		want.ID, want.Question = "", ""
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: fields other than id, question and paraphrase_of differ from %s:\n got %+v\nwant %+v", p.ID, orig.ID, got, want)
		}
		if p.Question == orig.Question || normQuestion(p.Question) == normQuestion(orig.Question) {
			t.Errorf("%s: question %q is the same as %s's %q", p.ID, p.Question, orig.ID, orig.Question)
		}
	}
	for id := range test {
		if n := count[id]; n != 1 {
			t.Errorf("test item %s has %d paraphrases; want exactly one", id, n)
		}
	}
}

// TestLoadGoldenSplitRejects checks that a malformed split is refused.
func TestLoadGoldenSplitRejects(t *testing.T) {
	for name, raw := range map[string]string{
		"in both halves": `{"about":"x","tune":["g001"],"test":["g001"]}`,
		"twice":          `{"about":"x","tune":["g001","g001"],"test":["g002"]}`,
		"bad id":         `{"about":"x","tune":["p001"],"test":["g002"]}`,
		"unknown field":  `{"about":"x","tune":["g001"],"test":["g002"],"extra":1}`,
		"no about":       `{"tune":["g001"],"test":["g002"]}`,
		"empty half":     `{"about":"x","tune":["g001"],"test":[]}`,
	} {
		if _, _, err := parseGoldenSplit([]byte(raw)); err == nil {
			t.Errorf("%s: parseGoldenSplit accepted %s", name, raw)
		}
	}
}

// TestLoadGoldenParaphrasesRejects checks that a paraphrase line with a
// wrong id, a mismatched paraphrase_of or an unknown field is refused.
func TestLoadGoldenParaphrasesRejects(t *testing.T) {
	const rest = `"class":"refusal","question":"Should I buy shares of NVDA today?","status":["refused"],"issuers":[],"note":"Investment advice."`
	if _, err := LoadGoldenParaphrases(strings.NewReader(`{"id":"p110","paraphrase_of":"g110",` + rest + `}`)); err != nil {
		t.Fatalf("a valid paraphrase is refused: %v", err)
	}
	for name, line := range map[string]string{
		"g id":          `{"id":"g110","paraphrase_of":"g110",` + rest + `}`,
		"digits differ": `{"id":"p111","paraphrase_of":"g110",` + rest + `}`,
		"no original":   `{"id":"p110",` + rest + `}`,
		"unknown field": `{"id":"p110","paraphrase_of":"g110","extra":1,` + rest + `}`,
		"invalid item":  `{"id":"p110","paraphrase_of":"g110","class":"refusal","question":"Should I buy shares of NVDA today?","status":["supported"],"issuers":[],"note":"x"}`,
		"repeated id":   `{"id":"p110","paraphrase_of":"g110",` + rest + "}\n" + `{"id":"p110","paraphrase_of":"g110",` + rest + `}`,
	} {
		if _, err := LoadGoldenParaphrases(strings.NewReader(line)); err == nil {
			t.Errorf("%s: LoadGoldenParaphrases accepted %s", name, line)
		}
	}
}
