package synth

import "testing"

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
