package main

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"
)

// echoServer answers every line with itself, and closes a connection when
// close receives; it returns its address.
func echoServer(t *testing.T) (string, chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	closeAll := make(chan struct{})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				go func() { <-closeAll; c.Close() }()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String(), closeAll
}

func dialProxy(t *testing.T, p *proxy) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

// roundTrip writes a line and reads it back within d; ok false on timeout.
func roundTrip(t *testing.T, c net.Conn, r *bufio.Reader, line string, d time.Duration) (string, bool) {
	t.Helper()
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(d))
	got, err := r.ReadString('\n')
	if err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			return "", false
		}
		t.Fatalf("read: %v", err)
	}
	return got[:len(got)-1], true
}

// The proxy forwards; cut, nothing passes either way and the connection
// stays open; restored, what waited arrives and forwarding goes on.
func TestProxy_CutHoldsEverythingUntilRestore(t *testing.T) {
	addr, _ := echoServer(t)
	p, err := newProxy(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, r := dialProxy(t, p)
	if got, ok := roundTrip(t, c, r, "one", 2*time.Second); !ok || got != "one" {
		t.Fatalf("before the cut: %q %v", got, ok)
	}
	p.Cut()
	if got, ok := roundTrip(t, c, r, "two", 300*time.Millisecond); ok {
		t.Fatalf("cut, yet %q came back", got)
	}
	// A connection opened while cut is accepted and waits too.
	c2, r2 := dialProxy(t, p)
	if got, ok := roundTrip(t, c2, r2, "three", 300*time.Millisecond); ok {
		t.Fatalf("cut, yet %q came back on a new connection", got)
	}
	p.Restore()
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if got, err := r.ReadString('\n'); err != nil || got != "two\n" {
		t.Fatalf("after the restore: %q %v, want what waited", got, err)
	}
	_ = c2.SetReadDeadline(time.Now().Add(2 * time.Second))
	if got, err := r2.ReadString('\n'); err != nil || got != "three\n" {
		t.Fatalf("new connection after the restore: %q %v", got, err)
	}
	if got, ok := roundTrip(t, c, r, "four", 2*time.Second); !ok || got != "four" {
		t.Fatalf("after the restore: %q %v", got, ok)
	}
}

// The target closing a connection (a killed lockd) closes the client's
// side: at once, or, while cut, at the restore.
func TestProxy_TargetCloseReachesTheClientUnlessCut(t *testing.T) {
	addr, closeAll := echoServer(t)
	p, err := newProxy(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, r := dialProxy(t, p)
	if _, ok := roundTrip(t, c, r, "x", 2*time.Second); !ok {
		t.Fatal("no echo")
	}
	p.Cut()
	close(closeAll)
	_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := r.ReadString('\n'); err == io.EOF {
		t.Fatal("the close passed a cut proxy")
	}
	p.Restore()
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := r.ReadString('\n'); err != io.EOF {
		t.Fatalf("after the restore: %v, want EOF", err)
	}
}

// A target that refuses (a lockd down) closes the client's connection.
func TestProxy_RefusedTargetClosesTheClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p, err := newProxy(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, r := dialProxy(t, p)
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	if _, err := r.ReadString('\n'); err != io.EOF {
		t.Fatalf("%v, want EOF", err)
	}
}
