package mqserver

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDataDirKeepsPersistentMessagesAcrossServers: a server built from a
// configuration file with dataDir keeps the persistent messages its
// clients committed for the next server on the same directory, and only
// those.
func TestDataDirKeepsPersistentMessagesAcrossServers(t *testing.T) {
	noPasswords(t)
	data := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(t.TempDir(), "mqserver.yaml")
	if err := os.WriteFile(path, []byte("dataDir: "+data+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DataDir != data {
		t.Fatalf("DataDir = %q, want %q", cfg.DataDir, data)
	}
	persistent := defaultMD()
	persistent.Persistence = perPersistent
	first, err := Listen("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := appClient(t, first)
	h := c.mustOpen("DEV.QUEUE.1", ooOutput)
	r, _ := c.put(h, 0, persistent, nil, []byte("persistent"))
	wantRC(t, "persistent put", r, ccOK, rcNone)
	c.mustPut(h, 0, "non-persistent")
	r, _ = c.put(h, pmoSyncpoint, persistent, nil, []byte("uncommitted"))
	wantRC(t, "put under syncpoint", r, ccOK, rcNone)
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	second := newServer(t, cfg)
	c2 := appClient(t, second)
	h2 := c2.mustOpen("DEV.QUEUE.1", ooInputShared)
	if got := c2.mustGet(h2, 0); string(got.data) != "persistent" || got.md.Persistence != perPersistent {
		t.Errorf("after the restart got %q (persistence %d), want the persistent message", got.data, got.md.Persistence)
	}
	r, _ = c2.get(h2, getArgs{})
	wantRC(t, "get after the persistent message", r, ccFailed, 2033) // MQRC_NO_MSG_AVAILABLE
	wantRC(t, "close", c2.close(h2), ccOK, rcNone)
	wantRC(t, "disconnect", c2.simple(opDisc), ccOK, rcNone)
}
