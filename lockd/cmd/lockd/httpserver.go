package main

import (
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"time"
)

// newHTTPServer returns lockd's HTTP server (HTTP/1.1, HTTP/2 over TLS,
// cleartext h2c) serving h within the limits of o.http:
//
//   - headers: ReadHeaderTimeout and MaxHeaderBytes;
//   - a request's body: --read-timeout from its headers (withDeadlines);
//   - each write of a response: --write-timeout (withDeadlines);
//   - a connection between requests: IdleTimeout.
//
// The server's own ReadTimeout and WriteTimeout stay unset: they count from
// a request's start to the end of its response, and a blocking Lock waits
// up to --max-wait (5m by default) and WatchSession streams for a session's
// whole life before their last write. Over HTTP/1.1 a read deadline that
// passes while the handler waits also cancels the request (net/http reads
// ahead to notice a client that went away). So the read deadline covers
// the body only, and is lifted once the body is read; the write deadline
// covers each write only, and is lifted between writes.
func newHTTPServer(h http.Handler, o *options, tlsCfg *tls.Config, log *slog.Logger) *http.Server {
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(true)
	protocols.SetUnencryptedHTTP2(true)
	return &http.Server{Handler: withDeadlines(h, o.http.readTimeout, o.http.writeTimeout), Protocols: protocols, TLSConfig: tlsCfg,
		ReadHeaderTimeout: o.http.readHeaderTimeout, IdleTimeout: o.http.idleTimeout, MaxHeaderBytes: o.http.maxHeaderBytes,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
}

// withDeadlines bounds the read of each request's body by read, counted
// from its headers, and each write of its response by write.
func withDeadlines(h http.Handler, read, write time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.Body != nil && r.Body != http.NoBody {
			// An error means the writer cannot set deadlines (never
			// net/http's): the header timeout still bounds the request.
			if rc.SetReadDeadline(time.Now().Add(read)) == nil {
				r.Body = &liftAtEOF{ReadCloser: r.Body, rc: rc}
			}
		}
		h.ServeHTTP(&writeDeadline{ResponseWriter: w, rc: rc, d: write}, r)
	})
}

// liftAtEOF lifts the read deadline once the body is read to its end, so
// that a Lock waiting afterwards is not cancelled by it.
type liftAtEOF struct {
	io.ReadCloser
	rc     *http.ResponseController
	lifted bool
}

func (l *liftAtEOF) Read(p []byte) (int, error) {
	n, err := l.ReadCloser.Read(p)
	if err == io.EOF && !l.lifted {
		l.lifted = true
		_ = l.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// writeDeadline arms the write deadline before each write and lifts it
// after each flush: a client that stops reading is cut after d, while a
// stream waiting for its next event is not.
type writeDeadline struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *writeDeadline) arm() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.d)) }

func (w *writeDeadline) WriteHeader(code int) {
	w.arm()
	w.ResponseWriter.WriteHeader(code)
}

func (w *writeDeadline) Write(p []byte) (int, error) {
	w.arm()
	return w.ResponseWriter.Write(p)
}

// Flush implements http.Flusher, which Connect's server streams need.
func (w *writeDeadline) Flush() {
	w.arm()
	_ = w.rc.Flush()
	_ = w.rc.SetWriteDeadline(time.Time{})
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *writeDeadline) Unwrap() http.ResponseWriter { return w.ResponseWriter }
