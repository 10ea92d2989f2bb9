package tenant_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// TestAuthorize: a named tenant reaches only the profiles its patterns
// match, and inline targets only with Inline; the implicit tenant reaches
// whatever the daemon allows.
func TestAuthorize(t *testing.T) {
	inline := &command.Target{QueueManager: "QM1", Queue: "DEV.QUEUE.1"}
	teamA := tenant.Tenant{Name: "team-a", Profiles: []string{"lab-*", "qm1"}}
	teamB := tenant.Tenant{Name: "team-b", Inline: true}
	cases := []struct {
		tenant tenant.Tenant
		cmd    command.Command
		refuse string // "" when allowed
	}{
		{teamA, command.Command{TargetRef: "lab-7"}, ""},
		{teamA, command.Command{TargetRef: "qm1"}, ""},
		{teamA, command.Command{TargetRef: "qm10"}, `tenant "team-a" may not use target profile "qm10": it matches no pattern of http.tokens.team-a.profiles`},
		{teamA, command.Command{Target: inline}, `tenant "team-a" may not name inline targets (http.tokens.team-a.inline is false)`},
		{teamA, command.Command{OperationType: command.StopTest, TestID: "t1"}, ""},
		{teamB, command.Command{Target: inline}, ""},
		{teamB, command.Command{TargetRef: "lab-7"}, "matches no pattern of http.tokens.team-b.profiles"},
		{tenant.Tenant{}, command.Command{TargetRef: "anything"}, ""},
		{tenant.Tenant{}, command.Command{Target: inline}, ""},
	}
	for _, tc := range cases {
		err := tc.tenant.Authorize(tc.cmd)
		switch {
		case tc.refuse == "" && err != nil:
			t.Errorf("%s %+v: refused: %v", tc.tenant.Label(), tc.cmd, err)
		case tc.refuse != "" && (err == nil || !strings.Contains(err.Error(), tc.refuse)):
			t.Errorf("%s %+v: %v, want a refusal containing %q", tc.tenant.Label(), tc.cmd, err, tc.refuse)
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"a", "team-a", "0", strings.Repeat("z", tenant.MaxNameLength)} {
		if err := tenant.CheckName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-a", "Team", "a_b", "a#b", "a@b", "a/b", strings.Repeat("z", tenant.MaxNameLength+1), tenant.Implicit} {
		if tenant.CheckName(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestContext: a context without a tenant is the implicit tenant's.
func TestContext(t *testing.T) {
	if got := tenant.FromContext(context.Background()); got.Named() || got.Label() != tenant.Implicit {
		t.Errorf("no tenant in the context: %+v", got)
	}
	ctx := tenant.NewContext(context.Background(), tenant.Tenant{Name: "team-a"})
	if got := tenant.FromContext(ctx); !got.Named() || got.Label() != "team-a" {
		t.Errorf("team-a in the context: %+v", got)
	}
}
