package embeddedledger_test

import (
	"testing"

	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
	"github.com/ledgerline/research/ledger/ledgertest"
)

func TestContract(t *testing.T) {
	t.Parallel()
	ledgertest.Run(t, func(t *testing.T) ledgertest.Opener {
		dir := t.TempDir()
		return func(t *testing.T, tenant string) ledger.Store {
			s, err := embeddedledger.Open(dir, &embeddedledger.Config{Tenant: tenant})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}
