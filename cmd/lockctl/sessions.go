package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

// lockctl sessions asks lockd servers for their sessions. A lockd keeps its
// sessions in memory, not in the cluster, so lockctl calls each lockd named
// (ListSessions, Connect's JSON protocol: one POST, no generated code and no
// RPC library in lockctl), with a bearer token of a principal granted
// list_sessions. The census lists lockd processes (lockctl fleet) but not
// their addresses, hence --lockd.

const sessionsLong = `sessions lists the live sessions of one or more lockd servers: each
session's id, principal, name, TTL and the locks it holds. It reaches the
lockds named by --lockd (or LOCKSTEP_LOCKD_URL), not the cluster: a lockd
keeps its sessions in memory. A lockd with principals answers only a
principal granted "list_sessions": true; give its bearer token in
LOCKSTEP_LOCKD_TOKEN or a file named by --lockd-token-file.`

type sessionsCmd struct{ lockdTarget }

func (a *app) sessionsCommand(o *options) *cobra.Command {
	c := &sessionsCmd{}
	cmd := &cobra.Command{
		Use:     "sessions",
		Short:   "list the sessions of lockd servers: principals, TTLs and the locks they hold",
		Long:    sessionsLong,
		Example: "  LOCKSTEP_LOCKD_TOKEN=... lockctl sessions --lockd https://lockd-1:7420,https://lockd-2:7420 --lockd-ca ca.pem",
		Args:    cobra.ArbitraryArgs,
	}
	c.register(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := noArgs(args); err != nil {
			return usageError(fmt.Errorf("sessions: %w", err))
		}
		if err := c.fromEnv(cmd.Flags(), a.getenv); err != nil {
			return usageError(err)
		}
		client, token, err := c.prepare(a.getenv)
		if err != nil {
			return usageError(fmt.Errorf("sessions: %w", err))
		}
		if err := c.run(cmd.Context(), a, o, client, token); err != nil {
			return &exitError{code: exitCode(err), err: err}
		}
		return nil
	}
	return cmd
}

// lockdSession is a session as ListSessions returns it in Connect's JSON
// (protojson: camelCase names, int64 as strings, durations as "10s",
// default values left out).
type lockdSession struct {
	SessionID string `json:"sessionId"`
	Name      string `json:"name"`
	Principal string `json:"principal"`
	TTL       string `json:"ttl"`
	// The session's identity (seed 003's effective identifier) and how many
	// sessions share it; absent from a lockd older than GetToken/SetToken.
	Identity         string `json:"identity"`
	IdentitySessions int    `json:"identitySessions"`
	Locks            []struct {
		LockID string `json:"lockId"`
		Items  []struct {
			ID     string `json:"id"`
			Access string `json:"access"`
		} `json:"items"`
		Token     string `json:"token"`
		Reentrant bool   `json:"reentrant"`
	} `json:"locks"`
}

// run lists each lockd's sessions; a lockd that fails is reported after the
// others are listed.
func (c *sessionsCmd) run(ctx context.Context, a *app, o *options, client *http.Client, token string) error {
	var report sessionsJSON
	var errs []error
	for _, u := range c.urls {
		sessions, err := listSessions(ctx, client, u, token)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		report.Lockds = append(report.Lockds, lockdReport(u, sessions))
	}
	if report.Lockds == nil {
		report.Lockds = []lockdJSON{}
	}
	if o.json() {
		if err := writeJSON(a.stdout, report); err != nil {
			return err
		}
	} else {
		writeSessionsText(a.stdout, report)
	}
	return errors.Join(errs...) // exit code: the first failure's
}

