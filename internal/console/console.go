// Package console is the daemon's web console: an overview of the daemon,
// its TEST probes with live charts, the recent results, idempotency records
// and forms that send commands. The pages are static assets embedded in the
// binary — no CDN, no external fonts, so the console works on an air-gapped
// host — and every figure they show comes from the HTTP API, read with the
// caller's own bearer token (or client certificate): the console sees what
// the caller's tenant may see, no more.
//
// Charts are hand-drawn SVG with labelled axes and units, each with a table
// of its numbers beside it.
package console

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// page is the document of every page; assets are its script and styles.
var (
	//go:embed page.html
	page []byte
	//go:embed assets
	assets embed.FS
)

// Pages are the console's pages by path: each serves the same document,
// whose script renders the page its path names.
var Pages = []string{"/", "/ui/probes", "/ui/results", "/ui/record", "/ui/send", "/ui/queues"}

// securityHeaders keep the console's pages to their own origin's scripts,
// styles and API, out of frames, and their URLs out of Referer headers.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy":        "no-referrer",
	"Cache-Control":          "no-cache",
}

// Handler serves the console: GET / and the pages under /ui/ answer the
// console's document, /ui/assets/… its scripts and styles, anything else
// under /ui/ 404. It holds no data, so it needs no credentials; the pages
// ask the API for everything with the caller's.
func Handler() http.Handler {
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree always has assets/
	}
	files := http.StripPrefix("/ui/assets/", http.FileServerFS(static))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for name, value := range securityHeaders {
			w.Header().Set(name, value)
		}
		p := path.Clean(r.URL.Path)
		switch {
		case strings.HasPrefix(p, "/ui/assets/"):
			files.ServeHTTP(w, r)
		case isPage(p):
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(page) //nolint:errcheck // the client may be gone
		default:
			http.NotFound(w, r)
		}
	})
}

// isPage reports whether p is one of Pages or below one under /ui/ (a
// probe's page /ui/probes/<id>).
func isPage(p string) bool {
	for _, page := range Pages {
		if p == page || page != "/" && strings.HasPrefix(p, page+"/") {
			return true
		}
	}
	return false
}
