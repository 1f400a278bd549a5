package synth

import "testing"

// Of two lines printing a ratio's result, the one naming the figure ranks
// first: its part's row, or its numerator's row label.
func TestPrintedRank(t *testing.T) {
	t.Parallel()
	tests := []struct {
		topic        string
		names        []string
		better, over string
	}{
		{"Greater China Segment operating income revenue growth", nil,
			"Greater China 15,758 14,604 8% 57,475 58,730 (2)%", "Percentage of total net sales 9% 8% 8% 6%"},
		{"R&D as a percentage of revenue", []string{"research and development"},
			"Research and development | 27.2 | 19.6", "% of revenue | 27.2% | 19.6%"},
	}
	for _, tt := range tests {
		if b, o := printedRank(tt.better, tt.topic, tt.names), printedRank(tt.over, tt.topic, tt.names); b <= o {
			t.Errorf("printedRank(%q) = %d, not above %d of %q", tt.better, b, o, tt.over)
		}
	}
}
