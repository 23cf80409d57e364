package acctest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// NewEnv starts a local server for an acceptance test.
func NewEnv(t *testing.T) *Env {
	t.Helper()
	return New(t, ProviderServer(t))
}

// APIClient is a client of the test's server with the test's key.
func APIClient(t *testing.T, e *Env) *client.Client {
	t.Helper()
	return APIClientWithKey(t, e, e.Bootstrap.APIKey)
}

func APIClientWithKey(t *testing.T, e *Env, key string) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: e.Server.BaseURL(), StorageURL: e.Server.StorageURL(), APIKey: key})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return c
}

// CaptureID stores the id of the resource at addr in dst.
func CaptureID(addr string, dst *string) resource.TestCheckFunc {
	return resource.TestCheckResourceAttrWith(addr, "id", func(v string) error {
		*dst = v
		return nil
	})
}

// ImportID returns the import ID "<workspace_id>/<id>" (or "<id>" when
// plain) of the resource at addr.
func ImportID(addr string, plain bool) resource.ImportStateIdFunc {
	return func(s *terraform.State) (string, error) {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return "", fmt.Errorf("%s not in state", addr)
		}
		if plain {
			return rs.Primary.ID, nil
		}
		return rs.Primary.Attributes["workspace_id"] + "/" + rs.Primary.ID, nil
	}
}

// MustServer is the provider's protocol server, as Terraform is served it.
func MustServer(tb testing.TB) tfprotov6.ProviderServer {
	tb.Helper()
	s, err := ProviderServer(tb)()
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// IdentityChecks asserts that the identity of the resource at addr holds
// exactly the given attributes, each equal to the same attribute of its
// state.
func IdentityChecks(addr string, attrs ...string) []statecheck.StateCheck {
	want := make(map[string]knownvalue.Check, len(attrs))
	checks := make([]statecheck.StateCheck, 0, len(attrs)+1)
	for _, a := range attrs {
		want[a] = knownvalue.NotNull()
		checks = append(checks, statecheck.ExpectIdentityValueMatchesState(addr, tfjsonpath.New(a)))
	}
	return append(checks, statecheck.ExpectIdentity(addr, want))
}

// ImportSteps are the import steps of every kind of import for the resource
// at addr: terraform import and an import block with an ID (idFunc), and an
// import block with the identity of the state.
func ImportSteps(addr string, idFunc resource.ImportStateIdFunc) []resource.TestStep {
	return []resource.TestStep{
		{
			ResourceName:      addr,
			ImportState:       true,
			ImportStateKind:   resource.ImportCommandWithID,
			ImportStateIdFunc: idFunc,
			ImportStateVerify: true,
		},
		{
			ResourceName:      addr,
			ImportState:       true,
			ImportStateKind:   resource.ImportBlockWithID,
			ImportStateIdFunc: idFunc,
			ImportPlanChecks: resource.ImportPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop)},
			},
		},
		{
			ResourceName:    addr,
			ImportState:     true,
			ImportStateKind: resource.ImportBlockWithResourceIdentity,
			ImportPlanChecks: resource.ImportPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop)},
			},
		},
	}
}

// Wrapped matches text in an error message that Terraform may have wrapped
// over several lines: each space of text matches any white space.
func Wrapped(text string) *regexp.Regexp {
	parts := strings.Fields(text)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(strings.Join(parts, `\s+`))
}

// Routes of the list calls and of the device writes, as the local server
// counts them.
const (
	RouteListWorkspaces = "GET /v3/workspaces"
	RouteListFleets     = "GET /v3/workspaces/{workspace_id}/fleets"
	RouteListDevices    = "GET /v3/workspaces/{workspace_id}/devices"
	RouteCreateDevice   = "POST /v3/workspaces/{workspace_id}/devices"
	RouteUpdateDevice   = "PUT /v3/workspaces/{workspace_id}/devices/{device_id}"
)

// CreateDevices creates n devices named prefix-NN in fleetID ("" for the
// default fleet) outside Terraform and returns their IDs.
func CreateDevices(t testing.TB, e *Env, fleetID, prefix string, n int) []string {
	t.Helper()
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%05d", prefix, i+1)
	}
	ids, err := e.Server.CreateDevices(e.Bootstrap.WorkspaceID, fleetID, names)
	if err != nil {
		t.Fatalf("create %d devices: %v", n, err)
	}
	return ids
}

