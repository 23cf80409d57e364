package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// Many states in one workspace: a workspace of N fleets of F devices each
// (-shards, -shard-size; the devices made by the local server directly),
// and N working directories, each the state of one fleet as a
// zdm_fleet_devices, got by terraform import of the fleet while the
// workspace grows (state k is imported in a workspace of k+1 fleets). The N
// states are then planned with no change, P at a time (-shard-parallel), on
// one API key, as the CI jobs of a fleet split over many states would. Each
// state talks to the server through a listener of its own that counts its
// requests, so the device lists of one plan are known while the others run.
// The base is a workspace of one fleet of F devices, its state got and
// planned the same way, alone.

// maxShardRSSRatio bounds each plan's provider peak RSS over the lone
// workspace's.
const maxShardRSSRatio = 1.5

// shardPlan is one plan of one state.
type shardPlan struct {
	Wall  time.Duration `json:"wall_ns"`
	RSS   int64         `json:"provider_peak_rss"`
	Lists int64         `json:"lists"`
}

type shardsResult struct {
	Shards   int `json:"shards"`
	Size     int `json:"shard_devices"`
	Parallel int `json:"parallel"`
	// Alone is the plan of the state of a workspace of one fleet of Size
	// devices (the largest RSS of its runs).
	Alone shardPlan `json:"alone"`
	// Plans are the plans of the Shards states, in the order of their fleets.
	Plans []shardPlan `json:"plans"`
	// Wall is the wall time of all the plans, Parallel at a time; Setup that
	// of making the devices and importing the states.
	Wall  time.Duration `json:"wall_ns"`
	Setup time.Duration `json:"setup_ns"`
}

// rssStats are the largest and the median provider peak RSS of the plans.
func (r *shardsResult) rssStats() (largest, med int64) {
	if len(r.Plans) == 0 {
		return 0, 0
	}
	rss := make([]int64, len(r.Plans))
	for i, p := range r.Plans {
		rss[i] = p.RSS
	}
	slices.Sort(rss)
	return rss[len(rss)-1], rss[len(rss)/2]
}

// medianWall is the median wall time of one plan.
func (r *shardsResult) medianWall() time.Duration {
	if len(r.Plans) == 0 {
		return 0
	}
	walls := make([]time.Duration, len(r.Plans))
	for i, p := range r.Plans {
		walls[i] = p.Wall
	}
	return median(walls)
}

// listRange is the fewest and the most device lists of one plan.
func (r *shardsResult) listRange() (fewest, most int64) {
	for i, p := range r.Plans {
		if i == 0 || p.Lists < fewest {
			fewest = p.Lists
		}
		most = max(most, p.Lists)
	}
	return fewest, most
}

// overAlone is n over the lone workspace's peak RSS (0 when unknown).
func (r *shardsResult) overAlone(n int64) float64 {
	if r.Alone.RSS <= 0 {
		return 0
	}
	return float64(n) / float64(r.Alone.RSS)
}

// shardsText is the scale as the report names it.
func shardsText(n, size, parallel int) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d x %d (%d at a time)", n, size, parallel)
}

// routeCounter serves next and counts the device lists of one workspace.
type routeCounter struct {
	next  http.Handler
	path  string
	lists atomic.Int64
}

func newRouteCounter(next http.Handler, workspaceID string) *routeCounter {
	return &routeCounter{next: next, path: "/v3/workspaces/" + workspaceID + "/devices"}
}

func (c *routeCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.TrimSuffix(r.URL.Path, "/") == c.path {
		c.lists.Add(1)
	}
	c.next.ServeHTTP(w, r)
}

// shardState is the working directory of one state and its listener.
type shardState struct {
	cfg     *config
	counter *routeCounter
}

