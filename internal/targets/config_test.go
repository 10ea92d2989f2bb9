package targets_test

import (
	"reflect"
	"testing"

	"github.com/mqprobe/mqprobe/internal/targets"
)

func TestSettingsBecomeTheResolversConfig(t *testing.T) {
	allow := true
	s := targets.Settings{AllowInline: &allow, Inline: targets.Allowlist{Hosts: []string{"10.0.0.*"}},
		RateLimit: targets.RateLimitConfig{CommandsPerSecond: 5, Burst: 10},
		Profiles: map[string]targets.ProfileConfig{
			"tls": {QueueManager: "QM1", Queue: "Q", SSL: targets.SSLConfig{Enabled: true, CipherSpec: "ANY", KeyStoreRef: "file:/k"},
				Auth: targets.AuthConfig{User: "app", PasswordRef: "env:PW"}, RateLimit: targets.ProfileRateLimit{CommandsPerSecond: 2}},
			"plain": {QueueManager: "QM1", SSL: targets.SSLConfig{CipherSpec: "IGNORED", KeyStoreRef: "file:/ignored"}},
		}}
	c := s.Config(nil, true)
	if !c.AllowInline || !c.ConnectsNowhere || c.RateLimit != (targets.Rate{PerSecond: 5, Burst: 10}) ||
		!reflect.DeepEqual(c.Inline, s.Inline) {
		t.Errorf("config %+v", c)
	}
	want := targets.Profile{QueueManager: "QM1", Queue: "Q", CipherSpec: "ANY", KeyStoreRef: "file:/k", User: "app",
		PasswordRef: "env:PW", RateLimit: &targets.Rate{PerSecond: 2, Burst: 10}}
	if got := c.Profiles["tls"]; !reflect.DeepEqual(got, want) {
		t.Errorf("tls profile %+v, want %+v (a profile's burst falls back to targets.rateLimit's)", got, want)
	}
	if got := c.Profiles["plain"]; got.CipherSpec != "" || got.KeyStoreRef != "" || got.RateLimit != nil {
		t.Errorf("plain profile %+v: ssl settings without ssl.enabled must not reach the target", got)
	}
	if (targets.Settings{}).Config(nil, false).AllowInline {
		t.Error("allowInline left undecided must not allow inline targets")
	}
}
