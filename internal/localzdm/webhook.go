package localzdm

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/httpio"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/store"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/webhook"
)

// Event directions.
const (
	directionD2C = webhook.DirectionD2C
	directionC2D = webhook.DirectionC2D
)

// Batch types, sent in the X-Zdm-Batch-Type header of webhook deliveries.
const (
	BatchTypeData   = webhook.BatchTypeData
	BatchTypeEvents = webhook.BatchTypeEvents
)

// event is an event item of a webhook batch.
type event = webhook.Event

// WebhookStats describes webhook delivery since the start or the last Reset.
type WebhookStats = webhook.Stats

// Send is a job or firmware update sent to a device (see Sends).
type Send = webhook.Send

// Sends returns every job and firmware update sent to a device since the
// server started, in order (not persisted).
func (s *Server) Sends() []Send {
	s.st.Mu.RLock()
	defer s.st.Mu.RUnlock()
	return append([]Send(nil), s.sends...)
}

func deviceEvent(d *device, typ, dir string, at time.Time, payload any) event {
	return event{
		TS: store.Timestamp(at), WorkspaceID: d.WorkspaceID, FleetID: d.FleetID, DeviceID: d.ID,
		Type: typ, Direction: dir, Payload: payload,
	}
}

func jobEvent(d *device, j *job, dir string, at time.Time) event {
	return deviceEvent(d, "job", dir, at, map[string]any{
		"job": j.Name, "status": j.Status, "scheduled_at": j.ScheduledAt, "value": j.Value,
	})
}

func fotaEvent(d *device, f *fota, dir string, at time.Time) event {
	return deviceEvent(d, "fota", dir, at, map[string]any{
		"status": f.Status, "scheduled_at": f.ScheduledAt,
		"firmware_id": f.FirmwareID, "firmware_version": f.FirmwareVersion,
	})
}

// emitLocked records the sends among events (Sends) and queues an event
// batch for w's webhook, if it has one; s.st.Mu must be held, which keeps
// batches in the order of the changes they report.
func (s *Server) emitLocked(w *workspace, events []event) {
	s.sends = append(s.sends, webhook.SendsOf(events)...)
	if w == nil || w.Webhook == "" || len(events) == 0 {
		return
	}
	for i := range events {
		events[i].ID = strconv.Itoa(i)
	}
	s.hooks.Enqueue(w.Webhook, BatchTypeEvents, events)
}

// SetWebhook sets the webhook target URL of a workspace; "" removes it. Data
// points published to the workspace and its events (connection, data, job,
// fota) are then POSTed to it in batches, at least once.
func (s *Server) SetWebhook(workspaceID, target string) error {
	if target != "" {
		if err := webhook.ValidURL(target); err != nil {
			return err
		}
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	w := s.st.Workspaces[workspaceID]
	if w == nil {
		return notFound("workspace %q not found", workspaceID)
	}
	w.Webhook = target
	s.st.Changed(w)
	return nil
}

// WebhookStats returns webhook delivery statistics.
func (s *Server) WebhookStats() WebhookStats {
	return s.hooks.Stats()
}

// FlushWebhooks waits until every queued webhook batch was delivered or given
// up, or ctx ends.
func (s *Server) FlushWebhooks(ctx context.Context) error {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		if s.hooks.Stats().Pending == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.closing:
			return fmt.Errorf("localzdm: server closed")
		case <-t.C:
		}
	}
}

// ConnectDevice records that a device connected from deviceIP and emits a
// "connection" event (direction d2c) to its workspace's webhook.
// deviceIP is empty (unknown) or an IPv4 or IPv6 address.
func (s *Server) ConnectDevice(deviceID, deviceIP string) error {
	if err := httpio.CheckDeviceIP(deviceIP); err != nil {
		return err
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	d := s.st.Devices[deviceID]
	if d == nil {
		return notFound("device %q not found", deviceID)
	}
	now := time.Now()
	s.emitLocked(s.st.Workspaces[d.WorkspaceID], []event{deviceEvent(d, "connection", directionD2C, now, map[string]any{
		"device_ip": deviceIP, "connected_at": store.Timestamp(now),
	})})
	return nil
}
