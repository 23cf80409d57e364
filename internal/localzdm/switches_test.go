package localzdm_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// setChoices sets the choices through the admin API (viaHTTP) or the Go API.
func (e *env) setChoices(viaHTTP bool, c localzdm.Choices) {
	e.t.Helper()
	if viaHTTP {
		var got localzdm.Choices
		e.ok(e.admin(http.MethodPut, "/choices", c), &got)
		return
	}
	if err := e.s.SetChoices(c); err != nil {
		e.t.Fatalf("SetChoices: %v", err)
	}
}

func TestChoiceMissingFOTA(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bare := e.createDevice("never-updated", "")
	updated := e.createDevice("updated", "")
	e.ok(e.api(http.MethodPost, "/devices/"+updated.ID+"/fota/fw/versions/1.0", nil), nil)

	// The default: 404.
	e.fails(e.api(http.MethodGet, "/devices/"+bare.ID+"/fota", nil), http.StatusNotFound, "no FOTA")
	for _, viaHTTP := range []bool{false, true} {
		for _, tc := range []struct {
			mode, want string
		}{
			{localzdm.MissingFOTANull, `{"fota":null}`},
			{localzdm.MissingFOTAEmpty, `{"fota":{}}`},
		} {
			e.setChoices(viaHTTP, localzdm.Choices{MissingFOTA: tc.mode})
			r := e.api(http.MethodGet, "/devices/"+bare.ID+"/fota", nil)
			if r.status != http.StatusOK || strings.TrimSpace(string(r.body)) != tc.want {
				t.Fatalf("%s (http %v): got %s, want 200 %s", tc.mode, viaHTTP, r, tc.want)
			}
			// A device with a FOTA answers it whatever the choice.
			var out struct{ FOTA fotaStatus }
			e.ok(e.api(http.MethodGet, "/devices/"+updated.ID+"/fota", nil), &out)
			if out.FOTA.Value.FirmwareVersion != "1.0" {
				t.Fatalf("%s: device with a FOTA answered %+v", tc.mode, out.FOTA)
			}
		}
		e.setChoices(viaHTTP, localzdm.Choices{MissingFOTA: localzdm.MissingFOTA404})
		e.fails(e.api(http.MethodGet, "/devices/"+bare.ID+"/fota", nil), http.StatusNotFound, "no FOTA")
	}
	var cur localzdm.Choices
	e.ok(e.admin(http.MethodGet, "/choices", nil), &cur)
	if cur.MissingFOTA != localzdm.MissingFOTA404 || cur.JobValue != localzdm.JobValueEcho {
		t.Fatalf("GET /admin/choices = %+v, want the defaults spelled out", cur)
	}
}

// order returns the positions of ids in want (the order without shuffling).
func order(t *testing.T, want, ids []string) []int {
	t.Helper()
	if len(ids) != len(want) {
		t.Fatalf("list of %d items, want %d", len(ids), len(want))
	}
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = slices.Index(want, id)
		if out[i] < 0 {
			t.Fatalf("unexpected item %q", id)
		}
	}
	return out
}

// shuffleEnv is a workspace with 4 more workspaces in its account, 4 more
// fleets, 6 devices and 5 jobs on the first device.
type shuffleEnv struct {
	*env
	dev string
}

func newShuffleEnv(t *testing.T, opts localzdm.Options) *shuffleEnv {
	t.Helper()
	e := attachEnv(t, localzdm.StartTestWithOptions(t, opts))
	for _, n := range []string{"w1", "w2", "w3", "w4"} {
		if _, err := e.s.CreateWorkspace(e.b.AccountID, n); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"f1", "f2", "f3", "f4"} {
		e.createFleet(n)
	}
	se := &shuffleEnv{env: e}
	for _, n := range []string{"d1", "d2", "d3", "d4", "d5", "d6"} {
		d := e.createDevice(n, "")
		if se.dev == "" {
			se.dev = d.ID
		}
	}
	for _, n := range []string{"j1", "j2", "j3", "j4", "j5"} {
		e.ok(e.api(http.MethodPost, "/devices/"+se.dev+"/jobs/"+n, map[string]any{"value": map[string]int{"n": 1}}), nil)
	}
	return se
}

