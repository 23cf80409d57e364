package bulkwrite

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// BenchmarkDevices measures the bulk writes alone: creates of N
// devices, each request waiting 20 ms in the local server, 16 in flight.
// The network floor is N x 20 ms / 16; the report gives the ratio:
//
//	go test ./internal/service/devices/bulkwrite -run '^$' -bench Devices -benchtime 1x
func BenchmarkDevices(b *testing.B) {
	latency, parallelism := benchLatency(), 16
	for _, n := range []int{2000, 10000} {
		b.Run(fmt.Sprintf("devices=%d", n), func(b *testing.B) {
			srv := localzdm.StartTest(b)
			boot, err := srv.Bootstrap("bench")
			if err != nil {
				b.Fatal(err)
			}
			c, err := client.New(client.Config{BaseURL: srv.BaseURL(), APIKey: boot.APIKey})
			if err != nil {
				b.Fatal(err)
			}
			d := &connection.ProviderData{Client: c, WorkspaceID: boot.WorkspaceID, Visible: connection.NewVisibility(c)}
			srv.SetFaults(localzdm.Faults{Latency: latency})
			floor := max(time.Duration(n)*latency/time.Duration(parallelism), time.Millisecond)
			b.ResetTimer()
			for i := range b.N {
				writes := make([]Write, n)
				for j := range writes {
					writes[j] = Write{Key: fmt.Sprint(j), Name: fmt.Sprintf("d-%d-%d", i, j)}
				}
				start := time.Now()
				res := Devices(b.Context(), d, boot.WorkspaceID, writes, parallelism, nil)
				wall := time.Since(start)
				for _, o := range res.Outcomes {
					if o.Err != nil {
						b.Fatal(o.Err)
					}
				}
				b.ReportMetric(float64(wall)/float64(floor), "x-floor")
			}
		})
	}
}

// benchLatency is the latency of BenchmarkDevices: 20 ms, or
// ZDM_BENCH_LATENCY.
func benchLatency() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("ZDM_BENCH_LATENCY")); err == nil {
		return d
	}
	return 20 * time.Millisecond
}
