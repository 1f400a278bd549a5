package tools

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/internal/corpustest"
)

func TestFindStatement(t *testing.T) {
	doc := corpus.Document{FiscalYear: 2022, PeriodEnd: time.Date(2022, 6, 30, 0, 0, 0, 0, time.UTC)}
	terms := []string{"employee", "employed", "headcount", "workforce"}
	tests := []struct {
		name, text string
		want       string // the value read; "" for none
		sentence   string // a word of the sentence it is read from
	}{
		{name: "a count after the verb",
			text: "Our people matter. As of June 30, 2022, we employed approximately 221,000 people on a full-time basis, 122,000 in the U.S. and 99,000 internationally.",
			want: "221000", sentence: "221,000"},
		{name: "a count before the noun, in millions",
			text: "Of the approximately 2.3 million associates employed worldwide, 53% identify as women.",
			want: "2300000", sentence: "associates"},
		{name: "the filing's year beats a sentence naming none",
			text: "We have 5,000 employees in research. At the end of 2022, we employed 304,000 employees worldwide.",
			want: "304000", sentence: "worldwide"},
		{name: "a sentence naming only another year is not this year's",
			text: "As of June 30, 2021, we employed 181,000 people.",
			want: ""},
		{name: "money and percentages are not counts",
			text: "Employee compensation was $4,300 million in 2022, and 45% of employees work remotely.",
			want: ""},
		{name: "a day of the month is not a count",
			text: "Headcount was reported on June 30, 2022 to the board.",
			want: ""},
		{name: "a number far from the word counts something else",
			text: "We employed people in many countries and, after a long and careful review of our facilities, opened 1,200 stores.",
			want: ""},
		{name: "a table's line is not a statement",
			text: "Employees 1,000 2,000 3,000 4,000 5,000 6,000 7,000 8,000 9,000 10,000 11,000 12,000 13,000",
			want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := findStatement(tt.text, terms, doc)
			if tt.want == "" {
				if ok {
					t.Fatalf("read %s from %q; want nothing", s.value, tt.text[s.start:s.end])
				}
				return
			}
			if !ok {
				t.Fatalf("read nothing; want %s", tt.want)
			}
			if s.value.String() != tt.want {
				t.Errorf("value %s, want %s", s.value, tt.want)
			}
			if got := tt.text[s.start:s.end]; !strings.Contains(got, tt.sentence) {
				t.Errorf("sentence %q does not hold %q", got, tt.sentence)
			}
		})
	}
}

func TestStatedLookupArgs(t *testing.T) {
	scope := Scope{Tickers: []string{"MSFT"}}
	tests := []struct {
		name string
		args string
		want string // in the error; "" for valid
	}{
		{name: "valid", args: `{"ticker":"MSFT","concept":"stated:employees","stated":["employee","employed"],"period":"FY2022"}`},
		{name: "stated words need a stated key", args: `{"ticker":"MSFT","concept":"us-gaap:Revenues","stated":["employee"]}`, want: "stated:"},
		{name: "a stated key needs words", args: `{"ticker":"MSFT","concept":"stated:employees"}`, want: "required"},
		{name: "no label beside", args: `{"ticker":"MSFT","concept":"stated:employees","label":"revenue","stated":["employee"]}`, want: "alone"},
		{name: "words are words", args: `{"ticker":"MSFT","concept":"stated:employees","stated":["employ;ee"]}`, want: "not a word"},
		{name: "bounded", args: `{"ticker":"MSFT","concept":"stated:employees","stated":["a1","b","c","d","e","f","g","h","i","j","k","l","m"]}`, want: "words"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckArgs(LookupFact, []byte(tt.args), scope)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.want != "":
				var ae *ArgError
				if !errors.As(err, &ae) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v, want an argument error holding %q", err, tt.want)
				}
			}
		})
	}
}

// A count stated only in a sentence is recorded as a fact calculate can
// name, read from the filing of the year asked.
func TestStatedLookupCorpus(t *testing.T) {
	store := corpustest.Store(t)
	t.Parallel()
	words := []string{"employee", "headcount", "workforce", "full-time", "employed"}
	tests := []struct {
		ticker, period string
		want           string
	}{
		{"MSFT", "FY2021", "181000"},
		{"MSFT", "FY2022", "221000"},
		{"COST", "FY2022", "304000"},
		{"WMT", "FY2022", "2300000"},
		{"AMZN", "FY2022", "1541000"},
		{"META", "FY2024", "74067"},
	}
	for _, tt := range tests {
		t.Run(tt.ticker+" "+tt.period, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, store, Scope{Tickers: []string{tt.ticker}})
			out := run(t, env, "f1", LookupFact, map[string]any{"ticker": tt.ticker, "concept": "stated:employees", "stated": words, "period": tt.period})
			if len(out.Facts) != 1 {
				t.Fatalf("%d facts, want 1:\n%s", len(out.Facts), out.Text)
			}
			f := out.Facts[0]
			if f.Value.String() != tt.want || f.Concept != "stated:employees" || f.Unit != "pure" {
				t.Errorf("fact %s %s %s, want %s stated:employees pure:\n%s", f.Concept, f.Value, f.Unit, tt.want, out.Text)
			}
			checkRegistered(t, env, out)
			calc := run(t, env, "c1", Calculate, map[string]any{"expression": "n * 2",
				"facts": map[string]any{"n": map[string]any{"ticker": tt.ticker, "concept": "stated:employees", "period": tt.period}}})
			if calc.Calculation == nil {
				t.Fatalf("calculate did not read the stated fact:\n%s", calc.Text)
			}
		})
	}
}

// FuzzFindStatement reads any text without panicking, and a count it
// reads is positive, whole and stated in a sentence of the text.
func FuzzFindStatement(f *testing.F) {
	f.Add("As of June 30, 2022, we employed approximately 221,000 people.")
	f.Add("Of the approximately 2.3 million associates employed worldwide, 53% identify as women.")
	f.Add("(employee 1,000,000.5 million) employed 9")
	doc := corpus.Document{FiscalYear: 2022, PeriodEnd: time.Date(2022, 6, 30, 0, 0, 0, 0, time.UTC)}
	f.Fuzz(func(t *testing.T, text string) {
		s, ok := findStatement(text, []string{"employee", "employed"}, doc)
		if !ok {
			return
		}
		if s.start < 0 || s.end > len(text) || s.start >= s.end || !s.value.IsPositive() || !s.value.IsInteger() {
			t.Fatalf("statement %+v of %q", s, text)
		}
	})
}
