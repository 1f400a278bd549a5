package bench

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
)

func TestReadPageQuestions(t *testing.T) {
	good := `{"id":"q1","split":"tune","kind":"table","question":"What was capex?","ticker":"ACME","form":"10-K","fiscal_year":2021,"source":"a.txt","evidence":[{"phrase":"Capex 5","pages":[3]}]}`
	qs, err := ReadPageQuestions(strings.NewReader(good + "\n\n"))
	if err != nil || len(qs) != 1 || qs[0].Evidence[0].Pages[0] != 3 {
		t.Fatalf("ReadPageQuestions = %+v, %v", qs, err)
	}
	for name, bad := range map[string]string{
		"repeated id": good + "\n" + good,
		"bad split":   strings.Replace(good, `"tune"`, `"dev"`, 1),
		"no page":     strings.Replace(good, `[3]`, `[]`, 1),
		"no evidence": strings.Replace(good, `[{"phrase":"Capex 5","pages":[3]}]`, `[]`, 1),
		"unknown":     strings.Replace(good, `"kind"`, `"kinds"`, 1),
	} {
		if _, err := ReadPageQuestions(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestScorePages(t *testing.T) {
	q := PageQuestion{Evidence: []PageEvidence{{Pages: []int{7}}, {Pages: []int{9, 12}}}}
	res := []corpus.SearchResult{
		{DocumentID: "other", Page: 7}, // another filing's page 7
		{DocumentID: "d", Page: 3},
		{DocumentID: "d", Page: 12}, // the second evidence, rank 3
		{DocumentID: "d", Page: 9},  // the same evidence again: no gain
		{DocumentID: "d", Page: 8},
		{DocumentID: "d", Page: 7}, // the first evidence, rank 6
	}
	s := scorePages(q, "d", res)
	if s.first != 3 || s.hit5 != 1 || s.hit10 != 1 {
		t.Fatalf("score %+v: want first relevant at 3", s)
	}
	ideal := 1 + 1/math.Log2(3)
	if want := (1/math.Log2(4) + 1/math.Log2(7)) / ideal; math.Abs(s.ndcg-want) > 1e-12 {
		t.Errorf("nDCG %v, want %v", s.ndcg, want)
	}
	if s := scorePages(q, "d", res[:2]); s.first != 0 || s.hit10 != 0 || s.ndcg != 0 {
		t.Errorf("no relevant result scored %+v", s)
	}
}

// TestRunPages runs the page benchmark end to end on two small filings.
func TestRunPages(t *testing.T) {
	ctx := context.Background()
	store, err := embedded.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	emb := corpus.HashEmbedder{}
	texts := map[string]string{
		"ACME": "Acme Widgets annual report.\nOur people build widgets in three countries.\f" +
			"CONSOLIDATED STATEMENTS OF CASH FLOWS\nNet cash provided by operating activities 900 800\nPurchases of property and equipment (120) (110)\f",
		"BOLT": "Bolt Motors annual report.\nWe employ 4,000 people.\f" +
			"CONSOLIDATED BALANCE SHEETS\nInventories 300 250\nTotal assets 5,000 4,800\f",
	}
	for ticker, text := range texts {
		doc := &corpus.Document{ID: corpus.DocumentID(text), Ticker: ticker, Company: ticker + " Inc.", Form: "10-K", FiscalYear: 2021,
			PeriodEnd: time.Date(2021, 12, 31, 0, 0, 0, 0, time.UTC), Source: ticker + ".txt", Format: corpus.FormatText, Pages: 2,
			Embedder: emb.Name(), Text: text}
		chunks := corpus.SplitChunks(doc.ID, text, &corpus.ChunkOpts{Size: 80, Overlap: 10})
		for i := range chunks {
			vecs, err := emb.Embed(ctx, []string{chunks[i].Text})
			if err != nil {
				t.Fatal(err)
			}
			chunks[i].Embedding = vecs[0]
		}
		if _, err := store.AddDocument(ctx, doc, chunks, nil); err != nil {
			t.Fatal(err)
		}
	}
	qs := []PageQuestion{
		{ID: "a", Split: SplitTune, Question: "What were Acme's purchases of property and equipment in 2021 per the cash flow statement?",
			Ticker: "ACME", Form: "10-K", FiscalYear: 2021, Evidence: []PageEvidence{{Pages: []int{2}}}},
		{ID: "b", Split: SplitTest, Question: "What were Bolt's inventories at the end of 2021 according to the balance sheet?",
			Ticker: "BOLT", Form: "10-K", FiscalYear: 2021, Evidence: []PageEvidence{{Pages: []int{2}}}},
	}
	var progress bytes.Buffer
	rep, err := RunPages(ctx, store, emb, qs, &PagesOpts{Store: "test"}, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 2 || len(rep.Rows) != 3*4 {
		t.Fatalf("report %+v", rep)
	}
	for _, row := range rep.Rows {
		if row.Method != string(corpus.ModeVector) && row.Recall10 != 1 {
			t.Errorf("%s %s: recall@10 %.3f, want 1 on so small a corpus", row.Split, row.Method, row.Recall10)
		}
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil || !strings.Contains(out.String(), "bm25") {
		t.Errorf("WriteText: %v\n%s", err, out.String())
	}
	qs[0].FiscalYear = 2020
	if _, err := RunPages(ctx, store, emb, qs, nil, nil); err == nil {
		t.Error("a question about a filing the store lacks: no error")
	}
}

// TestPageQuestionsEvidence checks eval/pages.jsonl and the blind sets
// eval/pages_blind.jsonl and eval/pages_blind2.jsonl against the sample
// corpus: every evidence phrase is on every page listed for it, and each
// issuer has questions in both halves.
func TestPageQuestionsEvidence(t *testing.T) {
	for _, set := range []struct {
		file string
		min  int
	}{{"pages.jsonl", 120}, {"pages_blind.jsonl", 60}, {"pages_blind2.jsonl", 72}, {"pages_blind3.jsonl", 76}} {
		t.Run(set.file, func(t *testing.T) { checkPageQuestions(t, set.file, set.min) })
	}
}

func checkPageQuestions(t *testing.T, file string, min int) {
	f, err := os.Open(filepath.Join("..", "..", "eval", file))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := ReadPageQuestions(bufio.NewReader(f))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < min {
		t.Errorf("%d questions, want at least %d", len(qs), min)
	}
	halves := map[string]map[string]int{}
	for _, q := range qs {
		if halves[q.Ticker] == nil {
			halves[q.Ticker] = map[string]int{}
		}
		halves[q.Ticker][q.Split]++
	}
	for ticker, n := range halves {
		if n[SplitTune] == 0 || n[SplitTest] == 0 || n[SplitTune]-n[SplitTest] > 2 || n[SplitTest]-n[SplitTune] > 2 {
			t.Errorf("%s: %d tuning and %d test questions", ticker, n[SplitTune], n[SplitTest])
		}
	}

	dir := os.Getenv("CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest.jsonl")); err != nil {
		t.Skipf("sample corpus not found at %s (set CORPUS)", dir)
	}
	space := regexp.MustCompile(`\s+`)
	norm := func(s string) string {
		s = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u201c", `"`, "\u201d", `"`).Replace(s)
		return strings.ToLower(strings.TrimSpace(space.ReplaceAllString(s, " ")))
	}
	pages := map[string][]string{}
	for _, q := range qs {
		if _, ok := pages[q.Source]; !ok {
			pages[q.Source] = readPages(t, filepath.Join(dir, q.Source))
			for i := range pages[q.Source] {
				pages[q.Source][i] = norm(pages[q.Source][i])
			}
		}
		for _, e := range q.Evidence {
			for _, p := range e.Pages {
				if p < 1 || p > len(pages[q.Source]) || !strings.Contains(pages[q.Source][p-1], norm(e.Phrase)) {
					t.Errorf("%s: %q is not on page %d of %s", q.ID, e.Phrase, p, q.Source)
				}
			}
		}
	}
}

// TestPageParaphrases checks the reworded question sets against
// eval/pages.jsonl: each paraphrase names a question of the same half and
// filing and carries its evidence unchanged, so the evidence check above
// covers it; the two sets share no id.
func TestPageParaphrases(t *testing.T) {
	read := func(name string) []PageQuestion {
		f, err := os.Open(filepath.Join("..", "..", "eval", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		qs, err := ReadPageQuestions(bufio.NewReader(f))
		if err != nil {
			t.Fatal(err)
		}
		return qs
	}
	orig := map[string]PageQuestion{}
	for _, q := range read("pages.jsonl") {
		orig[q.ID] = q
	}
	seen := map[string]string{}
	for _, set := range []struct {
		file  string
		split string
	}{
		{"pages_paraphrases.jsonl", SplitTest},
		{"pages_paraphrases_tune.jsonl", SplitTune},
	} {
		qs := read(set.file)
		if len(qs) < 40 {
			t.Errorf("%s: %d questions, want at least 40", set.file, len(qs))
		}
		for _, q := range qs {
			if file, ok := seen[q.ID]; ok {
				t.Errorf("%s: id %s is also in %s", set.file, q.ID, file)
			}
			seen[q.ID] = set.file
			o, ok := orig[q.Paraphrase]
			switch {
			case !ok:
				t.Errorf("%s %s: paraphrase_of %q is not in pages.jsonl", set.file, q.ID, q.Paraphrase)
			case q.Split != set.split || o.Split != set.split:
				t.Errorf("%s %s: split %s of %s's %s, want %s", set.file, q.ID, q.Split, o.ID, o.Split, set.split)
			case q.Ticker != o.Ticker || q.Form != o.Form || q.FiscalYear != o.FiscalYear || q.Source != o.Source || q.Kind != o.Kind:
				t.Errorf("%s %s: filing or kind differs from %s", set.file, q.ID, o.ID)
			case !slices.EqualFunc(q.Evidence, o.Evidence, func(a, b PageEvidence) bool {
				return a.Phrase == b.Phrase && slices.Equal(a.Pages, b.Pages)
			}):
				t.Errorf("%s %s: evidence differs from %s", set.file, q.ID, o.ID)
			case q.Question == o.Question:
				t.Errorf("%s %s: the question is %s's, not reworded", set.file, q.ID, o.ID)
			}
		}
	}
}

// readPages returns the canonical text of a filing split at its page breaks.
func readPages(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var text string
	if strings.HasSuffix(path, ".html") {
		parsed, err := corpus.ParseHTML(f)
		if err != nil {
			t.Fatal(err)
		}
		text = parsed.Text
	} else if text, _, err = corpus.ParseText(f); err != nil {
		t.Fatal(err)
	}
	return strings.Split(text, "\f")
}
