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
//     names. To refresh it, copy the file the SEC serves at
//     /files/company_tickers.json on its main site over
//     configs/company_tickers.json (a later `research fetch
//     --refresh-issuers` will do it) and run `go test ./configs/ ./planner/`.
//   - a general English word list (words.txt, see Words), from which the
//     planner tells ordinary words from names and tickers.
package configs
