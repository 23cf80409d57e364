package main

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// The shared rate limit: 1, 2, 4 and 8 applies at once on one API key
// limited to shareLimit requests a second, each creating -share-size devices
// as a zdm_fleet_devices in a fleet of its own. It reports the share of the
// limit spent on device creates, the share of requests refused (429), the
// applies that failed and the devices created twice.

// shareLimit is the rate limit of the key, in requests a second.
const shareLimit = 20

// shareRound is one number of applies at once, with one form of quota
// headers ("" or "none": none).
type shareRound struct {
	Applies    int           `json:"applies"`
	Headers    string        `json:"headers,omitempty"`
	Devices    int           `json:"devices"` // created, all applies
	Wall       time.Duration `json:"wall_ns"` // from the first start to the last end
	Requests   int64         `json:"requests"`
	Refused    int64         `json:"refused"`
	Failed     int           `json:"failed_applies"`
	Duplicated int           `json:"duplicated"`
	Missing    int           `json:"missing"`
	// Ends are the wall times of each apply.
	Ends []time.Duration `json:"ends_ns"`
}

// useful is the share of the limit spent on device creates.
func (r shareRound) useful() float64 {
	return float64(r.Devices) / r.Wall.Seconds() / shareLimit
}

// refusedShare is the share of the requests refused.
func (r shareRound) refusedShare() float64 {
	return float64(r.Refused) / float64(max(r.Requests, 1))
}

type shareResult struct {
	Size   int          `json:"size"`
	Rounds []shareRound `json:"rounds"`
}

func shareConfig(n int, prefix string) string {
	return requiredProviders + fmt.Sprintf(`
provider "zdm" {
  max_retries     = 20
  request_timeout = "60s"
}

resource "zdm_fleet" "f" {
  name = "%s"
}

resource "zdm_fleet_devices" "d" {
  fleet_id = zdm_fleet.f.id
  devices  = { for i in range(%d) : format("k-%%05d", i) => "%s-${i}" }
}
`, prefix, n, prefix)
}

// shareForms reads -share-applies and -share-headers.
func shareForms(o options) ([]int, []string, error) {
	var applies []int
	for _, f := range strings.Split(o.shareApplies, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, nil, fmt.Errorf("-share-applies: %q is not a number of applies (1 or more)", f)
		}
		applies = append(applies, k)
	}
	var headers []string
	for _, f := range strings.Split(o.shareHeaders, ",") {
		f = strings.TrimSpace(f)
		if f == "none" {
			f = ""
		} else if err := localzdm.CheckQuotaForm("-share-headers", f); err != nil {
			return nil, nil, err
		}
		headers = append(headers, f)
	}
	return applies, headers, nil
}

func (b *bench) runShareRound(ctx context.Context, n, applies int, headers string) (shareRound, error) {
	r := shareRound{Applies: applies, Headers: headers, Ends: make([]time.Duration, applies)}
	tag := fmt.Sprintf("%d", applies)
	if headers != "" {
		tag += headers
	}
	ws, err := b.workspace("share-" + tag)
	if err != nil {
		return r, err
	}
	cfgs := make([]*config, applies)
	for i := range cfgs {
		if cfgs[i], err = b.newConfig(fmt.Sprintf("share-%s-%d", tag, i), ws, false); err != nil {
			return r, err
		}
		if err := cfgs[i].write("main.tf", shareConfig(n, fmt.Sprintf("share%s-%d", tag, i))); err != nil {
			return r, err
		}
	}
	b.srv.SetFaults(localzdm.Faults{RateLimit: shareLimit, RateLimitHeaders: headers})
	defer b.srv.SetFaults(localzdm.Faults{})
	b.srv.ResetCounters()
	start := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, c := range cfgs {
		wg.Go(func() {
			cmd := exec.CommandContext(ctx, b.o.terraform, "apply", "-auto-approve", "-input=false", "-no-color") //nolint:gosec // G204: the CLI of the benchmark.
			cmd.Dir, cmd.Env = c.dir, c.env
			out, err := cmd.CombinedOutput()
			mu.Lock()
			defer mu.Unlock()
			r.Ends[i] = time.Since(start)
			if err != nil {
				r.Failed++
				logf("shared limit: apply %d of %d failed: %v\n%s", i+1, applies, err, tail(string(out), 20))
			}
		})
	}
	wg.Wait()
	r.Wall = time.Since(start)
	r.Requests = b.srv.TotalRequests()
	r.Refused = b.srv.RateLimited()
	b.srv.SetFaults(localzdm.Faults{})
	for i := range cfgs {
		f := &faultResult{}
		if err := b.countFaultDevices(ctx, ws, fmt.Sprintf("share%s-%d", tag, i), n, f); err != nil {
			return r, err
		}
		r.Duplicated += f.Duplicated
		r.Missing += f.Missing
		r.Devices += n - f.Missing + f.Duplicated
	}
	logf("shared limit: %s", r.summary())
	return r, nil
}

