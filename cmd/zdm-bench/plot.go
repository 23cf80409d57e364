package main

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// renderPlot draws, two panels a row, the wall time of each step against N for
// the provider, terraform_data and the plugin floor, and the create with
// latency against its network floor, as a PNG image.
func renderPlot(res *results) ([]byte, error) {
	var panels []*plot.Plot
	for _, step := range []string{stepCreate, stepPlan, stepUpdate} {
		var zdm, base, floor plotter.XYs
		for _, s := range res.Sizes {
			st := stepOf(s, step)
			n := float64(s.N)
			zdm = append(zdm, plotter.XY{X: n, Y: st.ZDM.Wall.Seconds()})
			base = append(base, plotter.XY{X: n, Y: st.Baseline.Wall.Seconds()})
			if st.Floor != nil {
				floor = append(floor, plotter.XY{X: n, Y: st.Floor.Wall.Seconds()})
			}
		}
		lines := []any{"zdm_device", zdm, "terraform_data", base}
		if len(floor) > 0 {
			lines = append(lines, "plugin floor", floor)
		}
		p, err := panel(step, lines)
		if err != nil {
			return nil, err
		}
		panels = append(panels, p)
	}
	if hasLatency(res) {
		var zdm, floor plotter.XYs
		for _, s := range res.Sizes {
			if l := s.Latency; l != nil {
				zdm = append(zdm, plotter.XY{X: float64(s.N), Y: l.Create.Wall.Seconds()})
				floor = append(floor, plotter.XY{X: float64(s.N), Y: l.Floor.Seconds()})
			}
		}
		p, err := panel(stepCreate+", "+res.Options["latency"]+" latency", []any{"zdm_device", zdm, "network floor", floor})
		if err != nil {
			return nil, err
		}
		panels = append(panels, p)
	}

	if fd := res.FleetDevices; fd != nil {
		p, err := fleetDevicesPanel(fd)
		if err != nil {
			return nil, err
		}
		panels = append(panels, p)
	}

	const cols, width, height = 2, 3.6 * vg.Inch, 3 * vg.Inch
	grid := make([][]*plot.Plot, (len(panels)+cols-1)/cols)
	for i, p := range panels {
		grid[i/cols] = append(grid[i/cols], p)
	}
	for len(grid[len(grid)-1]) < cols {
		grid[len(grid)-1] = append(grid[len(grid)-1], nil) // an empty tile
	}
	img := vgimg.NewWith(vgimg.UseWH(cols*width, vg.Length(len(grid))*height), vgimg.UseDPI(110))
	pad := vg.Millimeter * 3
	tiles := draw.Tiles{Rows: len(grid), Cols: cols, PadX: pad, PadY: pad, PadTop: pad, PadBottom: pad, PadLeft: pad, PadRight: pad}
	canvases := plot.Align(grid, tiles, draw.New(img))
	for i, p := range panels {
		p.Draw(canvases[i/cols][i%cols])
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// panel is one plot of seconds against N, with lines given as name, XYs
// pairs.
func panel(title string, lines []any) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "N devices"
	p.Y.Label.Text = "seconds"
	p.X.Min, p.Y.Min = 0, 0
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	return p, plotutil.AddLinePoints(p, lines...)
}

// fleetDevicesPanel draws, per step, how many times less time per device
// N devices as one zdm_fleet_devices take than zdm_device resources, with
// the 10x goal as a line.
func fleetDevicesPanel(r *fleetDevicesResult) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("per device: %s in one resource vs %s", num(r.Devices), num(r.BaselineDevices))
	p.Y.Label.Text = "speed-up (x)"
	p.Y.Min = 0
	var v plotter.Values
	for _, m := range [][2]measurement{{r.Create, r.BaselineCreate}, {r.Plan, r.BaselinePlan}, {r.Rename, r.BaselineRename}} {
		v = append(v, r.speedup(m[0], m[1]))
	}
	bars, err := plotter.NewBarChart(v, vg.Points(28))
	if err != nil {
		return nil, err
	}
	bars.Color = plotutil.Color(0)
	bars.LineStyle.Width = 0
	p.Add(bars)
	goal := plotter.NewFunction(func(float64) float64 { return minFleetDevicesSpeedup })
	goal.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(goal)
	p.Legend.Add(fmt.Sprintf("goal %.0fx", minFleetDevicesSpeedup), goal)
	p.Legend.Top, p.Legend.Left = true, true
	p.NominalX("create", "no-op plan", "rename")
	return p, nil
}
