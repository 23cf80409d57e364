package client

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// quotaServer answers every request with a workspace list and the quota
// headers of header; it counts the requests it receives.
func quotaServer(t *testing.T, header map[string]string, mod func(*Config)) (*Client, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		for k, v := range header {
			w.Header().Set(k, v)
		}
		_, _ = w.Write([]byte(`{"workspaces":[]}`))
	}), mod)
	return c, &n
}

// A quota used up until a reset hours away fails the next request at once,
// not sent, naming the reset, the header fields that said so and what to
// do; a reset within the request's time is waited for (the control).
func TestQuotaSpentUntilALateResetFailsAtOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		header map[string]string
		said   string
	}{
		{"X- headers", map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "72000"},
			"X-RateLimit-Remaining: 0, X-RateLimit-Reset: 72000"},
		{"X- headers, a Unix time", map[string]string{"X-RateLimit-Remaining": "0",
			"X-RateLimit-Reset": strconv.FormatInt(time.Now().Add(20*time.Hour).Unix(), 10)},
			"X-RateLimit-Remaining: 0, X-RateLimit-Reset: "},
		{"IETF fields", map[string]string{"RateLimit": `"default";r=0;t=72000`},
			`RateLimit: "default";r=0;t=72000`},
		{"earlier drafts", map[string]string{"RateLimit-Remaining": "0", "RateLimit-Reset": "72000"},
			"RateLimit-Remaining: 0, RateLimit-Reset: 72000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, n := quotaServer(t, tc.header, nil)
			if _, err := c.ListWorkspaces(t.Context()); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err := c.ListWorkspaces(t.Context())
			if err == nil {
				t.Fatal("the request after the quota was used up succeeded")
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("the request waited %s before it failed", d)
			}
			var spent *QuotaSpentError
			if !errors.As(err, &spent) || !errors.Is(err, ErrNotSent) {
				t.Errorf("error %v is not a not-sent QuotaSpentError", err)
			}
			msg := err.Error()
			reset := time.Now().Add(20 * time.Hour).UTC().Format("2006-01-02T15:")
			for _, want := range []string{"GET /v3/workspaces: not sent", "used up until " + reset, tc.said,
				"request_timeout", "Run the apply again after", "another API key"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the error does not say %q:\n%s", want, msg)
				}
			}
			if strings.Contains(msg, "interrupted") {
				t.Errorf("the error says the operation was interrupted:\n%s", msg)
			}
			if got := n.Load(); got != 1 {
				t.Errorf("the service received %d requests, want 1 (the one that said the quota)", got)
			}
		})
	}
}

// A reset within the request's time is waited for, and the request sent;
// one past the operation's deadline, sooner than request_timeout, fails at
// once naming the deadline.
func TestQuotaSpentUntilAResetWithinTheTimeIsWaitedFor(t *testing.T) {
	t.Parallel()
	c, n := quotaServer(t, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1"}, nil)
	for range 2 {
		if _, err := c.ListWorkspaces(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if got := n.Load(); got != 2 {
		t.Errorf("the service received %d requests, want 2", got)
	}

	c, n = quotaServer(t, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "30"}, nil)
	if _, err := c.ListWorkspaces(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	_, err := c.ListWorkspaces(ctx)
	if err == nil || !strings.Contains(err.Error(), "the operation's deadline") || !errors.Is(err, ErrNotSent) {
		t.Errorf("a reset past the deadline: error %v, want a not-sent error naming the deadline", err)
	}
	if got := n.Load(); got != 1 {
		t.Errorf("the service received %d requests, want 1", got)
	}
}
