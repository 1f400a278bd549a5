package ledger

import (
	"maps"
	"slices"
	"strings"
	"unicode"
)

// Search is one entry of a run's search history: a search a tool ran and
// what it brought.
type Search struct {
	ToolCallID     string            `json:"tool_call"` // filled in by the store
	QueryKey       string            `json:"query_key"` // QueryKey(Query, Filters); filled in by the store
	Query          string            `json:"query"`
	Filters        map[string]string `json:"filters,omitempty"`
	CandidatesSeen int               `json:"candidates_seen"`
	NewEvidence    int               `json:"new_evidence"` // OutcomeNew items of the call; filled in by the store
}

// QueryKey normalises a search so that repeats are recognised: the query's
// words lower-cased, stripped of punctuation at their edges, deduplicated and
// sorted, then the filters as sorted key=value pairs (keys lower-cased,
// empty values dropped), joined by '|'.
func QueryKey(query string, filters map[string]string) string {
	words := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return unicode.IsSpace(r) })
	var terms []string
	for _, w := range words {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
		if w != "" {
			terms = append(terms, w)
		}
	}
	slices.Sort(terms)
	terms = slices.Compact(terms)
	var b strings.Builder
	b.WriteString(strings.Join(terms, " "))
	norm := make(map[string]string, len(filters))
	for k, v := range filters {
		if v = strings.TrimSpace(v); v != "" {
			norm[strings.ToLower(strings.TrimSpace(k))] = v
		}
	}
	for _, k := range slices.Sorted(maps.Keys(norm)) {
		b.WriteString("|")
		b.WriteString(k)
		b.WriteString("=")
		b.WriteString(norm[k])
	}
	return b.String()
}
