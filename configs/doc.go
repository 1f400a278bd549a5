// Package configs holds the default configuration and reference data
// shipped in the binary:
//
//   - the model price table (prices.json) that the budget package charges
//     model calls against. Prices are list prices in USD per million
//     tokens, kept as decimal strings so that no price is ever rounded
//     through a float. A model missing from the table has no price: asking
//     for it is an error, never a free call.
//   - the SEC's list of issuers with a ticker (company_tickers.json, see
//     Issuers), from which the planner resolves the issuers a question
//     names. `research fetch --refresh-issuers` downloads the current list
//     from /files/company_tickers.json on the SEC's main site into the data
//     directory (IssuersFileName, read with LoadIssuersFile), where fetch
//     resolves tickers with it; `--issuers-out configs/company_tickers.json`
//     writes it here instead, to ship in the next build, after which run
//     `go test ./configs/ ./planner/`.
//   - a general English word list (words.txt, see Words), from which the
//     planner tells ordinary words from names and tickers.
package configs
