package devices

import "testing"

func TestDeviceClaims(t *testing.T) {
	t.Parallel()
	var c DeviceClaims
	if lines := c.ClaimDevices("zdm_fleet_devices of fleet \"f1\"", map[string]string{"d1": "a", "d2": "b"}); len(lines) != 0 {
		t.Errorf("first claim: %v", lines)
	}
	lines := c.ClaimDevices("zdm_device \"x\"", map[string]string{"d2": "", "d3": ""})
	want := `device d2: zdm_fleet_devices of fleet "f1" (key "b") and zdm_device "x"`
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("second claim: %q, want [%q]", lines, want)
	}
	// One read holding a device once is not a conflict with itself.
	if lines := c.ClaimDevices("zdm_fleet_devices of fleet \"f2\"", map[string]string{"d4": "a"}); len(lines) != 0 {
		t.Errorf("third claim: %v", lines)
	}
}
