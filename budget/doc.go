// Package budget is the cost control of a research run: every model call and
// tool call reserves the most it may use before it runs, and settles what it
// used afterwards, against budgets that cannot be overspent.
//
// A budget belongs to a [Scope]: a run, or a tenant's day. Scopes nest: a
// reservation names every scope it counts against (a run inside its tenant's
// day) and succeeds only if every one of them can hold it, atomically; if one
// cannot, nothing is reserved and the error is an [*ExhaustedError] naming
// the scope and the [Dimension] that ran out.
//
// The lifecycle of a call, each step keyed by the call's idempotency key:
//
//   - Reserve the maximum (for a model call, [ModelReservation]: the prompt
//     estimate plus the max_tokens cap, priced from package configs).
//   - Settle with the actual usage, between zero and the reservation. A call
//     that failed after the provider billed it is settled at what it cost.
//   - Release instead when the call never happened.
//
// Repeating a step with the same key changes nothing and says so
// (Result.Replayed). A reservation whose caller vanished is returned by
// Sweep once it has expired, exactly once however many sweeps run.
//
// Three implementations keep the same contract (package budgettest):
// [Memory], in process; [Postgres], the system of record shared by many
// processes, where every call locks its scopes' budget rows; and [Leased],
// over Postgres, which takes slices of the budgets at once and keeps the
// calls of one process off the shared rows (a tenant's many runs do not
// queue on its day). The executor depends on the small [Accountant]
// interface.
//
// Wall-clock time is not reserved: it is a deadline on the run's context,
// see [WithDeadline].
package budget