// listSessions calls one lockd's ListSessions.
func listSessions(ctx context.Context, client *http.Client, base, token string) ([]lockdSession, error) {
	endpoint := strings.TrimRight(base, "/") + "/lockstep.v1.LockService/ListSessions"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader([]byte("{}")))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, unreachable(base, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("lockd at %s: reading its answer: %w", base, err)
	}
	if res.StatusCode != http.StatusOK {
		var ce struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(body, &ce)
		err := fmt.Errorf("lockd at %s refused ListSessions (%s): %s", base, ce.Code, ce.Message)
		switch res.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return nil, refusedError(fmt.Errorf("%w; give the token of a principal granted \"list_sessions\" (LOCKSTEP_LOCKD_TOKEN or --lockd-token-file)", err))
		case http.StatusNotFound:
			return nil, fmt.Errorf("lockd at %s has no ListSessions (HTTP 404): is it a lockd, and one this recent?", base)
		}
		return nil, err
	}
	var out struct {
		Sessions []lockdSession `json:"sessions"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("lockd at %s: its answer is not ListSessions' JSON: %w", base, err)
	}
	return out.Sessions, nil
}

// The JSON of lockctl sessions --output json.
type sessionsJSON struct {
	Lockds []lockdJSON `json:"lockds"`
}

type lockdJSON struct {
	URL      string        `json:"url"`
	Sessions []sessionJSON `json:"sessions"`
}

type sessionJSON struct {
	Session    string  `json:"session"`
	Principal  string  `json:"principal"`
	Name       string  `json:"name"`
	TTLSeconds float64 `json:"ttl_seconds"`
	// Identity is the session's identity ("i-…"; "" from an older lockd)
	// and IdentitySessions the live sessions sharing it: the locks are the
	// identity's, listed under each of its sessions.
	Identity         string     `json:"identity"`
	IdentitySessions int        `json:"identity_sessions"`
	Locks            []heldJSON `json:"locks"`
}

type heldJSON struct {
	Lock      string   `json:"lock"`
	Items     []string `json:"items"` // "id:access", access X, S, IS, IX or SIX
	Token     int64    `json:"token"` // 0: none
	Reentrant bool     `json:"reentrant"`
}

var accessNames = map[string]string{"": "X", "ACCESS_EXCLUSIVE": "X", "ACCESS_SHARED": "S", "ACCESS_INTENT_SHARED": "IS",
	"ACCESS_INTENT_EXCLUSIVE": "IX", "ACCESS_SHARED_INTENT_EXCLUSIVE": "SIX"}

func lockdReport(u string, sessions []lockdSession) lockdJSON {
	r := lockdJSON{URL: u, Sessions: []sessionJSON{}}
	for _, s := range sessions {
		ttl, _ := time.ParseDuration(s.TTL)
		sj := sessionJSON{Session: s.SessionID, Principal: s.Principal, Name: s.Name, TTLSeconds: ttl.Seconds(),
			Identity: s.Identity, IdentitySessions: s.IdentitySessions, Locks: []heldJSON{}}
		for _, l := range s.Locks {
			tok, _ := strconv.ParseInt(l.Token, 10, 64)
			h := heldJSON{Lock: l.LockID, Token: tok, Reentrant: l.Reentrant, Items: []string{}}
			for _, it := range l.Items {
				name, ok := accessNames[it.Access]
				if !ok {
					name = it.Access
				}
				h.Items = append(h.Items, it.ID+":"+name)
			}
			sj.Locks = append(sj.Locks, h)
		}
		r.Sessions = append(r.Sessions, sj)
	}
	return r
}

// writeSessionsText prints one table row per session; every datum from a
// lockd goes through field, so none spans columns or rows.
func writeSessionsText(w io.Writer, r sessionsJSON) {
	for _, l := range r.Lockds {
		fmt.Fprintf(w, "lockd %s: %d session(s)\n", l.URL, len(l.Sessions))
		if len(l.Sessions) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  SESSION\tPRINCIPAL\tNAME\tTTL\tIDENTITY\tLOCKS")
		for _, s := range l.Sessions {
			var locks []string
			for _, h := range s.Locks {
				items := make([]string, len(h.Items))
				for i, it := range h.Items {
					items[i] = field(it)
				}
				desc := field(h.Lock) + " " + strings.Join(items, ",")
				if h.Token != 0 {
					desc += " token " + strconv.FormatInt(h.Token, 10)
				}
				locks = append(locks, desc)
			}
			name := "-"
			if s.Name != "" {
				name = field(s.Name)
			}
			lockText := "-"
			if len(locks) > 0 {
				lockText = strings.Join(locks, "; ")
			}
			ident := "-"
			if s.Identity != "" {
				ident = field(s.Identity)
				if s.IdentitySessions > 1 {
					ident += " (shared by " + strconv.Itoa(s.IdentitySessions) + ")"
				}
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%gs\t%s\t%s\n", field(s.Session), field(s.Principal), name, s.TTLSeconds, ident, lockText)
		}
		tw.Flush()
	}
}
