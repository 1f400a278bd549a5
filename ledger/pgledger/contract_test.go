package pgledger_test

import (
	"testing"

	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/ledgertest"
	"github.com/ledgerline/research/ledger/pgledger"
)

func TestContract(t *testing.T) {
	t.Parallel()
	ledgertest.Run(t, func(t *testing.T) ledgertest.Opener {
		pool := pgtest.Pool(t)
		return func(t *testing.T, tenant string) ledger.Store {
			s, err := pgledger.New(pool, &pgledger.Config{Tenant: tenant})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}
