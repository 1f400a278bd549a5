package planner

import (
	"regexp"
	"slices"
	"strings"
)

// Aspect is a financial topic a question can ask about, with what the
// router looks for in a question and what the planners ask of the filings.
//
// Words and phrases are lower case and matched on word boundaries: a term
// of five or more characters (or ending in a digit or symbol) matches as a
// prefix, so "margin" matches "margins" and "compet" matches "competitive";
// a shorter alphabetic term must be the whole word or its plural, so "ai"
// matches "AI" and "AIs" but neither "said" nor "aim". Hyphens count as
// spaces, so "gross margin" also matches "gross-margin".
type Aspect struct {
	Name  string // "margins", "revenue_growth", ...
	Label string // how a requirement names it: "gross margin"

	// Triggers are the words and phrases that show a question asks about
	// the aspect. When triggers of two aspects overlap in a question the
	// longer one wins, so "cost of sales" is margins, not revenue.
	Triggers []string

	// Terms are the words a passage about the aspect uses: the first group
	// of its passage conditions, and its side of a causal condition.
	Terms []string

	// Explain are the groups of a passage that explains the aspect; nil
	// means Terms and DriverWords (the aspect's words with a reason).
	Explain [][]string

	// Query is the aspect's search terms. They are short: full-text search
	// first wants every word in one chunk (it falls back to any word), and
	// the company's name is left out, since filings call themselves "the
	// Company" or "we" and the search is filtered by ticker anyway.
	Query      string
	AltQueries []string // other search terms, for re-planning
	Section    string   // the filing item that usually discusses it; "" for any
	// Counts are the nouns of the aspect that name a number by
	// themselves ("headcount"): a question naming one asks for the
	// number, however it is phrased, and the number is a count
	// (CountTerm), not an amount of money.
	Counts []string
	// Distinct groups the Terms of an aspect that gathers different
	// causes under one topic (inflation, interest rates and currencies
	// are all "macroeconomic conditions"): a cause the question names by
	// a term of one group is that group's, and a sentence naming another
	// group's does not link it. nil when the terms name one thing.
	Distinct [][]string
	Metrics  []string // tools metric names of its figures; nil when it has none
	Kind     RequirementKind
}

// termsNamed returns the terms of the Distinct groups of which named
// reports a term, and the aspect's Terms when it has no groups or names
// none of them.
func (a Aspect) termsNamed(named func(term string) bool) []string {
	var out []string
	for _, g := range a.Distinct {
		if slices.ContainsFunc(g, named) {
			out = append(out, g...)
		}
	}
	if len(out) == 0 {
		return a.Terms
	}
	return out
}

// ExplainGroups returns the groups a passage explaining a must hold.
func (a Aspect) ExplainGroups() [][]string {
	if a.Explain != nil {
		return a.Explain
	}
	return [][]string{a.Terms, DriverWords}
}

// FigureTerm, in a condition group, matches a reported amount: a dollar
// figure, a percentage, a number with thousands separators or a number of
// millions or billions. A bare year does not match.
const FigureTerm = "#figure"

// AmountTerm, in a condition group, matches a reported amount of money or
// of things: a dollar figure, a number with thousands separators or a
// number of millions or billions; not a percentage. A part of revenue is
// stated by an amount, not by its growth rate.
const AmountTerm = "#amount"

// ExpectedTerm, in a condition group, matches a figure stated as what is
// expected: a verb of expecting, then, in its clause, the figure ("Net
// sales are expected to be between $151.0 billion and $155.5 billion", "We
// anticipate making capital expenditures of approximately $60 billion");
// not a figure of the past beside an expectation of something else ("total
// deferred revenue was $1,521 million ... expected to be recognized").
const ExpectedTerm = "#expected"

// CountTerm, in a condition group, matches a count of things stated with
// thousands separators ("approximately 154,000 full-time equivalent
// employees"): not an amount of money, a percentage or a number of
// millions or billions.
const CountTerm = "#count"

