package bench

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// systemsInOrder lists the systems with results, Partita first.
func (r *Report) systemsInOrder() []string {
	var out []string
	for _, sys := range systemOrder {
		for _, w := range r.Workloads {
			for _, s := range w.Steps {
				if s.result(sys).ok() && !slices.Contains(out, sys) {
					out = append(out, sys)
				}
			}
		}
	}
	return out
}

// WriteCharts draws throughput.png (every step but the wide reads and
// single requests, requests/s per system) and, when the wide workload ran,
// wide-latency.png (p99 against partition width). It returns the files
// written.
func (r *Report) WriteCharts(dir string) ([]string, error) {
	var files []string
	if f, err := r.throughputChart(dir); err != nil {
		return files, err
	} else if f != "" {
		files = append(files, f)
	}
	if f, err := r.wideChart(dir); err != nil {
		return files, err
	} else if f != "" {
		files = append(files, f)
	}
	return files, nil
}

func (r *Report) throughputChart(dir string) (string, error) {
	var labels []string
	var steps []*StepResult
	for _, w := range r.Workloads {
		for _, s := range w.Steps {
			if (w.Name == WorkloadWide && s.Kind == "read") || s.Kind == "delete" || s.partita() == nil {
				continue
			}
			labels = append(labels, w.Name+" "+s.Name)
			steps = append(steps, s)
		}
	}
	if len(steps) == 0 {
		return "", nil
	}
	// Top to bottom in run order: the Y axis grows upwards.
	slices.Reverse(labels)
	slices.Reverse(steps)
	p := plot.New()
	p.Title.Text = "Throughput per step (requests/s; a batch of rows is one request)"
	p.X.Label.Text = "requests/s"
	p.X.Min = 0
	systems := r.systemsInOrder()
	const barWidth = vg.Length(7)
	var most float64
	for j, sys := range systems {
		vals := make(plotter.Values, len(steps))
		for i, s := range steps {
			if res := s.result(sys); res.ok() {
				vals[i] = res.RequestsPerSec
				most = max(most, vals[i])
			}
		}
		bc, err := plotter.NewBarChart(vals, barWidth)
		if err != nil {
			return "", err
		}
		bc.Horizontal = true
		bc.Color = plotutil.Color(j)
		bc.LineStyle.Width = 0
		bc.Offset = vg.Length(float64(len(systems)-1-2*j)/2) * barWidth
		p.Add(bc)
		p.Legend.Add(sys, bc)
	}
	p.NominalY(labels...)
	p.X.Max = most * 1.2 // room for the legend
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	file := filepath.Join(dir, "throughput.png")
	height := vg.Length(len(steps))*barWidth*vg.Length(len(systems)+1) + 2*vg.Inch
	return file, p.Save(10*vg.Inch, height, file)
}

// wideChart plots each read's p99 against the partition width, one line
// per read and system.
func (r *Report) wideChart(dir string) (string, error) {
	w := r.workload(WorkloadWide)
	if w == nil {
		return "", nil
	}
	p := plot.New()
	p.Title.Text = "Wide partition: p99 latency against partition width"
	p.X.Label.Text = "rows in the partition"
	p.Y.Label.Text = "p99 latency (ms)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		ticks := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
		for i := range ticks {
			if ticks[i].Label != "" {
				ticks[i].Label = widthLabel(int(ticks[i].Value + 0.5))
			}
		}
		return ticks
	})
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	lines := 0
	for si, sys := range r.systemsInOrder() {
		for ri, read := range []string{"latest-100-asc", "latest-100-desc", "range-1h"} {
			var xys plotter.XYs
			for _, s := range w.Steps {
				if res := s.result(sys); strings.HasPrefix(s.Name, read+"@") && res.ok() {
					xys = append(xys, plotter.XY{X: float64(s.Width), Y: res.Latency.P99})
				}
			}
			if len(xys) == 0 {
				continue
			}
			l, pts, err := plotter.NewLinePoints(xys)
			if err != nil {
				return "", err
			}
			l.Color, pts.Color = plotutil.Color(ri), plotutil.Color(ri)
			l.Dashes = plotutil.Dashes(si)
			pts.Shape = draw.CircleGlyph{}
			p.Add(l, pts)
			p.Legend.Add(fmt.Sprintf("%s %s", sys, read), l, pts)
			lines++
		}
	}
	if lines == 0 {
		return "", nil
	}
	p.Legend.Top = true
	p.Legend.Left = true
	file := filepath.Join(dir, "wide-latency.png")
	return file, p.Save(9*vg.Inch, 6*vg.Inch, file)
}
