package localzdm_test

import "testing"

// TestSendsKeepsEveryResend: the service overwrites a device's job of one
// name and its FOTA; Sends keeps each send, single and fleet-wide.
func TestSendsKeepsEveryResend(t *testing.T) {
	e := newEnv(t)
	ids, err := e.s.CreateDevices(e.b.WorkspaceID, "", []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	dev, base := ids[0], e.s.BaseURL()
	post := func(path, body string) {
		path = "/v3" + path
		t.Helper()
		if r := e.do("POST", base+path, e.b.APIKey, body); r.status != 200 {
			t.Fatalf("POST %s: %s", path, r)
		}
	}
	post("/devices/"+dev+"/jobs/configure", `{"value":{"v":1}}`)
	post("/devices/"+dev+"/jobs/configure", `{"value":{"v":1}}`)
	post("/workspace/"+e.b.WorkspaceID+"/jobs/configure", `{"value":{"v":1}}`)
	post("/devices/"+dev+"/fota/fw/versions/1.0", ``)
	got := e.s.Sends()
	if len(got) != 4 {
		t.Fatalf("%d sends, want 4: %+v", len(got), got)
	}
	for _, g := range got[:3] {
		if g.Kind != "job" || g.DeviceID != dev || g.Name != "configure" || g.Value != `{"v":1}` {
			t.Fatalf("job send %+v", g)
		}
	}
	if f := got[3]; f.Kind != "fota" || f.DeviceID != dev || f.Name != "fw" || f.Value != "1.0" {
		t.Fatalf("fota send %+v", f)
	}
}