// lists reads the four lists and returns each one's IDs (job names).
func (se *shuffleEnv) lists() map[string][]string {
	se.t.Helper()
	out := map[string][]string{}
	var ws struct{ Workspaces []workspace }
	se.ok(se.api(http.MethodGet, "/workspaces", nil), &ws)
	for _, w := range ws.Workspaces {
		out["workspaces"] = append(out["workspaces"], w.ID)
	}
	var fl struct{ Fleets []fleet }
	se.ok(se.api(http.MethodGet, "/workspaces/"+se.b.WorkspaceID+"/fleets", nil), &fl)
	for _, f := range fl.Fleets {
		out["fleets"] = append(out["fleets"], f.ID)
	}
	var dv struct{ Devices []device }
	se.ok(se.api(http.MethodGet, "/workspaces/"+se.b.WorkspaceID+"/devices", nil), &dv)
	for _, d := range dv.Devices {
		out["devices"] = append(out["devices"], d.ID)
	}
	var jb struct{ Jobs []job }
	se.ok(se.api(http.MethodGet, "/devices/"+se.dev+"/jobs", nil), &jb)
	for _, j := range jb.Jobs {
		out["jobs"] = append(out["jobs"], j.Name)
	}
	return out
}

func TestChoiceShuffleLists(t *testing.T) {
	t.Parallel()
	se := newShuffleEnv(t, localzdm.Options{})
	base := se.lists()
	// Control: without the choice every list keeps its order.
	if again := se.lists(); !reflect.DeepEqual(again, base) {
		t.Fatalf("lists changed order without shuffling:\n%v\n%v", base, again)
	}
	for _, viaHTTP := range []bool{false, true} {
		se.setChoices(viaHTTP, localzdm.Choices{ShuffleLists: true})
		prev := base
		for range 8 {
			cur := se.lists()
			for name, ids := range cur {
				order(t, base[name], ids) // same items
				if slices.Equal(ids, prev[name]) {
					t.Fatalf("%s answered in the same order twice in a row: %v", name, ids)
				}
			}
			prev = cur
		}
	}
	se.setChoices(true, localzdm.Choices{})
	if again := se.lists(); !reflect.DeepEqual(again, base) {
		t.Fatalf("lists not back in order after clearing the choice:\n%v\n%v", base, again)
	}
}

