package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The inventory is a CSV file that csvdecode reads as rows with serial and
// name: one row per device, keys distinct and in the order of the index.
func TestWriteInventory(t *testing.T) {
	cfg := &config{dir: t.TempDir()}
	if err := cfg.writeInventory("inventory-3.csv", 1200, "s3-"); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(cfg.dir, "inventory-3.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1201 || strings.Join(rows[0], ",") != "serial,name" {
		t.Fatalf("%d rows, header %q; want 1,201 and serial,name", len(rows), rows[0])
	}
	seen := map[string]bool{}
	for _, r := range rows[1:] {
		seen[r[0]] = true
	}
	if len(seen) != 1200 {
		t.Errorf("%d distinct serials, want 1,200", len(seen))
	}
	if got := strings.Join(rows[1], ","); got != "k-0000000,s3-0" {
		t.Errorf("first device %q, want k-0000000,s3-0", got)
	}
	if got := strings.Join(rows[1200], ","); got != "k-0001199,s3-1199" {
		t.Errorf("last device %q, want k-0001199,s3-1199", got)
	}
	if got := inventoryDevices("inventory-${count.index}.csv"); !strings.Contains(got, `csvdecode(file("${path.module}/inventory-${count.index}.csv"))`) ||
		!strings.Contains(got, "row.serial => row.name") {
		t.Errorf("devices expression %s does not read the inventory as serial => name", got)
	}
}
