// Package idempotency owns exactly-once claiming of commands: the engine that
// decides, with one conditional write, whether a command runs, replays a stored
// result, waits for a running copy or is refused; the record it writes; the
// lease that fences a worker whose claim was taken over; and the Store port
// that every persistence adapter (memory, SQL, DynamoDB) implements with the
// same handful of primitive operations.
//
// The decision table:
//
//	stored state when Begin arrives      same hash      different hash
//	none, or expiresAt passed            Acquired       Acquired
//	IN_PROGRESS, lease alive             InProgress     Conflict
//	IN_PROGRESS, lease expired           Acquired       Conflict
//	COMPLETED                            Replay         Conflict
//	FAILED                               Acquired       Conflict
package idempotency