func TestChoiceShuffleSeed(t *testing.T) {
	t.Parallel()
	// Two servers with the same seed, given the same calls, answer the same
	// orders; another seed answers others.
	run := func(seed uint64) [][]int {
		se := newShuffleEnv(t, localzdm.Options{Choices: localzdm.Choices{ShuffleLists: true, Seed: seed}})
		if err := se.s.SetChoices(localzdm.Choices{}); err != nil {
			t.Fatal(err)
		}
		base := se.lists()
		if err := se.s.SetChoices(localzdm.Choices{ShuffleLists: true, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		var orders [][]int
		for range 5 {
			cur := se.lists()
			for _, name := range []string{"workspaces", "fleets", "devices", "jobs"} {
				orders = append(orders, order(t, base[name], cur[name]))
			}
		}
		return orders
	}
	a, b, c := run(42), run(42), run(7)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("seed 42 gave different orders:\n%v\n%v", a, b)
	}
	if reflect.DeepEqual(a, c) {
		t.Fatalf("seeds 42 and 7 gave the same orders %v", a)
	}
}

func TestChoicePublishBeforeRead(t *testing.T) {
	t.Parallel()
	se := newStorageEnv(t)
	page := func(from int, q string) []dataPoint {
		return se.query("?size=5&from=" + strconv.Itoa(from) + q)
	}
	// Control: pages of a newest-first read do not overlap.
	p0, p1 := page(0, ""), page(1, "")
	if p0[4].TimestampDevice == p1[0].TimestampDevice {
		t.Fatalf("pages overlap without the choice: %v %v", times(t, p0), times(t, p1))
	}
	for _, viaHTTP := range []bool{false, true} {
		se.setChoices(viaHTTP, localzdm.Choices{PublishBeforeRead: true})
		before := len(se.query("?size=1000")) // publishes one point too
		p0, p1 = page(0, ""), page(1, "")
		// Each read published a newer point, so page 1 starts where page
		// 0 ended: the point read last on page 0 comes again.
		if !reflect.DeepEqual(p1[0], p0[4]) {
			t.Fatalf("http %v: page 1 does not repeat the end of page 0: %v then %v", viaHTTP, p0, p1)
		}
		var pl map[string]int
		if err := json.Unmarshal(p0[0].Payload, &pl); err != nil || pl["published_before_read"] == 0 {
			t.Fatalf("newest point %s is not a point published before the read", p0[0].Payload)
		}
		se.setChoices(false, localzdm.Choices{})
		if after := len(se.query("?size=1000")); after != before+2 {
			t.Fatalf("%d points after two reads, want %d", after, before+2)
		}
	}
	// A query with an end in the past, a device and a tag gets its point
	// just under the end, from that device with that tag.
	se.setChoices(false, localzdm.Choices{PublishBeforeRead: true})
	pts := se.query("?size=3&end=" + at(5) + "&device=" + se.devB.ID + "&tag=hum")
	se.setChoices(false, localzdm.Choices{})
	if len(pts) != 3 || pts[0].DeviceID != se.devB.ID || pts[0].Tag != "hum" || !bytes.Contains(pts[0].Payload, []byte("published_before_read")) {
		t.Fatalf("newest point of the bounded query = %+v", pts)
	}
	if ts := times(t, pts[:1])[0]; ts >= 5 || ts < 4.99 {
		t.Fatalf("point published at t0+%gs, want just under the end t0+5s", ts)
	}
}

func TestChoiceJobValue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.createDevice("d", "")
	value := `{"a":1,"b":{"c":2,"d":[{"x":1,"y":2}]}}`
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/reboot", `{"value":`+value+`}`), nil)
	for _, viaHTTP := range []bool{false, true} {
		for _, tc := range []struct {
			mode string
			want string // the value member as sent; "" for none
		}{
			{localzdm.JobValueEcho, value},
			{localzdm.JobValueOmit, ""},
			{localzdm.JobValueNull, "null"},
			{localzdm.JobValueReorder, `{"b":{"d":[{"y":2,"x":1}],"c":2},"a":1}`},
		} {
			e.setChoices(viaHTTP, localzdm.Choices{JobValue: tc.mode})
			check := func(what string, raw json.RawMessage) {
				t.Helper()
				var m map[string]json.RawMessage
				if err := json.Unmarshal(raw, &m); err != nil {
					t.Fatal(err)
				}
				v, present := m["value"]
				if tc.want == "" {
					if present {
						t.Fatalf("%s %s: value %s present, want none", tc.mode, what, v)
					}
					return
				}
				if string(v) != tc.want {
					t.Fatalf("%s %s: value %s, want %s", tc.mode, what, v, tc.want)
				}
				if string(m["status"]) != `"pending"` || string(m["name"]) != `"reboot"` {
					t.Fatalf("%s %s: job %s lost its other members", tc.mode, what, raw)
				}
			}
			var one struct{ Job json.RawMessage }
			e.ok(e.api(http.MethodGet, "/devices/"+d.ID+"/jobs/reboot", nil), &one)
			check("GET", one.Job)
			var list struct{ Jobs []json.RawMessage }
			e.ok(e.api(http.MethodGet, "/devices/"+d.ID+"/jobs", nil), &list)
			if len(list.Jobs) != 1 {
				t.Fatalf("jobs = %s", list.Jobs)
			}
			check("list", list.Jobs[0])
		}
	}
	// Scheduling answers echo the value as stored whatever the choice.
	var sched struct{ Job job }
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/reboot", `{"value":`+value+`}`), &sched)
	if string(sched.Job.Value) != value {
		t.Fatalf("scheduling answer value = %s, want %s", sched.Job.Value, value)
	}
}

