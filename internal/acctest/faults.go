package acctest

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// Helpers of the fault tests of several families: the error a test expects,
// the devices the service holds afterwards, and the faults a FrontEnv's
// Override injects.

// ErrorPattern matches an error that contains the parts in order. Terraform
// wraps long diagnostics, so a space in a part matches any white space.
func ErrorPattern(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = strings.Join(strings.Fields(regexp.QuoteMeta(p)), `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, `.*`))
}

// DeviceNames lists the names of the devices of the workspace, sorted.
func DeviceNames(t *testing.T, c *client.Client, ws string) []string {
	t.Helper()
	devices, err := c.ListDevices(context.Background(), ws)
	if err != nil {
		t.Fatalf("list devices: %v", err)
	}
	names := make([]string, 0, len(devices))
	for _, d := range devices {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	return names
}

// CheckExactly fails t unless got (sorted) is want (sorted): no name
// missing, none twice, none extra.
func CheckExactly(t *testing.T, what string, got, want []string) {
	t.Helper()
	want = slices.Clone(want)
	slices.Sort(want)
	if slices.Equal(got, want) {
		return
	}
	counts := map[string]int{}
	for _, n := range got {
		counts[n]++
	}
	var missing, dup, extra []string
	for _, n := range want {
		switch counts[n] {
		case 0:
			missing = append(missing, n)
		case 1:
		default:
			dup = append(dup, n)
		}
		delete(counts, n)
	}
	for n := range counts {
		extra = append(extra, n)
	}
	t.Errorf("%s: %d objects, want %d; missing %v, duplicated %v, unexpected %v", what, len(got), len(want), missing, dup, extra)
}

// FaultNth returns a front override that applies act to the n-th POST
// (1-based) whose path ends in suffix, and lets every other request through.
func FaultNth(n int64, suffix string, act func(w http.ResponseWriter, r *http.Request)) *func(http.ResponseWriter, *http.Request) bool {
	var seen atomic.Int64
	f := func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, suffix) || seen.Add(1) != n {
			return false
		}
		act(w, r)
		return true
	}
	return &f
}

// Reset closes the connection without forwarding the request.
func Reset(w http.ResponseWriter, _ *http.Request) { CloseConnection(w) }
