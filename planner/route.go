package planner

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Route is what the router read from the question, before any model call.
type Route struct {
	Refused bool
	Reason  string // why it was refused, short, for the user

	// Issuers are the tickers of the corpus the question names (or the
	// caller gave), in the order named.
	Issuers []string
	// NotCovered are the issuers the question names that the corpus does
	// not hold, as written ("Tesla", "TSLA"; "$TSLA" is given as "TSLA").
	NotCovered []string
	// FiscalYears are the fiscal years named ("2022", "fiscal 2024",
	// "FY23", "2021-2023"), ascending; empty means the latest.
	FiscalYears []int
	// Aspects are the Lexicon aspects the question asks about, in the order
	// named; "general" when it names none.
	Aspects []string
	// Outlook is set when the question asks about persistence, outlook,
	// guidance or expectations.
	Outlook bool
	// Causal is set when the question asks whether one aspect caused,
	// improved or drove another.
	Causal *Causal
	// Quarterly is set when the question asks about a quarter or a 10-Q.
	Quarterly bool
}

// Causal is a question's claim that one thing drove another, as the
// Lexicon words of the cause and of the effect.
type Causal struct {
	Cause, Effect []string
	// CauseAspects and EffectAspects are the aspect names the words come from.
	CauseAspects, EffectAspects []string
}

// refusal is one pattern the router refuses.
type refusal struct {
	pattern *regexp.Regexp
	reason  string
}

const (
	reasonAdvice   = "This system researches what filings say; it does not give investment advice, trade recommendations, stock picks or price predictions."
	reasonOverride = "The request tries to change or reveal the system's rules, which it cannot do; ask a question about the filings instead."
)

