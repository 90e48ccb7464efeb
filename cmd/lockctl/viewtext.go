package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// viewAnswer is a lockd's web-view JSON (lockd/viewpanels.go names the
// fields), as far as the text output prints it; --output json prints the
// answer itself.
type viewAnswer struct {
	URL       string    `json:"-"`
	Principal string    `json:"principal"`
	At        time.Time `json:"at"`
	Fleet     struct {
		Description string `json:"description"`
		Err         string `json:"error"`
		Processes   []struct {
			Process, Host, Version, Configured string
			Held                               map[string]int `json:"held"`
			Acquiring                          map[string]int `json:"acquiring"`
			HeartbeatAge                       float64        `json:"heartbeat_age_seconds"`
			TTL                                float64        `json:"ttl_seconds"`
			Self                               bool           `json:"self"`
			Err                                string         `json:"error"`
		} `json:"processes"`
		Moves []struct {
			To      string `json:"to"`
			Blocked bool   `json:"blocked"`
			Text    string `json:"text"`
		} `json:"moves"`
	} `json:"fleet"`
	Hot struct {
		Err string `json:"error"`
		IDs []struct {
			ID                  string
			Acquired, Contended int
			State, Legacy       string
			Err                 string `json:"error"`
			Holders             []struct {
				Owner, Process, Access, Session, Lock string
				InLine                                *float64 `json:"in_line_seconds"`
				Token                                 int64    `json:"token"`
			} `json:"holders"`
			Waiters []struct {
				Pos                                        int `json:"position"`
				Owner, Session, Principal, Access, Comment string
				Waited                                     float64 `json:"waited_seconds"`
			} `json:"waiters"`
		} `json:"ids"`
	} `json:"hot"`
	Sessions struct {
		All      bool `json:"all"`
		Sessions []struct {
			Session, Name, Principal, Identity string
			TTL                                float64 `json:"ttl_seconds"`
			Sharing                            int     `json:"identity_sessions"`
			Hidden                             int     `json:"hidden_locks"`
			Locks                              []struct {
				Lock  string                        `json:"lock"`
				Token int64                         `json:"token"`
				Items []struct{ ID, Access string } `json:"items"`
			} `json:"locks"`
		} `json:"sessions"`
	} `json:"sessions"`
	Deadlocks []struct {
		At    time.Time `json:"at"`
		Cycle []struct {
			Process, Waits, Access, Comment string
			HeldBy                          string `json:"held_by"`
			HeldIn                          string `json:"held_in"`
		} `json:"cycle"`
	} `json:"deadlocks"`
	Charts []struct {
		Title, Unit string
		Lines       []struct {
			Mode   string    `json:"mode"`
			Values []float64 `json:"values"`
		} `json:"lines"`
	} `json:"charts"`
}

// writeViewText prints panel of one lockd's answer. Every datum from the
// lockd goes through field or text (escape.go).
func writeViewText(w io.Writer, panel string, v viewAnswer) {
	fmt.Fprintf(w, "lockd %s (principal %s, at %s)\n", v.URL, field(v.Principal), v.At.UTC().Format(time.RFC3339))
	switch panel {
	case "fleet":
		writeViewFleet(w, v)
	case "hot":
		writeViewHot(w, v)
	case "sessions":
		writeViewSessions(w, v)
	case "deadlocks":
		writeViewDeadlocks(w, v)
	case "charts":
		writeViewCharts(w, v)
	}
}

func writeViewFleet(w io.Writer, v viewAnswer) {
	f := v.Fleet
	if f.Err != "" {
		fmt.Fprintf(w, "  error: %s\n", text(f.Err))
		return
	}
	fmt.Fprintf(w, "  phase: %s\n", text(f.Description))
	for _, m := range f.Moves {
		state := "free"
		if m.Blocked {
			state = "blocked"
		}
		fmt.Fprintf(w, "  move to %s: %s: %s\n", field(m.To), state, text(m.Text))
	}
	fmt.Fprintf(w, "  %d live process(es)\n", len(f.Processes))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  PROCESS\tHOST\tVERSION\tMODE\tHELD\tACQUIRING\tHEARTBEAT\tTTL")
	for _, p := range f.Processes {
		name := field(p.Process)
		if p.Self {
			name += " (this lockd)"
		}
		if p.Err != "" {
			fmt.Fprintf(tw, "  %s\terror: %s\n", name, text(p.Err))
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s ago\t%gs\n", name, field(p.Host), field(p.Version), field(p.Configured),
			modeCounts(p.Held), modeCounts(p.Acquiring), seconds(p.HeartbeatAge), p.TTL)
	}
	tw.Flush()
}

