package pgledger

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/ledgerline/research/ledger"
)

// OpenRunTx is OpenRun inside the caller's transaction: the run is created
// (or reopened) together with the caller's other writes, such as the job
// that will execute it, and is committed or rolled back with them. tx must
// be on a connection to the store's schema.
func (s *Store) OpenRunTx(ctx context.Context, tx pgx.Tx, r ledger.Run) (ledger.Run, bool, error) {
	if err := r.Validate(); err != nil {
		return ledger.Run{}, false, err
	}
	out, resumed, err := s.openRun(ctx, tx, r)
	if err != nil {
		return ledger.Run{}, false, translate(err, "open run %s", r.ID)
	}
	return out, resumed, nil
}

// openRun inserts the run unless its id exists, and logs its creation or
// resumption, in tx.
func (s *Store) openRun(ctx context.Context, tx pgx.Tx, r ledger.Run) (out ledger.Run, resumed bool, err error) {
	now := s.clock()
	tag, err := tx.Exec(ctx, insertRunSQL, s.tenant, r.ID, r.Question, string(r.Mode), string(ledger.StatusRunning), r.CorpusSnapshot, now)
	if err != nil {
		return out, false, err
	}
	resumed = tag.RowsAffected() == 0
	lk, err := s.lock(ctx, tx, r.ID)
	if err != nil {
		return out, false, err
	}
	kind := ledger.EventRunCreated
	if resumed {
		kind = ledger.EventRunResumed
	}
	lk.append(ledger.Event{At: now, Kind: kind, Subject: r.ID})
	if err := s.flush(ctx, tx, lk); err != nil {
		return out, false, err
	}
	out, err = s.getRun(ctx, tx, r.ID)
	return out, resumed, err
}
