package textsearch

import "unicode/utf8"

// Stem returns the Snowball English ("Porter2") stem of a lower-case word,
// the stemmer behind Postgres' english_stem dictionary, so that the embedded
// store and the Postgres store index the same lexemes. It follows
// https://snowballstem.org/algorithms/english/stemmer.html step by step; the
// comments name the steps. Stem does not lower-case its input.
func Stem(word string) string {
	if s, ok := exception1[word]; ok {
		return s
	}
	if utf8.RuneCountInString(word) < 3 {
		return word
	}
	st := stemmer{w: []rune(word)}
	st.prelude()
	st.markRegions()
	st.step1a()
	if !exception2[string(st.w)] {
		st.step1b()
		st.step1c()
		st.step2()
		st.step3()
		st.step4()
		st.step5()
	}
	return st.postlude()
}

// exception1 holds the words stemmed by table rather than by rule.
var exception1 = map[string]string{
	"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
	"idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli", "singly": "singl",
	"sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas", "cosmos": "cosmos", "bias": "bias", "andes": "andes",
}

// exception2 holds the words left alone after step 1a.
var exception2 = map[string]bool{
	"inning": true, "outing": true, "canning": true, "herring": true, "earring": true,
	"proceed": true, "exceed": true, "succeed": true,
}

// stemmer is one word being stemmed: its letters (with 'Y' marking a
// consonant y) and the starts of its regions R1 and R2.
type stemmer struct {
	w      []rune
	p1, p2 int
	yFound bool
}

