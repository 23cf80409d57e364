package connection

import (
	"errors"
	"strings"
	"testing"
)

func TestSentence(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"listing failed", "listing failed."},
		{"listing failed.", "listing failed."},
		{"which plain HTTP requires ", "which plain HTTP requires."},
		{"is it ready?", "is it ready?"},
		{"the devices:", "the devices:"},
		{"", ""},
	} {
		if got := Sentence(tc.in); got != tc.want {
			t.Errorf("Sentence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A message goes on after DescribeError ("... failed: <error> Plan
// again."), so its text ends a sentence whatever the error's own text.
func TestDescribeErrorEndsASentence(t *testing.T) {
	err := errors.New("GET /v3/workspaces/wks-1/devices: the server at 127.0.0.1:1 answers plain HTTP, not HTTPS: " +
		"use an http:// address in base_url, with insecure_http = true, which plain HTTP requires")
	got := DescribeError(err, "wks-1") + " Plan again."
	if !strings.Contains(got, "which plain HTTP requires. Plan again.") {
		t.Errorf("the error runs into the next sentence: %s", got)
	}
	// Positive control: the raw text would have run on.
	if raw := err.Error() + " Plan again."; !strings.Contains(raw, "requires Plan again.") {
		t.Fatalf("control: %s", raw)
	}
}
