package planner

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/tools"
)

// Issuer resolution: which issuers a question names, read from data and
// never from lists of issuers. Two sources name issuers:
//
//   - the SEC's issuer list (configs.Issuers): every listed ticker and the
//     SEC's name of every issuer, normalised by legalName ("COSTCO
//     WHOLESALE CORP /NEW" -> "COSTCO WHOLESALE");
//   - the corpus (NewCatalog): the manifest's company name, and what the
//     filings' own inline XBRL says (corpus.Entity): the registrant name,
//     its CIK, its trading symbols, and the dimension members of its own
//     taxonomy, which name its segments, products and brands ("Google
//     Cloud", "YouTube", "iPhone", "AWS").
//
// Whether a word is an ordinary English word decides how much a question
// must show before the word is read as a name or a ticker. That too comes
// from data: the SCOWL word list (configs.Words), the words that the titles
// of many SEC issuers share ("first", "capital", "bancorp"), the words of
// standard-taxonomy members in the corpus ("Europe", "AsiaPacific"), and
// financeAcronyms, a short list of general abbreviations. The rules, in
// the order RouteQuestion applies them, are on findIssuers.

// genericTitleIssuers is how many SEC issuers' titles must share a word for
// it to be a generic part of company names ("Capital", "Therapeutics",
// "Texas") rather than a name of its own.
const genericTitleIssuers = 4

// maxNameWords is the longest name, in words, matched in a question.
const maxNameWords = 6

// financeAcronyms are general abbreviations of finance, accounting,
// business, technology and government that questions use as words, with
// shorthand of finance and of chat ("comp", "mgmt", "pls", "wat"). Many
// are also tickers (AI, IT, EPS...); written in capitals they are read as
// tickers only with evidence ("$IT", "ticker IT", "compare IT, ACN and
// EPAM"). The list is generic: it names no issuer and was not drawn from
// any evaluation set.
var financeAcronyms = wordSet(`
	AI ML LLM GPU CPU TPU NPU ASIC FPGA SOC DRAM NAND SSD HBM LED OLED LCD USB API SDK OS PC TV VR AR XR
	IOT EV AV ADAS OEM ODM ERP CRM SAAS PAAS IAAS HPC EUV LTE IT AD ADS
	US USA UK EU UN UAE EMEA APAC LATAM NA HQ DC
	FY YE YOY QOQ YTD TTM LTM MTD ET PT EST PST GMT AM PM
	GAAP IFRS FASB IASB ASC ASU SEC PCAOB SOX XBRL HTML PDF FAQ TBD NM
	CEO CFO COO CTO CIO CMO CAO CHRO CSO VP SVP EVP MD IR HR PR IP QA RD NDA MOU LOI
	EPS ESG ROI ROE ROA ROIC ROCE FCF OCF EBIT EBITDA EBT COGS OPEX CAPEX SGA GM OM OI NI PE PS
	NII NIM AUM NAV CET BPS DCF WACC NPV IRR ABS MBS CMBS CDS CDO VIE JV MA
	KPI CAGR TAM SAM ARPU ARPPU MAU DAU GMV TPV ARR MRR NRR CAC LTV SKU AOV
	RSU PSU ESPP SBC NOL DTA DTL PPE ATM ACH DTC LLC LLP LP INC CORP LTD PLC
	IPO ETF ETN REIT SPAC ADR OTC NYSE NASDAQ ESOP LIBOR SOFR CRE
	USD EUR JPY CNY RMB GBP CHF CAD AUD INR KRW HKD SGD BRL MXN FX
	GDP CPI PCE PMI FED FOMC ECB BOJ PBOC IMF WTO OECD OPEC NATO
	FDA FTC FCC DOJ IRS EPA DOE DOD NASA COVID CARES CHIPS IRA GDPR CCPA DMA DSA CFIUS
	OK VS ETC AKA
	COMP REV MGMT APPROX AVG EST YR YRS QTR QTRS GOVT INTL OPS FWD PCT
	PLS PLZ THX WAT IDK IMO TBH BTW FYI ASAP LOL`)

// standardTaxonomies are the prefixes of standard XBRL taxonomies: members
// under them are generic ("us-gaap:ServiceMember"), not an issuer's own.
var standardTaxonomies = wordSet(`us-gaap srt dei country currency exch naics sic stpr ifrs-full ifrs ecd cyd
	invest rr oef sbs spac cef vip fnd snj ffd esef xbrli xbrldi iso4217 utr`)

// legalForms are the words of a company's legal form, dropped from the end
// of a name ("Inc.", "N.V.", "S.A.B. de C.V."); groupForms are dropped after
// them ("Holdings", "Group").
var (
	legalForms = wordSet(`inc incorporated corp corporation co company cos companies ltd limited plc llc llp lp
		nv sa sab de cv ag se spa bv gmbh ab asa oyj kk pte pty lc`)
	groupForms = wordSet(`holdings holding group`)
	// nameConnectors may sit inside a name without counting as its words.
	nameConnectors = wordSet(`and of the de for`)
	// tickerContext are words that say the next word is a ticker.
	tickerContext = wordSet(`ticker tickers symbol symbols nyse nasdaq amex otc`)
	// listSeparator is what may stand between two names of a list.
	listSeparator = regexp.MustCompile(`(?i)^\s*(,|,?\s*(and|or|&|vs\.?|versus|plus)|/)\s*$`)
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[strings.ToLower(w)] = true
	}
	return m
}

// nameKind is how a name names an issuer; lower kinds win a tie.
type nameKind int

const (
	kindFull    nameKind = iota // the issuer's normalised name, its legal form dropped
	kindBrand                   // a segment, product or brand named by its own XBRL members
	kindAbbrev                  // the initials of a brand of three or more words, matched as written
	kindCamel                   // a brand prefix matched only as one camel-case word
	kindLeading                 // the distinctive first word of a name
)

// nameRef is one issuer a name may refer to.
type nameRef struct {
	corpus   string // the corpus ticker; "" for an issuer the corpus lacks
	cik      int    // 0 when unknown
	kind     nameKind
	form     string // the name as its source writes it
	ordinary bool   // made of ordinary words: capitals in the question are needed
	plain    bool   // the SEC title is this name with its legal form only removed
	rank     int    // the issuer's place in the SEC's list (largest first); 0 in the corpus
	words    int    // how many words the name has; 0 when it counts as one
}

// compare orders the issuers a name may refer to, the likeliest first: the
// corpus's before the SEC's, full names before brands before first words,
// an SEC title that is the name with its legal form only removed before
// one that also lost "Holdings" or "Group", then the SEC's order.
func (r nameRef) compare(o nameRef) int {
	if a, b := r.corpus != "", o.corpus != ""; a != b {
		if a {
			return -1
		}
		return 1
	}
	if n := cmp.Compare(r.kind.tier(), o.kind.tier()); n != 0 {
		return n
	}
	if r.plain != o.plain {
		if r.plain {
			return -1
		}
		return 1
	}
	return cmp.Compare(r.rank, o.rank)
}

// tier ranks kinds of names: full names, then brands in any form, then
// first words.
func (k nameKind) tier() int {
	switch k {
	case kindFull:
		return 0
	case kindLeading:
		return 2
	}
	return 1
}

// secIndex is what the SEC's issuer list says, indexed for questions. It is
// built once from data embedded in the binary and never changes.
type secIndex struct {
	list      *configs.IssuerList
	words     *configs.WordList
	titleFreq map[string]int       // word -> number of issuers whose title holds it
	names     map[string][]nameRef // squashed name -> issuers
}

var loadSECIndex = sync.OnceValue(func() *secIndex {
	list, _ := configs.Issuers() // the embedded list; configs' tests hold it valid
	words, _ := configs.Words()
	return newSECIndex(list, words)
})

