package testenv

import (
	"encoding/json"
	"testing"
)

func parseItem(t *testing.T, s string) item {
	t.Helper()
	var it item
	if err := json.Unmarshal([]byte(s), &it); err != nil {
		t.Fatal(err)
	}
	return it
}

// ItemSize follows AWS's item size rules on a known item.
func TestItemSize(t *testing.T) {
	it := parseItem(t, `{
		"pk": {"S": "DEPTH#k1"},
		"n": {"N": "-12345.600"},
		"ok": {"BOOL": true},
		"b": {"B": "AAECAw=="},
		"m": {"M": {"x": {"S": "ab"}}},
		"l": {"L": [{"N": "7"}, {"NULL": true}]}
	}`)
	// pk 2+8; n 1 + (6 significant digits "123456": 3+1 = 4);
	// ok 2+1; b 1+4; m 1 + 3 + (1+1+2); l 1 + 3 + (1+2) + (1+1).
	want := 10 + 5 + 3 + 5 + 8 + 9
	if got := ItemSize(it); got != want {
		t.Errorf("ItemSize = %d, want %d", got, want)
	}
}

// setsKey sees an index key set by a PutItem, by an UpdateItem's SET
// (named directly or through a placeholder) or REMOVE, and not an
// attribute whose name merely contains the key's.
func TestSetsKey(t *testing.T) {
	keys := []string{"listTarget", "listedAt"}
	for _, c := range []struct {
		name string
		op   string
		req  dynamoRequest
		want bool
	}{
		{"put with the key", "PutItem", dynamoRequest{Item: item{"listedAt": {}}}, true},
		{"put without", "PutItem", dynamoRequest{Item: item{"pk": {}}}, false},
		{"update via placeholder", "UpdateItem", dynamoRequest{UpdateExpression: "SET #n0 = :v0, #n1 = :v1",
			ExpressionAttributeNames: map[string]string{"#n0": "updatedAt", "#n1": "listedAt"}}, true},
		{"heartbeat", "UpdateItem", dynamoRequest{UpdateExpression: "SET #n0 = :v0 REMOVE #n1",
			ExpressionAttributeNames: map[string]string{"#n0": "updatedAt", "#n1": "progress"}}, false},
		{"placeholder prefix", "UpdateItem", dynamoRequest{UpdateExpression: "SET #n10 = :v0",
			ExpressionAttributeNames: map[string]string{"#n1": "listedAt", "#n10": "updatedAt"}}, false},
		{"remove", "UpdateItem", dynamoRequest{UpdateExpression: "SET a = :v REMOVE listTarget"}, true},
		{"direct name", "UpdateItem", dynamoRequest{UpdateExpression: "SET listedAt = :v"}, true},
	} {
		if got := setsKey(c.op, c.req, keys, true); got != c.want {
			t.Errorf("%s: setsKey = %v, want %v", c.name, got, c.want)
		}
	}
}