// modeCounts renders counts per mode, "combined×1,new×2", or "-".
func modeCounts(m map[string]int) string {
	var parts []string
	for k, n := range m {
		parts = append(parts, field(k)+"×"+strconv.Itoa(n))
	}
	if len(parts) == 0 {
		return "-"
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// seconds renders a duration given in seconds, to the millisecond.
func seconds(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return field(s)
}

func writeViewHot(w io.Writer, v viewAnswer) {
	h := v.Hot
	if h.Err != "" {
		fmt.Fprintf(w, "  error: %s\n", text(h.Err))
	}
	fmt.Fprintf(w, "  %d hot id(s)\n", len(h.IDs))
	for _, id := range h.IDs {
		fmt.Fprintf(w, "  %s: %s; %d acquired, %d contended in 5 min\n", field(id.ID), field(id.State), id.Acquired, id.Contended)
		if id.Err != "" {
			fmt.Fprintf(w, "    error: %s\n", text(id.Err))
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		if len(id.Holders) > 0 {
			fmt.Fprintln(tw, "    HOLDER\tPROCESS\tACCESS\tIN LINE\tTOKEN\tSESSION\tLOCK")
		}
		for _, ho := range id.Holders {
			inLine, token := "-", "-"
			if ho.InLine != nil {
				inLine = seconds(*ho.InLine)
			}
			if ho.Token != 0 {
				token = strconv.FormatInt(ho.Token, 10)
			}
			fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\t%s\t%s\t%s\n", field(ho.Owner), orDash(ho.Process), field(ho.Access), inLine, token, orDash(ho.Session), orDash(ho.Lock))
		}
		if len(id.Waiters) > 0 {
			fmt.Fprintln(tw, "    #\tWAITER\tACCESS\tWAITING\tCOMMENT")
		}
		for _, q := range id.Waiters {
			who := field(q.Owner)
			if q.Owner == "" {
				who = "session " + field(q.Session) + " (" + field(q.Principal) + ")"
			}
			fmt.Fprintf(tw, "    %d\t%s\t%s\t%s\t%s\n", q.Pos, who, field(q.Access), seconds(q.Waited), orDash(q.Comment))
		}
		tw.Flush()
		if len(id.Waiters) == 0 {
			fmt.Fprintln(w, "    nobody waits")
		}
		if id.Legacy != "" {
			fmt.Fprintf(w, "    legacy lock: %s\n", text(id.Legacy))
		}
	}
}

func writeViewSessions(w io.Writer, v viewAnswer) {
	s := v.Sessions
	scope := "the principal's own (grant \"list_sessions\" to see every principal's)"
	if s.All {
		scope = "every live session; locks on ids outside the principal's prefixes are counted, not shown"
	}
	fmt.Fprintf(w, "  %d session(s): %s\n", len(s.Sessions), scope)
	if len(s.Sessions) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  SESSION\tPRINCIPAL\tNAME\tTTL\tIDENTITY\tLOCKS")
	for _, ss := range s.Sessions {
		var locks []string
		for _, l := range ss.Locks {
			items := make([]string, len(l.Items))
			for i, it := range l.Items {
				items[i] = field(it.ID) + ":" + field(it.Access)
			}
			desc := field(l.Lock) + " " + strings.Join(items, ",")
			if l.Token != 0 {
				desc += " token " + strconv.FormatInt(l.Token, 10)
			}
			locks = append(locks, desc)
		}
		if ss.Hidden > 0 {
			locks = append(locks, strconv.Itoa(ss.Hidden)+" outside the prefixes")
		}
		lockText := "-"
		if len(locks) > 0 {
			lockText = strings.Join(locks, "; ")
		}
		ident := orDash(ss.Identity)
		if ss.Sharing > 1 {
			ident += " (shared by " + strconv.Itoa(ss.Sharing) + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%gs\t%s\t%s\n", field(ss.Session), field(ss.Principal), orDash(ss.Name), ss.TTL, ident, lockText)
	}
	tw.Flush()
}

func writeViewDeadlocks(w io.Writer, v viewAnswer) {
	fmt.Fprintf(w, "  %d deadlock(s) broken in the last five minutes\n", len(v.Deadlocks))
	for _, d := range v.Deadlocks {
		fmt.Fprintf(w, "  at %s: a cycle of %d waits; the first was failed to break it\n", d.At.UTC().Format("15:04:05.000"), len(d.Cycle))
		for i, m := range d.Cycle {
			fmt.Fprintf(w, "    %d. %s waits for %s (%s), held in %s by %s", i+1, field(m.Process), field(m.Waits), field(m.Access), field(m.HeldIn), field(m.HeldBy))
			if m.Comment != "" {
				fmt.Fprintf(w, ": %s", field(m.Comment))
			}
			fmt.Fprintln(w)
		}
	}
}

func writeViewCharts(w io.Writer, v viewAnswer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  MEASURE\tMODE\tLAST\tMEAN\tMAX")
	for _, c := range v.Charts {
		if len(c.Lines) == 0 {
			fmt.Fprintf(tw, "  %s\t-\t-\t-\t-\n", text(c.Title))
		}
		for _, l := range c.Lines {
			last, sum, top := 0.0, 0.0, 0.0
			for _, x := range l.Values {
				last, sum, top = x, sum+x, max(top, x)
			}
			mean := sum / float64(max(len(l.Values), 1))
			unit := field(c.Unit)
			fmt.Fprintf(tw, "  %s\t%s\t%.3g %s\t%.3g %s\t%.3g %s\n", text(c.Title), field(l.Mode), last, unit, mean, unit, top, unit)
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "  (over the last five minutes, one value a second; --output json has every second)")
}