func newSECIndex(list *configs.IssuerList, words *configs.WordList) *secIndex {
	x := &secIndex{list: list, words: words, titleFreq: map[string]int{}, names: map[string][]nameRef{}}
	type named struct {
		cik  int
		name legal
	}
	var all []named
	seen := map[int]bool{}
	for e := range list.All() {
		if seen[e.CIK] {
			continue
		}
		seen[e.CIK] = true
		words := map[string]bool{}
		for _, t := range tokenize(e.Title) {
			words[t.key] = true
		}
		for w := range words {
			x.titleFreq[w]++
		}
		if n := legalName(e.Title); n.key != "" {
			all = append(all, named{e.CIK, n})
		}
	}
	firsts := map[string]int{} // first word -> issuers whose name starts with it
	pairs := map[string]int{}  // first two words -> issuers whose name starts with them
	for _, n := range all {
		if w := n.name.words; len(w) > 1 {
			firsts[w[0].key]++
			if len(w) > 2 {
				pairs[w[0].key+" "+w[1].key]++
			}
		}
	}
	sense := wordSense{sec: x}
	for _, n := range all {
		rank := list.Rank(n.cik)
		if len(n.name.key) >= 3 || (len(n.name.key) >= 2 && !sense.ordinary(n.name.key)) {
			x.add(n.name.key, nameRef{cik: n.cik, kind: kindFull, form: n.name.form, ordinary: sense.allOrdinary(n.name.words), plain: n.name.plain, rank: rank, words: len(n.name.words)})
			if n.name.dotCom != "" {
				x.add(n.name.dotCom, nameRef{cik: n.cik, kind: kindFull, form: n.name.form + ".com", plain: n.name.plain, rank: rank})
			}
		}
		// A distinctive first word names the issuer alone ("Exxon", "Palantir"):
		// four letters or more, no common word nor a generic part of names,
		// and the first word of no other issuer's name. So do the first two
		// words of a longer name that no other name starts with ("Taiwan
		// Semiconductor", "Advanced Micro").
		if w := n.name.words; len(w) > 1 {
			if letters(w[0].key) >= 4 && firsts[w[0].key] == 1 && !sense.common(w[0].key) {
				x.add(w[0].key, nameRef{cik: n.cik, kind: kindLeading, form: w[0].form, ordinary: sense.ordinary(w[0].key), rank: rank, words: 1})
			}
			if len(w) > 2 && pairs[w[0].key+" "+w[1].key] == 1 && !nameConnectors[w[1].key] {
				x.add(w[0].key+w[1].key, nameRef{cik: n.cik, kind: kindLeading, form: w[0].form + " " + w[1].form,
					ordinary: sense.allOrdinary(w[:2]), rank: rank, words: 2})
			}
		}
	}
	return x
}

func (x *secIndex) add(key string, r nameRef) {
	x.names[key] = append(x.names[key], r)
}

func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// wordSense tells ordinary words from names, from data: the word list, the
// words many SEC titles share, the words of standard-taxonomy members in the
// corpus, and financeAcronyms.
type wordSense struct {
	sec     *secIndex
	members map[string]bool // lower-case words of standard-taxonomy members
}

func (s wordSense) level(w string) int {
	if s.sec == nil {
		return 0
	}
	return s.sec.words.Level(w)
}

func (s wordSense) generic(w string) bool {
	return financeAcronyms[w] || s.members[w] || (s.sec != nil && s.sec.titleFreq[w] >= genericTitleIssuers)
}

// ordinary reports whether a lower-case word is an English word (either
// size of the word list) or a generic one; a plural counts as its singular.
func (s wordSense) ordinary(w string) bool {
	if w == "" {
		return true
	}
	if s.level(w) > 0 || s.generic(w) {
		return true
	}
	if st, ok := strings.CutSuffix(w, "s"); ok && len(st) >= 2 {
		return s.level(st) > 0 || s.generic(st)
	}
	return false
}

// common reports whether a lower-case word is a common English word (the
// smaller word list) or a generic one. A name made of a word that is
// ordinary but not common ("google", "meta") may still be a brand.
func (s wordSense) common(w string) bool {
	if w == "" {
		return true
	}
	if s.level(w) == 35 || s.generic(w) {
		return true
	}
	if st, ok := strings.CutSuffix(w, "s"); ok && len(st) >= 2 {
		return s.level(st) == 35 || s.generic(st)
	}
	return false
}

func (s wordSense) allOrdinary(words []nameWord) bool {
	for _, w := range words {
		if !nameConnectors[w.key] && !s.ordinary(w.key) {
			return false
		}
	}
	return true
}

func acronym(w string) bool {
	if financeAcronyms[w] || metricShorthand[w] {
		return true
	}
	st, ok := strings.CutSuffix(w, "s")
	return ok && financeAcronyms[st]
}

// metricShorthand are the one-word names the figure catalogues give their
// figures (tools.Metrics, tools.DerivedMetrics: "etr", "capex", "sbc"),
// in the tokens' key form: a question writing one in capitals ("ORCL FY23
// ETR") names the figure, not an issuer whose ticker it also is.
var metricShorthand = func() map[string]bool {
	out := map[string]bool{}
	add := func(names []string) {
		for _, n := range names {
			if k := strings.ReplaceAll(n, "&", ""); !strings.Contains(n, " ") && k != "" &&
				strings.IndexFunc(k, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
				out[k] = true
			}
		}
	}
	for _, m := range tools.Metrics {
		add(m.Aliases)
	}
	for _, m := range tools.DerivedMetrics {
		add(m.Aliases)
	}
	return out
}()

// --- Tokens ---

type shape int

const (
	shapeOther shape = iota // digits only, or no letters
	shapeLower              // "nflx", "apple"
	shapeCaps               // all capitals: "ABCD"
	shapeTitle              // a capital, then lower case: "Abcd"
	shapeCamel              // capitals inside the word: "aBcd", "AbCd"
)

// token is one word of a question or a name.
type token struct {
	start, end int    // bytes of the text
	key        string // lower-case letters and digits
	shape      shape
	letters    int
	digits     bool
	dollar     bool // "$" right before
	poss       bool // a possessive "'s" follows (not part of the token)
	sentStart  bool // first word of a sentence
	breakAfter bool // punctuation follows that a name does not run across
	joinAfter  bool // joined to the next word by '.', '-', '&' or an apostrophe, without space
	conn       bool // "and" or "&"
	initials   bool // one letter, or initials joined by periods ("J.P.")
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// notSentenceEnd are words after which a period ends no sentence.
var notSentenceEnd = wordSet(`vs inc corp co ltd no st mr mrs ms dr jr sr mt ft approx fig`)

// tokenize splits text into words, with what stands between them.
func tokenize(text string) []token {
	var raw []token
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '&':
			raw = append(raw, token{start: i, end: i + n, key: "&", conn: true})
			i += n
			continue
		case !isWordRune(r):
			i += n
			continue
		}
		j := i
		for j < len(text) {
			r2, n2 := utf8.DecodeRuneInString(text[j:])
			if !isWordRune(r2) {
				break
			}
			j += n2
		}
		raw = append(raw, newToken(text, i, j))
		i = j
	}
	var toks []token
	for _, t := range raw {
		n := len(toks)
		if n > 0 {
			p := &toks[n-1]
			gap := text[p.end:t.start]
			// A lone "s" after an apostrophe is a possessive, not a word.
			if t.key == "s" && (gap == "'" || gap == "’") && !p.conn {
				p.poss = true
				continue
			}
			// Initials joined by periods are one word: "J.P." -> "JP".
			if p.initials && t.letters == 1 && !t.digits && gap == "." {
				p.key += t.key
				p.letters++
				p.end = t.end
				p.shape = shapeOf(text[p.start:p.end])
				continue
			}
		}
		toks = append(toks, t)
	}
	for k := range toks {
		t := &toks[k]
		prevEnd := 0
		if k > 0 {
			prevEnd = toks[k-1].after(text)
		}
		t.dollar = strings.HasSuffix(text[prevEnd:t.start], "$")
		if k == 0 {
			t.sentStart = true
		} else {
			g, prev := text[prevEnd:t.start], toks[k-1]
			if strings.ContainsAny(g, "!?\n") || strings.Contains(g, ".") && strings.ContainsAny(g, " \t") &&
				!notSentenceEnd[prev.key] && !(prev.initials && prev.letters > 1) {
				t.sentStart = true
			}
		}
		if k+1 < len(toks) {
			g := text[t.after(text):toks[k+1].start]
			switch {
			case (toks[k+1].conn || t.conn) && g == "" && (t.conn && k > 0 && toks[k-1].end == t.start || toks[k+1].conn && k+2 < len(toks) && toks[k+1].end == toks[k+2].start):
				// Initials joined by "&" with no space are one word
				// ("SG&A", "R&D", "AT&T"): no part of it is a ticker.
				t.joinAfter = true
			case toks[k+1].conn || t.conn:
				t.breakAfter = strings.ContainsAny(g, ",;:!?()[]{}\"/|\n")
			case g == "." || g == "-" || g == "'" || g == "’" || g == "&":
				t.joinAfter = !t.poss
			case t.initials && t.letters > 1 && strings.TrimSpace(g) == ".":
				// "J.P. Morgan": the period closes the initials.
			case strings.ContainsAny(g, ",;:!?()[]{}\"/|\n.–—") || strings.Contains(g, " - "):
				t.breakAfter = true
			}
		}
	}
	return toks
}

