package lockd

import (
	"io"
	"net/http"

	"connectrpc.com/connect"
)

// frameHeader is the gRPC (and gRPC-Web, Connect streaming) envelope in
// front of each message: a flag byte and a 4-byte length.
const frameHeader = 5

// limitBody refuses a body whose declared length is over the limit before
// reading any of it, and cuts one that turns out longer while it is read
// (MaxBytesReader). Each message is bounded again by Connect's
// WithReadMaxBytes, which also bounds compressed messages once inflated.
func (s *Server) limitBody(h http.Handler) http.Handler {
	limit := s.cfg.Limits.MaxBodyBytes + frameHeader
	ew := connect.NewErrorWriter()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit {
			err := tooLarge("the request body (bytes)", r.ContentLength, limit, "max-body-bytes")
			s.cfg.Metrics.answered(r.URL.Path, wire(err))
			_ = ew.Write(w, r, wire(s.refuse(r.Context(), method(r.URL.Path), who(r.Context()), "", err)))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		h.ServeHTTP(w, r)
	})
}

// closeUnread wraps h so that an HTTP/1.1 response written before the
// request's body was read to its end closes the connection. net/http would
// otherwise read up to 256 KiB of the unread body after the handler returns,
// to keep the connection alive: a refused request's body (unauthenticated,
// or over the limit) is then never read at all, not even to be discarded.
func closeUnread(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 1 || r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
			h.ServeHTTP(w, r)
			return
		}
		br := &eofReader{ReadCloser: r.Body}
		r.Body = br
		h.ServeHTTP(&closeIfUnread{ResponseWriter: w, body: br}, r)
	})
}

// eofReader notes when its reader returned io.EOF. It is read by one
// handler goroutine, as the response is written.
type eofReader struct {
	io.ReadCloser
	eof bool
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.ReadCloser.Read(p)
	if err == io.EOF {
		e.eof = true
	}
	return n, err
}

// closeIfUnread sets "Connection: close" on a response whose headers are
// written while the request's body is unread.
type closeIfUnread struct {
	http.ResponseWriter
	body    *eofReader
	written bool
}

func (c *closeIfUnread) WriteHeader(code int) {
	if !c.written {
		c.written = true
		if !c.body.eof {
			c.Header().Set("Connection", "close")
		}
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *closeIfUnread) Write(p []byte) (int, error) {
	if !c.written {
		c.WriteHeader(http.StatusOK)
	}
	return c.ResponseWriter.Write(p)
}

// Flush implements http.Flusher, which Connect's server streams need.
func (c *closeIfUnread) Flush() {
	if !c.written {
		c.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(c.ResponseWriter).Flush() // as http.Flusher: no error to report
}

// Unwrap lets http.ResponseController reach the server's writer.
func (c *closeIfUnread) Unwrap() http.ResponseWriter { return c.ResponseWriter }