// NumberTerm, followed by a noun ("#number:warehouses"), in a condition
// group, matches a number of those things however small: a whole number
// (not money, a percentage, a year, a day or a measure) or a number of
// millions, within three words before the noun ("we opened 26 new
// warehouses", "2.3 million associates"). A question asking "how many" of
// something asks for it.
const NumberTerm = "#number:"

// LevelTerm, in a condition group, matches an amount stated as a level,
// not as a change: "YouTube ads revenues were $36.1 billion", not
// "YouTube ads revenues increased $4.6 billion", whose amount is the
// change.
const LevelTerm = "#level"

// SubjectTerm, followed by a word of the question ("#subject:azure"), in a
// condition group, matches a sentence naming the word before any reason it
// gives: the word is what the sentence states a figure of ("Azure and other
// cloud services revenue grew 45%"), not the reason another figure moved
// ("Server products and cloud services revenue increased $14.7 billion ...
// driven by Azure").
const SubjectTerm = "#subject:"

// IsNumberTerm reports whether a condition term matches a number
// (FigureTerm, AmountTerm, CountTerm, NumberTerm) rather than a word.
func IsNumberTerm(t string) bool {
	return t == FigureTerm || t == AmountTerm || t == LevelTerm || t == ExpectedTerm || t == CountTerm || strings.HasPrefix(t, NumberTerm)
}

// DriverWords show that a sentence gives a reason or a direction.
var DriverWords = []string{
	"due to", "driven by", "primarily", "result of", "because", "attributable", "reflect", "offset",
	"favorable", "unfavorable", "impact", "increase", "decrease", "higher", "lower", "grew", "growth",
	"declin", "improve", "pressure", "mix", "benefit",
}

// ReasonWords show that a sentence gives a reason, not only a direction or
// a topic: the connectives that introduce a cause and the verbs of causing
// ("Our health and well-being programs ... benefits" gives none).
var ReasonWords = slices.Concat(reasonConnectives, causingVerbs)

// OutlookWords show that a sentence looks forward.
var OutlookWords = []string{
	"expect", "anticipate", "believe", "will", "future", "continue", "outlook", "going forward",
	"intend to", "intends to", "intention", "plan to", "plans to", "forecast", "guidance", "next year", "remain", "likely",
	"subject to volatility", "over time",
}

// ChangeWords show that a question or a passage is about a change.
var ChangeWords = []string{
	"grow", "grew", "growth", "increase", "decrease", "declin", "change", "compare", "year over year",
	"yoy", "y/y", "y o y", "yr/yr", "quarter over quarter", "quarter-over-quarter", "qoq", "q/q", "sequential", "trend", "rise", "rose", "fall", "fell", "drop", "higher", "lower", "up", "down",
}

// outlookTriggers show that a question asks about persistence or outlook.
var outlookTriggers = []string{
	"persist", "expect", "outlook", "guidance", "guide for", "guided", "guiding", "guide", "going forward", "next year", "future", "continue",
	"anticipate", "forecast", "projecting", "projected", "projection", "coming year", "years ahead", "long term", "long-term", "sustain",
	"headed", "heading into", "trajectory", "next quarter", "coming quarter", "rest of the year", "remainder of the year",
}

// futureView matches a question that asks someone's view of what will
// happen ("does management think it will last?"); a bare future tense
// ("what will revenue be in 2030?") asks for a figure no filing reports.
var futureView = regexp.MustCompile(`(?i)\b(think|thinks|believe|believes|say|says|see|sees|view|feel|feels|consider|considers|signal|signals|signalling|signaling|indicate|indicates|suggest|suggests)\b[^.?!]*\b(will|going\s+to)\b`)

// plansAhead matches a question asking what an issuer plans for a period
// to come ("what's the plan for 2025", "Apple's plans for next year",
// "Meta's capex plan for 2025"),
// the plan being the issuer's (not "a 401(k) plan for employees"): what it
// expects to do ("Walmart's plan for capex in fiscal 2023").
var plansAhead = regexp.MustCompile(`(?i)(?:(?:'s|’s|\bthe|\bits|\btheir)(?:\s+[a-z&-]+){0,2}|\bthey|\bmanagement|\bmgmt|\b(?:does|did|do|will)\s+[\w.&-]+)\s+(?:plan|intend|aim)(?:s|ned|ed|ning|ing)?\s+(?:to\s+[a-z]+|for|in|on)\s+([^.?!]{0,40}?\s)?((fiscal|calendar)\s+)?(20\d\d|fy\s?'?(?:20)?\d\d|next\s+(year|quarter)|the\s+(coming|next|rest|remainder))\b`)

