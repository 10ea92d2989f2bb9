package sqlstore

import (
	"context"
	"database/sql"
	"time"
)

// checkpointInterval is how often the checkpointer copies the WAL into the
// database file. The writer never checkpoints itself: a checkpoint writes
// and syncs the database file, which on the writer would hold up every
// batch waiting behind it.
const checkpointInterval = 200 * time.Millisecond

// checkpointer runs PASSIVE checkpoints on a connection of its own: they
// copy what no reader still needs and never block the writer or readers.
type checkpointer struct {
	db   *sql.DB
	stop chan struct{}
	done chan struct{}
}

func startCheckpointer(db *sql.DB) *checkpointer {
	c := &checkpointer{db: db, stop: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c
}

func (c *checkpointer) loop() {
	defer close(c.done)
	tick := time.NewTicker(checkpointInterval)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		// A failed checkpoint leaves the WAL longer until the next one.
		c.db.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)") //nolint:errcheck // see above
	}
}

// close stops the checkpointer and closes its connection; closing the last
// connection checkpoints what is left.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	return c.db.Close()
}