// newShardState prepares the state of fleet fleetID, whose devices are
// names, in workspace ws, and imports it. Its requests go through a
// listener of its own, closed when ctx ends.
func (b *bench) newShardState(ctx context.Context, dir string, ws localzdm.Bootstrap, fleetID string, names []string) (*shardState, error) {
	cfg, err := b.newConfig(dir, ws, false)
	if err != nil {
		return nil, err
	}
	counter := newRouteCounter(b.srv.ManagementHandler(), ws.WorkspaceID)
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: counter, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	for i, kv := range cfg.env {
		if strings.HasPrefix(kv, "ZDM_BASE_URL=") {
			cfg.env[i] = "ZDM_BASE_URL=http://" + ln.Addr().String()
		}
	}
	// The local server encodes the lists of all the plans running at once
	// on the bench's CPUs: eight lists of 500,000 devices on two shared
	// cores took more than the default 60 s of one attempt.
	cfg.env = append(cfg.env, "ZDM_REQUEST_TIMEOUT=15m")
	var inv strings.Builder
	inv.WriteString("serial,name\n")
	for _, n := range names {
		// The import keys each device by its name.
		inv.WriteString(n + "," + n + "\n")
	}
	if err := cfg.write("inventory.csv", inv.String()); err != nil {
		return nil, err
	}
	if err := cfg.write("main.tf", requiredProviders+fmt.Sprintf(`
provider "zdm" {}

resource "zdm_fleet_devices" "d" {
  fleet_id = %q
  devices  = %s
}
`, fleetID, inventoryDevices("inventory.csv"))); err != nil {
		return nil, err
	}
	if _, err := b.terraform(ctx, cfg, okCodes, "import", "-no-color", "-input=false", "zdm_fleet_devices.d", fleetID); err != nil {
		return nil, err
	}
	return &shardState{cfg: cfg, counter: counter}, nil
}

// plan plans the state with no change (any change fails it) and measures it.
func (b *bench) planShard(ctx context.Context, s *shardState) (shardPlan, error) {
	before := s.counter.lists.Load()
	res, err := b.terraform(ctx, s.cfg, planCodes, "plan", "-no-color", "-input=false", "-detailed-exitcode",
		"-parallelism="+strconv.Itoa(b.o.parallelism))
	if err != nil {
		return shardPlan{}, err
	}
	return shardPlan{Wall: res.Wall, RSS: res.Provider.RSS, Lists: s.counter.lists.Load() - before}, nil
}

// addFleet makes fleet name of size devices name-<index> in ws outside
// Terraform.
func (b *bench) addFleet(ctx context.Context, api *client.Client, ws localzdm.Bootstrap, name string, size int) (string, []string, error) {
	fleet, err := api.CreateFleet(ctx, ws.WorkspaceID, name, "")
	if err != nil {
		return "", nil, err
	}
	names := make([]string, size)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%d", name, i)
	}
	if _, err := b.srv.CreateDevices(ws.WorkspaceID, fleet.ID, names); err != nil {
		return "", nil, err
	}
	return fleet.ID, names, nil
}

func (b *bench) runShards(ctx context.Context, n, size, parallel int) (*shardsResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // closes the states' listeners
	r := &shardsResult{Shards: n, Size: size, Parallel: parallel}

	// The base: a workspace of one fleet, its state alone.
	lone, err := b.workspace("shards-alone")
	if err != nil {
		return nil, err
	}
	loneAPI, err := client.New(client.Config{BaseURL: b.srv.BaseURL(), APIKey: lone.APIKey})
	if err != nil {
		return nil, err
	}
	id, names, err := b.addFleet(ctx, loneAPI, lone, "alone", size)
	if err != nil {
		return nil, err
	}
	alone, err := b.newShardState(ctx, "shards-alone", lone, id, names)
	if err != nil {
		return nil, fmt.Errorf("the lone workspace: %w", err)
	}
	for range max(b.o.planRepeat, 1) {
		p, err := b.planShard(ctx, alone)
		if err != nil {
			return nil, fmt.Errorf("the lone workspace: %w", err)
		}
		r.Alone.Wall = p.Wall
		r.Alone.RSS = max(r.Alone.RSS, p.RSS)
		r.Alone.Lists = max(r.Alone.Lists, p.Lists)
	}
	logf("shards: a lone workspace of %s devices: no-op plan %s, %d lists, provider peak RSS %s",
		num(size), secs(r.Alone.Wall), r.Alone.Lists, mib(r.Alone.RSS))

	// The workspace of n fleets, each state imported as it grows.
	ws, err := b.workspace("shards")
	if err != nil {
		return nil, err
	}
	api, err := client.New(client.Config{BaseURL: b.srv.BaseURL(), APIKey: ws.APIKey})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	states := make([]*shardState, n)
	for k := range states {
		id, names, err := b.addFleet(ctx, api, ws, fmt.Sprintf("shard-%d", k), size)
		if err != nil {
			return nil, err
		}
		if states[k], err = b.newShardState(ctx, fmt.Sprintf("shards-%d", k), ws, id, names); err != nil {
			return nil, fmt.Errorf("state %d: %w", k, err)
		}
		if (k+1)%10 == 0 {
			logf("shards: %d states imported (%s)", k+1, secs(time.Since(start)))
		}
	}
	r.Setup = time.Since(start)
	logf("shards: %d states of %s devices imported in a workspace of %s devices in %s", n, num(size), num(n*size), secs(r.Setup))

	// All the plans, parallel at a time.
	r.Plans = make([]shardPlan, n)
	errs := make([]error, n)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	start = time.Now()
	for k, s := range states {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if r.Plans[k], errs[k] = b.planShard(ctx, s); errs[k] != nil {
				errs[k] = fmt.Errorf("plan of state %d: %w", k, errs[k])
				cancel()
			}
		}()
	}
	wg.Wait()
	r.Wall = time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	largest, med := r.rssStats()
	fewest, most := r.listRange()
	logf("shards: %d no-op plans, %d at a time, in %s: provider peak RSS max %s (%s), median %s (%s), lists per plan %d to %d",
		n, parallel, secs(r.Wall), mib(largest), times(r.overAlone(largest)), mib(med), times(r.overAlone(med)), fewest, most)
	return r, nil
}

