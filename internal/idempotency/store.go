package idempotency

import (
	"context"
	"errors"
	"strings"
	"time"
)

// Store is the persistence port: the few primitive operations every adapter
// implements with identical semantics (proved by the storetest conformance
// suite). Stores never read a clock: the engine passes the instant to use, so
// every process applies one notion of "now" per decision and tests can move it.
type Store interface {
	// Begin claims c.PK with ONE atomic conditional write. The write succeeds
	// when the stored record is absent or expired at c.Now, or has c.RequestHash
	// and is FAILED or IN_PROGRESS with a lease expired at c.Now. On success it
	// returns the written record and true: attempt is 1 for a fresh record and
	// the previous attempt+1 otherwise, createdAt and progress are kept from a
	// same-hash predecessor. On failure it returns the stored record and false.
	// Not found after a failed write (deleted in between) is reported as a zero
	// Record and false.
	Begin(ctx context.Context, c Claim) (Record, bool, error)
	// Update applies u to the record at pk only if it is IN_PROGRESS and
	// carries leaseToken (fencing); otherwise it returns ErrLeaseLost and
	// changes nothing. For UpdateComplete and UpdateFail it returns the
	// whole updated record. For UpdateHeartbeat and UpdateRelease only the
	// returned LeaseExpiresAt and ExpiresAt (as stored after the update)
	// are promised, beside PK, LeaseToken and Status IN_PROGRESS; a store
	// may leave the other fields zero, so it need not read them back.
	Update(ctx context.Context, pk, leaseToken string, u Update) (Record, error)
	// Get reads the record at pk, expired or not, with a consistent read.
	Get(ctx context.Context, pk string) (Record, bool, error)
	// DeleteExpired deletes records whose expiresAt is at or before now and
	// returns how many it deleted. Safe to run concurrently and repeatedly.
	DeleteExpired(ctx context.Context, now time.Time) (int64, error)
	// Delete removes the record d names with one conditional write and
	// reports whether it did; see Deletion for the conditions.
	Delete(ctx context.Context, d Deletion) (bool, error)
	// List returns at most q.Limit records matching q, newest first (Newer
	// order; DynamoDB's and SQL's indexes order a running record by its
	// claim, not its last heartbeat, and a finished one by its completion),
	// and the Next value that continues after them
	// ("" when there are no more). A page may hold fewer than q.Limit
	// records while Next is set (a store may bound the work of one call);
	// records written or deleted while a caller pages may or may not
	// appear.
	List(ctx context.Context, q ListQuery) (ListPage, error)
	// Close releases the store's resources.
	Close() error
	// Limits says what the store holds at most. The engine never writes a
	// record larger than Limits().MaxRecordBytes as RecordSize measures it.
	Limits() Limits
}

// Limits is what a store can hold.
type Limits struct {
	// Store names the store in errors, e.g. "DynamoDB table mq-probe-idempotency".
	Store string
	// MaxRecordBytes is the largest record (RecordSize) the store accepts.
	MaxRecordBytes int
}

// numberBytes is what RecordSize charges for a number: DynamoDB stores one
// in at most 21 bytes, and its decimal form is shorter.
const numberBytes = 21

// RecordSize measures r the way DynamoDB sizes an item, an upper bound of
// every store's own measure: each attribute's name plus its value (UTF-8
// bytes of a string, numberBytes for a number), empty strings left out;
// and DynamoDB's listing index keys (tenant and target, "_" when empty, and
// the instant).
func RecordSize(r Record) int {
	n := len("listTenant") + max(len(r.Tenant), 1) + len("listTarget") + max(len(r.Target), 1) +
		len("listedAt") + formattedTimeLen(r.UpdatedAt)
	for _, a := range [...]struct {
		name, value string
	}{
		{"pk", r.PK}, {"operationType", r.OperationType}, {"tenant", r.Tenant},
		{"idempotencyKey", r.IdempotencyKey}, {"status", string(r.Status)}, {"requestHash", r.RequestHash},
		{"responsePayload", r.ResponsePayload}, {"leaseToken", r.LeaseToken}, {"leaseHolder", r.LeaseHolder},
		{"target", r.Target}, {"traceId", r.TraceID}, {"errorMessage", r.ErrorMessage}, {"progress", r.Progress},
	} {
		if a.value != "" {
			n += len(a.name) + len(a.value)
		}
	}
	for _, t := range [...]struct {
		name string
		at   time.Time
	}{{"createdAt", r.CreatedAt}, {"updatedAt", r.UpdatedAt}, {"expiresAt", r.ExpiresAt}} {
		n += len(t.name) + formattedTimeLen(t.at)
	}
	for _, name := range [...]string{"httpStatus", "expiresAtMs", "ttl", "leaseExpiresAt", "attempt", "durationMs"} {
		n += len(name) + numberBytes
	}
	return n
}

