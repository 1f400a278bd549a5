// Package jobs runs research questions as jobs of River, the Postgres job
// queue (github.com/riverqueue/river): Submit records a run and enqueues
// the job that executes it in one transaction, SubmitBatch does so for a
// file of questions, and Worker executes the jobs, in as many processes on
// as many machines as the database can serve.
//
// Delivery is at least once; a run is recorded once. A job that runs again
// (after an error, a worker that died, or a worker that handed it back
// while stopping) resumes its run under the same run id: the executor's
// tool calls have deterministic ids, so the ledger replays the ones it
// recorded instead of adding their evidence again, and budget reservations
// have deterministic idempotency keys, so nothing is settled twice. A run
// that reached a verdict, whatever it is (refused and budget_exhausted
// included), returns the result it recorded and is done.
//
// A worker that stops on a signal fetches no more jobs and lets its runs
// finish; past its grace period it cancels them, and they go back to the
// queue without spending an attempt (tool calls already started complete
// first, so nothing they found is lost). A worker that dies (kill -9, a
// lost machine) leaves its jobs marked running: River's rescuer, run by
// the worker elected leader, hands them to the queue again once they have
// run longer than WorkerOptions.RescueAfter. A dead leader's lease runs
// out within about 20 seconds.
//
// River's tables live in the same schema as the project's: package
// migrations applies River's migrations with its own.
package jobs
