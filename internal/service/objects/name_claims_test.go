package objects

import (
	"reflect"
	"testing"
)

func TestNameClaims(t *testing.T) {
	t.Parallel()
	var c NameClaims
	if got := c.Claim("f1", "zdm_fleet_devices of fleet \"f1\"", []PlannedName{{"a", "k1"}, {"b", "k2"}}); len(got) != 0 {
		t.Errorf("first claim: %v", got)
	}
	// One plan naming a device twice is its own (not a clash between two
	// resources), and another place is another place.
	if got := c.Claim("f2", "zdm_device \"a\"", []PlannedName{{Name: "a"}}); len(got) != 0 {
		t.Errorf("another place: %v", got)
	}
	got := c.Claim("f1", "zdm_device \"b\"", []PlannedName{{Name: "c"}, {Name: "b"}})
	want := []ClaimedName{{Name: "b", Earlier: `zdm_fleet_devices of fleet "f1", key "k2"`, Later: `zdm_device "b"`}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("second claim: %v, want %v", got, want)
	}
	if got := c.Claim("f1", "x", []PlannedName{{Name: "d"}, {Name: "d"}}); len(got) != 0 {
		t.Errorf("a name repeated by one plan: %v", got)
	}
	if items := ClaimedItems(want); len(items) != 1 || items[0] != `"b": zdm_fleet_devices of fleet "f1", key "k2" and zdm_device "b"` {
		t.Errorf("items: %q", items)
	}
}