func (r shareRound) summary() string {
	return fmt.Sprintf("%d applies at once, quota headers %s: %d devices in %s, %.1f%% of the limit on creates; %d requests, %d refused (%.1f%%); "+
		"%d failed applies, %d duplicated, %d missing", r.Applies, r.headers(), r.Devices, r.Wall.Round(100*time.Millisecond),
		100*r.useful(), r.Requests, r.Refused, 100*r.refusedShare(), r.Failed, r.Duplicated, r.Missing)
}

// refusedBound is the most refused share the round's target allows: with
// quota headers 2%, without 5% (no client can tell how many share the key).
func (r shareRound) refusedBound() float64 {
	if r.Headers != "" {
		return 0.02
	}
	return 0.05
}

// headers names the quota headers of the round.
func (r shareRound) headers() string {
	if r.Headers == "" {
		return "none"
	}
	return r.Headers
}

var shareScenario = scenario{
	name:    "share",
	option:  "share_size",
	enabled: func(o options) bool { return o.shareSize > 0 },
	run: func(ctx context.Context, b *bench, res *results) error {
		s := &shareResult{Size: b.o.shareSize}
		applies, headers, err := shareForms(b.o)
		if err != nil {
			return err
		}
		for _, h := range headers {
			for _, k := range applies {
				if b.o.quick && k > 2 {
					break
				}
				r, err := b.runShareRound(ctx, b.o.shareSize, k, h)
				if err != nil {
					return fmt.Errorf("shared limit, %d applies: %w", k, err)
				}
				s.Rounds = append(s.Rounds, r)
			}
		}
		res.Share = s
		return nil
	},
	measured: func(res *results) bool { return res.Share != nil },
	take:     func(dst, src *results) { dst.Share = src.Share },
	report: func(w printf, res *results) {
		w("## One rate limit, several applies\n\n")
		w("Applies at once on one API key limited to %d requests a second (`429` with `Retry-After`), each creating %s devices "+
			"as a `zdm_fleet_devices` in a fleet of its own. *Useful* is the device creates per second over the limit, "+
			"from the start of the first apply to the end of the last (Terraform's start-up and plan included). *Quota headers*: "+
			"the form of the quota headers the server sends on every answer (none: only `429` and `Retry-After`).\n\n",
			shareLimit, num(res.Share.Size))
		w("| quota headers | applies | devices | wall | useful | requests | refused | failed applies | duplicated |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, r := range res.Share.Rounds {
			w("| %s | %d | %s | %s | %.1f%% | %s | %.1f%% | %d | %d |\n", r.headers(), r.Applies, num(r.Devices), r.Wall.Round(100*time.Millisecond),
				100*r.useful(), num(int(r.Requests)), 100*r.refusedShare(), r.Failed, r.Duplicated)
		}
		w("\n")
	},
	targets: func(res *results) []target {
		var out []target
		for _, r := range res.Share.Rounds {
			out = append(out, target{
				fmt.Sprintf("%d applies at once on a limit of %d/s, quota headers %s: useful at least 95%%, refused at most %.0f%%, none failed, none duplicated",
					r.Applies, shareLimit, r.headers(), 100*r.refusedBound()),
				fmt.Sprintf("useful %.1f%%, refused %.1f%%, %d failed, %d duplicated", 100*r.useful(), 100*r.refusedShare(), r.Failed, r.Duplicated),
				r.useful() >= 0.95 && r.refusedShare() <= r.refusedBound() && r.Failed == 0 && r.Duplicated == 0 && r.Missing == 0,
			})
		}
		return out
	},
}
