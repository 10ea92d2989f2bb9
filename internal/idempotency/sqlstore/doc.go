// Package sqlstore is the idempotency store on SQL databases: SQLite (pure
// Go, one WAL file, the embedded default) and PostgreSQL. Both dialects share
// one implementation; they differ only in placeholders, column types and how
// Begin returns the record it could not overwrite.
//
// Begin is one conditional statement, INSERT … ON CONFLICT DO UPDATE … WHERE
// … RETURNING; on PostgreSQL it is wrapped in a CTE that also returns the
// existing row when the condition fails, so a decision is one round trip.
//
// On SQLite every write goes through one goroutine that owns the only write
// connection and commits the writes waiting for it together (group commit,
// writer.go); reads use a pool of their own. Every statement is prepared
// once, at open, one per shape. A SQLite store refuses every operation once
// its database path no longer names the file it opened (fileid.go).
package sqlstore