// refusals are the requests refused before any model call: trades and
// personal investment advice, and attempts to override or reveal the rules.
// Each is tested with questions it must and must not refuse.
var refusals = []refusal{
	// Trades, advice and picks.
	{regexp.MustCompile(`(?i)\b(should|shall|would|must)\s+(i|we|you|one)\s+(buy|sell|short|invest|purchase|trade|dump|hold|load\s+up)\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\bcould\s+(i|we)\s+(buy|sell|short|invest)\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\b(buy|sell|hold)\s*(,|or|/)\s*(buy|sell|hold)\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\bis\s+(it|now)\s+(a\s+)?(good|bad|the\s+right|right|smart|wise)\s+(time|moment|idea)\s+to\s+(buy|sell|invest|short)\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\b(is|are)\s+(\$?[\w.&'-]+\s+){1,4}(a\s+|an\s+)?(good|bad|great|smart|safe|wise|solid|sound|terrible|worthwhile)\s+(investment|buy|stock|bet|pick)s?\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\bworth\s+(buying|investing|selling|shorting|a\s+buy)\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\bwhich\s+(stock|stocks|share|shares|company|companies|one|ticker|tickers)\s+(should|would|do|can|could|to)\s+(i|we|you)\s+(buy|sell|invest|pick|recommend|own|choose|back)`), reasonAdvice},
	{regexp.MustCompile(`(?i)\bwhich\s+(stock|stocks|ticker|tickers)\s+(should|to\s+(buy|sell|pick|own))\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\bprice\s+targets?\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\brecommend\s+(me\s+)?(a\s+|some\s+|any\s+|which\s+|the\s+best\s+)?(stocks?|shares|investments?|tickers?|equit(y|ies)|etfs?|funds?)\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\bwhat\s+(stocks?\s+)?should\s+(i|we)\s+(invest|buy|sell|put\s+(my|our)\s+money)`), reasonAdvice},
	{regexp.MustCompile(`(?i)\b(give|tell|send|show)\s+me\s+(a\s+|some\s+|your\s+)?(stock\s+|hot\s+|investment\s+|trading\s+)?(picks?|tips?)\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\bstock\s+(picks?|tips?|recommendations?)\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\b(will|would)\s+(the\s+)?(stock|shares?|share\s+price|stock\s+price)\s+(go\s+up|go\s+down|rise|fall|drop|climb|rally|crash|double)`), reasonAdvice},
	{regexp.MustCompile(`(?i)\b(stock|share)\s+price\s+(prediction|forecast)s?\b`), reasonAdvice},
	// Predictions of a share price or of returns, with the issuer named
	// between ("will Netflix stock go up", "will Meta shares outperform").
	{regexp.MustCompile(`(?i)\b(will|would|could|can)\s+(\$?[\w.&'-]+\s+){1,3}(stock|shares?|share\s+price|stock\s+price)\s+(go\s+up|go\s+down|rise|fall|drop|climb|rally|crash|double|outperform|underperform|beat|recover|rebound)`), reasonAdvice},
	{regexp.MustCompile(`(?i)\b(outperform|underperform|beat)\s+(the\s+)?(s&p|s\s*&\s*p|nasdaq|dow|market|index|benchmark)`), reasonAdvice},
	{regexp.MustCompile(`(?i)\b(is|are)\s+(\$?[\w.&'-]+\s+){1,3}(undervalued|overvalued)\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\b(stock|shares)\s+(is\s+|are\s+)?(cheap|expensive|a\s+bargain)\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\bmy\s+(portfolio|retirement|401\s*\(?k\)?|ira|savings|brokerage|trading\s+account)\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)^\W*(please\s+)?(buy|sell|short)\s+(me\s+)?(\d|\$|shares|stock|some)`), reasonAdvice},
	{regexp.MustCompile(`(?i)\b(buy|sell|short)\s+\d[\d,]*\s+shares\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\b(place|execute|make)\s+(a\s+|the\s+|an\s+|this\s+)?trades?\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\bplace\s+(a\s+|an\s+)?(buy|sell|market|limit)\s+order\b`), reasonAdvice},
	{regexp.MustCompile(`(?i)\bgo\s+(long|short)\s+(on\s+)?\$?\w+`), reasonAdvice},
	{regexp.MustCompile(`(?i)\b(best|top)\s+(stocks?|shares|investments?)\s+(to|for)\s+(buy|own|invest|hold)`), reasonAdvice},
	// Attempts to override or reveal the rules.
	{regexp.MustCompile(`(?i)\b(ignore|disregard|forget)\s+(the\s+)?(instructions?|rules|prompts?|guidelines|guardrails)\b`), reasonOverride},
	{regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override|bypass|circumvent)\s+(the\s+)?(all|any|your|my|these|those|previous|prior|above|earlier|preceding|system|safety|original|initial)\s+(\w+\s+){0,2}(instructions?|rules?|prompts?|guidelines?|directions?|directives?|constraints?|polic(y|ies)|guardrails?|restrictions?|programming)\b`), reasonOverride},
	{regexp.MustCompile(`(?i)\b(ignore|disregard|forget)\s+(everything|all|anything)\s+(above|before|previously|you\s+were\s+told|you\s+know)`), reasonOverride},
	{regexp.MustCompile(`(?i)\byou\s+are\s+now\b`), reasonOverride},
	{regexp.MustCompile(`(?i)\bfrom\s+now\s+on,?\s+you\b`), reasonOverride},
	{regexp.MustCompile(`(?i)(^|[.!?;:,]\s*|\b(please|now|you|will|must|should|to|and|then)\s+)act\s+as\s+(a|an|my|if|though|the)\b`), reasonOverride},
	{regexp.MustCompile(`(?i)\bpretend\s+(to\s+be|you|that|you're|you\s+are|i\s+am)\b`), reasonOverride},
	{regexp.MustCompile(`(?i)\brole-?play\b`), reasonOverride},
	{regexp.MustCompile(`(?i)\bsystem\s+prompt\b`), reasonOverride},
	{regexp.MustCompile(`(?i)\b(reveal|print|show|display|output|repeat|leak|dump|expose|recite|tell\s+me|give\s+me|what\s+(is|are))\s+(me\s+)?(all\s+)?(your\s+((system|initial|hidden|original|internal|secret)\s+)?(prompt|instructions|rules|guidelines|configuration)|(the\s+)?(hidden|initial|internal|secret)\s+(prompt|instructions|rules|message))\b`), reasonOverride},
	// "Print the text of your instructions": words between the verb and
	// the instructions.
	{regexp.MustCompile(`(?i)\b(reveal|print|show|display|output|repeat|leak|dump|expose|recite|quote|copy)\s+(\w+\s+){0,4}(of\s+)?your\s+(\w+\s+)?(prompt|instructions|rules|guidelines|configuration)\b`), reasonOverride},
	{regexp.MustCompile(`(?i)\bdeveloper\s+mode\b`), reasonOverride},
	{regexp.MustCompile(`(?i)\bjail\s*break`), reasonOverride},
	{regexp.MustCompile(`(?i)\bDAN\s+mode\b|\bdo\s+anything\s+now\b`), reasonOverride},
	{regexp.MustCompile(`(?i)\bnew\s+(instructions|rules|system\s+message)\s*:`), reasonOverride},
	{regexp.MustCompile(`(?i)\b(answer|respond|reply|speak|talk|output)\s+(\w+\s+){0,3}(without|with\s+no)\s+(any\s+)?(restrictions|guardrails|safety|filters|limitations|censorship)\b`), reasonOverride},
	{regexp.MustCompile(`(?i)\b(change|raise|increase|remove|lift|expand)\s+your\s+(budget|scope|tenant|limits?)\b`), reasonOverride},
}

// refuse returns the reason a question is refused, or "".
func refuse(question string) string {
	for _, r := range refusals {
		if r.pattern.MatchString(question) {
			return r.reason
		}
	}
	return ""
}

// issuerAliases are names and brands that name a corpus issuer beyond its
// registrant name. An all-capital alias of up to five letters is matched
// case-sensitively, like a ticker; any other case-insensitively.
var issuerAliases = map[string][]string{
	"AAPL":  {"Apple", "iPhone", "iPad"},
	"NVDA":  {"Nvidia", "NVIDIA", "GeForce"},
	"GOOGL": {"Google", "Alphabet", "GOOG", "YouTube"},
	"GOOG":  {"Google", "Alphabet", "GOOGL", "YouTube"},
	"META":  {"Meta", "Facebook", "Meta Platforms", "Instagram", "WhatsApp", "FB"},
	"AMZN":  {"Amazon", "Amazon.com", "AWS", "Amazon Web Services"},
	"NFLX":  {"Netflix"},
	"MSFT":  {"Microsoft", "Azure", "LinkedIn", "Xbox"},
	"INTC":  {"Intel"},
	"ORCL":  {"Oracle"},
	"WMT":   {"Walmart", "Wal-Mart", "Wal Mart"},
	"COST":  {"Costco"},
	"EBAY":  {"eBay"},
}

// knownIssuer is a well-known issuer, recognised so that a question about
// one the corpus lacks can say so.
type knownIssuer struct {
	ticker string
	names  []string
	exact  bool // names are matched case-sensitively (they are also common words)
}

var knownIssuers = []knownIssuer{
	{"TSLA", []string{"Tesla"}, false},
	{"IBM", []string{"International Business Machines"}, false},
	{"AMD", []string{"Advanced Micro Devices"}, false},
	{"CRM", []string{"Salesforce"}, false},
	{"ADBE", []string{"Adobe"}, false},
	{"CSCO", []string{"Cisco"}, false},
	{"QCOM", []string{"Qualcomm"}, false},
	{"AVGO", []string{"Broadcom"}, false},
	{"005930.KS", []string{"Samsung"}, false},
	{"BRK.B", []string{"Berkshire Hathaway", "Berkshire"}, false},
	{"JPM", []string{"JPMorgan", "JP Morgan", "J.P. Morgan", "JPMorgan Chase"}, false},
	{"NKE", []string{"Nike"}, false},
	{"DIS", []string{"Disney", "Walt Disney"}, false},
	{"KO", []string{"Coca-Cola", "Coca Cola", "Coke"}, false},
	{"PFE", []string{"Pfizer"}, false},
	{"XOM", []string{"Exxon", "ExxonMobil", "Exxon Mobil"}, false},
	{"UBER", []string{"Uber"}, false},
	{"ABNB", []string{"Airbnb"}, false},
	{"SNOW", []string{"Snowflake"}, false},
	{"PLTR", []string{"Palantir"}, false},
	{"SHOP", []string{"Shopify"}, false},
	{"SPOT", []string{"Spotify"}, false},
	{"BA", []string{"Boeing"}, false},
	{"GS", []string{"Goldman Sachs", "Goldman"}, false},
	{"MA", []string{"Mastercard"}, false},
	{"PYPL", []string{"PayPal"}, false},
	{"SBUX", []string{"Starbucks"}, false},
	{"MCD", []string{"McDonald's", "McDonalds"}, false},
	{"JNJ", []string{"Johnson & Johnson"}, false},
	{"PG", []string{"Procter & Gamble", "Procter and Gamble"}, false},
	{"CVX", []string{"Chevron"}, false},
	{"GM", []string{"General Motors"}, false},
	{"HD", []string{"Home Depot"}, false},
	{"MU", []string{"Micron"}, false},
	{"TXN", []string{"Texas Instruments"}, false},
	{"TSM", []string{"TSMC", "Taiwan Semiconductor"}, false},
	{"BABA", []string{"Alibaba"}, false},
	{"TCEHY", []string{"Tencent"}, false},
	{"SONY", []string{"Sony"}, false},
	{"TM", []string{"Toyota"}, false},
	{"ZM", []string{"Zoom Video"}, false},
	{"BAC", []string{"Bank of America"}, false},
	{"WFC", []string{"Wells Fargo"}, false},
	{"C", []string{"Citigroup", "Citibank"}, false},
	{"VZ", []string{"Verizon"}, false},
	{"T", []string{"AT&T"}, false},
	{"CMCSA", []string{"Comcast"}, false},
	{"PEP", []string{"PepsiCo", "Pepsi"}, false},
	{"UNH", []string{"UnitedHealth"}, false},
	{"MRK", []string{"Merck"}, false},
	{"ABBV", []string{"AbbVie"}, false},
	{"LLY", []string{"Eli Lilly"}, false},
	{"MRNA", []string{"Moderna"}, false},
	{"LYFT", []string{"Lyft"}, false},
	{"DELL", []string{"Dell"}, false},
	{"HPQ", []string{"Hewlett-Packard", "Hewlett Packard", "HP Inc"}, false},
	{"RIVN", []string{"Rivian"}, false},
	{"SAP", []string{"SAP SE"}, false},
	{"X", []string{"Twitter"}, false},
	{"TGT", []string{"Target"}, true},
	{"V", []string{"Visa"}, true},
	{"F", []string{"Ford"}, true},
	{"ARM", []string{"Arm Holdings"}, false},
	{"HOOD", []string{"Robinhood"}, false},
	{"SQ", []string{"Block Inc"}, false},
	{"NOW", []string{"ServiceNow"}, false},
	{"WDAY", []string{"Workday"}, false},
	{"PANW", []string{"Palo Alto Networks"}, false},
}

// tickerWords are tickers that are also English words: in a question in
// capitals they are read as words.
var tickerWords = map[string]bool{
	"COST": true, "NOW": true, "SHOP": true, "SNOW": true, "SPOT": true, "HOOD": true, "LOW": true, "KEY": true,
	"ALL": true, "ON": true, "IT": true, "ARE": true, "CAT": true, "FAST": true, "PLAY": true, "WELL": true,
	"BIG": true, "BOX": true, "RUN": true, "PEAK": true, "BEST": true, "REAL": true, "META": true, "GOOD": true,
}

// notTickers are all-capital words that are not tickers.
var notTickers = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`AI US USA UK EU FY GAAP CEO CFO COO CTO CIO EPS SEC IT LLC LLP ETF ETFS IPO
	GPU GPUS CPU CPUS TPU AWS TV ESG EBIT ROI ROE ROA ROIC FCF OCF YOY QOQ YTD TTM LTM MD MDA SG PP COGS OPEX
	CAPEX OK AR VR XR ML LLM LLMS API APIS PC PCS OS IOS DC HQ HR PR IP GDP CPI FX USD EUR JPY CNY GBP RMB
	LIBOR SOFR FDA FTC DOJ IRS OECD NATO COVID CARES CHIPS ASC IFRS FASB XBRL HTML PDF ATM DTC ARPU MAU DAU
	SKU RSU RSUS ESPP TAM CAGR KPI KPIS NA LATAM EMEA APAC NOL PPE NFT NFTS ACH ISP VAT DST GDPR CCPA DMA DSA
	INC CORP CO LTD PLC AG SA NV AB SE THE AND OR NOT ALL ANY WHY HOW WHAT WHO WHEN DID DOES DO IS ARE WAS
	VS ETC NB NO YES TOP NEW KEY ONLY ALSO BUT FOR WITH ITS OUR WE YOU THEY THIS THAT FROM INTO ABOUT
	OF TO IN ON AT BY AS AN BE IF SO UP Q QTR YE PE DPS ADR ADS IRA RD AMP CUDA HPC RTX DRAM NAND SSD LTE
	SAAS PAAS IAAS CRM ERP OEM OEMS ODM EV EVS AV ADAS SOC ASIC FPGA CEOS CFOS EUV NYSE NAND TBD FAQ
	MM BN BPS DEI IR QA QE FED ECB BOJ PBOC WTO UN UAE UA CA NY TX WA CHINA JAPAN INDIA ASIA EUROPE NOTE NOTES
	ITEM PART PDF ZIP LED OLED LCD AMOLED USB HDMI SDK GAAP NONGAAP`) {
		notTickers[w] = true
	}
}