func isVowel(r rune) bool {
	switch r {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

// prelude drops a leading apostrophe and marks consonant y's as 'Y'.
func (s *stemmer) prelude() {
	if s.w[0] == '\'' {
		s.w = s.w[1:]
	}
	if len(s.w) > 0 && s.w[0] == 'y' {
		s.w[0] = 'Y'
		s.yFound = true
	}
	for i := 1; i < len(s.w); i++ {
		if s.w[i] == 'y' && isVowel(s.w[i-1]) {
			s.w[i] = 'Y'
			s.yFound = true
		}
	}
}

// markRegions sets p1 and p2: R1 starts after the first non-vowel that
// follows a vowel (or after one of a few prefixes), R2 likewise within R1.
func (s *stemmer) markRegions() {
	s.p1, s.p2 = len(s.w), len(s.w)
	p1 := -1
	for _, prefix := range []string{"gener", "commun", "arsen"} {
		if s.hasPrefix(prefix) {
			p1 = len(prefix)
			break
		}
	}
	if p1 < 0 {
		p1 = s.afterVowelConsonant(0)
		if p1 < 0 {
			return
		}
	}
	s.p1 = p1
	if p2 := s.afterVowelConsonant(p1); p2 >= 0 {
		s.p2 = p2
	}
}

// afterVowelConsonant returns the index after the first non-vowel that
// follows a vowel at or after from, or -1.
func (s *stemmer) afterVowelConsonant(from int) int {
	i := from
	for i < len(s.w) && !isVowel(s.w[i]) {
		i++
	}
	for i < len(s.w) && isVowel(s.w[i]) {
		i++
	}
	if i >= len(s.w) {
		return -1
	}
	return i + 1
}

func (s *stemmer) hasPrefix(p string) bool {
	if len(s.w) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if s.w[i] != rune(p[i]) {
			return false
		}
	}
	return true
}

func (s *stemmer) hasSuffix(suf string) bool {
	n := len(s.w) - len(suf)
	if n < 0 {
		return false
	}
	for i := 0; i < len(suf); i++ {
		if s.w[n+i] != rune(suf[i]) {
			return false
		}
	}
	return true
}

// longest returns the longest of suffixes that ends the word, or "".
func (s *stemmer) longest(suffixes ...string) string {
	best := ""
	for _, suf := range suffixes {
		if len(suf) > len(best) && s.hasSuffix(suf) {
			best = suf
		}
	}
	return best
}

// inR1 and inR2 report whether a suffix of the word lies in R1 or R2.
func (s *stemmer) inR1(suf string) bool { return len(s.w)-len(suf) >= s.p1 }
func (s *stemmer) inR2(suf string) bool { return len(s.w)-len(suf) >= s.p2 }

// replace replaces the suffix suf (known to end the word) with repl.
func (s *stemmer) replace(suf, repl string) {
	s.w = s.w[:len(s.w)-len(suf)]
	for _, r := range repl {
		s.w = append(s.w, r)
	}
}

// hasVowelBefore reports whether s.w[:end] holds a vowel.
func (s *stemmer) hasVowelBefore(end int) bool {
	for i := 0; i < end; i++ {
		if isVowel(s.w[i]) {
			return true
		}
	}
	return false
}

// shortSyllableAt reports whether s.w[:end] ends in a short syllable: a
// non-vowel other than w, x or Y after a vowel after a non-vowel, or a
// vowel at the start of the word followed by a non-vowel.
func (s *stemmer) shortSyllableAt(end int) bool {
	if end < 2 {
		return false
	}
	last, mid := s.w[end-1], s.w[end-2]
	if isVowel(last) || !isVowel(mid) {
		return false
	}
	if end == 2 {
		return true
	}
	if last == 'w' || last == 'x' || last == 'Y' {
		return false
	}
	return !isVowel(s.w[end-3])
}

// step1a removes possessives and plural endings.
func (s *stemmer) step1a() {
	if suf := s.longest("'", "'s'", "'s"); suf != "" {
		s.replace(suf, "")
	}
	switch suf := s.longest("sses", "ied", "ies", "s", "us", "ss"); suf {
	case "sses":
		s.replace(suf, "ss")
	case "ied", "ies":
		if len(s.w)-len(suf) > 1 {
			s.replace(suf, "i")
		} else {
			s.replace(suf, "ie")
		}
	case "s":
		// Delete if the part before the letter preceding the s holds a vowel.
		if len(s.w) >= 2 && s.hasVowelBefore(len(s.w)-2) {
			s.replace(suf, "")
		}
	}
}

// step1b removes -eed, -ed, -ing and their -ly forms.
func (s *stemmer) step1b() {
	switch suf := s.longest("eed", "eedly", "ed", "edly", "ing", "ingly"); suf {
	case "":
	case "eed", "eedly":
		if s.inR1(suf) {
			s.replace(suf, "ee")
		}
	default:
		if !s.hasVowelBefore(len(s.w) - len(suf)) {
			return
		}
		s.replace(suf, "")
		switch {
		case s.hasSuffix("at"), s.hasSuffix("bl"), s.hasSuffix("iz"):
			s.w = append(s.w, 'e')
		case s.endsInDouble():
			s.w = s.w[:len(s.w)-1]
		case s.p1 == len(s.w) && s.shortSyllableAt(len(s.w)):
			s.w = append(s.w, 'e')
		}
	}
}

func (s *stemmer) endsInDouble() bool {
	n := len(s.w)
	if n < 2 || s.w[n-1] != s.w[n-2] {
		return false
	}
	switch s.w[n-1] {
	case 'b', 'd', 'f', 'g', 'm', 'n', 'p', 'r', 't':
		return true
	}
	return false
}

// step1c turns a final y after a non-vowel (not the first letter) into i.
func (s *stemmer) step1c() {
	n := len(s.w)
	if n > 2 && (s.w[n-1] == 'y' || s.w[n-1] == 'Y') && !isVowel(s.w[n-2]) {
		s.w[n-1] = 'i'
	}
}

var step2Suffixes = map[string]string{
	"tional": "tion", "enci": "ence", "anci": "ance", "abli": "able", "entli": "ent",
	"izer": "ize", "ization": "ize", "ational": "ate", "ation": "ate", "ator": "ate",
	"alism": "al", "aliti": "al", "alli": "al", "fulness": "ful", "ousli": "ous", "ousness": "ous",
	"iveness": "ive", "iviti": "ive", "biliti": "ble", "bli": "ble", "ogi": "og",
	"fulli": "ful", "lessli": "less", "li": "",
}

var step2List = keys(step2Suffixes)

func (s *stemmer) step2() {
	suf := s.longest(step2List...)
	if suf == "" || !s.inR1(suf) {
		return
	}
	before := len(s.w) - len(suf)
	switch suf {
	case "ogi":
		if before == 0 || s.w[before-1] != 'l' {
			return
		}
	case "li":
		if before == 0 || !validLiEnding(s.w[before-1]) {
			return
		}
	}
	s.replace(suf, step2Suffixes[suf])
}

func validLiEnding(r rune) bool {
	switch r {
	case 'c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't':
		return true
	}
	return false
}

var step3Suffixes = map[string]string{
	"tional": "tion", "ational": "ate", "alize": "al", "icate": "ic", "iciti": "ic", "ical": "ic",
	"ful": "", "ness": "", "ative": "",
}

var step3List = keys(step3Suffixes)

func (s *stemmer) step3() {
	suf := s.longest(step3List...)
	if suf == "" || !s.inR1(suf) {
		return
	}
	if suf == "ative" && !s.inR2(suf) {
		return
	}
	s.replace(suf, step3Suffixes[suf])
}

var step4List = []string{
	"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
	"ism", "ate", "iti", "ous", "ive", "ize", "ion",
}

func (s *stemmer) step4() {
	suf := s.longest(step4List...)
	if suf == "" || !s.inR2(suf) {
		return
	}
	if suf == "ion" {
		before := len(s.w) - len(suf)
		if before == 0 || (s.w[before-1] != 's' && s.w[before-1] != 't') {
			return
		}
	}
	s.replace(suf, "")
}

func (s *stemmer) step5() {
	switch {
	case s.hasSuffix("e"):
		if s.inR2("e") || (s.inR1("e") && !s.shortSyllableAt(len(s.w)-1)) {
			s.replace("e", "")
		}
	case s.hasSuffix("l"):
		if s.inR2("l") && s.hasSuffix("ll") {
			s.replace("l", "")
		}
	}
}

// postlude turns the 'Y' marks back into y.
func (s *stemmer) postlude() string {
	if s.yFound {
		for i, r := range s.w {
			if r == 'Y' {
				s.w[i] = 'y'
			}
		}
	}
	return string(s.w)
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