// Deletion names the record Delete removes and the conditions it must
// still meet at the moment of the write.
type Deletion struct {
	PK string
	// Force removes whatever is stored at PK, a live lease included.
	Force bool
	// Without Force, only a record still carrying LeaseToken (the token the
	// caller read) is removed, so a claim written since survives; and an
	// IN_PROGRESS one only if its lease has expired at Now: heartbeats keep
	// the token, so a holder that renewed since the caller's read keeps its
	// record.
	LeaseToken string
	Now        time.Time
}

// Deletable reports whether d may remove the stored record r; for stores
// that delete in memory.
func (d Deletion) Deletable(r Record) bool {
	return d.Force || (r.LeaseToken == d.LeaseToken && (r.Status != StatusInProgress || !r.LeaseAlive(d.Now)))
}

// MaxListLimit caps ListQuery.Limit: one page is one bounded read.
const MaxListLimit = 1000

// ListQuery selects the records List returns. Zero fields select everything.
type ListQuery struct {
	Status        Status // only records in this state
	OperationType string // only records of this operation type
	// Tenant, with AllTenants false, selects one tenant's records ("" the
	// implicit tenant's); AllTenants selects every tenant's.
	Tenant     string
	AllTenants bool
	// QueueManager selects the records of commands against this queue
	// manager (Record.Target "QM1:..."); Queue, with it, against this queue
	// of it only (Record.Target "QM1:DEV.QUEUE.1").
	QueueManager string
	Queue        string
	// UpdatedBefore selects records whose updatedAt is before it (records
	// nobody touched since: a stuck IN_PROGRESS has no heartbeat).
	UpdatedBefore time.Time
	// Since and Until select records whose updatedAt is at or after Since
	// and before Until; zero leaves that end open. DynamoDB and SQL walk
	// their indexes from Since by the instant of the claim or completion,
	// so a record claimed before Since shows only once it has finished,
	// however recent its last heartbeat.
	Since, Until time.Time
	// LiveAt leaves out records expired at it (Record.Expired).
	LiveAt time.Time
	// Limit is the most records one page holds, 1 to MaxListLimit; stores
	// clamp other values into that range.
	Limit int
	// After continues a listing: the Next of the previous page. A value no
	// page of this store returned fails List with ErrInvalidCursor.
	After string
}

// ErrInvalidCursor is matched by List's error for an After that is no
// Next this store returned.
var ErrInvalidCursor = errors.New("idempotency: not the cursor of a previous page")

// TargetPrefix is the start of Record.Target for the commands against
// queueManager.
func TargetPrefix(queueManager string) string { return queueManager + ":" }

// Matches reports whether r is one of the records q selects, ignoring
// paging; for stores that filter in memory.
func (q ListQuery) Matches(r Record) bool {
	return (q.Status == "" || r.Status == q.Status) &&
		(q.OperationType == "" || r.OperationType == q.OperationType) &&
		(q.AllTenants || r.Tenant == q.Tenant) &&
		(q.QueueManager == "" || (q.Queue == "" && strings.HasPrefix(r.Target, TargetPrefix(q.QueueManager))) ||
			r.Target == TargetPrefix(q.QueueManager)+q.Queue) &&
		(q.UpdatedBefore.IsZero() || r.UpdatedAt.Before(q.UpdatedBefore)) &&
		(q.Since.IsZero() || !r.UpdatedAt.Before(q.Since)) &&
		(q.Until.IsZero() || r.UpdatedAt.Before(q.Until)) &&
		(q.LiveAt.IsZero() || !r.Expired(q.LiveAt))
}

// PageSize is q.Limit clamped to 1..MaxListLimit.
func (q ListQuery) PageSize() int { return min(max(q.Limit, 1), MaxListLimit) }

// Newer orders records as List returns them, newest first: by updatedAt
// descending, then pk descending; for stores that sort in memory.
func Newer(a, b Record) int {
	if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
		return c
	}
	return strings.Compare(b.PK, a.PK)
}

// ListPosition is where a newest-first listing stands: after the record
// with pk PK at instant At of the order (its updatedAt in memory, its
// listing instant in SQL). Those stores use its String as ListPage.Next.
type ListPosition struct {
	At time.Time
	PK string
}

// PositionOf is the position after r in Newer order.
func PositionOf(r Record) ListPosition { return ListPosition{At: r.UpdatedAt, PK: r.PK} }

// String is p as ListQuery.After: the instant as FormatTime writes it, a
// space and the pk.
func (p ListPosition) String() string { return FormatTime(p.At) + " " + p.PK }

// ParseListPosition reads a ListPosition.String; "" is the start. Other
// text fails with ErrInvalidCursor.
func ParseListPosition(s string) (ListPosition, bool, error) {
	if s == "" {
		return ListPosition{}, false, nil
	}
	at, pk, ok := strings.Cut(s, " ")
	t, err := ParseTime(at)
	if !ok || err != nil || pk == "" {
		return ListPosition{}, false, ErrInvalidCursor
	}
	return ListPosition{At: t, PK: pk}, true, nil
}

