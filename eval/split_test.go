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
	h, err := LoadGoldenSplit()
	if err != nil {
		t.Fatalf("eval/golden_split.json: %v", err)
	}
	return h.Tune, h.Test
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
	paras, err := LoadBuiltinParaphrases()
	if err != nil {
		t.Fatalf("eval/golden_paraphrases.jsonl: %v", err)
	}
	// The paraphrase file is a golden set of its own too (research eval
	// --golden eval/golden_paraphrases.jsonl).
	if asGolden, err := LoadGoldenSet(bytes.NewReader(GoldenParaphrasesJSONL)); err != nil || len(asGolden) != len(paras) {
		t.Errorf("golden_paraphrases.jsonl as a golden set: %d items, %v; want %d", len(asGolden), err, len(paras))
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
		got, want := p, orig
		got.ID, got.Question, got.ParaphraseOf = "", "", ""
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

// splitGolden is a small golden set for the split loader: two facts and a
// refusal.
var splitGolden = []GoldenItem{{ID: "g001", Class: ClassFact}, {ID: "g002", Class: ClassFact}, {ID: "g110", Class: ClassRefusal}}

// TestLoadGoldenSplitRejects checks that a malformed split, or one that
// does not divide its golden set, is refused with a reason.
func TestLoadGoldenSplitRejects(t *testing.T) {
	if _, err := parseGoldenSplit([]byte(`{"about":"x","tune":["g001","g110"],"test":["g002"]}`), splitGolden); err != nil {
		t.Fatalf("a valid split is refused: %v", err)
	}
	for _, tt := range []struct {
		name, raw, want string
	}{
		{"in both halves", `{"about":"x","tune":["g001","g002","g110"],"test":["g002"]}`, "g002 is in both halves"},
		{"twice", `{"about":"x","tune":["g001","g001","g110"],"test":["g002"]}`, "listed twice"},
		{"bad id", `{"about":"x","tune":["p001","g110"],"test":["g002"]}`, "not g and three digits"},
		{"unknown id", `{"about":"x","tune":["g001","g110","g099"],"test":["g002"]}`, "g099 is not in the golden set"},
		{"in neither half", `{"about":"x","tune":["g001"],"test":["g002"]}`, "g110 is in neither half"},
		{"unknown field", `{"about":"x","tune":["g001","g110"],"test":["g002"],"extra":1}`, "unknown field"},
		{"no about", `{"tune":["g001","g110"],"test":["g002"]}`, "about is required"},
		{"empty half", `{"about":"x","tune":["g001","g002","g110"],"test":[]}`, "test half is empty"},
	} {
		_, err := parseGoldenSplit([]byte(tt.raw), splitGolden)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: parseGoldenSplit(%s) = %v; want an error saying %q", tt.name, tt.raw, err, tt.want)
		}
	}
}

// TestCheckParaphrases checks that a paraphrase must reword a test-half
// item of its own class.
func TestCheckParaphrases(t *testing.T) {
	h, err := parseGoldenSplit([]byte(`{"about":"x","tune":["g001","g110"],"test":["g002"]}`), splitGolden)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		para GoldenItem
		want string // "" when accepted
	}{
		{"test item", GoldenItem{ID: "p002", Class: ClassFact, ParaphraseOf: "g002"}, ""},
		{"not a paraphrase", GoldenItem{ID: "g001", Class: ClassFact}, ""},
		{"tune item", GoldenItem{ID: "p001", Class: ClassFact, ParaphraseOf: "g001"}, "g001 is not in the test half"},
		{"tune refusal", GoldenItem{ID: "p110", Class: ClassRefusal, ParaphraseOf: "g110"}, "g110 is not in the test half"},
		{"unknown original", GoldenItem{ID: "p003", Class: ClassFact, ParaphraseOf: "g003"}, "g003 is not in the golden set"},
		{"other class", GoldenItem{ID: "p002", Class: ClassTrap, ParaphraseOf: "g002"}, "class trap differs from g002's class fact"},
	} {
		err := h.CheckParaphrases([]GoldenItem{tt.para}, splitGolden)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: CheckParaphrases = %v; want an error saying %q", tt.name, err, tt.want)
		}
	}
	for _, tt := range []struct {
		it   GoldenItem
		want Split
	}{
		{GoldenItem{ID: "g001"}, SplitTune}, {GoldenItem{ID: "g002"}, SplitTest},
		{GoldenItem{ID: "p002", ParaphraseOf: "g002"}, SplitParaphrase}, {GoldenItem{ID: "g050"}, SplitAll},
	} {
		if got := h.SplitOf(tt.it); got != tt.want {
			t.Errorf("SplitOf(%s) = %q; want %q", tt.it.ID, got, tt.want)
		}
	}
	var none *Halves
	if got := none.SplitOf(GoldenItem{ID: "g002"}); got != SplitAll {
		t.Errorf("nil Halves: SplitOf(g002) = %q; want all", got)
	}
}

// TestLoadGoldenParaphrasesRejects checks that a paraphrase line with a
// wrong id, a mismatched paraphrase_of or an unknown field is refused, and
// that one of a tune-half item or of another class is too.
func TestLoadGoldenParaphrasesRejects(t *testing.T) {
	const rest = `"class":"refusal","question":"Should I buy shares of NVDA today?","status":["refused"],"issuers":[],"note":"Investment advice."`
	if _, err := readParaphrases(strings.NewReader(`{"id":"p110","paraphrase_of":"g110",` + rest + `}`)); err != nil {
		t.Fatalf("a well-formed paraphrase is refused: %v", err)
	}
	for name, line := range map[string]string{
		"g id":          `{"id":"g110","paraphrase_of":"g110",` + rest + `}`,
		"digits differ": `{"id":"p111","paraphrase_of":"g110",` + rest + `}`,
		"no original":   `{"id":"p110",` + rest + `}`,
		"unknown field": `{"id":"p110","paraphrase_of":"g110","extra":1,` + rest + `}`,
		"invalid item":  `{"id":"p110","paraphrase_of":"g110","class":"refusal","question":"Should I buy shares of NVDA today?","status":["supported"],"issuers":[],"note":"x"}`,
		"repeated id":   `{"id":"p110","paraphrase_of":"g110",` + rest + "}\n" + `{"id":"p110","paraphrase_of":"g110",` + rest + `}`,
	} {
		if _, err := readParaphrases(strings.NewReader(line)); err == nil {
			t.Errorf("%s: readParaphrases accepted %s", name, line)
		}
	}
	// Checked against the built-in set: g110 is in the tune half, g111 in
	// the test half, and g002 is a fact.
	for name, tt := range map[string]struct{ line, want string }{
		"tune item":   {`{"id":"p110","paraphrase_of":"g110",` + rest + `}`, "g110 is not in the test half"},
		"other class": {`{"id":"p002","paraphrase_of":"g002",` + rest + `}`, "differs from g002's class fact"},
	} {
		_, err := LoadGoldenParaphrases(strings.NewReader(tt.line))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: LoadGoldenParaphrases = %v; want an error saying %q", name, err, tt.want)
		}
	}
	if _, err := LoadGoldenParaphrases(strings.NewReader(`{"id":"p111","paraphrase_of":"g111",` + rest + `}`)); err != nil {
		t.Errorf("a paraphrase of the test item g111 is refused: %v", err)
	}
}
