package devices_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// Ambiguous creates of devices through the real CLI (those of workspaces and
// fleets are in internal/service/fleets): a create reset before it reaches
// the service, an answer dropped after the service acted, and a create held
// past request_timeout. The provider adopts only what can only be its own
// (see DESIGN.md, "Ambiguous creates are resolved by lookup"), never says
// that nothing was created, and never creates anything twice.

// namesOf counts the devices of the test's workspace by name.
func namesOf(t *testing.T, fe *acctest.FrontEnv) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, n := range acctest.DeviceNames(t, fe.Client(t), fe.Bootstrap.WorkspaceID) {
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
			PreConfig: func() { fe.Override.Store(acctest.FaultNth(2, "/devices", acctest.Reset)) },
			Config:    cfg,
			ExpectError: acctest.ErrorPattern(`Cannot create device "twin"`, `may have been created`,
				`No device named "twin" created since the request`, `Do not apply again before checking`),
		}},
	})
	fe.Override.Store(nil)
	if got := namesOf(t, fe)["twin"]; got != 1 {
		t.Errorf("%d devices named twin, want 1 (b's create never reached the service)", got)
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
			PreConfig: func() { fe.Override.Store(acctest.FaultNth(1, "/devices", act)) },
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

// capturingWriter records an answer instead of sending it.
type capturingWriter struct {
	header http.Header
	status int
	body   strings.Builder
}

func (w *capturingWriter) Header() http.Header         { return w.header }
func (w *capturingWriter) Write(b []byte) (int, error) { return w.body.Write(b) }
func (w *capturingWriter) WriteHeader(code int)        { w.status = code }