// Head returns the first n lines of s.
func Head(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// Tail returns the last n lines of s, its final newlines dropped.
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// NewDevices creates devices in the default fleet of the test's workspace,
// out of band, and returns their IDs.
func NewDevices(t *testing.T, e *Env, names ...string) []string {
	t.Helper()
	ids, err := e.Server.CreateDevices(e.Bootstrap.WorkspaceID, "", names)
	if err != nil {
		t.Fatalf("create devices: %v", err)
	}
	return ids
}

// ScheduleJob schedules a job out of band.
func ScheduleJob(t *testing.T, e *Env, deviceID, name, value string) {
	t.Helper()
	if _, err := APIClient(t, e).ScheduleJob(context.Background(), deviceID, name, json.RawMessage(value)); err != nil {
		t.Fatalf("schedule job %s on %s: %v", name, deviceID, err)
	}
}

// ExpectSends is a check that the server sent the job (kind "job", name the
// job's name) or firmware update (kind "fota", name the firmware ID) to
// device dev exactly want times since it started.
func ExpectSends(e *Env, kind, dev, name string, want int) func(*terraform.State) error {
	return func(*terraform.State) error {
		got := 0
		for _, s := range e.Server.Sends() {
			if s.Kind == kind && s.DeviceID == dev && s.Name == name {
				got++
			}
		}
		if got != want {
			return fmt.Errorf("%s %q sent to device %s %d times, want %d", kind, name, dev, got, want)
		}
		return nil
	}
}

// ExpectNoRequests fails t when the server answered requests since before.
func ExpectNoRequests(t *testing.T, e *Env, before int64) {
	t.Helper()
	if got := e.Server.TotalRequests() - before; got != 0 {
		t.Errorf("invalid configurations made %d API requests, want 0: %v", got, e.Server.Counters())
	}
}

// BenchScale reads ZDM_BENCH_SCALE.
func BenchScale(t *testing.T) int {
	t.Helper()
	v := os.Getenv("ZDM_BENCH_SCALE")
	if v == "" {
		return 1
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("ZDM_BENCH_SCALE=%q: want a whole number >= 1", v)
	}
	return n
}

// FrontEnv is an acceptance test environment whose provider reaches the
// management service through a front handler on its own loopback listener.
// The front counts the answers by status and can cut POST requests before
// the server sees them.
type FrontEnv struct {
	*Env
	// URL is the address of the front (no /v3).
	URL string

	mu       sync.Mutex
	statuses map[int]int64

	// CutPOSTs is the number of coming POST requests to close without
	// forwarding them, after the request was read: to the client, the
	// request was sent and no answer came.
	CutPOSTs atomic.Int64

	// Override, when set, may answer a request instead of the server
	// (returning true).
	Override atomic.Pointer[func(http.ResponseWriter, *http.Request) bool]
}

func NewFrontEnv(t *testing.T) *FrontEnv {
	t.Helper()
	fe := &FrontEnv{Env: New(t, ProviderServer(t)), statuses: map[int]int64{}}
	inner := fe.Server.ManagementHandler()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := fe.Override.Load(); o != nil && (*o)(w, r) {
			return
		}
		if r.Method == http.MethodPost && fe.takeCut() {
			fe.count(0)
			CloseConnection(w)
			return
		}
		rw := &recordingWriter{ResponseWriter: w}
		defer func() { fe.count(rw.status) }()
		inner.ServeHTTP(rw, r)
	})
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	fe.URL = "http://" + ln.Addr().String()
	return fe
}

// takeCut reports whether to cut this POST, counting it.
func (fe *FrontEnv) takeCut() bool {
	for {
		n := fe.CutPOSTs.Load()
		if n <= 0 {
			return false
		}
		if fe.CutPOSTs.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// count records an answer; status 0 is a connection closed without one (by
// the front, or by the server after acting).
func (fe *FrontEnv) count(status int) {
	fe.mu.Lock()
	fe.statuses[status]++
	fe.mu.Unlock()
}

// Statuses returns the answers counted so far, by status.
func (fe *FrontEnv) Statuses() map[int]int64 {
	fe.mu.Lock()
	defer fe.mu.Unlock()
	out := make(map[int]int64, len(fe.statuses))
	for k, v := range fe.statuses {
		out[k] = v
	}
	return out
}

// ResetStatuses forgets the answers counted so far.
func (fe *FrontEnv) ResetStatuses() {
	fe.mu.Lock()
	fe.statuses = map[int]int64{}
	fe.mu.Unlock()
}

// Config is a provider block for the front with extra provider arguments,
// followed by body.
func (fe *FrontEnv) Config(extra, body string) string {
	return fmt.Sprintf(`
provider "zdm" {
  base_url     = %q
  api_key      = %q
  workspace_id = %q
%s
}
%s`, fe.URL, fe.Bootstrap.APIKey, fe.Bootstrap.WorkspaceID, extra, body)
}

// Client is an API client of the server (not through the front) that rides
// out injected faults.
func (fe *FrontEnv) Client(t *testing.T) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: fe.Server.BaseURL(), APIKey: fe.Bootstrap.APIKey, MaxRetries: 20})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recordingWriter records the status of an answer. Unwrap lets
// http.ResponseController reach the connection (the server hijacks it to
// drop it).
type recordingWriter struct {
	http.ResponseWriter
	status int
}

func (w *recordingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// NewFleetWithDevices creates a fleet with devices out of band.
func NewFleetWithDevices(t *testing.T, e *Env, name string, devices ...string) (string, []string) {
	t.Helper()
	f, err := APIClient(t, e).CreateFleet(context.Background(), e.Bootstrap.WorkspaceID, name, "")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := e.Server.CreateDevices(e.Bootstrap.WorkspaceID, f.ID, devices)
	if err != nil {
		t.Fatal(err)
	}
	return f.ID, ids
}

// JobValueNotEchoed tells whether the local server of the acceptance tests
// answers job reads without their value (the job_value choice).
func JobValueNotEchoed(t *testing.T) bool {
	t.Helper()
	choices, err := EnvChoices()
	if err != nil {
		t.Fatal(err)
	}
	return choices.JobValue == localzdm.JobValueOmit || choices.JobValue == localzdm.JobValueNull
}

// DefaultFleetID returns the ID of the default fleet of the test's
// workspace, as the server lists it.
func DefaultFleetID(t *testing.T, e *Env) string {
	t.Helper()
	fleets, err := APIClient(t, e).ListFleets(context.Background(), e.Bootstrap.WorkspaceID)
	if err != nil {
		t.Fatalf("list the fleets: %v", err)
	}
	id := ""
	for _, f := range fleets {
		if f.Name == "default" {
			if id != "" {
				t.Fatalf("two fleets named default: %+v", fleets)
			}
			id = f.ID
		}
	}
	if id == "" {
		t.Fatalf("no default fleet in %+v", fleets)
	}
	return id
}

// CloseConnection closes the client connection without answering.
func CloseConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}
