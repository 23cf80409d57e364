package devices

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// benchDevices is the number of devices of BenchmarkQueryDevices; the
// ZDM_BENCH_DEVICES environment variable overrides it.
const benchDevices = 10000

// BenchmarkQueryDevices times terraform query over a workspace of 10,000
// devices (the real CLI against the in-process provider and local server)
// and reports the API calls of each run:
//
//	TF_ACC_TERRAFORM_PATH=$(scripts/install-terraform.sh) \
//	  go test ./internal/service/devices -run '^$' -bench QueryDevices -benchtime 3x
//
// "list" lists identities and display names only; "include_resource" also
// returns every device; "generate_config" runs query -generate-config-out.
// With ZDM_BENCH_ADOPT=1, "adopt" also times the whole adoption once: query
// -generate-config-out, apply (which imports every device) and the plan
// that follows, reporting the wall time and API calls of each command.
func BenchmarkQueryDevices(b *testing.B) {
	n := benchDevices
	if v := os.Getenv("ZDM_BENCH_DEVICES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("ZDM_BENCH_DEVICES=%q: want a positive number", v)
		}
	}
	srv := localzdm.StartTest(b)
	boot, err := srv.Bootstrap("bench")
	if err != nil {
		b.Fatal(err)
	}
	e := &acctest.Env{Server: srv, Bootstrap: boot}
	const chunk = 1000
	for i := 0; i < n; i += chunk {
		names := make([]string, 0, chunk)
		for j := i; j < min(i+chunk, n); j++ {
			names = append(names, fmt.Sprintf("sensor-%05d", j+1))
		}
		if _, err := srv.CreateDevices(boot.WorkspaceID, "", names); err != nil {
			b.Fatal(err)
		}
	}

	c := acctest.NewCLI(b)
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig())
	c.MustRun("init", "-no-color")

	for _, bc := range []struct {
		name     string
		include  bool
		generate bool
	}{
		{"list", false, false},
		{"include_resource", true, false},
		{"generate_config", false, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c.Write("devices.tfquery.hcl", fmt.Sprintf(`
list "zdm_device" "all" {
  provider         = zdm
  include_resource = %t
  limit            = %d
  config {}
}
`, bc.include, n))
			var calls int64
			for i := 0; b.Loop(); i++ {
				args := []string{"query", "-no-color"}
				if bc.generate {
					args = append(args, fmt.Sprintf("-generate-config-out=generated-%d.tf", i))
				}
				srv.ResetCounters()
				out := c.MustRun(args...)
				calls += srv.TotalRequests()
				b.StopTimer()
				if got := countLines(out, "list.zdm_device.all "); got != n {
					b.Fatalf("query listed %d devices, want %d:\n%s", got, n, acctest.Tail(out, 5))
				}
				if bc.generate {
					name := fmt.Sprintf("generated-%d.tf", i)
					if got := strings.Count(c.Read(name), `resource "zdm_device"`); got != n {
						b.Fatalf("%s has %d resource blocks, want %d", name, got, n)
					}
					if err := os.Remove(filepath.Join(c.S.Dir, name)); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(calls)/float64(b.N), "api-calls/op")
			b.ReportMetric(float64(n), "devices")
		})
	}

	if os.Getenv("ZDM_BENCH_ADOPT") == "" {
		return
	}
	b.Run("adopt", func(b *testing.B) {
		c.Write("devices.tfquery.hcl", fmt.Sprintf(`
list "zdm_device" "all" {
  provider = zdm
  limit    = %d
  config {}
}
`, n))
		for b.Loop() {
			steps := []struct {
				name string
				args []string
			}{
				{"query", []string{"query", "-no-color", "-generate-config-out=adopt.tf"}},
				{"apply", []string{"apply", "-no-color", "-auto-approve"}},
				{"plan", []string{"plan", "-no-color", "-detailed-exitcode"}},
			}
			for _, st := range steps {
				srv.ResetCounters()
				c.MustRun(st.args...)
				b.ReportMetric(c.Last.Seconds(), st.name+"-s")
				b.ReportMetric(float64(srv.TotalRequests()), st.name+"-api-calls")
			}
			b.StopTimer()
			// Forget the devices so that the next run imports them again.
			if err := os.Remove(filepath.Join(c.S.Dir, "adopt.tf")); err != nil {
				b.Fatal(err)
			}
			if err := os.Remove(filepath.Join(c.S.Dir, "terraform.tfstate")); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		b.ReportMetric(float64(n), "devices")
	})
}

// countLines counts the lines of s that start with prefix.
func countLines(s, prefix string) int {
	n := 0
	for line := range strings.Lines(s) {
		if strings.HasPrefix(line, prefix) {
			n++
		}
	}
	return n
}
