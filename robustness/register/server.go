package register

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Server serves the registers over HTTP on loopback. Safe for concurrent
// use.
type Server struct {
	epoch time.Time // carries a monotonic reading
	ln    net.Listener
	srv   *http.Server
	done  chan struct{}

	mu    sync.Mutex
	cells map[string]*cell
	ops   []Op
}

type cell struct {
	value, fence int64 // the fenced register
	counter      int64 // the unfenced counter
}

// Start serves on addr ("127.0.0.1:0" picks a free port), with its epoch at
// the moment of the call. Use StartAt to share an epoch with the workers.
func Start(addr string) (*Server, error) { return StartAt(addr, time.Now()) }

// StartAt serves on addr with times in the log counted from epoch, which
// must carry a monotonic reading (a time.Now() value of this process): pass
// the same instant to the workers as --epoch-unix-ns epoch.UnixNano(). addr
// must be a loopback address: the register is the harness's and must stay
// outside every nemesis.
func StartAt(addr string, epoch time.Time) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("register: address %q: %w (want host:port, e.g. 127.0.0.1:0)", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("register: address %q is not a loopback IP; use 127.0.0.1:<port> so no nemesis can reach it", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("register: %w", err)
	}
	s := &Server{epoch: epoch, ln: ln, done: make(chan struct{}), cells: map[string]*cell{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /fenced/{lock}", s.readFenced)
	mux.HandleFunc("POST /fenced/{lock}", s.writeFenced)
	mux.HandleFunc("GET /counter/{lock}", s.readCounter)
	mux.HandleFunc("POST /counter/{lock}", s.writeCounter)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln) // returns ErrServerClosed after Close
	}()
	return s, nil
}

// URL is the base URL workers pass to NewClient (rbworker --register).
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops serving, waits for the server goroutine, and keeps the log.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	<-s.done
	return err
}

// Ops returns a copy of the log: every request applied or rejected, in the
// order the server applied them.
func (s *Server) Ops() []Op {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Op(nil), s.ops...)
}

// apply runs f on the lock's cell under the mutex and logs the op it builds.
func (s *Server) apply(lock string, f func(c *cell) Op) Op {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cells[lock]
	if c == nil {
		c = &cell{}
		s.cells[lock] = c
	}
	op := f(c)
	op.Seq = int64(len(s.ops)) + 1
	op.AtNS = int64(time.Since(s.epoch))
	op.Lock = lock
	s.ops = append(s.ops, op)
	return op
}

// Reply is the body of every answer.
type Reply struct {
	Value    int64 `json:"value"`
	Token    int64 `json:"token"` // the fenced register's fence
	Accepted bool  `json:"accepted"`
}

// WriteRequest is the body of a write.
type WriteRequest struct {
	Process string `json:"process"`
	Token   int64  `json:"token"`
	Prev    int64  `json:"prev"`
	Value   int64  `json:"value"`
}

func (s *Server) readFenced(w http.ResponseWriter, r *http.Request) {
	token, err := parseToken(r.URL.Query().Get("token"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	op := s.apply(r.PathValue("lock"), func(c *cell) Op {
		op := Op{Kind: ReadFenced, Process: r.URL.Query().Get("process"), Token: token,
			Value: c.value, Before: c.value, Fence: c.fence, Accepted: true}
		c.fence = max(c.fence, token)
		return op
	})
	reply(w, http.StatusOK, Reply{Value: op.Value, Token: max(op.Fence, token), Accepted: true})
}

func (s *Server) writeFenced(w http.ResponseWriter, r *http.Request) {
	var req WriteRequest
	if !decode(w, r, &req) {
		return
	}
	op := s.apply(r.PathValue("lock"), func(c *cell) Op {
		op := Op{Kind: WriteFenced, Process: req.Process, Token: req.Token, Prev: req.Prev, Value: req.Value,
			Before: c.value, Fence: c.fence, Accepted: req.Token >= c.fence}
		if op.Accepted {
			c.value, c.fence = req.Value, req.Token
		}
		return op
	})
	status := http.StatusOK
	if !op.Accepted {
		status = http.StatusConflict
	}
	reply(w, status, Reply{Value: req.Value, Token: max(op.Fence, req.Token), Accepted: op.Accepted})
}

func (s *Server) readCounter(w http.ResponseWriter, r *http.Request) {
	op := s.apply(r.PathValue("lock"), func(c *cell) Op {
		return Op{Kind: ReadCounter, Process: r.URL.Query().Get("process"), Value: c.counter, Before: c.counter, Accepted: true}
	})
	reply(w, http.StatusOK, Reply{Value: op.Value, Accepted: true})
}

func (s *Server) writeCounter(w http.ResponseWriter, r *http.Request) {
	var req WriteRequest
	if !decode(w, r, &req) {
		return
	}
	s.apply(r.PathValue("lock"), func(c *cell) Op {
		op := Op{Kind: WriteCounter, Process: req.Process, Token: req.Token, Prev: req.Prev, Value: req.Value,
			Before: c.counter, Accepted: true}
		c.counter = req.Value
		return op
	})
	reply(w, http.StatusOK, Reply{Value: req.Value, Accepted: true})
}

func parseToken(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	t, err := strconv.ParseInt(s, 10, 64)
	if err != nil || t < 0 {
		return 0, fmt.Errorf("token %q is not a non-negative integer", s)
	}
	return t, nil
}

func decode(w http.ResponseWriter, r *http.Request, v *WriteRequest) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		http.Error(w, "bad write request: "+err.Error(), http.StatusBadRequest)
		return false
	}
	if v.Token < 0 {
		http.Error(w, "bad write request: negative token", http.StatusBadRequest)
		return false
	}
	return true
}

func reply(w http.ResponseWriter, status int, body Reply) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body) // the client sees a cut reply as an unknown outcome
}
