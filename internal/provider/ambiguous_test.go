package provider

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// Ambiguous creates through the real CLI: a create reset before it reaches
// the service, an answer dropped after the service acted, and a create held
// past request_timeout. The provider adopts only what can only be its own
// (see DESIGN.md, "Ambiguous creates are resolved by lookup"), never says
// that nothing was created, and never creates anything twice.

// faultNth returns a front override that applies act to the n-th POST
// (1-based) whose path ends in suffix, and lets every other request through.
func faultNth(n int64, suffix string, act func(w http.ResponseWriter, r *http.Request)) *func(http.ResponseWriter, *http.Request) bool {
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

// reset closes the connection without forwarding the request.
func reset(w http.ResponseWriter, _ *http.Request) { acctest.CloseConnection(w) }

// namesOf counts the devices of the test's workspace by name.
func namesOf(t *testing.T, fe *acctest.FrontEnv) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, n := range deviceNames(t, fe.Client(t), fe.Bootstrap.WorkspaceID) {
		counts[n]++
	}
	return counts
}

// TestAccAmbiguousManagedTwin: two devices share the name "twin" and b
// depends on a. a is created; b's create is reset before it reaches the
// service. b must not adopt a's device: the apply fails with the "may have
// been created" error, and the service holds one twin, managed by a.
func TestAccAmbiguousManagedTwin(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	cfg := fe.Config("", `
resource "zdm_device" "a" {
  name = "twin"
}
resource "zdm_device" "b" {
  name                  = "twin"
  allow_duplicate_names = true # a second device of the name, on purpose
  depends_on            = [zdm_device.a]
}
`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		Steps: []resource.TestStep{{
			PreConfig: func() { fe.Override.Store(faultNth(2, "/devices", reset)) },
			Config:    cfg,
			ExpectError: errorPattern(`Cannot create device "twin"`, `may have been created`,
				`No device named "twin" created since the request`, `Do not apply again before checking`),
		}},
	})
	fe.Override.Store(nil)
	if got := namesOf(t, fe)["twin"]; got != 1 {
		t.Errorf("%d devices named twin, want 1 (b's create never reached the service)", got)
	}
}

// TestAccAmbiguousOldTwin: a workspace "staging" created through the API
// before the apply; the apply's create of a workspace "staging" is reset
// before it reaches the service. The old workspace is not adopted.
func TestAccAmbiguousOldTwin(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	if _, err := fe.Server.CreateWorkspace(fe.Bootstrap.AccountID, "staging"); err != nil {
		t.Fatal(err)
	}
	// The service's Date header has a one-second precision: let the
	// service's clock move on past the old workspace's creation.
	time.Sleep(2 * time.Second)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		Steps: []resource.TestStep{{
			PreConfig: func() { fe.Override.Store(faultNth(1, "/workspaces", reset)) },
			// A second workspace of the name is asked for: without it the
			// plan refuses the create before anything is sent.
			Config: fe.Config("", `
resource "zdm_workspace" "staging" {
  name                  = "staging"
  allow_duplicate_names = true
}
`),
			ExpectError: errorPattern(`Cannot create workspace "staging"`, `may have been created`,
				`data "zdm_workspaces"`, `terraform import`),
		}},
	})
	fe.Override.Store(nil)
	all, err := fe.Client(t).ListWorkspaces(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range all {
		if w.Name == "staging" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d workspaces named staging, want 1 (the old one)", n)
	}
}

// TestAccAmbiguousOtherFleetTwin: a device without fleet_id (the default
// fleet) whose answer is dropped while a device of the same name appears in
// another fleet: that one is not adopted (it is not in the default fleet),
// the device the request created is: exactly one adoption, the right one.
func TestAccAmbiguousOtherFleetTwin(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	c := fe.Client(t)
	other, err := c.CreateFleet(context.Background(), fe.Bootstrap.WorkspaceID, "other", "")
	if err != nil {
		t.Fatal(err)
	}
	var ours string
	act := func(w http.ResponseWriter, r *http.Request) {
		rec := &capturingWriter{header: http.Header{}}
		fe.Server.ManagementHandler().ServeHTTP(rec, r)
		ours = rec.body.String()
		if _, err := fe.Server.CreateDevices(fe.Bootstrap.WorkspaceID, other.ID, []string{"solo"}); err != nil {
			panic(err)
		}
		acctest.CloseConnection(w)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		Steps: []resource.TestStep{{
			PreConfig: func() { fe.Override.Store(faultNth(1, "/devices", act)) },
			Config: fe.Config("", `
resource "zdm_device" "solo" {
  name = "solo"
}
`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("zdm_device.solo", tfjsonpath.New("fleet_name"), knownvalue.StringExact("default")),
			},
		}},
	})
	fe.Override.Store(nil)
	if !strings.Contains(ours, `"name":"solo"`) {
		t.Fatalf("the create did not reach the service: %s", ours)
	}
	if got := namesOf(t, fe)["solo"]; got != 2 {
		t.Errorf("%d devices named solo, want 2 (ours and the other fleet's)", got)
	}
}

// TestAccAmbiguousTimeout: the service holds a device create for 4 s while
// request_timeout is 1 s. The provider times out, then lists again until
// the device shows up, and adopts it: one device, nothing created twice.
func TestAccAmbiguousTimeout(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	if _, err := fe.Server.AddRequestFault(localzdm.RequestFault{Method: http.MethodPost,
		Path: "/v3/workspaces/{workspace_id}/devices", Action: localzdm.FaultDelay, Delay: 4 * time.Second, Count: 1}); err != nil {
		t.Fatal(err)
	}
	cfg := fe.Config(`  request_timeout = "1s"`, `
resource "zdm_device" "slow" {
  name = "slow"
}
`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		Steps: []resource.TestStep{
			{Config: cfg},
			{Config: cfg, PlanOnly: true},
		},
	})
	if got := namesOf(t, fe)["slow"]; got != 1 {
		t.Errorf("%d devices named slow, want 1", got)
	}
	if got := fe.Server.Counters()["POST /v3/workspaces/{workspace_id}/devices"]; got != 1 {
		t.Errorf("%d device creates, want 1", got)
	}
}

// TestAccAmbiguousDroppedAnswer: the service acts on a fleet create and the
// answer is lost: the fleet is adopted with a warning, and the service
// holds it once.
func TestAccAmbiguousDroppedAnswer(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	if _, err := fe.Server.AddRequestFault(localzdm.RequestFault{Method: http.MethodPost,
		Path: "/v3/workspaces/{workspace_id}/fleets", Action: localzdm.FaultDropAnswer, Count: 1}); err != nil {
		t.Fatal(err)
	}
	cfg := fe.Config("", `
resource "zdm_fleet" "f" {
  name = "dropped"
}
`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		Steps: []resource.TestStep{
			{Config: cfg},
			{Config: cfg, PlanOnly: true},
		},
	})
	fleets, err := fe.Client(t).ListFleets(context.Background(), fe.Bootstrap.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range fleets {
		if f.Name == "dropped" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d fleets named dropped, want 1", n)
	}
}

// capturingWriter records an answer instead of sending it.
type capturingWriter struct {
	header http.Header
	status int
	body   strings.Builder
}

func (w *capturingWriter) Header() http.Header         { return w.header }
func (w *capturingWriter) Write(b []byte) (int, error) { return w.body.Write(b) }
func (w *capturingWriter) WriteHeader(code int)        { w.status = code }
