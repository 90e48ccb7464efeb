package register

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Client is a worker's connection to a Server. Safe for concurrent use.
type Client struct {
	base    string
	process string
	http    *http.Client
}

// NewClient returns a client of the server at base (Server.URL) that sends
// process as the sender of every request. timeout bounds each request (0:
// 5s). A request that fails after it was sent has an unknown outcome: the
// server's log says whether it was applied.
func NewClient(base, process string, timeout time.Duration) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("register: URL %q is not http://host:port (pass the register's Server.URL)", base)
	}
	if process == "" {
		return nil, fmt.Errorf("register: empty process id")
	}
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	return &Client{base: u.String(), process: process, http: &http.Client{Timeout: timeout}}, nil
}

// ReadFenced reads lock's fenced register, raising its fence to token (0:
// a read that leaves the fence alone). It returns the value and the fence.
func (c *Client) ReadFenced(ctx context.Context, lock string, token int64) (value, fence int64, err error) {
	q := url.Values{"process": {c.process}}
	if token > 0 {
		q.Set("token", strconv.FormatInt(token, 10))
	}
	r, _, err := c.do(ctx, http.MethodGet, "/fenced/"+url.PathEscape(lock)+"?"+q.Encode(), nil)
	return r.Value, r.Token, err
}

// WriteFenced writes value to lock's fenced register with token, having read
// prev. It reports whether the fence accepted it; an error means the outcome
// is unknown.
func (c *Client) WriteFenced(ctx context.Context, lock string, token, prev, value int64) (accepted bool, err error) {
	r, _, err := c.do(ctx, http.MethodPost, "/fenced/"+url.PathEscape(lock),
		&WriteRequest{Process: c.process, Token: token, Prev: prev, Value: value})
	return r.Accepted, err
}

// ReadCounter reads lock's unfenced counter.
func (c *Client) ReadCounter(ctx context.Context, lock string) (int64, error) {
	q := url.Values{"process": {c.process}}
	r, _, err := c.do(ctx, http.MethodGet, "/counter/"+url.PathEscape(lock)+"?"+q.Encode(), nil)
	return r.Value, err
}

// WriteCounter writes value to lock's unfenced counter, having read prev. An
// error means the outcome is unknown.
func (c *Client) WriteCounter(ctx context.Context, lock string, prev, value int64) error {
	_, _, err := c.do(ctx, http.MethodPost, "/counter/"+url.PathEscape(lock),
		&WriteRequest{Process: c.process, Prev: prev, Value: value})
	return err
}

func (c *Client) do(ctx context.Context, method, path string, body *WriteRequest) (Reply, int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return Reply{}, 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return Reply{}, 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return Reply{}, 0, fmt.Errorf("register: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusConflict {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return Reply{}, resp.StatusCode, fmt.Errorf("register: %s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(msg))
	}
	var r Reply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return Reply{}, resp.StatusCode, fmt.Errorf("register: %s %s: reply: %w", method, path, err)
	}
	return r, resp.StatusCode, nil
}