// after returns where the text after t starts: past its possessive "'s".
func (t token) after(text string) int {
	if t.poss {
		return skipPossessive(text, t.end)
	}
	return t.end
}

func skipPossessive(text string, end int) int {
	for _, p := range []string{"'s", "’s"} {
		if strings.HasPrefix(text[end:], p) {
			return end + len(p)
		}
	}
	return end
}

func newToken(text string, i, j int) token {
	s := text[i:j]
	t := token{start: i, end: j, shape: shapeOf(s)}
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			t.letters++
			b.WriteRune(unicode.ToLower(r))
		case unicode.IsDigit(r):
			t.digits = true
			b.WriteRune(r)
		}
	}
	t.key = b.String()
	t.conn = t.key == "and"
	t.initials = t.letters == 1 && !t.digits
	return t
}

func shapeOf(s string) shape {
	upper, lower, first := 0, 0, true
	firstUpper := false
	for _, r := range s {
		if !unicode.IsLetter(r) {
			continue
		}
		if unicode.IsUpper(r) {
			upper++
			if first {
				firstUpper = true
			}
		} else {
			lower++
		}
		first = false
	}
	switch {
	case upper == 0 && lower == 0:
		return shapeOther
	case upper == 0:
		return shapeLower
	case lower == 0:
		return shapeCaps
	case firstUpper && upper == 1:
		return shapeTitle
	}
	return shapeCamel
}

// capitalised reports whether a word of a question starts with a capital,
// or is written exactly as a name's source writes it ("eBay", "iPhone").
func (t token) capitalised(text string) bool {
	r, _ := utf8.DecodeRuneInString(text[t.start:t.end])
	return unicode.IsUpper(r) || t.shape == shapeCamel
}

// --- Names of legal entities ---

// nameWord is one word of a name; words joined by a hyphen or a period
// without space are one ("Coca-Cola", "T-Mobile", "Amazon.com").
type nameWord struct {
	key, form string
}

// legal is a normalised company name.
type legal struct {
	form   string // the name as the source writes it
	key    string // squashed: "costcowholesale"
	words  []nameWord
	plain  bool   // only the legal form was removed, no "Holdings" nor "Group"
	dotCom string // the key with ".com" when the name ended in it ("amazoncom"); else ""
}

var (
	stateSuffix = regexp.MustCompile(`\s*[/\\].*$`) // "/NEW", "/DE/", "\PA\", "/ADR"
	parenthesis = regexp.MustCompile(`\([^)]*\)`)
)

// legalName normalises a company name: without a state or class suffix
// ("/DE/", "/NEW"), parentheses, a leading "The", and its legal form and
// group words at the end ("Inc.", "Corp", "N.V.", "plc", "& Co", "Holdings",
// "Group"); a trailing "com" is kept as ".com" in dotCom and dropped from
// the name ("AMAZON COM INC" -> "AMAZON", dotCom "amazoncom").
func legalName(name string) legal {
	s := stateSuffix.ReplaceAllString(name, "")
	s = parenthesis.ReplaceAllString(s, " ")
	toks := tokenize(s)
	if len(toks) > 0 && toks[0].key == "the" && len(toks) > 1 {
		toks = toks[1:]
	}
	strip := func(forms map[string]bool) bool {
		stripped := false
		for n := len(toks); n > 1 && (forms[toks[n-1].key] || toks[n-1].conn); n = len(toks) {
			toks, stripped = toks[:n-1], true
		}
		return stripped
	}
	strip(legalForms)
	plain := true
	for strip(groupForms) {
		plain = false
		strip(legalForms)
	}
	var dotCom string
	if n := len(toks); n > 1 && toks[n-1].key == "com" {
		dotCom = squash(toks)
		toks = toks[:n-1]
		strip(legalForms)
	}
	if len(toks) == 0 {
		return legal{}
	}
	l := legal{plain: plain, dotCom: dotCom}
	l.form = strings.TrimRight(strings.TrimSpace(s[toks[0].start:toks[len(toks)-1].end]), ",.&- ")
	l.key = squash(toks)
	l.words = nameWords(s, toks)
	return l
}

// squash is the key of a run of words: their letters and digits, lower
// case, without "and" and "&" between them.
func squash(toks []token) string {
	var b strings.Builder
	for i, t := range toks {
		if t.conn && i > 0 && i < len(toks)-1 {
			continue
		}
		b.WriteString(t.key)
	}
	return b.String()
}

func nameWords(text string, toks []token) []nameWord {
	var out []nameWord
	for i := 0; i < len(toks); i++ {
		j := i
		for j+1 < len(toks) && toks[j].joinAfter {
			j++
		}
		out = append(out, nameWord{key: squash(toks[i : j+1]), form: text[toks[i].start:toks[j].end]})
		i = j
	}
	return out
}

// --- The corpus's names ---

// corpusNames are the names the corpus gives its issuers.
type corpusNames struct {
	sense   wordSense
	names   map[string][]nameRef // squashed name -> corpus issuers
	symbols map[string]string    // ticker or trading symbol -> corpus ticker
	byCIK   map[int]string       // CIK -> corpus ticker
	cik     map[string]int       // corpus ticker -> CIK
	aliases map[string][]string  // corpus ticker -> its names and brands as written
	short   map[string]string    // corpus ticker -> the name a reader calls it by
}

