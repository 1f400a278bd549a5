package corpus

import (
	"context"
	"strings"
	"unicode"

	"github.com/ledgerline/research/corpus/internal/textsearch"
)

// labelVocabulary is the line-item vocabulary of the stored filings: the
// row labels they print beside their figures (tagged XBRL concepts and
// table cells). Analysts abbreviate line items ("SG&A", "FCF", "capex");
// a question's abbreviation is read as the label words it abbreviates.
type labelVocabulary struct {
	words   map[string]bool // every word of every label, lower case
	phrases map[string]int  // runs of 2 to 4 content words of a label → labels holding them
	// The phrases by their words' initials ("sga") and by their first two
	// letters ("ca"), the only ones an acronym or a clipped word can read.
	byInitials, byStart map[string][]string
	// whole holds every label of two content words or more, as its
	// content words joined by spaces ("total assets", "research
	// development"), each with the label as printed.
	whole map[string]string
	// longest is the most content words of any label in whole.
	longest int
}

// maxPhraseWords bounds the label runs an abbreviation may stand for.
const maxPhraseWords = 4

// newLabelVocabulary learns the vocabulary of the facts' labels.
func newLabelVocabulary(labels []FactLabel) *labelVocabulary {
	v := &labelVocabulary{words: map[string]bool{}, phrases: map[string]int{},
		byInitials: map[string][]string{}, byStart: map[string][]string{}, whole: map[string]string{}}
	seen := map[string]bool{}
	for _, l := range labels {
		if l.Label == "" || seen[l.Label] {
			continue
		}
		seen[l.Label] = true
		var content []string
		for _, w := range labelWords(l.Label) {
			v.words[w] = true
			if !textsearch.IsStopWord(w) {
				content = append(content, w)
			}
		}
		if len(content) >= 2 {
			key := strings.Join(content, " ")
			if _, ok := v.whole[key]; !ok {
				v.whole[key] = l.Label
				v.longest = max(v.longest, len(content))
			}
		}
		for i := range content {
			for n := 2; n <= maxPhraseWords && i+n <= len(content); n++ {
				phrase := strings.Join(content[i:i+n], " ")
				if v.phrases[phrase] == 0 {
					var initials []byte
					for _, w := range content[i : i+n] {
						initials = append(initials, w[0])
					}
					v.byInitials[string(initials)] = append(v.byInitials[string(initials)], phrase)
					if len(content[i]) >= 2 {
						v.byStart[content[i][:2]] = append(v.byStart[content[i][:2]], phrase)
					}
				}
				v.phrases[phrase]++
			}
		}
	}
	return v
}

// labelsIn returns the row labels of two content words or more that a
// question's words write out in full, the longest at each word, left to
// right: "Total current assets" and "Total current liabilities" in a
// question asking for a current ratio. words are the question's words in
// order, lower case, without stop words (Question.Words).
func (v *labelVocabulary) labelsIn(words []string) []string {
	var out []string
	for i := 0; i < len(words); {
		n := min(v.longest, len(words)-i)
		for ; n >= 2; n-- {
			if l, ok := v.whole[strings.Join(words[i:i+n], " ")]; ok {
				out = append(out, l)
				break
			}
		}
		if n >= 2 {
			i += n
		} else {
			i++
		}
	}
	return out
}

// labelWords splits a label into lower-case words of letters.
func labelWords(label string) []string {
	return strings.FieldsFunc(strings.ToLower(label), func(r rune) bool { return !unicode.IsLetter(r) })
}

// expand returns the label words a question's token abbreviates, or nil.
// An acronym (written in capitals, or with "&": "FCF", "SG&A") takes the
// first letter of each word; a clipped word ("capex") takes the first two
// or more letters of each. A word the labels themselves use is no
// abbreviation. Of several readings, the one most labels hold wins.
func (v *labelVocabulary) expand(token string) []string {
	acronym := strings.Contains(token, "&") || (len(token) > 1 && strings.ToUpper(token) == token)
	letters := strings.ToLower(strings.ReplaceAll(token, "&", ""))
	if len(letters) < 2 || len(letters) > 6 || v.words[letters] || strings.IndexFunc(letters, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
		return nil
	}
	if !acronym && len(letters) < 4 {
		return nil
	}
	// The reading more labels hold wins.
	candidates := v.byStart[letters[:2]]
	if acronym {
		candidates = v.byInitials[letters]
	}
	best, most := "", 0
	for _, phrase := range candidates {
		n := v.phrases[phrase]
		if n < most || n == most && phrase >= best {
			continue
		}
		if abbreviates(letters, strings.Fields(phrase), acronym) {
			best, most = phrase, n
		}
	}
	if best == "" {
		return nil
	}
	return strings.Fields(best)
}

// abbreviates reports whether letters are, in order, a prefix of each of
// words: one letter each for an acronym, two or more for a clipped word.
func abbreviates(letters string, words []string, acronym bool) bool {
	if len(words) == 0 {
		return letters == ""
	}
	w := words[0]
	if acronym {
		return letters != "" && letters[0] == w[0] && abbreviates(letters[1:], words[1:], true)
	}
	for n := min(len(w), len(letters)); n >= 2; n-- {
		if letters[:n] == w[:n] && abbreviates(letters[n:], words[1:], false) {
			return true
		}
	}
	return false
}

// vocabulary returns the label vocabulary of the store's filings, learned
// on first use from their facts and kept for the searcher's life.
func (s *Searcher) vocabulary(ctx context.Context) (*labelVocabulary, error) {
	s.mu.Lock()
	v := s.vocab
	s.mu.Unlock()
	if v != nil {
		return v, nil
	}
	labels, err := s.factLabels(ctx, "")
	if err != nil {
		return nil, err
	}
	v = newLabelVocabulary(labels)
	s.mu.Lock()
	s.vocab = v
	s.mu.Unlock()
	return v, nil
}