// trendView matches a question asking what management sees a trend
// doing: "does mgmt see them flattening out or still rising?".
var trendView = regexp.MustCompile(`(?i)\b(?:see|sees|expect|expects|think|thinks|view|views|anticipate|anticipates)\b[^.?!]{0,40}?\b(?:flatten\w*|plateau\w*|level(?:l)?ing\s+off|peak(?:ing|ed)|still\s+(?:rising|growing|increasing|climbing|falling|declining|shrinking)|continu\w*|persist\w*|keep\s+\w+ing|moderat\w*|slow(?:ing|s)?\s+down|(?:lasts?|holds?|carr(?:y|ies))\s+(?:into|through))\b`)

// goingInto matches a period to come that a trend is asked into ("is
// Costco keeping the cadence going into FY23", "heading into 2025").
var goingInto = regexp.MustCompile(`(?i)\b(?:going|heading|head|moving|move|carry|carrying|carried|continue|continues|continuing|extend|extends)\s+into\s+((fiscal|calendar)\s+)?(20\d\d|fy\s?'?(?:20)?\d\d|['’]\d\d|next\s+(year|quarter)|the\s+(coming|next)\s+(year|quarter))\b`)

// planAsked matches a question ending on what management plans or
// expects, its object asked before ("How many openings does management
// plan?").
var planAsked = regexp.MustCompile(`(?i)\b(?:does|do|did|will)\s+(?:management|mgmt|they|the\s+company|it)\s+(?:plan|intend|expect|anticipate|project|guide)\s*\?`)

// plannedFor matches a plan asked in the passive ("how much is planned
// for 2025", "what capex is budgeted for next year").
var plannedFor = regexp.MustCompile(`(?i)\b(?:is|are|was|were|being)\s+(?:planned|budgeted|projected|targeted|slated)\s+(?:for|in)\s+((fiscal|calendar)\s+)?(20\d\d|fy\s?'?(?:20)?\d\d|next\s+(year|quarter)|the\s+(coming|next|rest|remainder))\b`)

// willPersist matches a question asking whether a trend will go on ("will
// revenue keep outperforming GMV in 2023?", "does the company plan to
// keep raising its dividend?"): what the filing expects.
var willPersist = regexp.MustCompile(`(?i)\bwill\b[^.?!]*\b(keep|remain|stay|last)\b|\b(plan|plans|planning|intend|intends|intending|aim|aims|aiming)\s+to\s+(keep|continue|maintain|sustain)\b`)

