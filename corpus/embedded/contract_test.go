package embedded_test

import (
	"testing"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
	"github.com/ledgerline/research/corpus/storetest"
)

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) corpus.Store {
		s, err := embedded.Open(t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
