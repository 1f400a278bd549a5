package corpus

import (
	"regexp"
	"strings"
)

var sectionArg = regexp.MustCompile(`(?i)^\s*(?:item\s*)?(\d{1,2}[a-c]?)\s*\.?\s*$`)

// NormalizeSection returns the canonical name of a 10-K/10-Q item ("Item 7",
// "Item 1A") for inputs such as "7", "item 1a" or "Item 7A."; ok is false
// when s does not name an item.
func NormalizeSection(s string) (name string, ok bool) {
	m := sectionArg.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return "Item " + strings.ToUpper(m[1]), true
}