func TestChoiceWorkspaceList(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ids := []string{e.b.WorkspaceID}
	for _, n := range []string{"w1", "w2", "w3"} {
		b, err := e.s.CreateWorkspace(e.b.AccountID, n)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, b.WorkspaceID)
	}
	listed := func() []string {
		var out struct{ Workspaces []workspace }
		e.ok(e.api(http.MethodGet, "/workspaces", nil), &out)
		var got []string
		for _, w := range out.Workspaces {
			got = append(got, w.ID)
		}
		return got
	}
	if got := listed(); !slices.Equal(got, ids) {
		t.Fatalf("workspaces = %v, want %v", got, ids)
	}
	for _, viaHTTP := range []bool{false, true} {
		for _, tc := range []struct {
			c    localzdm.Choices
			want []string
		}{
			{localzdm.Choices{WorkspaceListLimit: 2}, ids[:2]},
			{localzdm.Choices{HiddenWorkspaces: []string{ids[0]}}, ids[1:]},
			{localzdm.Choices{HiddenWorkspaces: []string{ids[1]}, WorkspaceListLimit: 2}, []string{ids[0], ids[2]}},
		} {
			e.setChoices(viaHTTP, tc.c)
			if got := listed(); !slices.Equal(got, tc.want) {
				t.Fatalf("%+v: workspaces = %v, want %v", tc.c, got, tc.want)
			}
			// Every workspace still answers by ID.
			for _, id := range ids {
				e.ok(e.api(http.MethodGet, "/workspaces/"+id, nil), nil)
			}
		}
	}
}

func TestChoicesInvalid(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		c    localzdm.Choices
		want string
	}{
		{localzdm.Choices{MissingFOTA: "204"}, `"missing_fota" must be`},
		{localzdm.Choices{JobValue: "shuffle"}, `"job_value" must be`},
		{localzdm.Choices{WorkspaceListLimit: -1}, `"workspace_list_limit" must not be negative`},
		{localzdm.Choices{HiddenWorkspaces: []string{""}}, `"hidden_workspaces[0]" must not be empty`},
	} {
		err := e.s.SetChoices(tc.c)
		var le *localzdm.Error
		if !errors.As(err, &le) || le.Status != http.StatusBadRequest || !strings.Contains(le.Message, tc.want) {
			t.Fatalf("SetChoices(%+v) = %v, want 400 %s", tc.c, err, tc.want)
		}
		e.fails(e.admin(http.MethodPut, "/choices", tc.c), http.StatusBadRequest, tc.want)
		if _, err := localzdm.New(localzdm.Options{Choices: tc.c}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("New with choices %+v = %v, want an error %s", tc.c, err, tc.want)
		}
	}
	// Nothing changed, and Reset returns to the choices of Options.
	if c := e.s.CurrentChoices(); c.MissingFOTA != localzdm.MissingFOTA404 {
		t.Fatalf("choices after refusals = %+v", c)
	}
	s := localzdm.StartTestWithOptions(t, localzdm.Options{Choices: localzdm.Choices{MissingFOTA: localzdm.MissingFOTANull}})
	if err := s.SetChoices(localzdm.Choices{}); err != nil {
		t.Fatal(err)
	}
	s.Reset()
	if c := s.CurrentChoices(); c.MissingFOTA != localzdm.MissingFOTANull {
		t.Fatalf("choices after Reset = %+v, want those of Options", c)
	}
}