var (
	dollarTicker   = regexp.MustCompile(`\$([A-Za-z]{1,5})\b`)
	capsWord       = regexp.MustCompile(`\b[A-Z]{2,5}\b`)
	fiscalYearExpr = regexp.MustCompile(`(?i)\b(?:fiscal\s+(?:year\s+)?|fy\s*'?)(\d{4}|\d{2})\b`)
	yearRange      = regexp.MustCompile(`(?i)\b((?:19|20)\d{2})\s*(?:-|–|—|to|through|until|and)\s*(?:fy\s*|fiscal\s+)?((?:19|20)\d{2})\b`)
	bareYear       = regexp.MustCompile(`\b(?:19|20)\d{2}\b`)
	quarterExpr    = regexp.MustCompile(`(?i)\b(quarters?|quarterly|10-q|q[1-4]|three\s+months|six\s+months|nine\s+months|first\s+half|second\s+half)\b`)
)

// span is a matched part of the question, [start, end) in bytes.
type span struct {
	start, end int
	value      string // a ticker, an aspect name, or the text as written
}

// claims marks the bytes of a question that a match has taken, so that
// each part of it counts once.
type claims []bool

func (c claims) overlaps(s, e int) bool {
	for i := s; i < e; i++ {
		if c[i] {
			return true
		}
	}
	return false
}

