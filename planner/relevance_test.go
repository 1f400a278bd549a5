package planner

import "testing"

// A rare word of the question counts for more than a common one: a
// sentence holding only the common word ("rate") scores below one holding
// the rare one ("turnover").
func TestRelevanceWeighsRareWords(t *testing.T) {
	var docs []StatsDoc
	for i, issuer := range []string{"AAA", "BBB", "CCC", "DDD"} {
		text := "The interest rate rose. Our tax rate fell."
		if i == 0 {
			text += " Employee turnover was low."
		}
		docs = append(docs, StatsDoc{ID: issuer, Issuer: issuer, Text: text})
	}
	cat := NewCatalog(nil)
	cat.SetTextStats(NewTextStats(docs))
	r := NewRelevance("What is the employee turnover rate?", cat, nil)
	if r.Words() != 3 {
		t.Fatalf("words = %d; want employee, turnover, rate", r.Words())
	}
	common := r.Score("The interest rate rose.")
	rare := r.Score("Employee turnover was low.")
	if !(rare > 0.5 && common < 0.3 && rare > common) {
		t.Errorf("score of the rare words %.2f, of the common word %.2f", rare, common)
	}
	if all := r.Score("Employee turnover rate was low."); all != 1 {
		t.Errorf("a sentence with every word scores %.2f; want 1", all)
	}
	var none *Relevance
	if none.Score("anything") != 1 || none.Boilerplate("anything") != 0 || none.Words() != 0 {
		t.Error("a nil Relevance scores every sentence 1 and nothing as boilerplate")
	}
}

// TestAsksRestraint: a question about what held a figure back asks for
// reasons, with the figure between the verb and its particle.
func TestAsksRestraint(t *testing.T) {
	for q, want := range map[string]bool{
		"What held net sales growth back in fiscal 2022?": true,
		"what weighed on margins last year":               true,
		"What drove revenue growth?":                      false,
		"What was Walmart's revenue in fiscal 2022?":      false,
	} {
		if got := AsksRestraint(q); got != want {
			t.Errorf("AsksRestraint(%q) = %v; want %v", q, got, want)
		}
		if want && !asksWhy(q) {
			t.Errorf("asksWhy(%q) = false; a question about what held a figure back asks why", q)
		}
	}
}

func TestExplains(t *testing.T) {
	revenue := []string{"revenue", "net sales"}
	tests := []struct {
		sentence string
		want     bool
	}{
		{"Total revenue for 2024 was $164.50 billion, an increase of 22% compared to 2023, due to an increase in advertising revenue.", true},
		{"The increase was primarily driven by WhatsApp Business Platform revenue.", false},
		{"Our revenue growth may not be sustainable, and our percentage growth rates may decrease.", false},
		{"The sales growth primarily reflects increased unit sales.", false},
		{"Net sales increased 11% primarily reflecting increased unit sales.", true},
		{"Operating expenses as a percentage of net sales decreased primarily due to higher sales.", false},
		{"The increase in cost of net revenues in 2022 compared to 2021 was primarily due to higher payment processing costs.", false},
		{"Despite the strong sales growth described above, fiscal 2022 operating expenses as a percentage of segment net sales increased primarily due to investments in wages.", false},
		{"While net sales grew, margins fell due to mix.", false},
		{"Net sales increased 8%, although slower than last year, primarily due to higher volumes.", true},
		{"The increase was partially offset by a $32.6 billion net sales decrease primarily related to the divestiture.", true},
		// What a figure is compared with is not what the reason explains.
		{"Its growth rate is lower than that of net sales primarily because of its format mix.", false},
		{"Net sales grew faster than those of the industry primarily due to pricing.", true},
	}
	for _, tc := range tests {
		if got := Explains(tc.sentence, revenue); got != tc.want {
			t.Errorf("Explains(%q) = %v; want %v", tc.sentence, got, tc.want)
		}
	}
}
