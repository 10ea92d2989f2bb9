"""Runs moto's server with DynamoDB's one-item-at-a-time writes.

moto 5 checks a write's condition and stores the item in two steps with no
lock between them (Table.put_item in moto/dynamodb/models/table.py), while
its server answers requests on many threads: two conditional PutItems racing
on one item can both succeed. DynamoDB applies the writes of one item one at
a time, each seeing the one before, and mqprobe's idempotency store relies
on exactly that (a claim is one conditional write). On a machine loaded by
a full test run, three concurrent claims of each of 300 keys acquired 48
keys twice on a plain moto (none on dynalite), and three daemons sharing a
table ran two commands twice. So this launcher makes each DynamoDB read and
write of moto's backend hold one lock, then hands over to moto's own server.

    python3 scripts/moto_server.py -H 127.0.0.1 -p PORT
"""

import functools
import threading

import moto.server
from moto.dynamodb.models import DynamoDBBackend

_lock = threading.RLock()


def _one_at_a_time(method):
    @functools.wraps(method)
    def locked(*args, **kwargs):
        with _lock:
            return method(*args, **kwargs)

    return locked


# Batches call these per item, as DynamoDB applies a batch item by item.
for _name in ("put_item", "update_item", "delete_item", "transact_write_items",
              "get_item", "query", "scan"):
    setattr(DynamoDBBackend, _name, _one_at_a_time(getattr(DynamoDBBackend, _name)))

if __name__ == "__main__":
    moto.server.main()
