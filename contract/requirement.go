package contract

// RequirementKind says what kind of evidence a requirement needs.
type RequirementKind string

// Requirement kinds.
const (
	KindFigure        RequirementKind = "figure"        // a reported figure: a tagged fact or a passage stating it
	KindExplanation   RequirementKind = "explanation"   // management's explanation of a driver
	KindOutlook       RequirementKind = "outlook"       // forward-looking commentary
	KindRisk          RequirementKind = "risk"          // a risk factor
	KindCalculation   RequirementKind = "calculation"   // a ratio or change computed from supported facts
	KindComparability RequirementKind = "comparability" // periods and metric definitions compared across issuers
)

// ConditionKind is how a requirement's completion is judged.
type ConditionKind string

// Condition kinds.
const (
	CondPassage     ConditionKind = "passage"     // a passage from Issuer's filing for Period that discusses Topic
	CondFact        ConditionKind = "fact"        // the fact Concepts[i] (any of them) for Issuer and Period
	CondCalculation ConditionKind = "calculation" // a calculation from supported facts
	CondComparable  ConditionKind = "comparable"  // every issuer's requirement of Of supported, periods stated
	CondPrinted     ConditionKind = "printed"     // a line of Issuer's filing printing the result of the calculation Of[0]
)

// Condition is a requirement's completion condition: concrete, checkable
// against the ledger, never "the search returned results".
type Condition struct {
	Kind   ConditionKind `json:"kind"`
	Issuer string        `json:"issuer,omitempty"`
	Period string        `json:"period,omitempty"` // "FY2024"
	Topic  string        `json:"topic,omitempty"`  // for passage: what it must discuss
	// AllOf, for passage: groups of lower-case words or phrases; one
	// sentence of the passage must hold a word of every group. A causal
	// question ("did AI improve margins?") needs the cause's and the
	// effect's words in one sentence, not in two filings.
	AllOf    [][]string `json:"all_of,omitempty"`
	Concepts []string   `json:"concepts,omitempty"` // for fact: any of these concepts
	// QuarterEnded, for fact: when set ("2020-09"), a quarter of Period's
	// fiscal year read from an annual report's table of quarters: the
	// fact must last about three months and end in that month (or in the
	// first week of the next, as a 52/53-week quarter may).
	QuarterEnded string   `json:"quarter_ended,omitempty"`
	Of           []string `json:"of,omitempty"` // for calculation, comparable and printed: the requirement ids it builds on
	// Sign, for calculation: when set, the result must be above zero (1)
	// or below it (-1). A change the question asserts ("why did revenue
	// decline") is a premise the figures must bear out.
	Sign int `json:"sign,omitempty"`
	// Rate, for calculation: when set (a decimal string, "0.41"), the
	// result is a rate of change and must be about this one: the change
	// the question asserts in numbers ("what explains the 41% revenue
	// growth"), within RateTolerance.
	Rate string `json:"rate,omitempty"`
}

// Requirement is one piece of evidence the answer needs.
type Requirement struct {
	ID         string          `json:"id"`
	Issuer     string          `json:"issuer,omitempty"` // ticker; "" for a cross-issuer requirement
	Period     string          `json:"period,omitempty"` // "FY2024"
	Aspect     string          `json:"aspect"`           // "margins", "revenue_growth", ...
	Kind       RequirementKind `json:"kind"`
	Need       string          `json:"need"` // what is needed, in words
	Required   bool            `json:"required"`
	Completion Condition       `json:"completion"`
}
