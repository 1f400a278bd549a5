package textsearch_test

import (
	"fmt"

	"github.com/ledgerline/research/corpus/internal/textsearch"
)

func Example() {
	var ix textsearch.Index
	ix.Add("Products gross margin decreased due to tariff costs.")
	ix.Add("Gross margin decreased due to inventory provisions.")
	ix.Add("Services revenue increased.")

	q := textsearch.Parse(`"gross margins" -tariffs`)
	fmt.Println(q)
	for _, h := range ix.Search(q, 10, nil) {
		fmt.Println(h.Doc)
	}
	// Output:
	// 'gross' <-> 'margin' & !'tariff'
	// 1
}
