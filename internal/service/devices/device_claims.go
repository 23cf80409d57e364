package devices

import (
	"sort"
	"sync"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// Devices managed twice.
//
// A device must be managed by one resource: one zdm_device, or one entry of
// one zdm_fleet_devices. Two resources that hold the same device undo each
// other's changes at every apply. The API cannot tell, but the provider can
// notice it cheaply: every resource read of one operation (one provider
// configuration, one graph walk) claims the devices it read, and a device
// claimed by two reads is reported as a warning by the second one.
//
// Reads right after an import do not claim: moving devices from zdm_device
// resources to a zdm_fleet_devices (removed blocks and an import in one
// plan) reads both for one last time.

// DeviceClaims records which read holds each device ID. The reads of
// zdm_device and of zdm_fleet_devices (package fleetdevices) share one per
// provider configuration, connection.Registry[DeviceClaims], and call
// ClaimDevices. Its zero value is ready to use.
type DeviceClaims struct {
	mu     sync.Mutex
	claims map[string]deviceClaim
	// owners holds the resource of each read (one per ClaimDevices call),
	// such as `zdm_fleet_devices of fleet "flt-1"`: read n is owners[n-1].
	owners []string
}

// deviceClaim is one read's hold on a device: 24 bytes, a million of which
// a plan of a million devices holds.
type deviceClaim struct {
	key  string // the key of the device in its resource's map, "" for a zdm_device
	read uint32 // which read, from 1
}

// ClaimDevices records that one read of the resource described by owner
// holds the devices of ids (device ID to its key in owner's map, "" for a
// zdm_device; the key is kept as the caller holds it, and formatted only
// in a warning). It returns one line per device that another read of the same
// operation holds already, sorted.
func (c *DeviceClaims) ClaimDevices(owner string, ids map[string]string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.claims == nil {
		c.claims = make(map[string]deviceClaim, len(ids))
	}
	c.owners = append(c.owners, owner)
	read := uint32(len(c.owners)) //nolint:gosec // G115: one read per resource read of an operation, far below 2^32.
	var out []string
	for id, key := range ids {
		if prev, ok := c.claims[id]; ok && prev.read != read {
			out = append(out, "device "+id+": "+describeClaim(c.owners[prev.read-1], prev.key)+" and "+describeClaim(owner, key))
			continue
		}
		c.claims[id] = deviceClaim{key: key, read: read}
	}
	sort.Strings(out)
	return out
}

func describeClaim(owner, key string) string {
	if key == "" {
		return owner
	}
	return owner + " (key " + connection.Quote(key) + ")"
}

// TwiceManagedWarning is the summary and detail of the warning about devices
// held by two resources; lines come from ClaimDevices.
func TwiceManagedWarning(lines []string) (string, string) {
	return "Devices managed by two resources",
		"Each device must be managed by one resource only: one zdm_device, or one entry of one zdm_fleet_devices. " +
			"These devices are held by two resources of this configuration, which will undo each other's changes: " +
			ListSome(lines) + ". Remove the device from all but one of them (a removed block with " +
			"lifecycle { destroy = false } for a zdm_device, or deleting its key from a zdm_fleet_devices map; " +
			"neither changes the service)."
}
