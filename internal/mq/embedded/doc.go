// Package embedded is an in-process queue manager behind the mq port, for
// the zero-setup embedded mode and for tests.
//
// It behaves as IBM MQ does where the port can observe it: priority then
// FIFO delivery, expiry (expired messages are never returned and are purged
// lazily), the persistence flag, syncpoint units of work per connection
// (uncommitted puts count toward CURDEPTH and MAXDEPTH but are invisible;
// backed-out gets return to their original position with BackoutCount+1;
// disconnect backs out), browse cursors per handle, msgId/correlId
// selection, get-wait woken by puts, open counts, and IBM's reason codes
// (2033, 2053, 2085, 2058, 2030, 2042, ...). Messages live in memory: New
// records persistence without making it durable (the daemon's embedded
// mode); NewDurable also keeps committed persistent messages in a journal
// in a data directory, so they survive a restart (journal.go; the
// simulator's mqserver -data). A byte limit per queue manager
// (QueueManagerConfig.MaxBytes) bounds the memory, a put over it failing
// with 2056 as when a real queue's storage is exhausted.
//
// Alias queues resolve to their target for put, get and browse; remote
// queue definitions put to their transmission queue and cannot be read
// (2045). MQIConn is the same queue manager for MQI clients
// (internal/mqsim/mqserver): the whole MQMD, property order, match options,
// browse and get under the cursor, truncated gets and MQDISC's commit.
//
// Faults injects the failures the shared backend suite (mq/mqtest) needs.
package embedded