func (c claims) claim(s, e int) {
	for i := s; i < e; i++ {
		c[i] = true
	}
}

// RouteQuestion reads a question: whether it must be refused, which
// issuers, fiscal years and aspects it names, and whether it asks about
// outlook, a cause or a quarter. tickers are issuers the caller named
// explicitly (a --tickers flag); they come first, and any the catalog does
// not hold is reported in NotCovered.
func RouteQuestion(question string, cat *Catalog, tickers []string) Route {
	if cat == nil {
		cat = NewCatalog(nil)
	}
	var rt Route
	if reason := refuse(question); reason != "" {
		return Route{Refused: true, Reason: reason}
	}
	issuers, notCovered, taken := findIssuers(question, cat, tickers)
	rt.Issuers, rt.NotCovered = issuers, notCovered
	rt.FiscalYears = findFiscalYears(question)
	lower := routerNorm(question)
	rt.Quarterly = quarterExpr.MatchString(question)
	rt.Outlook = anyTerm(normalizeText(question), outlookTriggers)
	aspects := findAspects(lower, taken)
	names := make([]string, 0, len(aspects))
	for _, a := range aspects {
		names = append(names, a.value)
	}
	// A question about revenue that asks how it changed is about growth.
	if i := slices.Index(names, "revenue"); i >= 0 {
		if slices.Contains(names, "revenue_growth") {
			names = slices.Delete(names, i, i+1)
		} else if anyTerm(normalizeText(question), ChangeWords) {
			names[i] = "revenue_growth"
			aspects[i].value = "revenue_growth"
		}
	}
	rt.Causal = findCausal(lower, aspects)
	switch {
	case len(names) > 0:
		rt.Aspects = names
	case rt.Outlook:
		rt.Aspects = []string{"outlook"}
	default:
		rt.Aspects = []string{"general"}
	}
	return rt
}