var shardsScenario = scenario{
	name:    "shards",
	option:  "shards",
	enabled: func(o options) bool { return o.shards > 0 },
	run: func(ctx context.Context, b *bench, res *results) error {
		r, err := b.runShards(ctx, b.o.shards, b.o.shardSize, b.o.shardParallel)
		if err != nil {
			return fmt.Errorf("shards: %w", err)
		}
		res.Shards = r
		return nil
	},
	measured: func(res *results) bool { return res.Shards != nil },
	take:     func(dst, src *results) { dst.Shards = src.Shards },
	report: func(w printf, res *results) {
		r := res.Shards
		largest, med := r.rssStats()
		fewest, most := r.listRange()
		w("## Many states in one workspace\n\n")
		w("A workspace of %d fleets of %s devices each (made outside Terraform), and %d states, each one fleet's "+
			"`zdm_fleet_devices` (imported), planned with no change %d at a time on one API key. The base is the state "+
			"of a workspace of one fleet of %s devices, planned alone.\n\n", r.Shards, num(r.Size), r.Shards, r.Parallel, num(r.Size))
		w("| | lone workspace | each of the %d states |\n|---|--:|--:|\n", r.Shards)
		w("| workspace devices | %s | %s |\n", num(r.Size), num(r.Shards*r.Size))
		w("| provider peak RSS (plan) | %s | max %s (%s), median %s (%s) |\n", mib(r.Alone.RSS),
			mib(largest), times(r.overAlone(largest)), mib(med), times(r.overAlone(med)))
		w("| device lists per plan | %d | %d to %d |\n", r.Alone.Lists, fewest, most)
		w("| no-op plan (wall) | %s | median %s, all %d in %s |\n\n", secs(r.Alone.Wall), secs(r.medianWall()), r.Shards, secs(r.Wall))
	},
	targets: func(res *results) []target {
		r := res.Shards
		largest, med := r.rssStats()
		fewest, most := r.listRange()
		name := fmt.Sprintf("shards %d x %s", r.Shards, num(r.Size))
		return []target{
			{fmt.Sprintf("%s: each plan's provider peak RSS at most %.1fx a lone workspace's", name, maxShardRSSRatio),
				fmt.Sprintf("max %s (%s, median %s, alone %s)", times(r.overAlone(largest)), mib(largest), times(r.overAlone(med)), mib(r.Alone.RSS)),
				largest > 0 && r.Alone.RSS > 0 && r.overAlone(largest) <= maxShardRSSRatio},
			{name + ": one device list per state's plan", fmt.Sprintf("%d to %d", fewest, most), fewest == 1 && most == 1},
		}
	},
}
