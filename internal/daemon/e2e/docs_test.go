package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/doctest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// walkthroughDocs are the documents whose shell blocks are run, in the order
// a reader follows them, and the ```text blocks each shows at the least (so a
// lost walkthrough fails): the README's tutorial, the operations guide, the
// security demonstration.
var walkthroughDocs = []walkthrough{{"README.md", 3}, {"docs/operations.md", 3}, {"docs/security.md", 1}}

type walkthrough struct {
	file  string
	shown int
}

// TestDocsWalkthroughs runs every ```sh block of the walkthroughDocs (but
// those tagged aws, which internal/daemon/awsmode
// runs on the AWS emulators, and norun) in document order, and checks each
// output a ```text block shows (see package doctest for the convention).
// They run against a `mqprobe run` process on the embedded default, started
// in a fresh directory; the blocks run in that directory, which also holds
// bin/mqprobe and configs/, as in a clone, with nothing of the test's
// environment but PATH. The one change is the daemons' addresses: the
// documents' 127.0.0.1:8080 becomes the test daemon's, which the CLI reads
// from MQPROBE_HTTP_ADDR, and the security demonstration's 127.0.0.1:8081 a
// free port.
func TestDocsWalkthroughs(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, doc := range walkthroughDocs {
		files = append(files, doc.file)
	}
	blocks, err := doctest.Load(root, func(b doctest.Block) bool { return !b.HasTag("aws") && !b.HasTag("norun") }, files...)
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
		if shown[doc.file] < doc.shown {
			t.Fatalf("%s shows the output of %d blocks: its walkthrough is gone, or lost its ```text blocks", doc.file, shown[doc.file])
		}
	}
	demoPort, err := daemontest.FreeLoopbackPort()
	if err != nil {
		t.Fatal(err)
	}

	daemon, _ := daemontest.StartProcess(t, "docs", map[string]string{})
	addr := strings.TrimPrefix(daemon.Base, "http://")
	dir := daemon.Cmd.Dir // as in a clone: `make run` and the CLI share ./data
	daemontest.LikeAClone(t, dir)
	session := &doctest.Session{
		Dir:     dir,
		Env:     []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MQPROBE_HTTP_ADDR=" + addr},
		Replace: []string{"127.0.0.1:8080", addr, "127.0.0.1:8081", "127.0.0.1:" + demoPort},
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
	t.Logf("ran %d blocks of %s", len(blocks), strings.Join(files, ", "))
}

// TestEveryShellBlockRunsOrSaysWhy: a shell block of the README or docs/ is
// run by a walkthrough (a plain one here, one tagged aws on the AWS
// emulators) or is tagged norun (real AWS, Docker, a long-running command):
// none is left out silently, to drift.
func TestEveryShellBlockRunsOrSaysWhy(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, filepath.Join("docs", filepath.Base(d)))
	}
	walked := func(b doctest.Block) bool {
		if b.HasTag("aws") {
			return slices.Contains(daemontest.AWSWalkthroughDocs, b.File)
		}
		return slices.ContainsFunc(walkthroughDocs, func(d walkthrough) bool { return d.file == b.File })
	}
	unrun, err := doctest.Load(root, func(b doctest.Block) bool { return !b.HasTag("norun") && !walked(b) }, files...)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range unrun {
		t.Errorf("%s: a shell block no walkthrough runs: add its document to one, or tag it norun", b)
	}
}