// newCorpusNames indexes the names of the corpus's issuers: the manifest's
// company names, the filings' registrant names, trading symbols and CIKs,
// and the segment, product and brand names of their own XBRL members.
func newCorpusNames(sec *secIndex, company map[string]string, docs map[string][]corpus.Document) *corpusNames {
	c := &corpusNames{names: map[string][]nameRef{}, symbols: map[string]string{}, byCIK: map[int]string{},
		cik: map[string]int{}, aliases: map[string][]string{}, short: map[string]string{}}
	tickers := make([]string, 0, len(docs))
	for t := range docs {
		tickers = append(tickers, t)
	}
	slices.Sort(tickers)

	// Prefixes: an issuer's own prefix is not a standard taxonomy's, and is
	// its symbol in lower case or used by no other issuer of the corpus.
	prefixUsers := map[string]map[string]bool{}
	standardWords := map[string]bool{}
	for _, t := range tickers {
		for _, d := range docs[t] {
			for _, m := range d.Entity.Members {
				p, local, ok := strings.Cut(m, ":")
				if !ok {
					continue
				}
				if standardTaxonomies[strings.ToLower(p)] {
					for _, w := range camelWords(strings.TrimSuffix(local, "Member")) {
						standardWords[strings.ToLower(w)] = true
					}
					continue
				}
				if prefixUsers[p] == nil {
					prefixUsers[p] = map[string]bool{}
				}
				prefixUsers[p][t] = true
			}
		}
	}
	c.sense = wordSense{sec: sec, members: standardWords}

	type issuerNames struct {
		ticker  string
		legal   []legal // its registrant and company names
		symbols []string
		members []string
	}
	var all []issuerNames
	for _, t := range tickers {
		in := issuerNames{ticker: t, symbols: []string{t}}
		seen := map[string]bool{}
		addName := func(n string) {
			if l := legalName(n); l.key != "" && !seen[l.key] {
				seen[l.key] = true
				in.legal = append(in.legal, l)
			}
		}
		addName(company[t])
		cik := 0
		for _, d := range docs[t] {
			addName(d.Company)
			addName(d.Entity.Registrant)
			in.symbols = append(in.symbols, d.Entity.Symbols...)
			if n, err := strconv.Atoi(strings.TrimLeft(d.Entity.CIK, "0")); err == nil && n > 0 && cik == 0 {
				cik = n
			}
			for _, m := range d.Entity.Members {
				p, local, ok := strings.Cut(m, ":")
				if !ok || standardTaxonomies[strings.ToLower(p)] {
					continue
				}
				own := len(prefixUsers[p]) == 1
				for _, s := range append([]string{t}, d.Entity.Symbols...) {
					own = own || strings.EqualFold(p, s)
				}
				if own && !slices.Contains(in.members, local) {
					in.members = append(in.members, local)
				}
			}
		}
		if cik == 0 && sec != nil {
			if e, ok := sec.list.Lookup(t); ok {
				cik = e.CIK
			}
		}
		if cik != 0 {
			c.cik[t] = cik
			if _, taken := c.byCIK[cik]; !taken {
				c.byCIK[cik] = t
			}
			if sec != nil {
				for _, e := range sec.list.ByCIK(cik) {
					in.symbols = append(in.symbols, e.Ticker)
					addName(e.Title)
				}
			}
		}
		all = append(all, in)
	}
	for _, in := range all {
		for _, s := range in.symbols {
			s = configs.NormalizeTicker(s)
			if _, taken := c.symbols[s]; !taken && s != "" {
				c.symbols[s] = in.ticker
			}
		}
	}

	// Leading words: the first word of a corpus issuer's name names it when
	// no other corpus issuer's name starts with it and titles do not share it
	// widely ("Meta", "Costco"; not "International").
	leadUsers := map[string]map[string]bool{}
	for _, in := range all {
		for _, l := range in.legal {
			if len(l.words) > 0 {
				k := l.words[0].key
				if leadUsers[k] == nil {
					leadUsers[k] = map[string]bool{}
				}
				leadUsers[k][in.ticker] = true
			}
		}
	}
	for _, in := range all {
		t := in.ticker
		own := map[string]bool{}
		short := ""
		for _, l := range in.legal {
			c.add(l.key, nameRef{corpus: t, cik: c.cik[t], kind: kindFull, form: l.form, ordinary: c.sense.allOrdinary(l.words), words: len(l.words)})
			if l.dotCom != "" {
				c.add(l.dotCom, nameRef{corpus: t, cik: c.cik[t], kind: kindFull, form: l.form + ".com"})
			}
			c.alias(t, l.form)
			w := l.words[0]
			own[w.key] = true
			if len(l.words) == 1 {
				own[l.key] = true
				if short == "" {
					short = l.form
				}
				continue
			}
			if letters(w.key) >= 3 && len(leadUsers[w.key]) == 1 && (sec == nil || sec.titleFreq[w.key] < genericTitleIssuers) && !financeAcronyms[w.key] {
				c.add(w.key, nameRef{corpus: t, cik: c.cik[t], kind: kindLeading, form: w.form, ordinary: c.sense.ordinary(w.key)})
				c.alias(t, w.form)
				if short == "" {
					short = w.form
				}
			}
		}
		if short == "" && len(in.legal) > 0 {
			short = in.legal[0].form
		}
		c.short[t] = displayCase(short, company[t])
		c.addMembers(t, in.members, own)
	}
	return c
}

// displayCase writes a name as the manifest's company name writes it when
// the name is in capitals ("NVIDIA CORP" -> "NVIDIA", "AMAZON" -> "Amazon").
func displayCase(name, company string) string {
	if name == "" || strings.ToUpper(name) != name {
		return name
	}
	if i := strings.Index(strings.ToUpper(company), name); i >= 0 {
		return company[i : i+len(name)]
	}
	return name
}

func (c *corpusNames) add(key string, r nameRef) {
	if key == "" || slices.ContainsFunc(c.names[key], func(o nameRef) bool { return o.corpus == r.corpus && o.kind == r.kind }) {
		return
	}
	c.names[key] = append(c.names[key], r)
}

func (c *corpusNames) alias(ticker, form string) {
	if form != "" && !slices.Contains(c.aliases[ticker], form) {
		c.aliases[ticker] = append(c.aliases[ticker], form)
	}
}

// addMembers indexes the names an issuer's own XBRL members give its
// segments, products and brands. A member's name is its local name without
// "Member" and "Segment", split at capitals ("AmazonWebServicesSegmentMember"
// -> "Amazon Web Services", "IPhoneMember" -> "iPhone"). Members with digits
// or punctuation (notes, plans, years) and members that end in a legal form
// (another company: an acquisition, a counterparty) are skipped. Then:
//   - a one-word name that is no ordinary word is a brand ("Waymo", "iPhone");
//   - a name whose first word is the issuer's own name, or a distinctive
//     (not common) word that starts two or more of its members with different
//     second words ("Google Cloud", "Google Network"), is a brand; so is
//     that first word alone ("Google"), and the name's initials when they
//     make three letters or more ("Amazon Web Services" -> "AWS");
//   - any other name with a word that is not ordinary is a brand
//     ("Deirdre O Brien"); names of ordinary words only ("Data Center",
//     "Online Stores", "Greater China") name kinds of business, not an
//     issuer, and are skipped;
//   - the first two or three words of a name, squashed, match a question's
//     word written in camel case ("YouTube" for "You Tube Advertising
//     Revenue").
func (c *corpusNames) addMembers(ticker string, members []string, own map[string]bool) {
	type member struct {
		words []string // as written
		keys  []string // lower case
	}
	var ms []member
	for _, local := range members {
		name := strings.TrimSuffix(local, "Member")
		name = strings.TrimSuffix(name, "Segment")
		name = strings.TrimSuffix(name, "Segments")
		if name == "" || strings.IndexFunc(name, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			continue
		}
		words := camelWords(name)
		if len(words) == 0 || legalForms[strings.ToLower(words[len(words)-1])] || groupForms[strings.ToLower(words[len(words)-1])] {
			continue
		}
		m := member{words: words}
		for _, w := range words {
			m.keys = append(m.keys, strings.ToLower(w))
		}
		ms = append(ms, m)
	}
	seconds := map[string]map[string]bool{}
	for _, m := range ms {
		if len(m.keys) > 1 {
			if seconds[m.keys[0]] == nil {
				seconds[m.keys[0]] = map[string]bool{}
			}
			seconds[m.keys[0]][m.keys[1]] = true
		}
	}
	cik := c.cik[ticker]
	ordinary := func(k string) bool { return !own[k] && c.sense.ordinary(k) }
	for _, m := range ms {
		form := strings.Join(m.words, " ")
		key := strings.Join(m.keys, "")
		allOrdinary := true
		for _, k := range m.keys {
			if !nameConnectors[k] && !ordinary(k) {
				allOrdinary = false
			}
		}
		if len(m.keys) == 1 {
			if !allOrdinary {
				c.add(key, nameRef{corpus: ticker, cik: cik, kind: kindBrand, form: form, ordinary: c.sense.ordinary(key)})
				c.alias(ticker, form)
			}
			continue
		}
		first := m.keys[0]
		brandLead := own[first] || (len(seconds[first]) >= 2 && !c.sense.common(first))
		if brandLead || !allOrdinary {
			var ws []nameWord
			for i, k := range m.keys {
				ws = append(ws, nameWord{key: k, form: m.words[i]})
			}
			c.add(key, nameRef{corpus: ticker, cik: cik, kind: kindBrand, form: form, ordinary: c.sense.allOrdinary(ws), words: len(ws)})
			c.alias(ticker, form)
		}
		if brandLead {
			if !own[first] {
				c.add(first, nameRef{corpus: ticker, cik: cik, kind: kindLeading, form: m.words[0], ordinary: c.sense.ordinary(first)})
				c.alias(ticker, m.words[0])
			}
			var initials strings.Builder
			for i, k := range m.keys {
				if !nameConnectors[k] {
					r, _ := utf8.DecodeRuneInString(m.words[i])
					initials.WriteRune(unicode.ToUpper(r))
				}
			}
			if ab := initials.String(); utf8.RuneCountInString(ab) >= 3 {
				c.add(strings.ToLower(ab), nameRef{corpus: ticker, cik: cik, kind: kindAbbrev, form: ab})
				c.alias(ticker, ab)
			}
		}
		for k := 2; k <= min(3, len(m.keys)-1); k++ {
			c.add(strings.Join(m.keys[:k], ""), nameRef{corpus: ticker, cik: cik, kind: kindCamel, form: strings.Join(m.words[:k], "")})
		}
	}
}

