package scheduling

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// TestWaitStatusesStopsAtFailure: a device that reports a failure status
// ends the wait at its first poll, an hour before the timeout, and the
// error names every device not done with its status.
func TestWaitStatusesStopsAtFailure(t *testing.T) {
	t.Parallel()
	srv := localzdm.StartTest(t)
	b, err := srv.Bootstrap("wait")
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Config{BaseURL: srv.BaseURL(), APIKey: b.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := srv.CreateDevices(b.WorkspaceID, "", []string{"ok", "bad", "slow"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, id := range ids {
		if _, err := c.ScheduleFOTA(ctx, id, "fw", "1"); err != nil {
			t.Fatal(err)
		}
	}
	for i, st := range []string{"done", "failed"} {
		if err := srv.SetFOTAStatus(ids[i], st); err != nil {
			t.Fatal(err)
		}
	}
	var lines []string
	w := fleetstatus.WaitOptions{Kind: fleetstatus.FOTA, Firmware: &fleetstatus.Firmware{ID: "fw", Version: "1"},
		Failure: []string{"failed"}, Timeout: time.Hour, Interval: time.Hour, Progress: func(s string) { lines = append(lines, s) }}
	res, err := fleetstatus.Wait(ctx, c, ids, w)
	var we *fleetstatus.WaitError
	if !errors.As(err, &we) || we.Reason != "failed" {
		t.Fatalf("err = %v, want a failure", err)
	}
	for _, want := range []string{ids[1] + " (failed)", ids[2] + " (pending)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	if len(res.Succeeded) != 1 || len(lines) != 1 {
		t.Errorf("result %+v, progress %q", res, lines)
	}
	// Positive control: without failure statuses, the failed device is just
	// not done, and the wait runs to its timeout.
	w.Failure, w.Timeout, w.Interval, w.Progress = nil, 50*time.Millisecond, 10*time.Millisecond, nil
	_, err = fleetstatus.Wait(ctx, c, ids, w)
	if !errors.As(err, &we) || we.Reason != "timeout" || !strings.Contains(err.Error(), ids[1]+" (failed)") {
		t.Fatalf("err = %v, want a timeout naming the failed device", err)
	}
}
