package client

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAPIErrorMessage(t *testing.T) {
	rec := &recorder{status: http.StatusNotFound, body: `{"error":{"code":"not_found","message":"workspace \"wks-1\" not found"}}`}
	c, _ := newTestClient(t, rec, nil)
	_, err := c.GetWorkspace(t.Context(), "wks-1")
	want := `GET /v3/workspaces/wks-1: 404 Not Found: not_found: workspace "wks-1" not found`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if !IsNotFound(err) || !IsStatus(err, 404) || IsStatus(err, 403) {
		t.Fatal("IsNotFound/IsStatus disagree with the status")
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err is %T, not an *APIError", err)
	}
	if apiErr.StatusCode != 404 || apiErr.Method != "GET" || apiErr.Path != "/v3/workspaces/wks-1" || apiErr.Code != "not_found" ||
		apiErr.Message != `workspace "wks-1" not found` || apiErr.Body == "" {
		t.Fatalf("fields = %+v", apiErr)
	}
	if rec.count() != 1 {
		t.Fatalf("a 404 was retried (%d requests)", rec.count())
	}
	if IsNotFound(nil) || IsNotFound(errors.New("404")) {
		t.Fatal("IsNotFound matches errors that are not APIErrors")
	}
	if !IsNotFound(fmt.Errorf("reading: %w", err)) {
		t.Fatal("IsNotFound does not see through wrapping")
	}
}

func TestErrorBodyShapes(t *testing.T) {
	long := strings.Repeat("x", 2000)
	tests := []struct {
		name, contentType, body string
		status                  int
		wantCode, wantMsg       string
		wantError               string // exact Error() when not empty
		wantBodyContains        string
	}{
		{name: "standard", body: `{"error":{"code":"invalid","message":"name is required"}}`, wantCode: "invalid", wantMsg: "name is required",
			wantError: "POST /v3/workspaces: 400 Bad Request: invalid: name is required"},
		{name: "error string", body: `{"error":"bad thing"}`, wantMsg: "bad thing"},
		{name: "message and code", body: `{"message":"too fast","code":429}`, wantCode: "429", wantMsg: "too fast"},
		{name: "detail", body: `{"detail":"Not authenticated"}`, wantMsg: "Not authenticated"},
		{name: "detail list", body: `{"detail":[{"loc":["body","name"],"msg":"field required"}]}`, wantMsg: `[{"loc":["body","name"],"msg":"field required"}]`},
		{name: "problem json", contentType: "application/problem+json", body: `{"type":"about:blank","title":"Bad Request","status":400,"detail":"size too big"}`,
			wantCode: "about:blank", wantMsg: "size too big"},
		{name: "errors list", body: `{"errors":[{"code":"E1","message":"first"},{"message":"second"}]}`, wantCode: "E1", wantMsg: "first"},
		{name: "errors strings", body: `{"errors":["first","second"]}`, wantMsg: "first"},
		{name: "oauth", body: `{"error":"invalid_token","error_description":"expired"}`, wantCode: "invalid_token", wantMsg: "expired"},
		{name: "nested message only", body: `{"error":{"message":"m"}}`, wantMsg: "m", wantError: "POST /v3/workspaces: 400 Bad Request: m"},
		{name: "nested code only", body: `{"error":{"code":"c"}}`, wantCode: "c"},
		{name: "unknown json", body: `{"foo": 1}`, wantError: `POST /v3/workspaces: 400 Bad Request: {"foo":1}`},
		{name: "empty", body: ``, wantError: "POST /v3/workspaces: 400 Bad Request"},
		{name: "empty 502", status: 502, body: ``, wantError: "POST /v3/workspaces: 502 Bad Gateway; " + ambiguousHint},
		{name: "unknown status", status: 599, body: `oops`, wantError: "POST /v3/workspaces: 599: oops"},
		{name: "plain text", contentType: "text/plain", body: "upstream\x00 connect\x1b[31m error\r\n\tor reset", wantError: "POST /v3/workspaces: 400 Bad Request: upstream connect [31m error or reset"},
		{name: "html", contentType: "text/html", status: 502, body: "<html><head><title>502 Bad Gateway</title><style>body{x:y}</style></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center><script>alert(1)</script></body></html>",
			wantBodyContains: "502 Bad Gateway 502 Bad Gateway nginx"},
		{name: "huge", contentType: "text/plain", body: long, wantBodyContains: "xxx…"},
		{name: "huge json message", body: `{"error":{"code":"c","message":"` + long + `"}}`, wantCode: "c"},
		{name: "invalid utf8", contentType: "text/plain", body: "bad \xff\xfe bytes \u202e reversed", wantError: "POST /v3/workspaces: 400 Bad Request: bad bytes reversed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := tt.status
			if status == 0 {
				status = http.StatusBadRequest
			}
			ct := tt.contentType
			if ct == "" {
				ct = "application/json"
			}
			e := newAPIError(status, "POST", "/v3/workspaces", ct, []byte(tt.body), keyScrubber(testKey))
			if e.Method == "POST" && (status == 502) != errors.Is(e, ErrAmbiguous) {
				t.Errorf("ambiguous = %v for status %d", errors.Is(e, ErrAmbiguous), status)
			}
			if tt.wantCode != "" && e.Code != tt.wantCode {
				t.Errorf("Code = %q, want %q", e.Code, tt.wantCode)
			}
			if tt.wantMsg != "" && e.Message != tt.wantMsg {
				t.Errorf("Message = %q, want %q", e.Message, tt.wantMsg)
			}
			if tt.wantError != "" && e.Error() != tt.wantError {
				t.Errorf("Error() = %q\nwant      %q", e.Error(), tt.wantError)
			}
			if tt.wantBodyContains != "" && !strings.Contains(e.Body, tt.wantBodyContains) {
				t.Errorf("Body = %q, want it to contain %q", e.Body, tt.wantBodyContains)
			}
			for _, s := range []string{e.Body, e.Message, e.Code} {
				if len(s) > maxExcerpt {
					t.Errorf("field of %d bytes: %q…", len(s), s[:40])
				}
				if !utf8.ValidString(s) {
					t.Errorf("invalid UTF-8 in %q", s)
				}
				for _, r := range s {
					if r < 0x20 || r == 0x7f {
						t.Errorf("control character %U in %q", r, s)
					}
				}
			}
			if strings.Contains(e.Body, "alert(1)") || strings.Contains(e.Body, "body{") {
				t.Errorf("script or style text kept: %q", e.Body)
			}
		})
	}
}

