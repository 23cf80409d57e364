package main

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// queryResult is terraform query over N devices.
type queryResult struct {
	N       int         `json:"n"`
	Results int         `json:"results"`
	M       measurement `json:"query"`
}

func (b *bench) runQuery(ctx context.Context, n int) (*queryResult, error) {
	ws, err := b.workspace(strconv.Itoa(n) + "-query")
	if err != nil {
		return nil, err
	}
	names := make([]string, n)
	for i := range names {
		names[i] = "listed-" + strconv.Itoa(i)
	}
	if _, err := b.srv.CreateDevices(ws.WorkspaceID, "", names); err != nil {
		return nil, err
	}
	cfg, err := b.newConfig(fmt.Sprintf("query-%d", n), ws, false)
	if err != nil {
		return nil, err
	}
	if err := cfg.write("main.tf", requiredProviders+"\nprovider \"zdm\" {}\n"); err != nil {
		return nil, err
	}
	if err := cfg.write("devices.tfquery.hcl", fmt.Sprintf(`list "zdm_device" "all" {
  provider = zdm
  limit    = %d

  config {}
}
`, n)); err != nil {
		return nil, err
	}
	r, err := b.terraform(ctx, cfg, okCodes, "query", "-no-color", "-json")
	if err != nil {
		return nil, err
	}
	q := &queryResult{N: n, Results: countQueryResults(r.Output)}
	q.M.add(r)
	logf("query of %d devices: %s, %d results, %d requests", n, r.Wall.Round(time.Millisecond), q.Results, r.totalRequests())
	if q.Results != n {
		return q, fmt.Errorf("terraform query returned %d results, want %d:\n%s", q.Results, n, tail(r.Output, 20))
	}
	return q, nil
}

// countQueryResults counts the list results in the JSON lines of terraform
// query -json.
func countQueryResults(out string) int {
	n := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"type":"list_resource_found"`) {
			n++
		}
	}
	return n
}

var queryScenario = scenario{
	name:    "query",
	option:  "query_size",
	enabled: func(o options) bool { return o.querySize > 0 },
	run: func(ctx context.Context, b *bench, res *results) error {
		q, err := b.runQuery(ctx, b.o.querySize)
		if err != nil {
			return fmt.Errorf("query of %d devices: %w", b.o.querySize, err)
		}
		res.Query = q
		return nil
	},
	measured: func(res *results) bool { return res.Query != nil },
	take:     func(dst, src *results) { dst.Query = src.Query },
	report: func(w printf, res *results) {
		q := res.Query
		w("## terraform query\n\n")
		w("`terraform query` of a `list \"zdm_device\"` block over a workspace of N devices (`limit = N`).\n\n")
		writeHeader(w, []string{"N", "results", "wall", "API requests", "provider peak RSS"})
		w("| %s | %s | %s | %s | %s |\n\n", num(q.N), num(q.Results), secs(q.M.Wall), requestsText(q.M.Requests), mib(q.M.RSS))
	},
	targets: func(res *results) []target {
		q := res.Query
		lists := q.M.Requests["GET /v3/workspaces/{workspace_id}/devices"]
		return []target{{fmt.Sprintf("query of %s devices: 1 list request", num(q.N)),
			fmt.Sprintf("requests: %d, lists: %d", q.M.totalRequests(), lists), q.M.totalRequests() == 1 && lists == 1}}
	},
}