// camelWords splits a member's local name at capitals: "AmazonWebServices"
// -> [Amazon Web Services], "AOCINet" -> [AOCI Net], and joins a lone
// capital to the word after it: "IPhone" -> [iPhone], "EBay" -> [eBay].
func camelWords(s string) []string {
	rs := []rune(s)
	var words []string
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		next := rune(0)
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		if unicode.IsUpper(cur) && (unicode.IsLower(prev) || unicode.IsUpper(prev) && unicode.IsLower(next)) ||
			unicode.IsDigit(cur) != unicode.IsDigit(prev) {
			words = append(words, string(rs[start:i]))
			start = i
		}
	}
	if start < len(rs) {
		words = append(words, string(rs[start:]))
	}
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if utf8.RuneCountInString(w) == 1 && unicode.IsUpper([]rune(w)[0]) && i+1 < len(words) && shapeOf(words[i+1]) == shapeTitle && len(out) == 0 {
			out = append(out, strings.ToLower(w)+words[i+1])
			i++
			continue
		}
		out = append(out, w)
	}
	return out
}

// --- Resolution ---

// mention is a part of a question that names, or may name, an issuer.
type mention struct {
	start, end  int    // bytes of the question
	first, last int    // tokens
	corpus      string // the corpus ticker; "" for an issuer the corpus lacks
	cik         int    // the SEC issuer; 0 when unknown
	ticker      string // the ticker written, when the mention is a ticker
	written     string // the text as written, for an issuer resolved by nothing
	asTicker    bool   // written as a ticker (capitals, "$")
	need        evidence
	ok          bool
}

// evidence is what a mention needs beyond its words before it counts.
type evidence int

const (
	needNothing evidence = iota
	needTicker           // a one-letter ticker or an acronym: "$", ticker words, a list of tickers, or its name
	needWord             // a ticker that is also a word, or an unknown one: also a possessive or a list of names
	needName             // an ordinary outside name at a sentence's start or in a question without case: a possessive or a list
	needList             // an unknown name: a list with a named issuer
)

// identity is how two mentions are found to name the same issuer.
func (m mention) identity() string {
	switch {
	case m.corpus != "":
		return "corpus:" + m.corpus
	case m.cik != 0:
		return "cik:" + strconv.Itoa(m.cik)
	}
	return "text:" + strings.ToUpper(m.written)
}

// resolver holds what findIssuers needs of one question.
type resolver struct {
	q        string
	toks     []token
	cat      *Catalog
	names    *corpusNames // cat's
	sec      *secIndex
	sense    wordSense
	shout    bool // the question is in capitals: capitals say nothing
	caseless bool // capitals say nothing of names (no capitals, or Title Case)
	claimed  []bool
	mentions []mention
}

// findIssuers finds the corpus issuers a question names, in order, and the
// issuers it names that the corpus lacks. taken are the question's spans
// that name an issuer. The rules:
//
//  1. Tickers the caller gave come first; any the corpus lacks is reported.
//  2. "$xyz" in any case is a ticker ("$BRK.B" is "BRK-B").
//  3. Names, longest first (up to maxNameWords words), against the corpus's
//     names and brands and the SEC's normalised titles and distinctive first
//     words, compared squashed (lower case, without spaces, punctuation and
//     "and"/"&": "Coca-Cola" = "COCA COLA", "Johnson and Johnson" =
//     "JOHNSON & JOHNSON"), a possessive "'s" aside; the question may write a
//     name with fewer spaces than its source ("JPMorgan"), never with more
//     ("to my" is not "Tomy"). A name made of ordinary words ("Apple",
//     "Target", "Meta", "Google Cloud") must be capitalised in the question;
//     an outside issuer's such name at the start of a sentence, or in a
//     question without case (no capitals but sentences' first letters, or
//     Title Case), also needs a possessive or a list with another issuer
//     ("Target's margins", "Compare Target and Walmart"; not "Target
//     margins fell"), and before another Title Case word it is part of a
//     longer name ("Intelligent Cloud"). An outside issuer's name of one to
//     three letters is written in capitals ("SAP", not "Tim"), and its first
//     words alone are capitalised in a question with case ("Micron", not
//     "hyperscale"). Several issuers sharing a name: the corpus's first,
//     then full names before brands before first words, then the SEC title
//     that is the name with its legal form only, then the SEC's order
//     (largest issuers first).
//  4. A word in capitals (in a question not all in capitals) is a ticker when
//     the corpus or the SEC lists it. A one-letter ticker or a general
//     acronym (financeAcronyms) needs "$", a ticker word before it
//     ("ticker", "symbol", "NYSE:"), a list with other tickers, or its
//     issuer's name in the question; a ticker that is an ordinary word
//     ("COST", "NOW", "ALL", "ON") may also show a possessive or sit in a
//     list with names. A word in capitals no list knows is reported as
//     written on the same evidence ("XYZQ's revenue").
//  5. A word in lower or title case ("nflx", "Nflx") is a ticker when it has
//     three letters or more, is no ordinary word nor an acronym, and a list
//     knows it. In a question all in capitals every word is read so.
//  6. A capitalised word no list knows, not an ordinary word, in a list with
//     a named issuer, is reported as written ("Compare Apple's and Samsung's
//     margins").
//
// Covered issuers are the corpus's tickers, in the order named. Not-covered
// issuers are written "TICKER (SEC title)" when resolved ("TSLA (Tesla,
// Inc.)"), else as written ("Samsung", "XYZQ"), in the order named; an issuer
// named twice counts once.
func findIssuers(question string, cat *Catalog, explicit []string) (issuers, notCovered []string, taken claims) {
	taken = make(claims, len(question))
	sec := loadSECIndex()
	names := cat.nameIndex()
	reported := map[string]bool{} // identities of the issuers in notCovered
	addNot := func(id, s string) {
		if s != "" && !reported[id] {
			reported[id] = true
			notCovered = append(notCovered, s)
		}
	}
	addCovered := func(t string) {
		if !slices.Contains(issuers, t) {
			issuers = append(issuers, t)
		}
	}
	for _, t := range explicit {
		t = configs.NormalizeTicker(t)
		if t == "" {
			continue
		}
		if ct := cat.corpusTicker(t); ct != "" {
			addCovered(ct)
			continue
		}
		if e, ok := sec.list.Lookup(t); ok {
			if ct := names.byCIK[e.CIK]; ct != "" {
				addCovered(ct)
				continue
			}
			addNot(mention{cik: e.CIK}.identity(), outsideName(sec, e.CIK, e.Ticker))
			continue
		}
		addNot(mention{written: t}.identity(), t)
	}
	r := &resolver{q: question, toks: tokenize(question), cat: cat, names: names, sec: sec, sense: names.sense}
	r.claimed = make([]bool, len(r.toks))
	r.shout = shouted(question)
	r.caseless = r.shout || caseless(r.toks)
	r.scan()
	r.weigh()
	slices.SortFunc(r.mentions, func(a, b mention) int { return a.start - b.start })
	// A name the corpus's issuers print as a row of their own statements
	// is a part of one of them, not an issuer outside the corpus:
	// "Mobileye's revenue in Intel's 2020 results" asks for Intel's
	// Mobileye row, though Mobileye is listed on its own.
	var covered []string
	for _, m := range r.mentions {
		if m.ok && m.corpus != "" {
			covered = append(covered, m.corpus)
		}
	}
	for _, t := range explicit {
		if ct := cat.corpusTicker(configs.NormalizeTicker(t)); ct != "" {
			covered = append(covered, ct)
		}
	}
	for _, m := range r.mentions {
		if !m.ok {
			continue
		}
		written := strings.TrimSuffix(strings.TrimSuffix(r.q[m.start:m.end], "'s"), "’s")
		skip := issuerWordSet(cat, covered)
		if m.corpus == "" && (initialsWritten(r.q[:m.start], written, skip) || initialsWritten(r.q[m.end:], written, skip)) {
			// "commercial paper ... CP programs", "CP usage: ...
			// commercial paper outstanding": the short form of words the
			// question writes out, not another's ticker.
			continue
		}
		if m.corpus == "" && clippedAfterNoun(r.q[:m.start], written, cat.TextStats(), skip) {
			// "anything on interest exp": typed in lower case after the
			// noun it completes, a word the filings use clipped, not an
			// outside issuer's ticker.
			continue
		}
		if m.corpus == "" && cat.defines(covered, written) {
			// A short form a filing defines for another company's name
			// ("Taiwan Semiconductor Manufacturing Company, Ltd. (TSMC)")
			// is that company; any other is the issuer's own term, though
			// it be another's ticker ("ARM").
			// A short form the SEC's list holds as written ("AMD") is that
			// issuer already.
			cik, ok := m.cik, m.cik != 0
			if !ok {
				cik, ok = definedCompany(sec, cat, covered, written)
			}
			if !ok || !r.listedWithIssuer(m) {
				// "competition from TSMC" names the company as a topic
				// of the issuer's; "Intel or TSMC" sets it beside one.
				continue
			}
			m.cik, m.corpus = cik, names.byCIK[cik]
			if m.corpus == "" {
				// Reported with the short form the question wrote.
				taken.claim(m.start, m.end)
				addNot(m.identity(), strings.TrimSuffix(outsideName(sec, cik, ""), ")")+", as "+written+")")
				continue
			}
		}
		if m.corpus == "" && cat.partOf(covered, written) {
			continue
		}
		taken.claim(m.start, m.end)
		switch {
		case m.corpus != "":
			addCovered(m.corpus)
		case m.cik != 0:
			addNot(m.identity(), outsideName(sec, m.cik, m.ticker))
		default:
			addNot(m.identity(), m.written)
		}
	}
	return issuers, notCovered, taken
}

