package pgledger

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

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
	var out ledger.Run
	var resumed bool
	err := inTx(ctx, tx, func(q sender) (b *pgx.Batch, err error) {
		out, resumed, b, err = s.openRun(ctx, q, r)
		return b, err
	})
	if err != nil {
		return ledger.Run{}, false, translate(err, "open run %s", r.ID)
	}
	return out, resumed, nil
}

// openRun inserts the run unless its id exists, locks it and reads it back,
// through q; it returns the batch that logs the run's creation or
// resumption, for the caller to send.
func (s *Store) openRun(ctx context.Context, q sender, r ledger.Run) (out ledger.Run, resumed bool, final *pgx.Batch, err error) {
	now := s.clock()
	b := &pgx.Batch{}
	b.Queue(insertRunSQL, s.tenant, r.ID, r.Question, string(r.Mode), string(ledger.StatusRunning), r.CorpusSnapshot, now).
		Exec(func(tag pgconn.CommandTag) error {
			resumed = tag.RowsAffected() == 0
			return nil
		})
	held := s.queueLock(b, r.ID)
	found := s.queueRun(b, r.ID, &out)
	if err := q.SendBatch(ctx, b).Close(); err != nil {
		return out, false, nil, err
	}
	if err := held(); err != nil {
		return out, false, nil, err
	}
	if err := found(); err != nil {
		return out, false, nil, err
	}
	kind := ledger.EventRunCreated
	if resumed {
		kind = ledger.EventRunResumed
	}
	final = &pgx.Batch{}
	s.queueEvents(final, r.ID, []ledger.Event{{At: now, Kind: kind, Subject: r.ID}}, "")
	return out, resumed, final, nil
}
