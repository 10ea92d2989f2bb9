package dynamodb

import (
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// expr collects the placeholders of one request's expressions. Every
// attribute goes through a name placeholder (status and ttl are reserved
// words), and DynamoDB rejects placeholders no expression uses, so both maps
// hold exactly what was asked for.
type expr struct {
	names  map[string]string
	values map[string]types.AttributeValue
}

func newExpr() *expr {
	return &expr{names: map[string]string{}, values: map[string]types.AttributeValue{}}
}

// name returns the placeholder of attribute a.
func (e *expr) name(a string) string {
	e.names["#"+a] = a
	return "#" + a
}

// val returns a new placeholder for v.
func (e *expr) val(v types.AttributeValue) string {
	p := ":v" + strconv.Itoa(len(e.values))
	e.values[p] = v
	return p
}
