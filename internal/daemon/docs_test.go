package daemon_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/doctest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// walkthroughDocs are the documents whose shell blocks are run, in the order
// a reader follows them: the README's tutorial, then the operations guide.
var walkthroughDocs = []string{"README.md", "docs/operations.md"}

// TestDocsWalkthroughs runs every ```sh block of README.md and then
// docs/operations.md (but those tagged aws, which internal/daemon/awsmode
// runs on the AWS emulators, and norun) in document order, and checks each
// output a ```text block shows (see package doctest for the convention).
// They run against a `mqprobe run` process on the embedded default, started
// in a fresh directory; the blocks run in that directory, which also holds
// bin/mqprobe and configs/, as in a clone, with nothing of the test's
// environment but PATH. The one change is the daemon's address: the
// documents' 127.0.0.1:8080 becomes the test daemon's, which the CLI reads
// from MQPROBE_HTTP_ADDR.
func TestDocsWalkthroughs(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := doctest.Load(root, func(b doctest.Block) bool { return !b.HasTag("aws") && !b.HasTag("norun") }, walkthroughDocs...)
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]int{}
	for _, b := range blocks {
		if b.Want != nil {
			shown[b.File]++
		}
	}
	for _, doc := range walkthroughDocs {
		if shown[doc] < 3 {
			t.Fatalf("%s shows the output of %d blocks: its walkthrough is gone, or lost its ```text blocks", doc, shown[doc])
		}
	}

	daemon, _ := daemontest.StartProcess(t, "docs", map[string]string{})
	addr := strings.TrimPrefix(daemon.Base, "http://")
	dir := daemon.Cmd.Dir // as in a clone: `make run` and the CLI share ./data
	daemontest.LikeAClone(t, dir)
	session := &doctest.Session{
		Dir:     dir,
		Env:     []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MQPROBE_HTTP_ADDR=" + addr},
		Replace: []string{"127.0.0.1:8080", addr},
	}
	for _, b := range blocks {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		err := session.Check(ctx, b)
		cancel()
		if err != nil {
			// The blocks after it build on it.
			t.Fatal(err)
		}
	}
	t.Logf("ran %d blocks of %s", len(blocks), strings.Join(walkthroughDocs, " and "))
}