// Before reports whether r comes after p in Newer order, i.e. belongs to a
// page after p.
func (p ListPosition) Before(r Record) bool {
	return Newer(Record{UpdatedAt: p.At, PK: p.PK}, r) < 0
}

// ListPage is one page of List.
type ListPage struct {
	Records []Record
	// Next continues after this page as ListQuery.After; "" at the end.
	Next string
	// Scanned says the store read its whole table for this page, matching
	// or not, because no index serves the query's filters (DynamoDB).
	Scanned bool
}

// Claim is the record Begin tries to write.
type Claim struct {
	PK             string
	OperationType  string
	Tenant         string
	IdempotencyKey string
	RequestHash    string
	LeaseToken     string
	LeaseHolder    string    // the claiming process, see Record.LeaseHolder
	Now            time.Time // createdAt/updatedAt of a fresh record and the instant conditions use
	ExpiresAt      time.Time
	LeaseExpiresAt time.Time
	Target         string
	TraceID        string
	// ReadOnly says the command changes nothing when it runs (see
	// Request.ReadOnly): a store may answer Begin before the claim is
	// durable, since a crash that loses it only lets the command run again.
	ReadOnly bool
}

// Record returns the record a fresh claim (attempt 1) writes.
func (c Claim) Record() Record {
	return Record{
		PK: c.PK, OperationType: c.OperationType, Tenant: c.Tenant, IdempotencyKey: c.IdempotencyKey,
		Status: StatusInProgress, RequestHash: c.RequestHash, CreatedAt: c.Now, UpdatedAt: c.Now,
		ExpiresAt: c.ExpiresAt, LeaseExpiresAt: c.LeaseExpiresAt, LeaseToken: c.LeaseToken, LeaseHolder: c.LeaseHolder,
		Attempt: 1, Target: c.Target, TraceID: c.TraceID,
	}
}

// Acquirable reports whether c may overwrite the stored record prev: the
// "Acquired" rows of the decision table.
func (c Claim) Acquirable(prev Record) bool {
	if prev.Expired(c.Now) {
		return true
	}
	if prev.RequestHash != c.RequestHash {
		return false
	}
	switch prev.Status {
	case StatusFailed:
		return true
	case StatusInProgress:
		return !prev.LeaseAlive(c.Now)
	}
	return false
}

// Successor returns the record c writes over prev, which Acquirable accepted.
func (c Claim) Successor(prev Record) Record {
	next := c.Record()
	if prev.Expired(c.Now) {
		return next
	}
	next.Attempt = prev.Attempt + 1
	next.CreatedAt = prev.CreatedAt
	next.Progress = prev.Progress
	return next
}

// UpdateKind says which fenced transition an Update performs.
type UpdateKind int

// Fenced transitions.
const (
	// UpdateHeartbeat extends the lease (and expiresAt when given), keeping
	// IN_PROGRESS; with Progress set it also checkpoints.
	UpdateHeartbeat UpdateKind = iota + 1
	// UpdateComplete moves the record to COMPLETED with its response.
	UpdateComplete
	// UpdateFail moves the record to FAILED with its error message and,
	// when given, the failure's response.
	UpdateFail
	// UpdateRelease ends the lease now so another worker can take over at once.
	UpdateRelease
)

// Update is a fenced transition of an IN_PROGRESS record.
type Update struct {
	Kind            UpdateKind
	Now             time.Time // updatedAt
	LeaseExpiresAt  time.Time // heartbeat and release
	ExpiresAt       time.Time // zero keeps the stored value
	Progress        *string   // heartbeat: nil keeps the stored checkpoint
	ResponsePayload string    // complete, and fail when it has one
	HTTPStatus      int       // complete and fail
	DurationMs      int64     // complete and fail
	ErrorMessage    string    // fail
}

// Apply returns r after u, for stores that update in memory.
func (u Update) Apply(r Record) Record {
	r.UpdatedAt = u.Now
	if !u.ExpiresAt.IsZero() {
		r.ExpiresAt = u.ExpiresAt
	}
	switch u.Kind {
	case UpdateHeartbeat, UpdateRelease:
		r.LeaseExpiresAt = u.LeaseExpiresAt
		if u.Progress != nil {
			r.Progress = *u.Progress
		}
	case UpdateComplete:
		r.Status = StatusCompleted
		r.ResponsePayload = u.ResponsePayload
		r.HTTPStatus = u.HTTPStatus
		r.DurationMs = u.DurationMs
	case UpdateFail:
		r.Status = StatusFailed
		r.ErrorMessage = u.ErrorMessage
		r.ResponsePayload = u.ResponsePayload
		r.HTTPStatus = u.HTTPStatus
		r.DurationMs = u.DurationMs
	}
	return r
}
