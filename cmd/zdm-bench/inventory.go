package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// An inventory is the devices of one zdm_fleet_devices as a CSV file of
// serial,name rows, which the configuration reads with csvdecode: a fleet
// of thousands comes to Terraform from a list kept elsewhere, not from
// arithmetic in HCL. The form matters to Terraform's own time, and so to
// the floors: it evaluates the devices' map in every walk of every plan
// and apply, and a number turned into a string costs it about 0.1 ms (a
// plan of a map of 100,000 devices alone took 8.3 s with keys formatted
// from numbers, 1.4 s from an inventory; measureForms measures both).

// inventoryDevices is the devices expression of a zdm_fleet_devices that
// reads the inventory file (a path in the configuration's directory, which
// may interpolate count.index).
func inventoryDevices(file string) string {
	return fmt.Sprintf(`{ for row in csvdecode(file("${path.module}/%s")) : row.serial => row.name }`, file)
}

// writeInventory writes the inventory file of n devices: serial
// k-<index, seven digits>, name prefix<index>.
func (c *config) writeInventory(file string, n int, prefix string) error {
	var b strings.Builder
	b.Grow(len("serial,name\n") + n*(len("k-0000000,\n")+len(prefix)+7))
	b.WriteString("serial,name\n")
	for i := range n {
		fmt.Fprintf(&b, "k-%07d,%s%d\n", i, prefix, i)
	}
	return c.write(file, b.String())
}

// layout writes the configuration of n devices named prefix-<index> into
// cfg.
type layout func(cfg *config, n int, prefix string) error

// mainOnly is the layout of a configuration that is one main.tf.
func mainOnly(render func(n int, prefix string) string) layout {
	return func(cfg *config, n int, prefix string) error { return cfg.write("main.tf", render(n, prefix)) }
}

// formCost is Terraform's own evaluation of one devices' map of n devices
// in two forms, each a plan of a configuration that holds that map and
// nothing else: keys formatted from numbers made with range() (the form
// this benchmark used before), and the inventory file.
type formCost struct {
	Devices   int         `json:"devices"`
	Formatted measurement `json:"formatted"`
	Inventory measurement `json:"inventory"`
}

// formattedDevices is the devices' map of n devices with keys formatted
// from numbers (range() stops at 1,024 values: counted in thousands).
func formattedDevices(n int) string {
	return fmt.Sprintf(`locals {
  numbers = [for i in flatten([for k in range(%d) : [for j in range(1000) : k * 1000 + j]]) : i if i < %d]
  devices = { for i in local.numbers : format("k-%%07d", i) => "s0-${i}" }
}
`, (n+999)/1000, n)
}

// measureForms plans the two forms of a map of n devices, each on its own
// (no provider), one after the other.
func (b *bench) measureForms(ctx context.Context, n int) (*formCost, error) {
	fc := &formCost{Devices: n}
	forms := []struct {
		name      string
		locals    string
		inventory bool // the form reads inventory.csv
		m         *measurement
	}{
		{"formatted", formattedDevices(n), false, &fc.Formatted},
		{"inventory", fmt.Sprintf("locals {\n  devices = %s\n}\n", inventoryDevices("inventory.csv")), true, &fc.Inventory},
	}
	for _, f := range forms {
		cfg, err := b.newConfig(fmt.Sprintf("form-%s-%d", f.name, n), localzdm.Bootstrap{}, false)
		if err != nil {
			return nil, err
		}
		if f.inventory {
			if err := cfg.writeInventory("inventory.csv", n, "s0-"); err != nil {
				return nil, err
			}
		}
		if err := cfg.write("main.tf", f.locals+"\noutput \"devices\" {\n  value = length(local.devices)\n}\n"); err != nil {
			return nil, err
		}
		if _, err := b.terraform(ctx, cfg, okCodes, "init", "-no-color", "-input=false"); err != nil {
			return nil, err
		}
		res, err := b.terraform(ctx, cfg, okCodes, "plan", "-no-color", "-input=false")
		if err != nil {
			return nil, fmt.Errorf("the %s devices' map: %w", f.name, err)
		}
		if want := fmt.Sprintf("devices = %d", n); !strings.Contains(res.Output, want) {
			return nil, fmt.Errorf("the %s devices' map: the plan does not show %q:\n%s", f.name, want, tail(res.Output, 10))
		}
		f.m.add(res)
	}
	return fc, nil
}