// anyTerm reports whether the normalised text holds any of terms.
func anyTerm(text string, terms []string) bool {
	for _, t := range terms {
		if termIn(text, normalizeTerm(t)) {
			return true
		}
	}
	return false
}

// routerNorm is normalizeText for the router: it keeps the byte offsets of
// the question (ASCII letters lower-cased, ASCII hyphens and white space
// turned into spaces), so spans found in it are spans of the question.
func routerNorm(s string) string {
	b := []byte(asciiLower(s))
	for i, c := range b {
		if c == '-' || isSpaceByte(c) {
			b[i] = ' '
		}
	}
	return string(b)
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay those of
// the question.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// findWord returns the spans where word occurs in text as a whole word
// (a possessive may follow). text and word are compared as given.
func findWord(text, word string) []span {
	var out []span
	if word == "" {
		return nil
	}
	for from := 0; from <= len(text)-len(word); {
		i := strings.Index(text[from:], word)
		if i < 0 {
			break
		}
		i += from
		from = i + 1
		end := i + len(word)
		if i > 0 && isWordByte(text[i-1]) && isWordByte(word[0]) {
			continue
		}
		if end < len(text) && isWordByte(text[end]) && isWordByte(word[len(word)-1]) {
			continue
		}
		out = append(out, span{start: i, end: end, value: text[i:end]})
	}
	return out
}

func isWordByte(c byte) bool {
	return c >= 0x80 || c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// caseSensitiveAlias reports whether an alias is matched like a ticker.
func caseSensitiveAlias(a string) bool {
	return len(a) <= 5 && strings.ToUpper(a) == a
}

// findIssuers finds the corpus issuers a question names, in order, and the
// issuers it names that the corpus lacks. taken are the question's spans
// that name an issuer.
func findIssuers(question string, cat *Catalog, explicit []string) (issuers, notCovered []string, taken claims) {
	lower := asciiLower(question)
	taken = make(claims, len(question))
	addNot := func(name string) {
		if !slices.ContainsFunc(notCovered, func(n string) bool { return strings.EqualFold(n, name) }) {
			notCovered = append(notCovered, name)
		}
	}
	for _, t := range explicit {
		t = strings.ToUpper(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), "$")))
		switch {
		case t == "":
		case cat.Has(t):
			if !slices.Contains(issuers, t) {
				issuers = append(issuers, t)
			}
		default:
			addNot(t)
		}
	}
	var found []span // value: a corpus ticker
	var missing []span
	// Longer names first, so "Meta Platforms" is one mention, not two.
	type name struct {
		text, ticker string
		exact        bool
	}
	var names []name
	shout := shouted(question)
	for _, t := range cat.Tickers() {
		if !shout || !tickerWords[t] {
			names = append(names, name{t, t, true})
		}
		if n := shortName(cat.Company(t)); n != "" && n != t {
			names = append(names, name{n, t, caseSensitiveAlias(n)})
		}
		if c := cat.Company(t); c != "" {
			names = append(names, name{strings.TrimSuffix(c, "."), t, false})
		}
		for _, a := range issuerAliases[t] {
			names = append(names, name{a, t, caseSensitiveAlias(a)})
		}
	}
	for _, k := range knownIssuers {
		target := k.ticker
		for _, n := range k.names {
			names = append(names, name{n, target, k.exact || caseSensitiveAlias(n)})
		}
	}
	sort.SliceStable(names, func(i, j int) bool { return len(names[i].text) > len(names[j].text) })
	for _, n := range names {
		var spans []span
		if n.exact {
			spans = findWord(question, n.text)
		} else {
			spans = findWord(lower, asciiLower(n.text))
		}
		for _, s := range spans {
			if taken.overlaps(s.start, s.end) {
				continue
			}
			taken.claim(s.start, s.end)
			if cat.Has(n.ticker) {
				found = append(found, span{s.start, s.end, n.ticker})
			} else {
				missing = append(missing, span{s.start, s.end, question[s.start:s.end]})
			}
		}
	}
	// "$XYZ" names a ticker whatever its case.
	for _, m := range dollarTicker.FindAllStringSubmatchIndex(question, -1) {
		if taken.overlaps(m[0], m[1]) {
			continue
		}
		t := strings.ToUpper(question[m[2]:m[3]])
		taken.claim(m[0], m[1])
		if cat.Has(t) {
			found = append(found, span{m[0], m[1], t})
		} else {
			missing = append(missing, span{m[0], m[1], t})
		}
	}
	// A bare all-capital word of two to five letters looks like a ticker,
	// unless the whole question is shouted or the word is a known acronym.
	if !shouted(question) {
		for _, m := range capsWord.FindAllStringIndex(question, -1) {
			w := question[m[0]:m[1]]
			if taken.overlaps(m[0], m[1]) || notTickers[w] || (m[0] > 0 && question[m[0]-1] == '$') {
				continue
			}
			if m[1] < len(question) && question[m[1]] == '&' { // "S&P", "AT&T", "R&D"
				continue
			}
			if m[0] > 0 && question[m[0]-1] == '&' {
				continue
			}
			taken.claim(m[0], m[1])
			missing = append(missing, span{m[0], m[1], w})
		}
	}
	byStart := func(a, b span) int { return a.start - b.start }
	slices.SortFunc(found, byStart)
	slices.SortFunc(missing, byStart)
	for _, f := range found {
		if !slices.Contains(issuers, f.value) {
			issuers = append(issuers, f.value)
		}
	}
	for _, m := range missing {
		addNot(m.value)
	}
	return issuers, notCovered, taken
}

