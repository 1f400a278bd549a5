package pgstore_test

import (
	"testing"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/corpus/storetest"
	"github.com/ledgerline/research/internal/pgtest"
)

func TestContract(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) corpus.Store {
		s, err := pgstore.New(pgtest.Pool(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
