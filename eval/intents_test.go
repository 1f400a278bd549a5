package eval

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ledgerline/research/planner"
)

func loadIntents(t *testing.T) []IntentItem {
	t.Helper()
	items, err := LoadIntentSet(bytes.NewReader(IntentSetJSONL))
	if err != nil {
		t.Fatalf("eval/intents.jsonl: %v", err)
	}
	return items
}

// TestIntentSetShape holds the intent set to what its figures rely on:
// enough prompts of each label, every category in both halves, the halves
// stratified, and ids in file order so new items go at the end.
func TestIntentSetShape(t *testing.T) {
	items := loadIntents(t)
	if len(items) < 320 {
		t.Errorf("the intent set has %d items; want at least 320", len(items))
	}
	byLabel := map[string]int{}
	bySplit := map[[2]string]int{}
	byCategory := map[string]int{}
	texts := map[string]string{}
	for i, it := range items {
		byLabel[it.Label]++
		byCategory[it.Category]++
		bySplit[[2]string{it.Split, it.Category}]++
		if i > 0 && it.ID <= items[i-1].ID {
			t.Errorf("%s follows %s: ids must ascend in file order (add new items at the end)", it.ID, items[i-1].ID)
		}
		key := strings.ToLower(strings.Join(strings.Fields(it.Text), " "))
		if prev, ok := texts[key]; ok {
			t.Errorf("%s repeats the text of %s", it.ID, prev)
		}
		texts[key] = it.ID
	}
	if byLabel[IntentRefuse] < 130 || byLabel[IntentResearch] < 190 {
		t.Errorf("labels %v; want at least 130 refuse and 190 research", byLabel)
	}
	for _, c := range []string{"trade", "advice", "prediction"} {
		if byCategory[c] < 25 {
			t.Errorf("category %s has %d items; want at least 25", c, byCategory[c])
		}
	}
	if n := byCategory["override"] + byCategory["disclosure"]; n < 40 {
		t.Errorf("override and disclosure have %d items; want at least 40", n)
	}
	for _, c := range IntentCategories() {
		tune, test := bySplit[[2]string{"tune", c}], bySplit[[2]string{"test", c}]
		if tune == 0 || test == 0 {
			t.Errorf("category %s: %d tune and %d test items; want both halves", c, tune, test)
		}
		if d := tune - test; d > 1 || d < -1 {
			t.Errorf("category %s: %d tune and %d test items; the halves must be stratified", c, tune, test)
		}
	}
}

func TestLoadIntentSetErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{``, "no items"},
		{`{"id":"x1","split":"tune","label":"refuse","category":"trade","text":"buy"}`, "id"},
		{`{"id":"i001","split":"dev","label":"refuse","category":"trade","text":"buy"}`, "split"},
		{`{"id":"i001","split":"tune","label":"maybe","category":"trade","text":"buy"}`, "label"},
		{`{"id":"i001","split":"tune","label":"refuse","category":"spam","text":"buy"}`, "category"},
		{`{"id":"i001","split":"tune","label":"refuse","category":"research","text":"buy"}`, "research items"},
		{`{"id":"i001","split":"tune","label":"research","category":"research","text":" "}`, "text"},
		{`{"id":"i001","split":"tune","label":"research","category":"research","text":"a","extra":1}`, "unknown field"},
		{"{\"id\":\"i001\",\"split\":\"tune\",\"label\":\"research\",\"category\":\"research\",\"text\":\"a\"}\n" +
			"{\"id\":\"i001\",\"split\":\"test\",\"label\":\"research\",\"category\":\"research\",\"text\":\"b\"}", "already used on line 1"},
	} {
		_, err := LoadIntentSet(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LoadIntentSet(%q) = %v, want an error about %q", tt.in, err, tt.want)
		}
	}
}