// shouted reports whether most of a question's words are in capitals, in
// which case capital words are not read as tickers.
func shouted(q string) bool {
	words, caps := 0, 0
	for _, w := range strings.FieldsFunc(q, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }) {
		if len(w) < 2 {
			continue
		}
		words++
		if strings.ToUpper(w) == w {
			caps++
		}
	}
	return words >= 3 && caps*2 > words
}

// findFiscalYears returns the fiscal years a question names, ascending.
func findFiscalYears(q string) []int {
	set := map[int]bool{}
	taken := make(claims, len(q))
	add := func(y int) {
		if y >= 1993 && y <= 2100 {
			set[y] = true
		}
	}
	for _, m := range yearRange.FindAllStringSubmatchIndex(q, -1) {
		a, _ := strconv.Atoi(q[m[2]:m[3]])
		b, _ := strconv.Atoi(q[m[4]:m[5]])
		if b < a || b-a > 10 {
			continue
		}
		// "2021 and 2023" names two years; "2021-2023" and "2021 to 2023" a range.
		sep := strings.ToLower(strings.TrimSpace(q[m[3]:m[4]]))
		if strings.HasPrefix(sep, "and") {
			add(a)
			add(b)
		} else {
			for y := a; y <= b; y++ {
				add(y)
			}
		}
		taken.claim(m[0], m[1])
	}
	for _, m := range fiscalYearExpr.FindAllStringSubmatchIndex(q, -1) {
		if taken.overlaps(m[0], m[1]) {
			continue
		}
		y, _ := strconv.Atoi(q[m[2]:m[3]])
		if m[3]-m[2] == 2 {
			if y >= 93 {
				y += 1900
			} else {
				y += 2000
			}
		}
		add(y)
		taken.claim(m[0], m[1])
	}
	for _, m := range bareYear.FindAllStringIndex(q, -1) {
		if taken.overlaps(m[0], m[1]) || (m[0] > 0 && (q[m[0]-1] == '$' || q[m[0]-1] == '.' || q[m[0]-1] == ',')) {
			continue
		}
		if m[1] < len(q) && (q[m[1]] == '%' || q[m[1]] == ',' && m[1]+1 < len(q) && q[m[1]+1] >= '0' && q[m[1]+1] <= '9') {
			continue
		}
		y, _ := strconv.Atoi(q[m[0]:m[1]])
		add(y)
	}
	years := make([]int, 0, len(set))
	for y := range set {
		years = append(years, y)
	}
	slices.Sort(years)
	return years
}

