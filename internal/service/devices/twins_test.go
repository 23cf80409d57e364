package devices_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// twinOnFirstCreate returns a front override that, on the first device
// create, first makes a device named name in fleet through the admin API
// (another process creating the same name at the same time), then lets the
// create through; made receives the twin's ID.
func twinOnFirstCreate(t *testing.T, fe *acctest.FrontEnv, fleet, name string, made *string) *func(http.ResponseWriter, *http.Request) bool {
	var once sync.Once
	f := func(_ http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/devices") {
			once.Do(func() {
				ids, err := fe.Server.CreateDevices(fe.Bootstrap.WorkspaceID, fleet, []string{name})
				if err != nil {
					t.Error(err)
					return
				}
				*made = ids[0]
			})
		}
		return false
	}
	return &f
}

// TestAccDeviceTwinMadeDuringTheApply: a device of the name is created
// elsewhere after the apply's final plan and before its create (the front
// makes it as the create arrives). The apply fails naming both IDs, keeps
// its device in the state, and after terraform untaint every plan warns of
// the twin.
func TestAccDeviceTwinMadeDuringTheApply(t *testing.T) {
	for _, tc := range []struct{ name, body, addr string }{
		{"zdm_device", `
resource "zdm_device" "d" {
  name     = "twin"
  fleet_id = %q
}
`, "zdm_device.d"},
		{"zdm_fleet_devices", `
resource "zdm_fleet_devices" "m" {
  fleet_id = %q
  devices  = { k = "twin", other = "single" }
}
`, "zdm_fleet_devices.m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe := acctest.NewFrontEnv(t)
			fleet, _ := acctest.NewFleetWithDevices(t, fe.Env, "sensors")
			c := newDir(t, fe.Config("", fmt.Sprintf(tc.body, fleet)))
			var other string
			fe.Override.Store(twinOnFirstCreate(t, fe, fleet, "twin", &other))
			out, code := c.Run("apply", "-auto-approve", "-input=false", "-no-color")
			fe.Override.Store(nil)
			if other == "" {
				t.Fatalf("no device create reached the front:\n%s", out)
			}
			ids := namedIn(t, fe.Env, fleet, "twin")
			if len(ids) != 2 {
				t.Fatalf("devices named twin: %v, want 2 (the control: the twin was made)", ids)
			}
			ours := ids[0]
			if ours == other {
				ours = ids[1]
			}
			if code != 1 || !acctest.ErrorPattern("A second device of the same name was created at the same time",
				`"twin": `+ours+" (this resource's) and "+other, "terraform untaint").MatchString(out) {
				t.Fatalf("apply: exit %d, want 1 naming %s and %s:\n%s", code, ours, other, out)
			}
			state := c.StateValues()[tc.addr]
			if got := fmt.Sprint(state["id"], state["device_ids"]); !strings.Contains(got, ours) {
				t.Errorf("the state does not hold %s: %s", ours, got)
			}

			c.MustRun("untaint", tc.addr)
			out, code = c.Run("plan", "-detailed-exitcode", "-input=false", "-no-color")
			if code != 0 || !acctest.ErrorPattern("Other devices have the names of this resource's devices",
				`"twin": `+ours+" (this resource's) and "+other).MatchString(out) {
				t.Errorf("plan after untaint: exit %d, want 0 with a warning naming both:\n%s", code, out)
			}
		})
	}
}

// TestAccDeviceTwinsOfConcurrentApplies: two configurations in two working
// directories create a device of one name in one fleet at the same time
// (the splitting guide's matrix with one name in two shards), against the
// server slowed down so that both plans pass before either creates. In
// each of three rounds, every twin that appears is reported by at least
// one of the applies, and a later plan of that configuration warns of it.
func TestAccDeviceTwinsOfConcurrentApplies(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, _ := acctest.NewFleetWithDevices(t, e, "sensors")
	e.Server.SetFaults(localzdm.Faults{Latency: 150 * time.Millisecond})
	t.Cleanup(func() { e.Server.SetFaults(localzdm.Faults{}) })
	bodies := []string{`
resource "zdm_fleet_devices" "shard" {
  fleet_id = %[1]q
  devices  = { a = %[2]q }
}
`, `
resource "zdm_device" "shard" {
  name     = %[2]q
  fleet_id = %[1]q
}
`}
	twinsSeen := 0
	for round := range 3 {
		name := fmt.Sprintf("shared-%d", round)
		dirs := make([]*acctest.Cli, len(bodies))
		for i, b := range bodies {
			dirs[i] = newDir(t, e.Config(fmt.Sprintf(b, fleet, name)))
		}
		outs := make([]string, len(dirs))
		codes := make([]int, len(dirs))
		var wg sync.WaitGroup
		var started atomic.Int32
		for i, c := range dirs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				started.Add(1)
				res, err := c.S.Run(t.Context(), "apply", "-auto-approve", "-input=false", "-no-color")
				if err != nil {
					outs[i], codes[i] = err.Error(), -1
					return
				}
				outs[i], codes[i] = res.Output, res.ExitCode
			}()
		}
		wg.Wait()
		ids := namedIn(t, e, fleet, name)
		if len(ids) < 2 {
			// No twin this round: both applies must have succeeded, or
			// one refused the other's device at its final plan.
			for i := range dirs {
				if codes[i] != 0 && !acctest.ErrorPattern("already exist").MatchString(outs[i]) {
					t.Errorf("round %d, apply %d: exit %d without a twin:\n%s", round, i, codes[i], outs[i])
				}
			}
			continue
		}
		twinsSeen++
		if len(ids) > 2 {
			t.Errorf("round %d: %d devices named %s, want at most 2", round, len(ids), name)
		}
		reported := false
		for i, c := range dirs {
			if codes[i] == 0 {
				continue
			}
			if !acctest.ErrorPattern("A second device of the same name was created at the same time", ids[0]).MatchString(outs[i]) ||
				!acctest.ErrorPattern("A second device of the same name was created at the same time", ids[1]).MatchString(outs[i]) {
				t.Errorf("round %d, apply %d: exit %d without naming both %v:\n%s", round, i, codes[i], ids, outs[i])
				continue
			}
			reported = true
			c.MustRun("untaint", []string{"zdm_fleet_devices.shard", "zdm_device.shard"}[i])
			out, code := c.Run("plan", "-detailed-exitcode", "-input=false", "-no-color")
			if code != 0 || !acctest.ErrorPattern("Other devices have the names of this resource's devices", name).MatchString(out) {
				t.Errorf("round %d, plan of configuration %d after untaint: exit %d, want 0 with the warning:\n%s", round, i, code, out)
			}
		}
		if !reported {
			t.Errorf("round %d: twins %v, and no apply reported them:\n%s\n---\n%s", round, ids, outs[0], outs[1])
		}
	}
	t.Logf("rounds with a twin: %d of 3", twinsSeen)
	if twinsSeen == 0 {
		t.Errorf("no round made a twin: the test did not exercise concurrent creates")
	}
}