func TestAmbiguousStatusOnlyForPOST(t *testing.T) {
	for _, status := range []int{500, 502, 504} {
		post := newAPIError(status, "POST", "/v3/x", "", nil, keyScrubber("k"))
		if !errors.Is(post, ErrAmbiguous) || !strings.Contains(post.Error(), "the service may have acted on it") {
			t.Errorf("POST %d: not ambiguous: %v", status, post)
		}
	}
	for _, tt := range []struct {
		method string
		status int
	}{{"GET", 500}, {"PUT", 502}, {"POST", 400}, {"POST", 409}, {"POST", 429}, {"POST", 503}} {
		e := newAPIError(tt.status, tt.method, "/v3/x", "", nil, keyScrubber("k"))
		if errors.Is(e, ErrAmbiguous) {
			t.Errorf("%s %d is ambiguous", tt.method, tt.status)
		}
	}
}

func TestErrorBodyHugeAnswer(t *testing.T) {
	body := `{"error":{"code":"too_big","message":"` + strings.Repeat("m", 1<<20) + `"}}`
	rec := &recorder{status: http.StatusBadRequest, body: body}
	c, _ := newTestClient(t, rec, nil)
	_, err := c.ListWorkspaces(t.Context())
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v", err)
	}
	// Only the first 64 KiB are parsed: the JSON is cut, so the body excerpt
	// carries the information.
	if len(apiErr.Body) > maxExcerpt || !strings.HasPrefix(apiErr.Body, `{"error":{"code":"too_big"`) {
		t.Fatalf("Body = %q", apiErr.Body)
	}
	if len(err.Error()) > 2*maxExcerpt+100 {
		t.Fatalf("error message of %d bytes", len(err.Error()))
	}
}

func TestKeyScrubbedFromErrors(t *testing.T) {
	echo := []string{
		`{"error":{"code":"unauthorized","message":"key ` + testKey + ` is not valid"}}`,
		`{"error":{"code":"` + testKey + `","message":"x"}}`,
		`{"message":"key \"zk_live_S3cr3t-K3y\/+=\" rejected"}`,
		`<html><body>Denied for ` + testKey + `</body></html>`,
		`api_key=` + escapeQuery(testKey),
		`/v3/` + escapePath(testKey),
		strings.Repeat("a", 500) + testKey,
	}
	for _, body := range echo {
		e := newAPIError(401, "GET", "/v3/workspaces", "", []byte(body), keyScrubber(testKey))
		assertNoKey(t, e.Error())
		assertNoKey(t, fmt.Sprintf("%+v", *e))
		if !strings.Contains(e.Error(), "[REDACTED]") && !strings.Contains(e.Body, "[REDACTED]") {
			t.Errorf("no redaction marker for %q: %q", body, e.Error())
		}
	}

	// Through the client: an ID that happens to equal the key, a server
	// echoing it, a transport failure.
	rec := &recorder{status: http.StatusUnauthorized, body: echo[0]}
	logs := &logRecorder{}
	c, srv := newTestClient(t, rec, func(cfg *Config) { cfg.Logger = logs.log })
	_, err := c.GetWorkspace(t.Context(), testKey)
	if err == nil {
		t.Fatal("no error")
	}
	assertNoKey(t, err.Error())
	srv.Close()
	_, err = c.ListWorkspaces(t.Context())
	if err == nil {
		t.Fatal("no error from a closed server")
	}
	assertNoKey(t, err.Error())
	for _, e := range logs.all() {
		assertNoKey(t, fmt.Sprint(e))
	}
}

func TestTruncate(t *testing.T) {
	s := strings.Repeat("é", 300) // 600 bytes
	got := truncate(s, maxExcerpt)
	if len(got) > maxExcerpt || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
		t.Fatalf("truncate gave %d bytes: %q", len(got), got[len(got)-10:])
	}
	if truncate("short", maxExcerpt) != "short" {
		t.Fatal("short string changed")
	}
}

// TestUnauthorizedSaysWhatToCheck: a 401, and only a 401, names the
// api_key argument and the ZDM_API_KEY variable.
func TestUnauthorizedSaysWhatToCheck(t *testing.T) {
	e := &APIError{StatusCode: http.StatusUnauthorized, Method: "GET", Path: "/v3/workspaces", Code: "unauthorized", Message: "unknown API key"}
	got := e.Error()
	for _, want := range []string{"401 Unauthorized", "unknown API key", "check api_key", "ZDM_API_KEY"} {
		if !strings.Contains(got, want) {
			t.Errorf("401 message %q lacks %q", got, want)
		}
	}
	e.StatusCode = http.StatusForbidden
	if got := e.Error(); strings.Contains(got, "ZDM_API_KEY") {
		t.Errorf("403 message names ZDM_API_KEY: %q", got)
	}
}
