// Package dynamodb is the idempotency store on Amazon DynamoDB (table
// mq-probe-idempotency, hash key pk, PAY_PER_REQUEST, native TTL on ttl, and
// the listing indexes target-index and tenant-index, index.go). It
// owns the table's provisioning (EnsureTable), the mapping of records to items
// with the record's attribute names, the conditional writes that make Begin
// and the fenced updates atomic, and a request counter for tests and
// benchmarks.
//
// Items carry attributes beyond the record's: expiresAtMs, expiresAt in epoch
// milliseconds (conditions compare it instead of the ISO-8601 expiresAt,
// because comparing formatted strings breaks as soon as one writer formats
// differently: offset, precision), and the listing indexes' keys listTenant,
// listTarget and listedAt.
package dynamodb
