package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/spf13/cobra"
)

// lockctl view prints a panel of a lockd's web view: it asks each lockd
// named for the view's JSON (GET /ui/api/<panel>, lockd --ui), the very
// data the page renders for the same principal, and prints it as text or,
// with --output json, as the lockd sent it. The hottest ids, the deadlock
// reports and the charts live only in that lockd's memory: no read of the
// cluster gives them.

const viewLong = `view prints one panel of the web view of one or more lockd servers (lockd
--ui), the data the page at /ui/ shows: the migration phase, the census and
the blocked moves (fleet); the hottest ids with their holders, fencing
tokens and waiters (hot); the lockd's sessions and their locks (sessions);
the deadlocks broken in the last five minutes (deadlocks); acquisitions/s,
wait p50/p99 and losses/s per mode over five minutes (charts). It reaches
the lockds named by --lockd (or LOCKSTEP_LOCKD_URL), not the cluster. A
lockd with principals answers only a principal granted "web_view": true,
and shows it only ids under its prefixes; give its bearer token in
LOCKSTEP_LOCKD_TOKEN or a file named by --lockd-token-file. With --output
json it prints each lockd's answer as the lockd sent it, with its url.`

// viewPanels are view's subcommands: the panel, and what it prints.
var viewPanels = []struct{ name, short string }{
	{"fleet", "the phase, the census and what blocks each phase move, as a lockd sees them"},
	{"hot", "the hottest ids of a lockd: holders, fencing tokens, waiters in line order"},
	{"sessions", "a lockd's sessions and their locks, as its web view shows them"},
	{"deadlocks", "the deadlocks a lockd broke in the last five minutes: cycles and comments"},
	{"charts", "acquisitions/s, wait p50/p99 and losses/s per mode over five minutes"},
}

func (a *app) viewCommand(o *options) *cobra.Command {
	var subs []*cobra.Command
	for _, p := range viewPanels {
		subs = append(subs, a.viewPanelCommand(o, p.name, p.short))
	}
	g := group("view", "print a panel of lockd's web view (lockd --ui): fleet, hot, sessions, deadlocks, charts", subs...)
	g.Long = viewLong
	return g
}

func (a *app) viewPanelCommand(o *options, panel, short string) *cobra.Command {
	c := &lockdTarget{}
	cmd := &cobra.Command{
		Use:     panel,
		Short:   short,
		Long:    viewLong,
		Example: "  LOCKSTEP_LOCKD_TOKEN=... lockctl view " + panel + " --lockd https://lockd-1:7420 --lockd-ca ca.pem --output json",
		Args:    cobra.ArbitraryArgs,
	}
	c.register(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		name := "view " + panel
		if err := noArgs(args); err != nil {
			return usageError(fmt.Errorf("%s: %w", name, err))
		}
		if err := c.fromEnv(cmd.Flags(), a.getenv); err != nil {
			return usageError(err)
		}
		client, token, err := c.prepare(a.getenv)
		if err != nil {
			return usageError(fmt.Errorf("%s: %w", name, err))
		}
		if err := runView(cmd.Context(), a, o, c.urls, client, token, panel); err != nil {
			return &exitError{code: exitCode(err), err: err}
		}
		return nil
	}
	return cmd
}

// runView prints panel of each lockd; a lockd that fails is reported after
// the others are printed.
func runView(ctx context.Context, a *app, o *options, urls []string, client *http.Client, token, panel string) error {
	var answers []viewAnswer
	var docs []map[string]json.RawMessage
	var errs []error
	for _, u := range urls {
		raw, err := fetchView(ctx, client, u, token, panel)
		if err == nil {
			var ans viewAnswer
			var doc map[string]json.RawMessage
			if err = errors.Join(json.Unmarshal(raw, &ans), json.Unmarshal(raw, &doc)); err != nil {
				err = fmt.Errorf("lockd at %s: its answer is not the web view's JSON: %w", u, err)
			} else {
				ans.URL, doc["url"] = u, mustJSON(u)
				answers, docs = append(answers, ans), append(docs, doc)
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if o.json() {
		if docs == nil {
			docs = []map[string]json.RawMessage{}
		}
		if err := writeJSON(a.stdout, map[string]any{"lockds": docs}); err != nil {
			return err
		}
	} else {
		for _, ans := range answers {
			writeViewText(a.stdout, panel, ans)
		}
	}
	return errors.Join(errs...) // exit code: the first failure's
}

func mustJSON(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// fetchView gets one panel of one lockd's web view.
func fetchView(ctx context.Context, client *http.Client, base, token, panel string) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/ui/api/"+panel, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
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
	var ce struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	isJSON := strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") && json.Unmarshal(body, &ce) == nil
	switch {
	case res.StatusCode == http.StatusOK && isJSON:
		return body, nil
	case res.StatusCode == http.StatusOK:
		return nil, fmt.Errorf("lockd at %s: its answer to /ui/api/%s is not JSON (%s): is --lockd a lockd's address?", base, panel, res.Header.Get("Content-Type"))
	case (res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden) && isJSON:
		return nil, refusedError(fmt.Errorf("lockd at %s refused its web view (%s): %s; give the token of a principal granted \"web_view\" (LOCKSTEP_LOCKD_TOKEN or --lockd-token-file)", base, ce.Code, ce.Message))
	case res.StatusCode == http.StatusNotFound && !isJSON:
		return nil, fmt.Errorf("lockd at %s serves no web view (HTTP 404 for /ui/api/%s): start it with --ui (LOCKSTEP_LOCKD_UI=true), in a version with the view's JSON", base, panel)
	case isJSON && ce.Message != "":
		return nil, fmt.Errorf("lockd at %s refused /ui/api/%s (HTTP %d, %s): %s", base, panel, res.StatusCode, ce.Code, ce.Message)
	}
	return nil, fmt.Errorf("lockd at %s answered /ui/api/%s with HTTP %d", base, panel, res.StatusCode)
}