// Lexicon is every aspect the router recognises, most specific first.
// "general" is the aspect of a question that names none of the others;
// "outlook" is used when the question asks about outlook and nothing else.
var Lexicon = []Aspect{
	{
		Name: "margins", Label: "gross margin", Kind: KindExplanation,
		Triggers: []string{"margin", "gross profit", "cost of sales", "cost of revenue", "costs of revenue",
			"cost of goods", "markup"},
		Terms: []string{"gross margin", "margin", "gross profit", "cost of sales", "cost of revenue",
			"costs of revenue", "cost of goods"},
		Query:      "gross margin percentage",
		AltQueries: []string{"cost of revenues increased primarily", "gross margin decreased due to"},
		Section:    "Item 7",
		Metrics:    []string{"revenue", "cost_of_revenue", "gross_profit"},
	},
	{
		Name: "revenue_growth", Label: "revenue growth", Kind: KindExplanation,
		Triggers: []string{"revenue growth", "sales growth", "top-line growth", "growth in revenue", "growth in sales",
			"revenue grew", "sales grew", "revenue increase", "sales increase", "revenue decline", "sales decline"},
		// "The sales growth primarily reflects increased unit sales":
		// growth of sales is revenue growth, where "sales" alone may be
		// cost of sales or sales and marketing.
		Terms:      []string{"revenue", "net sales", "sales growth", "sales grew"},
		Query:      "net sales revenue increased",
		AltQueries: []string{"revenue growth compared to prior year", "revenues decreased primarily due to"},
		Section:    "Item 7",
		Metrics:    []string{"revenue"},
	},
	{
		Name: "revenue", Label: "revenue", Kind: KindExplanation,
		Triggers:   []string{"revenue", "net sales", "total sales", "sales", "top line", "top-line", "turnover"},
		Terms:      []string{"revenue", "net sales"},
		Query:      "total net sales revenue",
		AltQueries: []string{"revenues by segment", "net sales increased"},
		Section:    "Item 7",
		Metrics:    []string{"revenue"},
	},
	{
		Name: "profitability", Label: "operating and net income", Kind: KindExplanation,
		Triggers: []string{"operating income", "net income", "operating margin", "operating profit", "profit",
			"earnings", "income from operations", "bottom line", "bottom-line"},
		Terms: []string{"operating income", "net income", "income from operations", "operating margin", "profit", "earnings"},
		Distinct: [][]string{{"operating income", "income from operations", "operating margin", "operating profit"},
			{"net income", "earnings", "bottom line", "bottom-line"}},
		Query:      "operating income net income",
		AltQueries: []string{"operating margin operating expenses", "results of operations net income"},
		Section:    "Item 7",
		Metrics:    []string{"operating_income", "net_income"},
	},
	{
		Name: "content", Label: "content spending and amortization", Kind: KindExplanation,
		Triggers: []string{"content amortization", "amortization of content", "content asset", "content spend",
			"content cost", "content obligation", "content investment", "licensed content", "produced content",
			"original programming", "programming"},
		Terms:      []string{"content amortization", "amortization of content", "content asset", "content"},
		Query:      "content amortization",
		AltQueries: []string{"amortization of content assets", "content obligations"},
		Section:    "Item 7",
	},
	{
		Name: "risks", Label: "risk factors", Kind: KindRisk,
		Triggers: []string{"risk", "threat", "uncertain", "headwind", "vulnerab", "exposure"},
		Terms:    []string{"risk", "adverse", "uncertain", "could harm", "materially", "vulnerab"},
		Explain: [][]string{{"risk", "adverse", "could harm", "harm our", "uncertain", "vulnerab", "materially affect",
			"negatively affect", "negatively impact"}},
		Query:      "risk factors adversely affect",
		AltQueries: []string{"material adverse effect business", "risks uncertainties harm"},
		Section:    "Item 1A",
	},
	{
		Name: "capex", Label: "capital expenditures", Kind: KindExplanation,
		Triggers: []string{"capex", "capital expenditure", "capital spending", "capital investment",
			"property and equipment", "data center build", "infrastructure spend", "infrastructure investment"},
		Terms: []string{"capital expenditure", "property and equipment", "purchases of property", "capex",
			"infrastructure", "data center"},
		Query:      "capital expenditures property and equipment",
		AltQueries: []string{"technical infrastructure data centers", "purchases of property and equipment"},
		Section:    "Item 7",
		Metrics:    []string{"capex"},
	},
	{
		Name: "segments", Label: "segments", Kind: KindExplanation,
		Triggers:   []string{"segment", "business unit", "division", "product line", "product categor", "reportable"},
		Terms:      []string{"segment", "reportable", "product categor", "business unit"},
		Explain:    [][]string{{"segment", "reportable", "product categor", "business unit"}},
		Query:      "reportable segments",
		AltQueries: []string{"operating segments", "net sales by segment"},
		Section:    "Item 1",
	},
	{
		Name: "ai", Label: "artificial intelligence", Kind: KindExplanation,
		Triggers: []string{"ai", "a.i.", "artificial intelligence", "generative ai", "genai", "gen ai", "machine learning",
			"large language model", "llm", "accelerated computing", "copilot", "neural network"},
		Terms: []string{"ai", "artificial intelligence", "generative", "machine learning", "large language model",
			"llm", "accelerated computing", "neural network"},
		Explain:    [][]string{{"ai", "artificial intelligence", "generative", "machine learning", "large language model", "llm", "accelerated computing"}},
		Query:      "artificial intelligence AI",
		AltQueries: []string{"AI infrastructure machine learning", "generative AI"},
	},
	{
		Name: "rd", Label: "research and development", Kind: KindExplanation,
		Triggers:   []string{"r&d", "research and development", "research & development", "research spending"},
		Terms:      []string{"research and development", "r&d"},
		Query:      "research and development expense",
		AltQueries: []string{"research and development increased", "R&D investment"},
		Section:    "Item 7",
		Metrics:    []string{"rd_expense"},
	},
	{
		Name: "cash_flow", Label: "cash flow", Kind: KindExplanation,
		Triggers: []string{"cash flow", "operating cash", "cash from operations", "cash generated", "cash provided by operating",
			"free cash"},
		Terms:      []string{"cash flow", "cash provided by operating", "cash generated by operating", "operating activities", "operating cash"},
		Query:      "cash provided by operating activities",
		AltQueries: []string{"cash generated by operating activities", "free cash flow"},
		Section:    "Item 7",
		Metrics:    []string{"operating_cash_flow"},
	},
	{
		Name: "capital_return", Label: "share repurchases and dividends", Kind: KindExplanation,
		Triggers:   []string{"buyback", "buy back", "buys back", "buying back", "bought back", "repurchas", "dividend", "capital return", "return capital", "returning capital"},
		Terms:      []string{"repurchas", "dividend", "buyback"},
		Explain:    [][]string{{"repurchas", "dividend", "buyback"}},
		Query:      "share repurchase dividends",
		AltQueries: []string{"repurchased shares common stock", "quarterly cash dividend"},
	},
	{
		Name: "liquidity", Label: "liquidity and debt", Kind: KindExplanation,
		Triggers: []string{"liquidity", "debt", "borrowing", "credit facility", "leverage", "balance sheet",
			"commercial paper", "capital resources"},
		Terms:      []string{"liquidity", "debt", "borrowing", "credit facility", "commercial paper", "term notes", "capital resources"},
		Explain:    [][]string{{"liquidity", "debt", "borrowing", "credit facility", "commercial paper", "term notes", "capital resources"}},
		Query:      "liquidity capital resources",
		AltQueries: []string{"debt notes credit facility", "commercial paper borrowings"},
		Section:    "Item 7",
	},
	{
		Name: "tax", Label: "income taxes", Kind: KindExplanation,
		Triggers:   []string{"tax", "effective tax rate", "income taxes"},
		Terms:      []string{"tax"},
		Query:      "effective tax rate",
		AltQueries: []string{"provision for income taxes", "tax law changes"},
		Section:    "Item 7",
	},
	{
		Name: "competition", Label: "competition", Kind: KindExplanation,
		Triggers:   []string{"competition", "competitor", "competitive", "compete", "rival", "market share"},
		Terms:      []string{"compet", "rival", "market share"},
		Explain:    [][]string{{"compet", "rival", "market share"}},
		Query:      "competition competitors",
		AltQueries: []string{"highly competitive markets", "competitors greater resources"},
		Section:    "Item 1",
	},
	{
		Name: "supply_chain", Label: "supply chain", Kind: KindExplanation,
		Triggers: []string{"supply chain", "supplier", "component shortage", "shortage", "manufacturing", "sourcing",
			"logistics", "outsourc"},
		Terms:      []string{"supply", "supplier", "manufactur", "component", "shortage", "single source", "outsourc"},
		Explain:    [][]string{{"supply", "supplier", "manufactur", "component", "shortage", "single source", "outsourc"}},
		Query:      "supply chain suppliers components",
		AltQueries: []string{"component shortages single source", "outsourcing partners manufacturing"},
		Section:    "Item 1A",
	},
	{
		Name: "regulation", Label: "regulation", Kind: KindExplanation,
		Triggers: []string{"regulat", "antitrust", "legislation", "law", "compliance", "government", "export control",
			"tariff", "privacy", "sanction", "litigation", "lawsuit", "legal proceeding"},
		Terms: []string{"regulat", "law", "legislation", "antitrust", "government", "export control", "tariff",
			"privacy", "compliance", "sanction", "litigation", "lawsuit", "legal proceeding"},
		Explain: [][]string{{"regulat", "law", "legislation", "antitrust", "government", "export control", "tariff", "privacy",
			"compliance", "sanction", "litigation", "lawsuit", "legal proceeding"}},
		Query:      "laws regulations government",
		AltQueries: []string{"antitrust privacy export controls", "changes in laws and regulations"},
		Section:    "Item 1A",
	},
	{
		Name: "cybersecurity", Label: "cybersecurity", Kind: KindRisk,
		Triggers:   []string{"cybersecurity", "cyber", "data breach", "security breach", "hack", "ransomware"},
		Terms:      []string{"cyber", "security breach", "breach", "hack", "ransomware", "unauthorized access"},
		Explain:    [][]string{{"cyber", "security breach", "breach", "hack", "ransomware", "unauthorized access"}},
		Query:      "cybersecurity breaches",
		AltQueries: []string{"cyber attacks data breaches", "unauthorized access information systems"},
		Section:    "Item 1A",
	},
	{
		Name: "macro", Label: "macroeconomic conditions", Kind: KindExplanation,
		Triggers: []string{"inflation", "macroeconomic", "interest rate", "recession", "foreign exchange", "currenc",
			"exchange rate", "economic condition", "pandemic", "covid"},
		Terms: []string{"inflation", "macroeconomic", "interest rate", "foreign currenc", "currenc", "exchange rate",
			"economic condition", "pandemic", "covid"},
		Distinct: [][]string{{"inflation", "inflationary"}, {"interest rate"}, {"foreign currenc", "currenc", "exchange rate", "foreign exchange"},
			{"pandemic", "covid"}, {"macroeconomic", "macro", "economic condition", "recession"}},
		Query:      "inflation interest rates foreign currency",
		AltQueries: []string{"foreign currency exchange rates", "macroeconomic conditions"},
		Section:    "Item 7",
	},
	{
		Name: "headcount", Label: "employees", Kind: KindExplanation,
		Triggers: []string{"headcount", "employee", "workforce", "staff", "human capital", "layoff", "hiring", "full-time", "employ", "how many people"},
		// "we employed approximately 2.3 million associates": the verb
		// names the headcount whatever the filing calls its people.
		Terms:      []string{"employee", "headcount", "workforce", "full-time", "human capital", "employed"},
		Explain:    [][]string{{"employee", "headcount", "workforce", "full-time", "human capital", "employed"}},
		Query:      "employees full-time employed",
		AltQueries: []string{"number of employees", "human capital"},
		Section:    "Item 1",
		Counts:     []string{"headcount", "head count", "employee count", "staff count", "number of employees"},
	},
	{
		Name: "outlook", Label: "outlook", Kind: KindOutlook,
		Terms:      []string{"expect", "anticipate", "outlook", "guidance", "going forward", "future", "intend to", "intends to", "plan to", "believe"},
		Explain:    [][]string{{"expect", "anticipate", "outlook", "guidance", "going forward", "future", "intend to", "intends to", "plan to", "believe"}},
		Query:      "expect future",
		AltQueries: []string{"anticipate continue", "outlook trends"},
		Section:    "Item 7",
	},
	{
		Name: "general", Label: "the question's topic", Kind: KindExplanation,
		Terms:   []string{"business", "product", "service", "customer", "operat"},
		Explain: [][]string{{"business", "product", "service", "customer", "operat"}},
		Query:   "business products services",
	},
}

// AspectByName returns the aspect called name from the Lexicon, or false.
func AspectByName(name string) (Aspect, bool) {
	i := slices.IndexFunc(Lexicon, func(a Aspect) bool { return a.Name == name })
	if i < 0 {
		return Aspect{}, false
	}
	return Lexicon[i], true
}
