package main

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

func TestShardsStats(t *testing.T) {
	t.Parallel()
	r := &shardsResult{Alone: shardPlan{RSS: 100}, Plans: []shardPlan{
		{RSS: 120, Lists: 1}, {RSS: 150, Lists: 1}, {RSS: 110, Lists: 2}, {RSS: 130, Lists: 1}, {RSS: 90, Lists: 0},
	}}
	if largest, med := r.rssStats(); largest != 150 || med != 120 {
		t.Errorf("rssStats = %d, %d; want 150, 120", largest, med)
	}
	if fewest, most := r.listRange(); fewest != 0 || most != 2 {
		t.Errorf("listRange = %d, %d; want 0, 2", fewest, most)
	}
	if got := r.overAlone(150); got != 1.5 {
		t.Errorf("overAlone(150) = %v, want 1.5", got)
	}
	// The targets: 1.5x is within, a plan without a list or with two is not.
	got := shardsScenario.targets(&results{Shards: r})
	if len(got) != 2 || !got[0].met || got[1].met {
		t.Errorf("targets = %+v; want the RSS met and the lists missed", got)
	}
	r.Plans = []shardPlan{{RSS: 151, Lists: 1}, {RSS: 100, Lists: 1}}
	got = shardsScenario.targets(&results{Shards: r})
	if len(got) != 2 || got[0].met || !got[1].met {
		t.Errorf("targets = %+v; want the RSS missed and the lists met", got)
	}
	// Without a base, nothing is within it.
	r.Alone.RSS = 0
	if got := shardsScenario.targets(&results{Shards: r}); got[0].met {
		t.Errorf("targets without a base = %+v; want the RSS missed", got)
	}
	r.Plans = []shardPlan{{Wall: 3}, {Wall: 1}, {Wall: 2}}
	if got := r.medianWall(); got != 2 {
		t.Errorf("medianWall = %d, want 2", got)
	}
	empty := &shardsResult{}
	if got := empty.medianWall(); got != 0 {
		t.Errorf("medianWall of no plans = %d", got)
	}
	if largest, med := empty.rssStats(); largest != 0 || med != 0 {
		t.Errorf("rssStats of no plans = %d, %d", largest, med)
	}
}

// The counter counts the device lists of its workspace only, and passes
// every request on.
func TestRouteCounter(t *testing.T) {
	t.Parallel()
	var served []string
	c := newRouteCounter(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		served = append(served, r.Method+" "+r.URL.Path)
	}), "wks-1")
	for _, req := range []struct{ method, target string }{
		{http.MethodGet, "/v3/workspaces/wks-1/devices"},
		{http.MethodGet, "/v3/workspaces/wks-1/devices?page=2"},
		{http.MethodPost, "/v3/workspaces/wks-1/devices"},
		{http.MethodGet, "/v3/workspaces/wks-2/devices"},
		{http.MethodGet, "/v3/workspaces/wks-1/devices/dev-1"},
		{http.MethodGet, "/v3/workspaces/wks-1/fleets"},
	} {
		c.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(req.method, req.target, nil))
	}
	if got := c.lists.Load(); got != 2 {
		t.Errorf("lists = %d, want 2", got)
	}
	if len(served) != 6 || !slices.Contains(served, "GET /v3/workspaces/wks-1/fleets") {
		t.Errorf("served %q, want all 6 requests", served)
	}
}

func TestParseFlagsShards(t *testing.T) {
	t.Parallel()
	o, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.selected(shardsScenario) || o.shardSize != 10000 || o.shardParallel != 8 {
		t.Errorf("default: shards selected %v, size %d, parallel %d; want not selected, 10000, 8",
			o.selected(shardsScenario), o.shardSize, o.shardParallel)
	}
	o, err = parseFlags([]string{"-only", "shards", "-shards", "10", "-shard-size", "1000", "-shard-parallel", "4"})
	if err != nil {
		t.Fatal(err)
	}
	if !o.selected(shardsScenario) || o.describe()["shards"] != "10 x 1000 (4 at a time)" {
		t.Errorf("-shards 10: selected %v, described %q", o.selected(shardsScenario), o.describe()["shards"])
	}
	for _, args := range [][]string{{"-shards", "-1"}, {"-shards", "2", "-shard-size", "0"}, {"-shards", "2", "-shard-parallel", "0"}} {
		if _, err := parseFlags(args); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}
