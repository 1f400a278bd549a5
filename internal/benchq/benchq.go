// Package benchq holds the questions the benchmarks ask, shared by the
// API load test (internal/bench) and the engine's run benchmarks
// (executor), so both measure the same work.
package benchq

// Service are the rules-mode questions `research bench load` asks the
// HTTP API in turn, over the sample corpus: one of each kind of question
// the engine serves (a three-issuer comparison with an outlook, figures
// and their drivers, a passage topic, risks).
var Service = []string{
	"Compare gross-margin pressure at AAPL, NVDA and GOOGL in their latest fiscal year and say whether management expects it to persist.",
	"What drove Amazon's operating income in fiscal 2024?",
	"How did Netflix's revenue change in 2024 and what drove it?",
	"What does Meta say about its capital expenditures in 2024?",
	"What were Costco's main cost pressures in fiscal 2022?",
	"Compare revenue growth at MSFT and ORCL in their latest fiscal years.",
	"What manufacturing risks does Intel describe in 2020?",
	"How did Walmart's gross profit rate change in fiscal 2022 and why?",
}
