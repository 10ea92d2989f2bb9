package testenv_test

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestDynaliteOutlivesAClientThatGoesAwayMidRequest: a client whose
// connection is cut while its request is on the way (as the fault tests'
// proxy cuts them) must not end the dynalite that every other test
// shares. dynalite 4.0.0 alone exits on it.
func TestDynaliteOutlivesAClientThatGoesAwayMidRequest(t *testing.T) {
	p, err := testenv.StartPrivate("dynalite")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	addr := strings.TrimPrefix(p.Endpoint, "http://")
	client := &http.Client{Timeout: 30 * time.Second}
	for i := range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-amz-json-1.0\r\n"+
			"X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 100\r\n\r\n{\"Limit\":", addr)
		if i%2 == 0 {
			c.(*net.TCPConn).SetLinger(0) // a reset, as a cut proxy sends
		}
		c.Close()
		// Each answer takes the server turns of its event loop after the
		// cut's, so a server the cut ends has ended by the first.
		for range 3 {
			req, _ := http.NewRequest(http.MethodPost, p.Endpoint, strings.NewReader("{}"))
			req.Header.Set("Content-Type", "application/x-amz-json-1.0")
			req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("after %d cut requests dynalite no longer answers: %v", i+1, err)
			}
			resp.Body.Close() // any answer (unsigned, it is a 400) shows the server lives
		}
	}
}
