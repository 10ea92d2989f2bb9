package mq

import (
	"fmt"
	"strings"
	"unicode"
)

// MaxPropertyNameLength is MQ_MAX_PROPERTY_NAME_LENGTH.
const MaxPropertyNameLength = 4095

// selectorKeywords are the message-selector keywords IBM MQ refuses as
// property names, in any case, alone or after "usr.".
var selectorKeywords = []string{"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE"}

// CheckPropertyName applies IBM MQ's property-name rules, those that make
// MQSETMP (and so MQPUT) fail with MQRC_PROPERTY_NAME_ERROR (2442): Java
// identifiers joined by single dots; not a selector keyword; nothing
// reserved for JMS ("JMS…", "usr.JMS…": mqprobe sets the MQMD fields those
// stand for itself), for message trees ("Body…", "Root…") or for MQ ("mq…"
// with more than one dot, but "mq_usr."). It returns nil or an error saying
// which rule the name breaks. configs/schemas/common.json states the same
// rules for the headers of a command; a test keeps the two in step.
func CheckPropertyName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("must not be empty")
	case len(name) > MaxPropertyNameLength:
		return fmt.Errorf("must be at most %d characters long", MaxPropertyNameLength)
	}
	for _, segment := range strings.Split(name, ".") {
		if segment == "" {
			return fmt.Errorf("must not start or end with a dot or hold two dots in a row")
		}
		for i, r := range segment {
			if !(unicode.IsLetter(r) || r == '_' || r == '$' || (i > 0 && unicode.IsDigit(r))) || r > 0xFFFF {
				return fmt.Errorf("must be Java identifiers joined by dots: %q is not allowed in %q", r, segment)
			}
		}
	}
	bare := strings.TrimPrefix(name, "usr.")
	for _, k := range selectorKeywords {
		if strings.EqualFold(bare, k) {
			return fmt.Errorf("must not be the selector keyword %s", k)
		}
	}
	switch {
	case strings.HasPrefix(bare, "JMS"):
		return fmt.Errorf("must not begin with JMS or usr.JMS: reserved for JMS")
	case strings.HasPrefix(name, "Body"), strings.HasPrefix(name, "Root"):
		return fmt.Errorf("must not begin with Body or Root: reserved for message trees")
	case len(name) >= 2 && strings.EqualFold(name[:2], "mq") && !strings.HasPrefix(name, "mq_usr.") && strings.Count(name, ".") > 1:
		return fmt.Errorf("must hold at most one dot when it begins with mq: reserved for IBM MQ")
	}
	return nil
}
