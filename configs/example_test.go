package configs_test

import (
	"fmt"

	"github.com/ledgerline/research/configs"
)

// The cost of a call is exact: prices and results are decimals.
func ExamplePriceTable_Price() {
	p, err := configs.Prices().Price("gpt-4o")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Cost(12_000, 800))
	_, err = configs.Prices().Price("gpt-99")
	fmt.Println(err)
	// Output:
	// 0.038
	// configs: model "gpt-99" has no price in the price table
}

// An issuer a question names by ticker, in any case, resolves to its CIK
// and the SEC's name for it.
func ExampleIssuerList_Lookup() {
	issuers, err := configs.Issuers()
	if err != nil {
		fmt.Println(err)
		return
	}
	e, ok := issuers.Lookup("$tsla")
	fmt.Println(e.CIK, e.Ticker, e.Title, ok)
	// Output:
	// 1318605 TSLA Tesla, Inc. true
}
