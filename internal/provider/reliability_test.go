package provider

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// Fault and load tests: the provider against a local server that fails,
// rate-limits, drops connections after acting, or hangs. Everything runs on
// loopback. ZDM_BENCH_SCALE (a whole number, default 1) multiplies the
// number of devices of the load test.

// errorPattern matches an error that contains the parts in order. Terraform
// wraps long diagnostics, so a space in a part matches any white space.
func errorPattern(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = strings.Join(strings.Fields(regexp.QuoteMeta(p)), `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, `.*`))
}

// deviceNames lists the names of the devices of the workspace, sorted.
func deviceNames(t *testing.T, c *client.Client, ws string) []string {
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

// checkExactly fails t unless got (sorted) is want (sorted): no name
// missing, none twice, none extra.
func checkExactly(t *testing.T, what string, got, want []string) {
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

// TestAccReliabilityFaultyApply applies hundreds of devices while the server
// answers 10% of the requests 503 and rate-limits the key (429), both with
// Retry-After. The apply succeeds without a manual retry, the server holds
// exactly the declared devices, and the plan is empty afterwards.
func TestAccReliabilityFaultyApply(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	n := 300 * acctest.BenchScale(t)
	faults := localzdm.Faults{ErrorRate: 0.1, RateLimit: 8}
	// max_retries at its maximum: with 10 resources at a time against 40
	// requests a second, a request may meet several 429s in a row.
	cfg := fe.Config(`  max_retries     = 20
  request_timeout = "30s"`, fmt.Sprintf(`
resource "zdm_device" "load" {
  count = %d
  name  = format("load-%%05d", count.index)
}
`, n))
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprintf("load-%05d", i)
	}
	start := time.Now()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					fe.Server.ResetCounters()
					fe.ResetStatuses()
					fe.Server.SetFaults(faults)
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// Still under faults: a plan of the same configuration is empty.
				Config:   cfg,
				PlanOnly: true,
			},
		},
	})
	elapsed := time.Since(start)
	fe.Server.SetFaults(localzdm.Faults{})
	st := fe.Statuses()
	counters := fe.Server.Counters()
	t.Logf("fault apply of %d devices: %s; %d API requests (%d POST devices), answers by status: %v",
		n, elapsed.Round(time.Second), fe.Server.TotalRequests(),
		counters["POST /v3/workspaces/{workspace_id}/devices"], st)
	checkExactly(t, "devices after the faulty apply", deviceNames(t, fe.Client(t), fe.Bootstrap.WorkspaceID), want)
	if st[http.StatusServiceUnavailable] == 0 || st[http.StatusTooManyRequests] == 0 {
		t.Errorf("the faults did not fire: answers by status %v", st)
	}
}

// TestAccReliabilityDroppedCreates drops the connection after the server
// acted on every create (and scheduling), while it also answers some
// requests 503: each resource adopts the object its request created, no
// duplicate appears, and a second plan is empty.
func TestAccReliabilityDroppedCreates(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	const n = 20
	cfg := fe.Config(`  max_retries = 20`, fmt.Sprintf(`
resource "zdm_fleet" "f" {
  name = "dropped"
}
resource "zdm_device" "d" {
  count    = %d
  name     = "dropped-${count.index}"
  fleet_id = zdm_fleet.f.id
}
resource "zdm_device_job" "j" {
  device_id = zdm_device.d[0].id
  name      = "configure"
  value     = jsonencode({ level = 2 })
}
resource "zdm_fota" "u" {
  device_id        = zdm_device.d[1].id
  firmware_id      = "fw-sensor"
  firmware_version = "1.2.0"
}
`, n))
	want := []string{}
	for i := range n {
		want = append(want, fmt.Sprintf("dropped-%d", i))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					fe.Server.SetFaults(localzdm.Faults{DropAfterCreate: true, ErrorRate: 0.1})
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				Config:   cfg,
				PlanOnly: true,
			},
		},
	})
	fe.Server.SetFaults(localzdm.Faults{})
	checkExactly(t, "devices after dropped creates", deviceNames(t, fe.Client(t), fe.Bootstrap.WorkspaceID), want)
	ctx := context.Background()
	c := fe.Client(t)
	fleets, err := c.ListFleets(ctx, fe.Bootstrap.WorkspaceID)
	if err != nil || len(fleets) != 2 {
		t.Errorf("fleets after dropped creates: %+v, %v (want default and dropped)", fleets, err)
	}
	devices, err := c.ListDevices(ctx, fe.Bootstrap.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	for _, d := range devices {
		byName[d.Name] = d.ID
	}
	if jobs, err := c.ListJobs(ctx, byName["dropped-0"], ""); err != nil || len(jobs) != 1 || string(jobs[0].Value) != `{"level":2}` {
		t.Errorf("jobs of dropped-0: %+v, %v", jobs, err)
	}
	if f, err := c.GetFOTA(ctx, byName["dropped-1"]); err != nil || f.Value.FirmwareVersion != "1.2.0" {
		t.Errorf("firmware update of dropped-1: %+v, %v", f, err)
	}
	// Every create or scheduling that succeeded on the server lost its
	// answer: the fleet, the devices, the job and the update.
	if drops := fe.Statuses()[0]; drops != n+3 {
		t.Errorf("%d connections dropped after a create; want %d", drops, n+3)
	}
}

// TestAccReliabilityAmbiguousErrors covers the two ambiguous creates that
// cannot be resolved by adoption: the request was cut before the server
// acted (nothing to adopt: the error says the device may have been created
// and how to look for it; none shows up, and the next apply creates it), and
// a create whose answer is lost while someone else creates a device of the
// same name (two candidates: a clear error, nothing adopted at random).
func TestAccReliabilityAmbiguousErrors(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	one := fe.Config("", `
resource "zdm_device" "cut" {
  name = "cut"
}
`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { fe.CutPOSTs.Store(1) },
				Config:      one,
				ExpectError: errorPattern(`Cannot create device "cut"`, `may have been created`, `No device named "cut" created since the request`, `Do not apply again before checking`, `data "zdm_devices"`, `terraform import`),
			},
			{
				// The next apply creates it, once.
				Config: one,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("zdm_device.cut", plancheck.ResourceActionCreate)},
				},
			},
		},
	})
	checkExactly(t, "devices after a cut create", deviceNames(t, fe.Client(t), fe.Bootstrap.WorkspaceID), []string{"cut"})

	// Someone else creates a device of the same name while our create's
	// answer is lost: two candidates, neither certainly ours.
	twin := fe.Config("", `
resource "zdm_device" "twin" {
  name = "twin"
}
`)
	var once atomic.Bool
	other := func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/devices") || !once.CompareAndSwap(false, true) {
			return false
		}
		fe.Server.ManagementHandler().ServeHTTP(discardWriter{}, r)
		if _, err := fe.Server.CreateDevices(fe.Bootstrap.WorkspaceID, "", []string{"twin"}); err != nil {
			panic(err)
		}
		acctest.CloseConnection(w)
		return true
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { fe.Override.Store(&other) },
				Config:      twin,
				ExpectError: errorPattern(`Cannot create device "twin"`, `2 devices named "twin" that no resource manages`, `Import the right one`),
			},
		},
	})
	fe.Override.Store(nil)
	checkExactly(t, "devices after an ambiguous create and another one of the same name",
		deviceNames(t, fe.Client(t), fe.Bootstrap.WorkspaceID), []string{"cut", "twin", "twin"})
}

// discardWriter is a ResponseWriter that drops the answer.
type discardWriter struct{}

func (discardWriter) Header() http.Header         { return http.Header{} }
func (discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (discardWriter) WriteHeader(int)             {}

// TestAccReliabilityHungServer makes every request hang: reads and creates
// fail within request_timeout (and the retries) with a message that names
// the setting.
func TestAccReliabilityHungServer(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	settings := `  request_timeout = "1s"
  max_retries     = 1`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { fe.Server.SetFaults(localzdm.Faults{Hang: true}) },
				Config:      fe.Config(settings, `data "zdm_workspaces" "all" {}`),
				ExpectError: errorPattern(`timed out after 1s`, `raise the provider setting request_timeout`),
			},
			{
				Config: fe.Config(settings, `
resource "zdm_device" "slow" {
  name                  = "slow"
  allow_duplicate_names = true # no list before the create: the create itself hangs
}
`),
				ExpectError: errorPattern(`Cannot create device "slow"`, `timed out after 1s`, `request_timeout`),
			},
			{
				// Without the opt-in, the plan first makes sure that no
				// device of the name exists: its list times out, and the
				// plan fails before any create.
				Config: fe.Config(settings, `
resource "zdm_device" "slow" {
  name = "slow"
}
`),
				ExpectError: errorPattern(`Cannot check for devices with the same names`, `timed out after 1s`, `request_timeout`, `Plan again`),
			},
		},
	})
	fe.Server.SetFaults(localzdm.Faults{})
	if names := deviceNames(t, fe.Client(t), fe.Bootstrap.WorkspaceID); len(names) != 0 {
		t.Errorf("a hung create created devices: %v", names)
	}
}
