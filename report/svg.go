package report

import (
	"fmt"
	"math"
	"strings"
)

// The overlay picture is laid out here and drawn by the HTML template as
// inline SVG: boxes for nodes, arrows for tunnels.

const (
	svgWidth  = 960
	boxW      = 280
	boxH      = 86
	maxDrawn  = 30 // beyond this the picture is no longer readable
	arrowSize = 8
)

type svgView struct {
	Width, Height int
	Nodes         []svgNode
	Edges         []svgEdge
	Omitted       int
}

type svgNode struct {
	X, Y    float64 // top left
	Name    string
	OS      string
	VTEP    string
	Broken  bool
	Problem string
	Subnets string
	Peer    bool // not in the inputs: drawn dashed

	// The lines drawn in the box, cut to fit it; Title holds them whole
	// (a tooltip).
	NameLine, ProblemLine, SubnetsLine, Title string
}

// Characters that fit a box line: the box is 280 px with 12 px margins;
// at 12 px a sans-serif character averages under 7 px, 13 px bold under 8.
const (
	boxChars     = 36
	boxNameChars = 30
)

// fit cuts s to n characters, ending it with an ellipsis when cut.
func fit(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// fitMiddle cuts s to n characters in the middle: node names of one pool
// share their start and differ at their end (aks-winpool-38715122-
// vmss000000, ...0001), so the end must stay.
func fitMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 3 {
		return fit(s, n)
	}
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

func (n *svgNode) lines() {
	suffix := ""
	if n.OS != "" {
		suffix += " (" + n.OS + ")"
	}
	if n.Peer {
		suffix += " · not in the inputs"
	}
	name := n.Name + suffix
	// The node's name is cut in its middle; what follows it is cut last.
	if room := boxNameChars - len([]rune(suffix)); len([]rune(name)) > boxNameChars && room >= 12 {
		n.NameLine = fitMiddle(n.Name, room) + suffix
	} else {
		n.NameLine = fit(name, boxNameChars)
	}
	n.ProblemLine = fit(n.Problem, boxChars)
	if n.Subnets != "" {
		n.SubnetsLine = fit("pods "+n.Subnets, boxChars)
	}
	title := []string{name, "VTEP " + n.VTEP}
	if n.Subnets != "" {
		title = append(title, "pods "+n.Subnets)
	}
	if n.Problem != "" {
		title = append(title, n.Problem)
	}
	n.Title = strings.Join(title, "\n")
}

type svgEdge struct {
	X1, Y1, X2, Y2 float64
	LX, LY         float64 // label position
	Label          string
	Note           string
	Status         string
}

func layoutOverlay(o *Overlay) *svgView {
	if o == nil || len(o.Nodes) == 0 {
		return nil
	}
	nodes := o.Nodes
	v := &svgView{Width: svgWidth}
	if len(nodes) > maxDrawn {
		v.Omitted = len(nodes) - maxDrawn
		nodes = nodes[:maxDrawn]
	}
	centers := map[string][2]float64{}
	n := len(nodes)
	switch {
	case n <= 2:
		v.Height = boxH + 140
		for i, node := range nodes {
			x := float64(svgWidth) / 2
			if n == 2 {
				x = []float64{boxW/2 + 40, svgWidth - boxW/2 - 40}[i]
			}
			centers[node.Key] = [2]float64{x, float64(v.Height) / 2}
		}
	default:
		r := math.Max(190, float64(n)*34)
		v.Height = int(2*r) + boxH + 60
		cx, cy := float64(svgWidth)/2, float64(v.Height)/2
		rx := math.Min(r*1.3, float64(svgWidth)/2-boxW/2-10)
		for i, node := range nodes {
			a := -math.Pi/2 + 2*math.Pi*float64(i)/float64(n)
			centers[node.Key] = [2]float64{cx + rx*math.Cos(a), cy + r*math.Sin(a)}
		}
	}
	for _, node := range nodes {
		c := centers[node.Key]
		sv := svgNode{X: c[0] - boxW/2, Y: c[1] - boxH/2, Name: node.Name, OS: node.OS, VTEP: node.VTEP,
			Broken: node.VTEPBroken, Problem: node.Problem, Peer: !node.InInput}
		if len(node.Subnets) > 0 {
			sv.Subnets = strings.Join(node.Subnets, ", ")
		}
		sv.lines()
		v.Nodes = append(v.Nodes, sv)
	}
	pairs := map[[2]string]int{}
	for _, t := range o.Tunnels {
		pairs[[2]string{t.From, t.To}]++
	}
	for _, t := range o.Tunnels {
		a, okA := centers[t.From]
		b, okB := centers[t.To]
		if !okA || !okB || t.From == t.To {
			continue
		}
		// Two tunnels between the same nodes in opposite directions are
		// drawn side by side.
		off := 0.0
		if pairs[[2]string{t.To, t.From}] > 0 {
			off = 9
		}
		x1, y1, x2, y2 := clipToBoxes(a, b, off)
		e := svgEdge{X1: x1, Y1: y1, X2: x2, Y2: y2, Status: t.Status, Note: t.Note}
		switch t.Status {
		case TunnelMissing:
			e.Label = "no route"
			if t.Prefix != "" && t.Prefix != "invalid Prefix" {
				e.Label = "no route " + t.Prefix
			}
		default:
			e.Label = t.Prefix + " via " + t.Via
		}
		// Label on the from side of the middle, nudged off the line.
		e.LX, e.LY = x1+(x2-x1)*0.42, y1+(y2-y1)*0.42-6
		if off != 0 {
			dx, dy := x2-x1, y2-y1
			l := math.Hypot(dx, dy)
			e.LX += -dy / l * 10
			e.LY += dx / l * 14
		}
		v.Edges = append(v.Edges, e)
	}
	return v
}

// clipToBoxes returns the segment between two box centres, cut at the box
// borders and shifted sideways by off.
func clipToBoxes(a, b [2]float64, off float64) (float64, float64, float64, float64) {
	dx, dy := b[0]-a[0], b[1]-a[1]
	l := math.Hypot(dx, dy)
	if l == 0 {
		return a[0], a[1], b[0], b[1]
	}
	nx, ny := -dy/l*off, dx/l*off
	// Distance from a box centre to its border along (dx, dy).
	t := math.Min(math.Abs(boxW/2/dx), math.Abs(boxH/2/dy))
	if math.IsInf(t, 0) || math.IsNaN(t) {
		t = 0
	}
	t = math.Min(t, 0.45)
	gap := arrowSize / l
	return a[0] + dx*t + nx, a[1] + dy*t + ny, b[0] - dx*(t+gap) + nx, b[1] - dy*(t+gap) + ny
}

// f formats a coordinate for the template.
func f(x float64) string { return fmt.Sprintf("%.1f", x) }
