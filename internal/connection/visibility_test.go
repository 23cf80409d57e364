package connection

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// proofServer answers GET /v3/workspaces/{id} with status and counts the
// requests.
type proofServer struct {
	status atomic.Int64
	n      atomic.Int32
}

func (p *proofServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.n.Add(1)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(p.status.Load()))
	if p.status.Load() == http.StatusOK {
		_, _ = w.Write([]byte(`{"workspace":{"id":"wks-1","name":"w"}}`))
		return
	}
	_, _ = w.Write([]byte(`{"error":{"code":"not_found","message":"no such route"}}`))
}

func newProofData(t *testing.T, status int) (*ProviderData, *proofServer) {
	t.Helper()
	ps := &proofServer{}
	ps.status.Store(int64(status))
	srv := httptest.NewServer(ps)
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{BaseURL: srv.URL, APIKey: "test-key-123", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return &ProviderData{Client: c, Visible: NewVisibility(c)}, ps
}

// TestConfirmGoneProvesOncePerWorkspace: concurrent 404s of one workspace
// cost one GET of the workspace; a 200 allows the removal.
func TestConfirmGoneProvesOncePerWorkspace(t *testing.T) {
	d, ps := newProofData(t, http.StatusOK)
	notFound := errors.New("GET /v3/workspaces/wks-1/devices/dev-1: 404 Not Found")
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if err := d.ConfirmGone(context.Background(), "device", "wks-1", "dev-1", notFound); err != nil {
				t.Errorf("confirmGone with a visible workspace: %v", err)
			}
		})
	}
	wg.Wait()
	if got := ps.n.Load(); got != 1 {
		t.Errorf("%d GETs of the workspace, want 1", got)
	}
}

// TestConfirmGoneUsesEarlierAnswers: a workspace already seen in an answer
// 200 of the operation needs no GET.
func TestConfirmGoneUsesEarlierAnswers(t *testing.T) {
	d, ps := newProofData(t, http.StatusNotFound)
	d.SawWorkspace("wks-1")
	if err := d.ConfirmGone(context.Background(), "device", "wks-1", "dev-1", errors.New("404")); err != nil {
		t.Errorf("confirmGone after the workspace was seen: %v", err)
	}
	if got := ps.n.Load(); got != 0 {
		t.Errorf("%d GETs of a workspace already seen, want 0", got)
	}
	// Control: another workspace, not seen, is proven with a GET (which
	// fails here).
	if err := d.ConfirmGone(context.Background(), "device", "wks-2", "dev-1", errors.New("404")); err == nil || ps.n.Load() != 1 {
		t.Errorf("confirmGone of an unseen workspace: %v, %d GETs; want an error after 1 GET", err, ps.n.Load())
	}
}

// TestConfirmGoneRefusesUnprovenWorkspace: when the workspace itself
// answers 404 (a catch-all, another service), the error names base_url, the
// workspace and both answers, and the answer is kept for the operation.
func TestConfirmGoneRefusesUnprovenWorkspace(t *testing.T) {
	d, ps := newProofData(t, http.StatusNotFound)
	notFound := errors.New("GET /v3/workspaces/wks-1/fleets/flt-1: 404 Not Found: catch-all")
	for range 3 {
		err := d.ConfirmGone(context.Background(), "fleet", "wks-1", "flt-1", notFound)
		if err == nil {
			t.Fatal("confirmGone with an invisible workspace allowed the removal")
		}
		for _, want := range []string{d.Client.BaseURL(), `workspace "wks-1"`, "catch-all", "GET /v3/workspaces/wks-1: 404",
			"kept in the state", "Check base_url"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("message lacks %q: %v", want, err)
			}
		}
	}
	if got := ps.n.Load(); got != 1 {
		t.Errorf("%d GETs of the workspace, want 1 (the answer is kept)", got)
	}
}

// TestConfirmGoneExplainsRefusals: a 403 of the workspace names the rule
// of keys bound to one workspace.
func TestConfirmGoneExplainsRefusals(t *testing.T) {
	d, _ := newProofData(t, http.StatusForbidden)
	err := d.ConfirmGone(context.Background(), "device", "wks-1", "dev-1", errors.New("404"))
	if err == nil || !strings.Contains(err.Error(), "An API key is bound to one workspace") {
		t.Errorf("403 proof: %v", err)
	}
	unauthorized := &client.APIError{StatusCode: http.StatusUnauthorized, Method: "GET", Path: "/v3/workspaces"}
	if got := DescribeError(unauthorized, "wks-1"); strings.Count(got, "wrong, expired or revoked") != 1 ||
		!strings.Contains(got, "check api_key") || !strings.Contains(got, EnvAPIKey) {
		t.Errorf("401, explained once, naming api_key and %s: %q", EnvAPIKey, got)
	}
	if got := explainRefusal(errors.New("boom"), "wks-1"); got != "" {
		t.Errorf("other error explained: %q", got)
	}
}
