package config

import (
	"net/url"
	"reflect"
	"regexp"
)

// RedactedValue is the text that replaces a secret.
const RedactedValue = "REDACTED"

// Redacted returns a deep copy safe to print or log: fields tagged secret
// (http.authToken, everything under a profile's auth) are replaced by
// "REDACTED" when set, and idempotency.postgres.dsn keeps everything but its
// password.
func (c *Config) Redacted() *Config {
	out := reflect.New(reflect.TypeFor[Config]()).Elem()
	deepCopy(out, reflect.ValueOf(c).Elem())
	walk(out, "", "", false, func(l leaf) {
		if l.val.Kind() != reflect.String || l.val.String() == "" {
			return
		}
		switch l.field.Tag.Get("secret") {
		case "true":
			l.val.SetString(RedactedValue)
		case "dsn":
			l.val.SetString(redactDSN(l.val.String()))
		}
	})
	return out.Addr().Interface().(*Config)
}

// dsnPasswordRE finds password=... in a key=value DSN, quoted or not.
var dsnPasswordRE = regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

// redactDSN hides the password of a PostgreSQL DSN in either form; a URL it
// cannot parse is hidden whole rather than risk printing it.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return RedactedValue
	}
	if u.Scheme == "" {
		return dsnPasswordRE.ReplaceAllString(dsn, "${1}"+RedactedValue)
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), RedactedValue)
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", RedactedValue)
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// deepCopy copies src into dst so that no map, slice or pointer is shared.
func deepCopy(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Struct:
		for i := range src.NumField() {
			deepCopy(dst.Field(i), src.Field(i))
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		for it := src.MapRange(); it.Next(); {
			v := reflect.New(src.Type().Elem()).Elem()
			deepCopy(v, it.Value())
			m.SetMapIndex(it.Key(), v)
		}
		dst.Set(m)
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			deepCopy(s.Index(i), src.Index(i))
		}
		dst.Set(s)
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(src.Type().Elem())
		deepCopy(p.Elem(), src.Elem())
		dst.Set(p)
	default:
		dst.Set(src)
	}
}