// clippedAfterNoun reports whether w, typed in lower case, is the first
// letters of a word most filings use ("exp" of "expense") right after a
// content word it completes ("interest exp"), not after punctuation, a
// list's separator, a function word or an issuer's name ("nflx vs dis").
func clippedAfterNoun(before, w string, stats *TextStats, skip map[string]bool) bool {
	if strings.ToLower(w) != w || len(w) < 3 || len(w) > 4 || stats == nil {
		return false
	}
	words := strings.Fields(strings.ToLower(before))
	if len(words) == 0 {
		return false
	}
	prev := words[len(words)-1]
	if strings.IndexFunc(prev, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 || len(prev) < 3 ||
		skip[prev] || questionStopwords[prev] || listJoins[prev] {
		return false
	}
	return stats.CommonPrefix(w)
}

// initialsWritten reports whether short, two to five capitals, is the
// initials of a run of words text writes out (the question before it or
// after it: "commercial paper" beside "CP"), none of them a word of an
// issuer's name (skip): "Apple makes devices" spells no AMD.
func initialsWritten(text, short string, skip map[string]bool) bool {
	n := len(short)
	if n < 2 || n > 5 || strings.ToUpper(short) != short || strings.IndexFunc(short, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
		return false
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) })
	want := strings.ToLower(short)
	for i := 0; i+n <= len(words); i++ {
		match := true
		for k := 0; k < n; k++ {
			if words[i+k][0] != want[k] || skip[words[i+k]] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// listedWithIssuer reports whether mention m stands in a list with a
// mention of an issuer the corpus holds: only a list separator between
// them.
func (r *resolver) listedWithIssuer(m mention) bool {
	for _, o := range r.mentions {
		if !o.ok || o.corpus == "" {
			continue
		}
		switch {
		case o.end <= m.start && listSeparator.MatchString(possessiveLess(r.q[o.end:m.start])):
			return true
		case m.end <= o.start && listSeparator.MatchString(r.q[m.end:o.start]):
			return true
		}
	}
	return false
}

// possessiveLess drops a possessive's "'s" at the start of s.
func possessiveLess(s string) string {
	for _, p := range []string{"'s", "’s"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return rest
		}
	}
	return s
}

// definedCompany returns the issuer of the SEC's list named by the long
// form that a filing of one of issuers defines short as: a long form that
// ends in a legal form ("Company, Ltd.", "Inc.") and, without it, is
// the list's name of one issuer alone.
func definedCompany(sec *secIndex, cat *Catalog, issuers []string, short string) (int, bool) {
	for _, t := range issuers {
		long := cat.TextStats().LongForm(t, short)
		if long == "" {
			continue
		}
		l := legalName(long)
		if l.key == "" || l.key == squash(tokenize(long)) {
			continue // no legal form: a term, not a company's name
		}
		var cik int
		for _, ref := range sec.names[l.key] {
			if ref.kind != kindFull || cik != 0 && ref.cik != cik {
				cik = -1
				break
			}
			cik = ref.cik
		}
		if cik > 0 {
			return cik, true
		}
	}
	return 0, false
}

// outsideName is how an issuer the corpus lacks is reported: its ticker
// (the one written, else the SEC's first) and the SEC's name for it.
func outsideName(sec *secIndex, cik int, ticker string) string {
	es := sec.list.ByCIK(cik)
	if len(es) == 0 {
		return ticker
	}
	if ticker == "" || !slices.ContainsFunc(es, func(e configs.Issuer) bool { return e.Ticker == ticker }) {
		ticker = es[0].Ticker
	}
	return ticker + " (" + es[0].Title + ")"
}

// caseless reports whether a question's capitals say nothing of names: it
// has none but the first letters of sentences, codes and acronyms, or it
// is in Title Case (four in five of its longer words capitalised).
func caseless(toks []token) bool {
	capital, titled, long := 0, 0, 0
	for i, t := range toks {
		if t.letters == 0 || t.conn || alwaysCapital[t.key] {
			continue
		}
		// A sentence's first word says nothing by its capital, unless the
		// word is written in capitals or camel case ("NVIDIA", "eBay"). A
		// code in capitals ("FY24", "YE2024") or a finance acronym ("EPS",
		// "PP&E" across its join) is written so by everyone and says
		// nothing either.
		code := t.shape == shapeCaps && (t.digits || acronym(t.key) || acronym(joinedKey(toks, i)))
		if !code && (t.shape == shapeCamel || t.shape == shapeCaps && t.letters > 1 || !t.sentStart && t.shape != shapeLower) {
			capital++
		}
		if t.sentStart {
			continue
		}
		if t.letters >= 4 {
			long++
			if t.shape == shapeTitle || t.shape == shapeCaps {
				titled++
			}
		}
	}
	return capital == 0 || long >= 3 && titled*5 >= long*4
}

// alwaysCapital are words everyone writes with a capital, whatever their
// habit for names: the pronoun "I", the months and the days of the week.
var alwaysCapital = wordSet(`i january february march april may june july august september october november december
	jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday`)

// joinedKey returns the squashed key of the run of words joined without
// space ("pp", "&", "e" of "PP&E" give "ppe") that holds toks[i].
func joinedKey(toks []token, i int) string {
	first := i
	for first > 0 && toks[first-1].joinAfter {
		first--
	}
	var b strings.Builder
	for k := first; k < len(toks); k++ {
		if !toks[k].conn {
			b.WriteString(toks[k].key)
		}
		if !toks[k].joinAfter {
			break
		}
	}
	return b.String()
}

// initialsOfName reports whether key (a word's lower-case letters) is the
// initials of a run of two or more capitalised words the question writes
// out ("rl" for "Reality Labs", "dcg" for "Data Center Group").
func (r *resolver) initialsOfName(key string) bool {
	if len(key) < 2 {
		return false
	}
	for i := range r.toks {
		var initials strings.Builder
		for k := i; k < len(r.toks) && initials.Len() < len(key); k++ {
			t := r.toks[k]
			if t.shape != shapeTitle && t.shape != shapeCamel || t.letters < 2 {
				break
			}
			initials.WriteString(t.key[:1])
			if k > i && initials.String() == key {
				return true
			}
		}
	}
	return false
}

// scan finds the mentions of a question, left to right, longest first.
func (r *resolver) scan() {
	for i := 0; i < len(r.toks); i++ {
		if r.claimed[i] || r.toks[i].conn {
			continue
		}
		if n := r.scanAt(i); n > 0 {
			for k := i; k < i+n; k++ {
				r.claimed[k] = true
			}
			i += n - 1
		}
	}
}

// scanAt tries the mentions that start at token i and returns how many
// tokens the one found takes (0 for none).
func (r *resolver) scanAt(i int) int {
	t := r.toks[i]
	// "$xyz": a ticker in any case, but for a scale written in lower case
	// after the sign ("give it in $bn", "$mm"), which is a unit.
	if t.dollar && t.letters > 0 && !t.digits && t.letters <= 5 && !(t.shape == shapeLower && scaleWords[t.key]) {
		ticker, n := r.tickerAt(i)
		m := r.tickerMention(i, n, ticker)
		m.need = needNothing
		if m.corpus == "" && m.cik == 0 {
			m.written = ticker
		}
		r.mentions = append(r.mentions, m)
		return n
	}
	// Names of two words or more, longest first.
	for n := min(maxNameWords, len(r.toks)-i); n >= 2; n-- {
		if m, ok := r.nameAt(i, n); ok {
			r.mentions = append(r.mentions, m)
			return n
		}
	}
	if t.letters == 0 || t.digits {
		return 0
	}
	capsWord := t.shape == shapeCaps && !r.shout
	if capsWord && r.initialsOfName(t.key) {
		// "Reality Labs losses ... the RL operating loss": the initials
		// of a name the question writes out, not a ticker.
		return 0
	}
	if capsWord {
		if m, n, ok := r.capsAt(i); ok {
			r.mentions = append(r.mentions, m)
			return n
		}
		return 0
	}
	if m, ok := r.nameAt(i, 1); ok {
		r.mentions = append(r.mentions, m)
		return 1
	}
	// A ticker in lower or title case, or in a question in capitals.
	if t.letters >= 3 && t.letters <= 5 && !r.joined(i) && !r.sense.ordinary(t.key) && !acronym(t.key) {
		if m := r.tickerMention(i, 1, strings.ToUpper(t.key)); m.corpus != "" || m.cik != 0 {
			r.mentions = append(r.mentions, m)
			return 1
		}
	}
	// An unknown capitalised name, in a list with a named issuer.
	if !r.caseless && (t.shape == shapeTitle || t.shape == shapeCamel) && t.letters >= 3 &&
		(!t.sentStart || t.poss) && !r.sense.ordinary(t.key) && !acronym(t.key) && !r.joined(i) {
		n := 1
		for k := i; !r.toks[k].poss && !r.toks[k].breakAfter && k+1 < len(r.toks) && !r.claimed[k+1] &&
			(r.toks[k+1].shape == shapeTitle || r.toks[k+1].shape == shapeCamel) && !r.toks[k+1].digits; k++ {
			n++
		}
		m := r.span(i, n)
		m.written = r.q[m.start:m.end]
		m.need = needList
		r.mentions = append(r.mentions, m)
		return n
	}
	return 0
}

// joined reports whether token i is part of a word joined by punctuation
// ("R&D", "S&P", "10-K", "Amazon.com").
func (r *resolver) joined(i int) bool {
	return r.toks[i].joinAfter || i > 0 && r.toks[i-1].joinAfter
}

func (r *resolver) span(i, n int) mention {
	return mention{start: r.toks[i].start, end: r.toks[i+n-1].end, first: i, last: i + n - 1}
}

// tickerAt reads the ticker at token i, with a share class joined to it
// ("BRK.B", "BRK-B"): the ticker and the tokens it takes.
func (r *resolver) tickerAt(i int) (string, int) {
	t := r.toks[i]
	ticker := strings.ToUpper(t.key)
	if t.joinAfter && i+1 < len(r.toks) && r.toks[i+1].letters == 1 && !r.toks[i+1].digits {
		g := r.q[t.end:r.toks[i+1].start]
		if g == "." || g == "-" {
			return ticker + "-" + strings.ToUpper(r.toks[i+1].key), 2
		}
	}
	return ticker, 1
}

// tickerMention resolves a ticker: the corpus's tickers and symbols first,
// then the SEC's.
func (r *resolver) tickerMention(i, n int, ticker string) mention {
	m := r.span(i, n)
	m.asTicker = true
	m.ticker = configs.NormalizeTicker(ticker)
	if ct := r.cat.corpusTicker(m.ticker); ct != "" {
		m.corpus = ct
		m.cik = r.names.cik[ct]
		return m
	}
	if e, ok := r.sec.list.Lookup(m.ticker); ok {
		m.cik = e.CIK
		m.corpus = r.names.byCIK[e.CIK]
	}
	return m
}

// capsAt reads a word in capitals: a brand's initials, a ticker, a name in
// capitals, or an unknown ticker.
func (r *resolver) capsAt(i int) (mention, int, bool) {
	t := r.toks[i]
	if refs := r.names.names[t.key]; len(refs) > 0 {
		for _, ref := range refs {
			if ref.kind == kindAbbrev && r.q[t.start:t.end] == ref.form {
				m := r.span(i, 1)
				m.corpus, m.cik = ref.corpus, ref.cik
				return m, 1, true
			}
		}
	}
	if r.joined(i) {
		// "AT&T", "R&D", "S&P": only a share class ("BRK.B") is a ticker.
		ticker, n := r.tickerAt(i)
		if n == 2 {
			if m := r.tickerMention(i, 2, ticker); m.corpus != "" || m.cik != 0 {
				return m, 2, true
			}
		}
		return mention{}, 0, false
	}
	if t.letters > 5 {
		if m, ok := r.nameAt(i, 1); ok {
			return m, 1, true
		}
		return mention{}, 0, false
	}
	word := r.sense.ordinary(t.key)
	acr := acronym(t.key)
	m := r.tickerMention(i, 1, t.key)
	if m.corpus != "" || m.cik != 0 {
		switch {
		case t.letters == 1 || acr:
			m.need = needTicker
		case word && (m.corpus == "" || r.usedAsWord(i)):
			// A capitalised word that is the ticker of an issuer the corpus
			// holds ("META", "COST") is read as that ticker, unless the
			// sentence uses it as a word ("the COST of sales"); an outside
			// issuer's ("NOW", "ALL") needs more.
			m.need = needWord
		}
		return m, 1, true
	}
	if word || acr {
		return mention{}, 0, false
	}
	if m, ok := r.nameAt(i, 1); ok {
		return m, 1, true
	}
	if t.letters >= 2 {
		m.written = strings.ToUpper(t.key)
		m.need = needWord
		return m, 1, true
	}
	return mention{}, 0, false
}

// usedAsWord reports whether the word at token i is used as a noun of the
// sentence: after an article or a possessive pronoun, or before "of".
func (r *resolver) usedAsWord(i int) bool {
	if i > 0 {
		switch r.toks[i-1].key {
		case "the", "a", "an", "this", "that", "its", "our", "their", "his", "her", "my", "your":
			return true
		}
	}
	return i+1 < len(r.toks) && r.toks[i+1].key == "of"
}

// nameAt reads a name of n tokens at token i.
func (r *resolver) nameAt(i, n int) (mention, bool) {
	toks := r.toks[i : i+n]
	if toks[0].conn || toks[n-1].conn || nameConnectors[toks[0].key] {
		return mention{}, false
	}
	if i > 0 && r.toks[i-1].joinAfter {
		// No name starts inside a joined word: "D over" of "R&D over" is
		// not "Dover".
		return mention{}, false
	}
	for k, t := range toks {
		if r.claimed[i+k] || t.letters == 0 && !t.digits && !t.conn {
			return mention{}, false
		}
		if k < n-1 && (t.breakAfter || t.poss) {
			return mention{}, false
		}
	}
	key := squash(toks)
	keys := []string{key}
	if toks[n-1].poss {
		keys = append(keys, key+"s") // "McDonald's" for "MCDONALDS"
	}
	var refs []nameRef
	for _, k := range keys {
		refs = append(refs, r.names.names[k]...)
	}
	for _, k := range keys {
		refs = append(refs, r.sec.names[k]...)
	}
	slices.SortStableFunc(refs, nameRef.compare)
	for _, ref := range refs {
		need, ok := r.nameFits(ref, i, n)
		if !ok {
			continue
		}
		m := r.span(i, n)
		m.corpus, m.cik = ref.corpus, ref.cik
		if m.corpus == "" && m.cik != 0 {
			m.corpus = r.names.byCIK[m.cik]
		}
		if m.corpus != "" {
			need = needNothing
		}
		m.need = need
		m.written = r.q[m.start:m.end]
		return m, true
	}
	return mention{}, false
}

// nameFits reports whether tokens i..i+n-1 may be read as ref's name, and
// what evidence the reading needs.
func (r *resolver) nameFits(ref nameRef, i, n int) (evidence, bool) {
	toks := r.toks[i : i+n]
	switch ref.kind {
	case kindAbbrev:
		return needNothing, n == 1 && r.q[toks[0].start:toks[0].end] == ref.form
	case kindCamel:
		return needNothing, n == 1 && toks[0].shape == shapeCamel
	}
	if n == 1 && toks[0].shape == shapeCaps && !r.shout && acronym(toks[0].key) {
		return needNothing, false
	}
	// The question may write a name with fewer spaces than its source
	// ("JPMorgan", "Wal-Mart"), never with more ("to my" is not "Tomy").
	if groups := r.wordGroups(i, n); groups > max(ref.words, 1) {
		return needNothing, false
	}
	// A name of one to three letters is written in capitals, like a ticker
	// ("SAP", not "Tim").
	if n == 1 && toks[0].letters <= 3 && ref.corpus == "" && toks[0].shape != shapeCaps {
		return needNothing, false
	}
	// An outside issuer's first words are a weaker sign than its name: in a
	// question with case they are capitalised ("Micron", not "hyperscale").
	if ref.kind == kindLeading && ref.corpus == "" && !r.caseless {
		for _, t := range toks {
			if !t.conn && !nameConnectors[t.key] && !t.capitalised(r.q) {
				return needNothing, false
			}
		}
	}
	if !ref.ordinary {
		return needNothing, true
	}
	if r.caseless {
		if ref.corpus != "" {
			return needNothing, true
		}
		return needList, true
	}
	for _, t := range toks {
		if !t.conn && !nameConnectors[t.key] && !t.capitalised(r.q) {
			return needNothing, false
		}
	}
	if ref.corpus == "" {
		// An ordinary word before another capitalised one is part of a
		// longer proper name ("Intelligent Cloud"), not an issuer's name.
		if last := i + n - 1; !r.toks[last].poss && !r.toks[last].breakAfter && last+1 < len(r.toks) {
			if next := r.toks[last+1]; (next.shape == shapeTitle || next.shape == shapeCamel) && !legalForms[next.key] && !groupForms[next.key] {
				return needNothing, false
			}
		}
		if toks[0].sentStart {
			return needName, true
		}
	}
	return needNothing, true
}

// wordGroups counts the words of tokens i..i+n-1 as the question spaces
// them: tokens joined by punctuation, and initials ("J.P. Morgan"), count
// as one.
func (r *resolver) wordGroups(i, n int) int {
	groups := 1
	for k := i; k < i+n-1; k++ {
		t := r.toks[k]
		if !t.joinAfter && !t.initials && !r.toks[k+1].conn && !t.conn {
			groups++
		}
	}
	return groups
}

// weigh decides the mentions that need evidence, until nothing changes.
func (r *resolver) weigh() {
	for k := range r.mentions {
		m := &r.mentions[k]
		if r.dateMonth(*m) {
			continue // "Dec 26, 2020" names a day, not DEC
		}
		m.ok = m.need == needNothing
		if m.ok {
			continue
		}
		if m.asTicker && r.tickerContext(m.first) {
			m.ok = true
		}
		if r.toks[m.last].poss && (m.need == needWord || m.need == needName) {
			m.ok = true
		}
	}
	for changed := true; changed; {
		changed = false
		for k := range r.mentions {
			m := &r.mentions[k]
			if m.ok {
				continue
			}
			if r.namedElsewhere(k) || r.listed(k) || r.namedTwice(k) {
				m.ok, changed = true, true
			}
		}
	}
	// A name read by its ticker's title is that issuer, reported once.
	for k := range r.mentions {
		for _, o := range r.mentions {
			if o.ok && r.inTitle(o, r.mentions[k]) {
				r.mentions[k].cik, r.mentions[k].ticker = o.cik, o.ticker
			}
		}
	}
}

// dateMonth reports whether mention m is one word naming a month, written
// before a day or a year ("Dec 26, 2020", "June 2025", "Sept. 30"), and
// not as a ticker with "$": a date, not an issuer.
func (r *resolver) dateMonth(m mention) bool {
	if m.first != m.last || r.toks[m.first].dollar || !months[r.toks[m.first].key] {
		return false
	}
	rest := strings.TrimLeft(r.q[m.end:], ". \t")
	return rest != "" && rest[0] >= '0' && rest[0] <= '9'
}

// scaleWords are the scales a figure is written in after a dollar sign.
var scaleWords = wordSet("k m mm mn b bn bln t tn tr thousand thousands million millions billion billions trillion trillions")

// months are the names of the months and their abbreviations.
var months = map[string]bool{}

func init() {
	for _, m := range strings.Fields("january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec") {
		months[m] = true
	}
}

// tickerContext reports whether a ticker word stands just before token i
// ("ticker T", "NYSE: C", "symbol $X").
func (r *resolver) tickerContext(i int) bool {
	for k := i - 1; k >= 0 && k >= i-3; k-- {
		if tickerContext[r.toks[k].key] {
			return true
		}
	}
	return false
}

// namedElsewhere reports whether the issuer of mention k is named by
// another mention that counts ("Citigroup (C)").
func (r *resolver) namedElsewhere(k int) bool {
	m := r.mentions[k]
	if m.corpus == "" && m.cik == 0 {
		return false
	}
	for j, o := range r.mentions {
		if j != k && o.ok && o.identity() == m.identity() {
			return true
		}
	}
	return false
}

// namedTwice reports whether the issuer of mention k is also named by
// another mention written otherwise, its ticker beside its name ("DIS: how
// many Disney+ subscribers"): each alone may be a word, both together are
// the issuer.
func (r *resolver) namedTwice(k int) bool {
	m := r.mentions[k]
	for j, o := range r.mentions {
		if j == k || o.asTicker == m.asTicker || strings.EqualFold(r.q[o.start:o.end], r.q[m.start:m.end]) {
			continue
		}
		if o.identity() == m.identity() && (m.cik != 0 || m.corpus != "") || r.inTitle(m, o) || r.inTitle(o, m) {
			return true
		}
	}
	return false
}

// inTitle reports whether mention name, a name the SEC list does not
// resolve, is written with words of the SEC's title of mention ticker's
// issuer ("Disney" of "Walt Disney Co", DIS).
func (r *resolver) inTitle(ticker, name mention) bool {
	if ticker.cik == 0 || !ticker.asTicker || name.cik != 0 || name.corpus != "" || name.written == "" {
		return false
	}
	es := r.sec.list.ByCIK(ticker.cik)
	if len(es) == 0 {
		return false
	}
	title := map[string]bool{}
	for _, t := range tokenize(es[0].Title) {
		title[t.key] = true
	}
	for _, t := range tokenize(name.written) {
		if t.letters > 0 && !title[t.key] {
			return false
		}
	}
	return true
}

// listed reports whether mention k sits in a list next to a mention that
// counts: "C, JPM and BAC", "Apple's and Samsung's". A one-letter ticker or
// an acronym needs a ticker next to it.
func (r *resolver) listed(k int) bool {
	m := r.mentions[k]
	for j, o := range r.mentions {
		if j == k || !o.ok {
			continue
		}
		if m.need == needTicker && !o.asTicker {
			continue
		}
		var gap string
		switch {
		case o.end <= m.start:
			gap = r.q[skipPossessive(r.q, o.end):m.start]
		case m.end <= o.start:
			gap = r.q[skipPossessive(r.q, m.end):o.start]
		default:
			continue
		}
		if listSeparator.MatchString(gap) {
			return true
		}
	}
	return false
}

// --- Catalog side ---

// corpusTicker returns the corpus ticker a ticker or trading symbol names,
// or "".
func (c *Catalog) corpusTicker(t string) string {
	t = configs.NormalizeTicker(t)
	if c.Has(t) {
		return t
	}
	return c.nameIndex().symbols[t]
}

// nameIndex returns the catalog's index of names; a Catalog not made by
// NewCatalog has an empty one.
func (c *Catalog) nameIndex() *corpusNames {
	if c.names != nil {
		return c.names
	}
	return newCorpusNames(loadSECIndex(), nil, nil)
}

// issuerNames returns the names and brands the corpus gives ticker, as its
// filings write them.
func (c *Catalog) issuerNames(ticker string) []string {
	return slices.Clone(c.nameIndex().aliases[ticker])
}
