package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

const (
	hugeBody      = 64 << 20
	hugeSenders   = 8 // half Connect JSON over HTTP/1.1, half gRPC over h2c
	slowConns     = 500
	boundsReadTO  = 2 * time.Second
	rssCeilingKiB = 200 << 10
)

// The acceptance test of "bounded before trust", on the built binary: 8
// unauthenticated 64 MiB bodies at once and 500 slow connections (headers,
// then 1 byte of a longer body, held open; half with a valid token, half
// without). lockd's resident memory stays under 200 MB, every bad request
// is refused, every slow connection is closed by lockd within
// --read-timeout, and an authorised client's Lock succeeds meanwhile.
func TestBinary_BoundedBeforeTrust(t *testing.T) {
	file := filepath.Join(t.TempDir(), "principals.json")
	principalsFile(t, file, "tok-billing")
	p := startBinary(t, "--principals", file, "--read-timeout", boundsReadTO.String(), "--log-level", "error")
	addr := strings.TrimPrefix(p.url, "http://")
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()

	before, err := p.status("VmRSS")
	require.NoError(t, err)
	var peak atomic.Int64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if v, err := p.status("VmRSS"); err == nil && v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stopSampling:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()

	var wg sync.WaitGroup
	errs := make(chan error, hugeSenders+slowConns)
	slowClosed := make([]time.Duration, slowConns)
	for i := range slowConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := slowConnection(ctx, addr, i%2 == 0)
			slowClosed[i] = d
			if err != nil {
				errs <- fmt.Errorf("slow connection %d: %w", i, err)
			}
		}()
	}
	for i := range hugeSenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			send := hugeJSON
			if i%2 == 1 {
				send = hugeGRPC
			}
			if err := send(ctx, addr); err != nil {
				errs <- fmt.Errorf("64 MiB sender %d: %w", i, err)
			}
		}()
	}

	// An authorised client, meanwhile.
	time.Sleep(100 * time.Millisecond) // the attack is under way
	c := lockstepv1connect.NewLockServiceClient(http.DefaultClient, p.url, connect.WithInterceptors(bearer("tok-billing")))
	start := time.Now()
	s, err := c.OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{Name: "authorised"}))
	require.NoError(t, err)
	_, err = c.Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: s.Msg.SessionId, Items: []*pb.LockItem{{Id: "billing/acceptance"}}}))
	require.NoError(t, err, "the authorised client's Lock succeeds during the attack")
	lockTook := time.Since(start)

	wg.Wait()
	close(stopSampling)
	<-sampled
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	hwm, err := p.status("VmHWM")
	require.NoError(t, err)
	var slowest time.Duration
	for _, d := range slowClosed {
		slowest = max(slowest, d)
	}
	t.Logf("lockd RSS: %d KiB before, peak sampled %d KiB, VmHWM %d KiB (ceiling %d KiB); authorised OpenSession+Lock took %v; slowest slow connection closed after %v (--read-timeout %v)",
		before, peak.Load(), hwm, rssCeilingKiB, lockTook.Round(time.Millisecond), slowest.Round(time.Millisecond), boundsReadTO)
	require.Less(t, hwm, int64(rssCeilingKiB), "lockd's resident memory stays under 200 MB")
}

// slowConnection sends a request's headers and 1 byte of its 1000-byte
// body, then waits: lockd must answer (401 without a valid token, at once;
// an error once --read-timeout passes with one) and close the connection.
// It returns how long after the byte the connection was closed.
func slowConnection(ctx context.Context, addr string, authorised bool) (time.Duration, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	auth := ""
	if authorised {
		auth = "Authorization: Bearer tok-billing\r\n"
	}
	_, err = fmt.Fprintf(conn, "POST /lockstep.v1.LockService/OpenSession HTTP/1.1\r\nHost: lockd\r\nContent-Type: application/json\r\n%sContent-Length: 1000\r\n\r\n{", auth)
	if err != nil {
		return 0, err
	}
	sent := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(boundsReadTO + 10*time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return time.Since(sent), fmt.Errorf("no answer: %w", err)
	}
	_, _ = io.Copy(io.Discard, res.Body) // to the end: the server closes the connection
	res.Body.Close()
	took := time.Since(sent)
	switch {
	case !authorised && res.StatusCode != http.StatusUnauthorized:
		return took, fmt.Errorf("unauthenticated: status %d, want 401", res.StatusCode)
	case authorised && res.StatusCode == http.StatusOK:
		return took, fmt.Errorf("a 1-byte body of 1000 was answered 200")
	case took > boundsReadTO+3*time.Second:
		return took, fmt.Errorf("closed %v after the byte, beyond --read-timeout %v", took, boundsReadTO)
	}
	var one [1]byte
	if _, err := conn.Read(one[:]); err != io.EOF {
		return took, fmt.Errorf("the connection stayed open after the answer (%v)", err)
	}
	return time.Since(sent), nil
}

// hugeJSON posts an unauthenticated 64 MiB Connect JSON body over
// HTTP/1.1, and wants 401.
func hugeJSON(ctx context.Context, addr string) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "POST /lockstep.v1.LockService/OpenSession HTTP/1.1\r\nHost: lockd\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", hugeBody); err != nil {
		return err
	}
	go func() { // the body, until lockd closes the connection
		_, _ = io.Copy(conn, io.LimitReader(zeros{}, hugeBody))
	}()
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return fmt.Errorf("no answer: %w", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		return fmt.Errorf("status %d, want 401", res.StatusCode)
	}
	return nil
}

// hugeGRPC sends an unauthenticated gRPC OpenSession of one 64 MiB message
// over h2c, and wants grpc-status 16 (UNAUTHENTICATED).
func hugeGRPC(ctx context.Context, addr string) error {
	protocols := new(http.Protocols)
	protocols.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: protocols}
	defer tr.CloseIdleConnections()
	var frame [5]byte
	binary.BigEndian.PutUint32(frame[1:], hugeBody)
	body := io.MultiReader(strings.NewReader(string(frame[:])), io.LimitReader(zeros{}, hugeBody))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/lockstep.v1.LockService/OpenSession", body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("Te", "trailers")
	res, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return fmt.Errorf("no answer: %w", err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	status := res.Header.Get("Grpc-Status")
	if status == "" {
		status = res.Trailer.Get("Grpc-Status")
	}
	if status != "16" {
		return fmt.Errorf("grpc-status %q, want 16 (UNAUTHENTICATED)", status)
	}
	return nil
}

// zeros reads zero bytes, endlessly.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
