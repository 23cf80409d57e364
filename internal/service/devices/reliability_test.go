package devices_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// Fault tests of device creates: the provider against a local server that
// fails, rate-limits or drops connections after acting. Everything runs on
// loopback. ZDM_BENCH_SCALE (a whole number, default 1) multiplies the
// number of devices of the load test.

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
	acctest.CheckExactly(t, "devices after the faulty apply", acctest.DeviceNames(t, fe.Client(t), fe.Bootstrap.WorkspaceID), want)
	if st[http.StatusServiceUnavailable] == 0 || st[http.StatusTooManyRequests] == 0 {
		t.Errorf("the faults did not fire: answers by status %v", st)
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
				ExpectError: acctest.ErrorPattern(`Cannot create device "cut"`, `may have been created`, `No device named "cut" created since the request`, `Do not apply again before checking`, `data "zdm_devices"`, `terraform import`),
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
	acctest.CheckExactly(t, "devices after a cut create", acctest.DeviceNames(t, fe.Client(t), fe.Bootstrap.WorkspaceID), []string{"cut"})

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
				ExpectError: acctest.ErrorPattern(`Cannot create device "twin"`, `2 devices named "twin" that no resource manages`, `Import the right one`),
			},
		},
	})
	fe.Override.Store(nil)
	acctest.CheckExactly(t, "devices after an ambiguous create and another one of the same name",
		acctest.DeviceNames(t, fe.Client(t), fe.Bootstrap.WorkspaceID), []string{"cut", "twin", "twin"})
}

// discardWriter is a ResponseWriter that drops the answer.
type discardWriter struct{}

func (discardWriter) Header() http.Header { return http.Header{} }

func (discardWriter) Write(b []byte) (int, error) { return len(b), nil }

func (discardWriter) WriteHeader(int) {}
