package planner

import "testing"

// "Booked lower interest expense" says the figure was lower, not that
// something lowered it.
func TestLowerAsAdjective(t *testing.T) {
	cat := sampleCatalog(t)
	for _, tt := range []struct {
		question string
		causal   bool
	}{
		{"Both Netflix and eBay booked lower interest expense in 2022. How much did each report?", false},
		{"Apple reported a lower gross margin in fiscal 2024. What was it?", false},
		{"Both Netflix and eBay booked lower operating income in 2022. How much did each report?", false},
		{"Intel had lower revenue in its data center business in 2020. How much?", false},
		{"Did higher rates lower Netflix's operating margin in 2022?", true},
	} {
		if got := RouteQuestion(tt.question, cat, nil).Causal != nil; got != tt.causal {
			t.Errorf("%q: causal %v, want %v", tt.question, got, tt.causal)
		}
	}
}