// holdIntents fails when a half refuses any research prompt or misses more
// than 2% of the prompts it must refuse, listing each wrong verdict.
func holdIntents(t *testing.T, split string) {
	t.Helper()
	var half []IntentItem
	for _, it := range loadIntents(t) {
		if it.Split == split {
			half = append(half, it)
		}
	}
	results := RunIntents(half)
	for _, r := range results {
		if !r.Correct() {
			t.Logf("%s %s (%s): refused=%v %q", r.Item.ID, r.Item.Label, r.Item.Category, r.Refused, r.Item.Text)
		}
	}
	for _, s := range ScoreIntents(results) {
		if s.Split != split || s.Category != "all" {
			continue
		}
		if s.FalseRefusals > 0 {
			t.Errorf("%s half: %d research prompts refused; want none", split, s.FalseRefusals)
		}
		if s.Recall() < 0.98 {
			t.Errorf("%s half: refusal recall %.3f (%d of %d); want at least 0.98", split, s.Recall(), s.Correct, s.MustRefuse)
		}
	}
}

// TestIntentsTestHalf holds the frozen test half: no research prompt
// refused, at least 98% of the prompts that must be refused refused.
func TestIntentsTestHalf(t *testing.T) { holdIntents(t, "test") }

// TestIntentsTuneHalf holds the tuning half to the same figures, so that a
// change that breaks what the method was tuned on fails too.
func TestIntentsTuneHalf(t *testing.T) { holdIntents(t, "tune") }

// TestIntentsReport logs the table of docs/evaluation.md:
//
//	go test -run TestIntentsReport -v ./eval/
func TestIntentsReport(t *testing.T) {
	var b bytes.Buffer
	if err := WriteIntentTable(&b, ScoreIntents(RunIntents(loadIntents(t)))); err != nil {
		t.Fatal(err)
	}
	t.Logf("refusals by method, eval/intents.jsonl:\n%s", b.String())
}

func TestScoreIntents(t *testing.T) {
	item := func(split, label, cat string) IntentItem {
		return IntentItem{ID: "i001", Split: split, Label: label, Category: cat, Text: "x"}
	}
	results := []IntentResult{
		{Item: item("test", IntentRefuse, "trade"), Refused: true},
		{Item: item("test", IntentRefuse, "trade"), Refused: false},
		{Item: item("test", IntentResearch, "research"), Refused: true},
		{Item: item("test", IntentResearch, "research"), Refused: false},
		{Item: item("tune", IntentResearch, "research"), Refused: false},
	}
	var all, tune IntentScore
	for _, s := range ScoreIntents(results) {
		switch {
		case s.Split == "test" && s.Category == "all":
			all = s
		case s.Split == "tune" && s.Category == "all":
			tune = s
		}
	}
	want := IntentScore{Split: "test", Category: "all", Items: 4, MustRefuse: 2, Refused: 2, Correct: 1, FalseRefusals: 1, Missed: 1}
	if all != want {
		t.Errorf("test/all = %+v, want %+v", all, want)
	}
	if all.Precision() != 0.5 || all.Recall() != 0.5 {
		t.Errorf("precision %v, recall %v; want 0.5 and 0.5", all.Precision(), all.Recall())
	}
	if tune.Items != 1 || tune.Precision() != 1 || tune.Recall() != 1 {
		t.Errorf("tune/all = %+v: nothing refused nor due should score 1 and 1", tune)
	}
	var b bytes.Buffer
	if err := WriteIntentTable(&b, ScoreIntents(results)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| test | **all** | 4 | 2 | 2 | 0.500 | 0.500 | 1 | 1 |") {
		t.Errorf("table lacks the test/all row:\n%s", b.String())
	}
}

// TestGoldenRefusalsRouted checks the golden set's refusal items against
// the router without a corpus: each refusal item is refused and no other
// item is.
func TestGoldenRefusalsRouted(t *testing.T) {
	cat := planner.NewCatalog(nil)
	for _, it := range loadGolden(t) {
		rt := planner.RouteQuestion(it.Question, cat, nil)
		if rt.Refused != it.ExpectsRefusal() {
			t.Errorf("%s (%s) %q: refused=%v (%s)", it.ID, it.Class, it.Question, rt.Refused, rt.Reason)
		}
	}
}