// findAspects returns the Lexicon aspects a lower-cased question names, in
// the order named (norm is the question through routerNorm). Triggers are
// tried longest first and a part of the
// question counts for one aspect only; issuer names are skipped.
func findAspects(norm string, issuerSpans claims) []span {
	type trig struct{ term, aspect string }
	var trigs []trig
	for _, a := range Lexicon {
		for _, t := range a.Triggers {
			trigs = append(trigs, trig{normalizeTerm(t), a.Name})
		}
	}
	sort.SliceStable(trigs, func(i, j int) bool { return len(trigs[i].term) > len(trigs[j].term) })
	taken := slices.Clone(issuerSpans)
	if len(taken) < len(norm) {
		taken = append(taken, make(claims, len(norm)-len(taken))...)
	}
	first := map[string]int{}
	for _, t := range trigs {
		for _, s := range termSpans(norm, t.term) {
			if taken.overlaps(s[0], s[1]) {
				continue
			}
			taken.claim(s[0], s[1])
			if p, ok := first[t.aspect]; !ok || s[0] < p {
				first[t.aspect] = s[0]
			}
		}
	}
	out := make([]span, 0, len(first))
	for name, p := range first {
		out = append(out, span{start: p, value: name})
	}
	slices.SortFunc(out, func(a, b span) int { return a.start - b.start })
	return out
}

