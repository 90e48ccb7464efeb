package main

import "strings"

// splitHosts splits a comma-separated host list, dropping empty entries.
func splitHosts(s string) []string {
	var hs []string
	for _, h := range strings.Split(s, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hs = append(hs, h)
		}
	}
	return hs
}

// sanitize keeps the characters a process id may hold ([A-Za-z0-9._:-]).
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == ':', r == '-':
			return r
		}
		return '-'
	}, s)
}
