package synth

import (
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/planner"
)

// TestNamesAny: a part's name counts as words of their own, in any case;
// an abbreviation inside another word does not.
func TestNamesAny(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s     string
		terms []string
		want  bool
	}{
		{"The increase in AWS operating income in 2024 ...", []string{"aws"}, true},
		{"Changes in tax laws may affect us.", []string{"aws"}, false},
		{"Google Cloud operating income increased $4.4 billion.", []string{"google cloud"}, true},
		{"North America operating income increased.", []string{"google cloud", "aws"}, false},
		{"", []string{"aws"}, false},
		{"AWS", []string{""}, false},
	}
	for _, tt := range tests {
		if got := namesAny(tt.s, tt.terms); got != tt.want {
			t.Errorf("namesAny(%q, %q) = %v, want %v", tt.s, tt.terms, got, tt.want)
		}
	}
	for name, want := range map[string]string{"Amazon Web Services": "aws", "Google Cloud": "", "Intelligent Cloud Segment": "ics"} {
		if got := initials(name); got != want {
			t.Errorf("initials(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestUpperFirst: a label's first letter is capitalised unless its first
// word is a name spelled with an inner capital.
func TestUpperFirst(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"revenue": "Revenue", "iPhone revenue": "iPhone revenue", "eCommerce sales": "eCommerce sales", "": "", "AWS operating income": "AWS operating income"} {
		if got := upperFirst(in); got != want {
			t.Errorf("upperFirst(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLowerFirst: a column's name inside a sentence starts in lower case
// unless its first word is an abbreviation or a name with an inner capital.
func TestLowerFirst(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"Operating margin": "operating margin", "R&D as a percentage of revenue": "R&D as a percentage of revenue",
		"AWS operating income": "AWS operating income", "iPhone revenue": "iPhone revenue", "": ""} {
		if got := lowerFirst(in); got != want {
			t.Errorf("lowerFirst(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAsWritten: a topic's word the question writes in capitals is
// written so.
func TestAsWritten(t *testing.T) {
	t.Parallel()
	if got := asWritten("tac rate", "What was Alphabet's TAC rate in 2024?"); got != "TAC rate" {
		t.Errorf("asWritten = %q, want %q", got, "TAC rate")
	}
	if got := asWritten("revenue", "WHAT WAS REVENUE?"); got != "revenue" {
		t.Errorf("asWritten = %q", got)
	}
}

// TestContainsWord: a year counts where it stands as a word, not inside a
// longer number or a name.
func TestContainsWord(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s, w string
		want bool
	}{
		{"In 2022, we generated $74 billion in GMV", "2022", true},
		{"GMV $ 73,900 $ 87,365", "2022", false},
		{"FY2022 revenue", "2022", false},
		{"revenue of 120220 units", "2022", false},
		{"for fiscal 2022.", "2022", true},
	} {
		if got := containsWord(tt.s, tt.w); got != tt.want {
			t.Errorf("containsWord(%q, %q) = %v, want %v", tt.s, tt.w, got, tt.want)
		}
	}
}

// TestColumnRuns: phrases of two columns read across are told from a
// sentence that names things after function words.
func TestColumnRuns(t *testing.T) {
	t.Parallel()
	garbled := "Strong demand in notebook PCs Higher gross margin dollars driven Higher gross margin dollars, lower Working capital changes"
	if n := columnRuns(garbled); n < 3 {
		t.Errorf("columnRuns(garbled) = %d, want at least 3", n)
	}
	for _, s := range []string{
		"For fiscal 2022, the increase was primarily due to strong positive comparable sales for the Walmart U.S. and Sam's Club segments.",
		"Revenue from Google Cloud increased in our Data Center Group and in Japan.",
	} {
		if n := columnRuns(s); n >= 3 {
			t.Errorf("columnRuns(%q) = %d, want fewer than 3", s, n)
		}
	}
}

// TestWithAmpersands: a part joining words by "and" is also named with
// "&", as filings write it either way.
func TestWithAmpersands(t *testing.T) {
	t.Parallel()
	got := withAmpersands([]string{"compute and networking", "gaming"})
	want := []string{"compute and networking", "gaming", "compute & networking"}
	if !slices.Equal(got, want) {
		t.Errorf("withAmpersands = %q, want %q", got, want)
	}
}

// TestRatioSides: a ratio's move in points states both ratios, each with
// its period; a side missing an input, or dividing by zero, states none.
func TestRatioSides(t *testing.T) {
	t.Parallel()
	fact := func(v int64, period string) *ledger.Fact {
		return &ledger.Fact{Value: decimal.NewFromInt(v), Period: period}
	}
	inputs := map[string]*ledger.Fact{
		"tax":          fact(623, "2022-06-01/2023-05-31"),
		"pretax":       fact(9126, "2022-06-01/2023-05-31"),
		"tax_prior":    fact(932, "2021-06-01/2022-05-31"),
		"pretax_prior": fact(7649, "2021-06-01/2022-05-31"),
		"zero":         fact(0, "2021-06-01/2022-05-31"),
	}
	for _, tt := range []struct{ expr, want string }{
		{"(tax / pretax) - (tax_prior / pretax_prior)", "6.8% for the fiscal year ended 2023-05-31 - 12.2% for the fiscal year ended 2022-05-31"},
		{"(tax / pretax) - (tax_prior / zero)", ""},
		{"(tax / pretax) - (tax_prior / missing)", ""},
		// A ratio of any shape on each side: a gross margin's move.
		{"((pretax - tax) / pretax) - ((pretax_prior - tax_prior) / pretax_prior)", "93.2% for the fiscal year ended 2023-05-31 - 87.8% for the fiscal year ended 2022-05-31"},
	} {
		if got := ratioSides(tt.expr, inputs); got != tt.want {
			t.Errorf("ratioSides(%q) = %q, want %q", tt.expr, got, tt.want)
		}
	}
}

// A part's growth is labelled by its part; the company's as revenue growth.
func TestGrowthLabel(t *testing.T) {
	t.Parallel()
	for topic, want := range map[string]string{
		"Gaming revenue growth": "Gaming revenue growth, FY2023 over FY2022",
		"revenue growth":        "Revenue growth, FY2023 over FY2022",
		"":                      "Revenue growth, FY2023 over FY2022",
	} {
		r := planner.Requirement{Aspect: "revenue_growth", Period: "FY2023", Completion: planner.Condition{Topic: topic}}
		if got := (&writer{}).calcLabel(r); got != want {
			t.Errorf("calcLabel(topic %q) = %q, want %q", topic, got, want)
		}
	}
}