// termSpans returns where a normalised term matches normalised text, as
// termIn matches it; each span runs to the end of the matched word.
func termSpans(s, t string) [][2]int {
	var out [][2]int
	for from := 0; from <= len(s)-len(t) && t != ""; {
		i := strings.Index(s[from:], t)
		if i < 0 {
			break
		}
		i += from
		from = i + 1
		end := i + len(t)
		for end < len(s) && isWordByte(s[end]) {
			end++
		}
		if termIn(s[i:end], t) && (i == 0 || !isWordByte(s[i-1]) || !isWordByte(t[0])) {
			out = append(out, [2]int{i, end})
		}
	}
	return out
}

// causalVerbs are the verbs of "did X improve Y" and "X improved Y": the
// cause comes before them, the effect after.
var causalVerbs = regexp.MustCompile(`\b(improve[sd]?|improving|drive[sn]?|drove|driving|cause[sd]?|causing|boost(s|ed|ing)?|lead\s+to|leads\s+to|led\s+to|result(s|ed)?\s+in|contribute[sd]?\s+to|hurt(s|ing)?|weigh(s|ed)?\s+on|pressure[sd]?|affect(s|ed)?|impact(s|ed)?|help(s|ed)?|lift(s|ed)?|raise[sd]?|reduce[sd]?|lower(s|ed)?|expand(s|ed)?|compress(es|ed)?|benefit(s|ed|ted)?|erode[sd]?|dampen(s|ed)?|fuel(s|ed|led)?|translate[sd]?\s+into|increase[sd]?|decrease[sd]?)\b`)

// reverseCausal introduce the cause after the effect: "Y rose because of X".
var reverseCausal = regexp.MustCompile(`\b(because\s+of|due\s+to|driven\s+by|as\s+a\s+result\s+of|thanks\s+to|caused\s+by|attributable\s+to|owing\s+to|on\s+the\s+back\s+of|fueled\s+by|fuelled\s+by|helped\s+by|hurt\s+by|pressured\s+by)\b`)

// findCausal reads "did X improve Y", "X improved Y" and "Y because of X",
// where X and Y are different aspects of the question.
func findCausal(lower string, aspects []span) *Causal {
	if len(aspects) < 2 {
		return nil
	}
	try := func(at int, causeBefore bool) *Causal {
		var before, after []string
		for _, a := range aspects {
			if a.value == "general" || a.value == "outlook" {
				continue
			}
			if a.start < at {
				before = append(before, a.value)
			} else {
				after = append(after, a.value)
			}
		}
		cause, effect := before, after
		if !causeBefore {
			cause, effect = after, before
		}
		effect = slices.DeleteFunc(effect, func(n string) bool { return slices.Contains(cause, n) })
		if len(cause) == 0 || len(effect) == 0 {
			return nil
		}
		c := &Causal{CauseAspects: cause, EffectAspects: effect}
		for _, n := range cause {
			a, _ := AspectByName(n)
			c.Cause = appendNew(c.Cause, a.Terms...)
		}
		for _, n := range effect {
			a, _ := AspectByName(n)
			c.Effect = appendNew(c.Effect, a.Terms...)
		}
		return c
	}
	if m := reverseCausal.FindStringIndex(lower); m != nil {
		if c := try(m[0], false); c != nil {
			return c
		}
	}
	for _, m := range causalVerbs.FindAllStringIndex(lower, -1) {
		if c := try(m[0], true); c != nil {
			return c
		}
	}
	return nil
}

// appendNew appends the items of add that list does not hold.
func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}
