package eval

import (
	"math"
	"strings"
	"testing"
)

func TestFindFigure(t *testing.T) {
	nvda := Figure{Label: "NVIDIA revenue", Value: 26_974_000_000, Unit: UnitUSD, Period: "2023"}
	margin := Figure{Label: "gross margin", Value: 46.21, Unit: UnitPercent, Period: "2024"}
	staff := Figure{Label: "employees", Value: 164_000, Unit: UnitCount, Period: "2024"}
	walmart := Figure{Label: "associates", Value: 2.3e6, Unit: UnitCount, Period: "2022"}
	loss := Figure{Label: "net loss", Value: -2_722_000_000, Unit: UnitUSD, Period: "2022"}
	tests := []struct {
		name string
		text string
		f    Figure
		want bool
	}{
		{"billions with dollar", "Revenue, FY2023: $26.97 billion [1].", nvda, true},
		{"millions", "FY2023 revenue was 26,974 million.", nvda, true},
		{"units", "In fiscal 2023 revenue reached $26,974,000,000.", nvda, true},
		{"table row in millions", "Revenue, FY2023, as stated: \"Revenue | 26,974 | 26,914\" [2]", nvda, true},
		{"suffix B", "FY2023 revenue: $26.97B", nvda, true},
		{"bn", "FY2023 revenue of 26.97 bn dollars", nvda, true},
		{"wrong period on the line", "Revenue: $26.97 billion\nThis is FY2023.", nvda, false},
		{"outside tolerance", "FY2023 revenue: $27.2 billion", nvda, false},
		{"rounded to what was written", "FY2023 revenue: $27 billion", nvda, true},
		{"rounded too far", "FY2023 revenue: $30 billion", nvda, false},
		{"one decimal", "FY2023 net income $4.4 billion", Figure{Label: "ni", Value: 4_368_000_000, Unit: UnitUSD, Period: "2023"}, true},
		{"percent rounded", "FY2024 gross margin 46%", margin, true},
		{"percent off by more than the rounding", "FY2024 gross margin 46.4%", margin, false},
		{"wrong scale word", "FY2023 revenue: $26.97 million", nvda, false},
		{"the prior year only", "FY2023 revenue | 26,914", nvda, false},
		{"citation marker is not a figure", "In 2023 it was large [26974].", nvda, false},
		{"percent", "Gross margin, FY2024 = 46.2% [1][2].", margin, true},
		{"percent word", "In 2024 the gross margin was 46.2 percent.", margin, true},
		{"percent needs a percent sign", "In 2024 the gross margin was 46.2 points.", margin, false},
		{"a dollar amount is not a percent", "In 2024 the margin was $46.2.", margin, false},
		{"count", "As of September 28, 2024, the Company had approximately 164,000 employees.", staff, true},
		{"count in millions", "At the end of fiscal 2022, approximately 2.3 million associates.", walmart, true},
		{"count from a table in thousands", "In 2022: Associates | 2,300 |", walmart, true},
		{"a percent is not a count", "In 2022, 2.3% of associates", walmart, false},
		{"loss in parentheses", "Net income (loss), 2022: (2,722) million", loss, true},
		{"loss with minus", "2022 net loss was -$2.7 billion", Figure{Label: "l", Value: -2.7e9, Unit: UnitUSD, Period: "2022"}, true},
		{"year is not a figure", "Fiscal 2024 ended; 2024 was a year.", Figure{Label: "y", Value: 2024, Unit: UnitCount, Period: "2024"}, false},
		{"period is case-insensitive", "fy2024 margin 46.2%", margin, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, ok := FindFigure(tt.text, tt.f)
			if ok != tt.want {
				t.Errorf("FindFigure(%q, %v) = %+v, %v; want %v (amounts %+v)", tt.text, tt.f.Value, a, ok, tt.want, ParseAmounts(tt.text))
			}
		})
	}
}

func TestParseAmounts(t *testing.T) {
	tests := []struct {
		text string
		want []float64
	}{
		{"$26.97 billion", []float64{26.97e9}},
		{"26,974 million and 46.2%", []float64{26974e6, 46.2}},
		{"FY2024 Q3 10-K 3D", nil},
		{"in 2024 and 1999", nil},
		{"2,024 units", []float64{2024}},
		{"$2024", []float64{2024}},
		{"[3][12] 7.5%", []float64{7.5}},
		{"$1.2M and 300K and 4 thousand", []float64{1.2e6, 300e3, 4000}},
		{"1.5 trillion", []float64{1.5e12}},
		{"the filing prints (15)% and (2,722)", []float64{15, 2722}},
	}
	for _, tt := range tests {
		got := ParseAmounts(tt.text)
		if len(got) != len(tt.want) {
			t.Errorf("ParseAmounts(%q) = %+v; want values %v", tt.text, got, tt.want)
			continue
		}
		for i := range got {
			if math.Abs(got[i].Value-tt.want[i]) > 1e-6*math.Max(1, tt.want[i]) {
				t.Errorf("ParseAmounts(%q)[%d] = %v; want %v", tt.text, i, got[i].Value, tt.want[i])
			}
		}
	}
}

func TestParseAmountsLines(t *testing.T) {
	got := ParseAmounts("a 1.5%\nb\nc $3 billion")
	if len(got) != 2 || got[0].Line != 0 || got[1].Line != 2 || !got[0].Percent || !got[1].Dollar || !got[1].Scaled {
		t.Errorf("amounts %+v; want a percent on line 0 and a scaled dollar amount on line 2", got)
	}
}

func FuzzParseAmounts(f *testing.F) {
	for _, s := range []string{"$26.97 billion", "Revenue | 26,974 | 26,914 | 16,675", "46.2% [1][2]", "(2,722)", "FY2024 1,2,3,,4.5.6", "9" + strings.Repeat("9", 400) + " million", "€1,0 ½ ١٢٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lines := strings.Count(s, "\n")
		for _, a := range ParseAmounts(s) {
			if math.IsNaN(a.Value) || math.IsInf(a.Value, 0) || a.Value < 0 {
				t.Fatalf("amount %+v of %q is not a finite magnitude", a, s)
			}
			if !strings.Contains(s, a.Text) || a.Text == "" {
				t.Fatalf("amount text %q is not part of %q", a.Text, s)
			}
			if a.Line < 0 || a.Line > lines {
				t.Fatalf("amount %+v: line out of range (%d lines)", a, lines+1)
			}
			if a.Percent && a.Scaled {
				t.Fatalf("amount %+v is both a percent and scaled", a)
			}
		}
		// Finding a figure never panics, whatever the text.
		FindFigure(s, Figure{Label: "x", Value: 1e9, Unit: UnitUSD, Period: "2024"})
	})
}

// A negative percentage printed in parentheses ("(15)%", as the filings'
// tables print a fall) is a percentage.
func TestParseAmountsParenthesisedPercent(t *testing.T) {
	got := ParseAmounts("GMV fell; the filing prints (15)% [2]")
	if len(got) != 1 || got[0].Value != 15 || !got[0].Percent {
		t.Errorf("ParseAmounts = %+v, want one percentage of 15", got)
	}
}
