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

// Section is one item of a filing: [Start, End) of its canonical text.
type Section struct {
	Name  string // "Item 7"; "" for the cover and contents before the first item
	Title string // the heading's title, e.g. "Management's Discussion and Analysis ..."
	Start int
	End   int
}

var (
	// itemHeading matches a line opening with an item number, optionally
	// after a part label: "Item 7.", "ITEM 1A:", "Part II, Item 5 |".
	itemHeading = regexp.MustCompile(`(?i)^(?:part\s+[ivx]+\s*[,.:\-–—]?\s*)?item\s+(\d{1,2}[a-c]?)\b\s*[.:\-–—]?\s*(?:\|\s*)?(.*)$`)
	// pageRef matches the page column of a table-of-contents line:
	// "| 21", "Pages 53-65", "Page 68, (b)", "19".
	pageRef = regexp.MustCompile(`(?i)(?:\|\s*|\s)(?:pages?\s+)?\d{1,3}(?:\s*[-–,]\s*\d{1,3})*(?:\s*,\s*\([a-z]\))?\s*$`)
)

// itemTitles are the openings of the item titles of Forms 10-K and 10-Q,
// lower case with straight quotes. A line is a heading only when its title
// opens with one of them, so a wrapped sentence that happens to begin with
// "Item 1A of Part I" is not taken for one.
var itemTitles = []string{
	"business", "risk factors", "unresolved staff comments", "cybersecurity", "properties",
	"legal proceedings", "mine safety disclosures", "submission of matters", "market for",
	"selected financial data", "[reserved]", "reserved", "management's discussion",
	"quantitative and qualitative", "financial statements", "changes in and disagreements",
	"controls and procedures", "other information", "disclosure regarding foreign",
	"directors, executive officers", "directors and executive officers", "executive compensation",
	"security ownership", "certain relationships", "principal accountant", "principal accounting",
	"exhibits", "exhibit and financial", "form 10-k summary", "unregistered sales",
	"defaults upon senior",
}

// Sections finds the item headings of a 10-K or 10-Q in canonical text and
// returns the sections they open, covering the whole text in order. Lines
// of the table of contents (and cross-reference indexes) are not headings:
// a line ending in a page reference is skipped, and so is a run of three or
// more candidate headings with almost no text between them.
func Sections(text string) []Section {
	type candidate struct {
		name, title string
		start, end  int // the heading line (and its title line, when separate)
	}
	var cands []candidate
	for off := 0; off < len(text); {
		nl := strings.IndexByte(text[off:], '\n')
		lineEnd := len(text)
		if nl >= 0 {
			lineEnd = off + nl
		}
		line := text[off:lineEnd]
		next := lineEnd + 1
		if len(line) <= 200 {
			if m := itemHeading.FindStringSubmatch(line); m != nil {
				title, end := strings.TrimSpace(m[2]), lineEnd
				if title == "" { // the title may sit on the next line
					t, e := nextLine(text, next)
					title, end = t, e
				}
				if isItemTitle(title) && !pageRef.MatchString(" "+title) {
					cands = append(cands, candidate{
						name:  "Item " + strings.ToUpper(m[1]),
						title: strings.TrimRight(strings.TrimSpace(strings.TrimPrefix(title, "|")), " |"),
						start: off, end: end,
					})
				}
			}
		}
		off = next
	}

	// A table of contents without page numbers shows as a run of three or
	// more candidates with almost no text between them whose items all
	// come again later. Drop the members of such a run that reappear after
	// it; a run of short body items ("Not applicable.") does not reappear,
	// and the body's first heading, when it joins the run, does not either.
	dense := make([]bool, len(cands))
	for i := 0; i+1 < len(cands); i++ {
		dense[i] = substantive(text[cands[i].end:cands[i+1].start]) < 80
	}
	keep := make([]bool, len(cands))
	for i := range keep {
		keep[i] = true
	}
	for i := 0; i < len(cands); {
		j := i
		for j < len(cands) && dense[j] {
			j++
		}
		// cands[i..j] is a run joined by dense gaps; j is its last member.
		if j-i+1 >= 3 {
			// A member "comes again" when a later candidate, in the run or
			// after it, has its name.
			again := make([]bool, j-i+1)
			n := 0
			for k := i; k <= j; k++ {
				for _, c := range cands[k+1:] {
					if c.name == cands[k].name {
						again[k-i] = true
						n++
						break
					}
				}
			}
			if 2*n > j-i+1 {
				for k := i; k <= j; k++ {
					if again[k-i] {
						keep[k] = false
					}
				}
			}
		}
		i = j + 1
	}

	// A wrapped table-of-contents line whose page number fell to the next
	// line survives the rules above: it is out of order (the next heading
	// has a lower item number) and its heading comes again later.
	for i := 0; i+1 < len(cands); i++ {
		if !keep[i] || itemRank(cands[i+1].name) >= itemRank(cands[i].name) {
			continue
		}
		for _, later := range cands[i+1:] {
			if later.name == cands[i].name && sameTitle(later.title, cands[i].title) {
				keep[i] = false
				break
			}
		}
	}

	var out []Section
	prev := Section{Start: 0}
	for i, c := range cands {
		// Running page headers repeat the open item ("PART I Item 1A"):
		// they continue the section rather than open another.
		if !keep[i] || c.name == prev.Name {
			continue
		}
		prev.End = c.start
		if prev.End > prev.Start {
			out = append(out, prev)
		}
		prev = Section{Name: c.name, Title: c.title, Start: c.start}
	}
	prev.End = len(text)
	if prev.End > prev.Start || len(out) == 0 {
		out = append(out, prev)
	}
	return out
}

// nextLine returns the first non-empty line at or after off and the offset
// of its end.
func nextLine(text string, off int) (string, int) {
	for off < len(text) {
		nl := strings.IndexByte(text[off:], '\n')
		end := len(text)
		if nl >= 0 {
			end = off + nl
		}
		if line := strings.TrimSpace(text[off:end]); line != "" && line != "\f" {
			return line, end
		}
		off = end + 1
	}
	return "", len(text)
}

func isItemTitle(title string) bool {
	t := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(title), "|")))
	t = strings.NewReplacer("’", "'", "‘", "'", "\u00a0", " ").Replace(t)
	for _, p := range itemTitles {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// substantive counts the bytes of s that are neither white space, page
// breaks, table separators nor page numbers.
func substantive(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		if f == "|" || isDigits(f) {
			continue
		}
		n += len(f)
	}
	return n
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// itemRank orders item names: "Item 1" < "Item 1A" < "Item 2".
func itemRank(name string) int {
	s := strings.TrimPrefix(name, "Item ")
	n, letter := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			n = n*10 + int(c-'0')
		} else {
			letter = int(c-'A') + 1
		}
	}
	return n*4 + letter
}

// sameTitle compares two heading titles by their first words.
func sameTitle(a, b string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.NewReplacer("’", "'", "‘", "'").Replace(s))
		if len(s) > 24 {
			s = s[:24]
		}
		return s
	}
	return norm(a) == norm(b)
}
