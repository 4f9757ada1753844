package web

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/recall"
	"github.com/memhq/mem/internal/store"
)

// chartDays is how many days the overview's chart covers.
const chartDays = 90

// Chart geometry, in SVG user units.
const (
	chartW, chartH = 900.0, 160.0
	barW           = chartW / chartDays
)

// chart is the overview's stacked bars of observations per day by type,
// laid out on the server so that the page needs no script to draw it.
type chart struct {
	Bars   []rect
	Labels []label
	Legend []legendItem
	Max    int
	Total  int
	From   time.Time
}

type rect struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

type label struct {
	X    float64
	Text string
}

type legendItem struct {
	Type  memory.Type
	Count int
}

// BarsSVG renders the bars as SVG elements: a thousand of them cost a template
// a third of the page's time, a builder little. Every value is a number or a
// class and title made here, escaped all the same.
func (c chart) BarsSVG() template.HTML {
	var b strings.Builder
	b.Grow(len(c.Bars) * 120)
	for _, r := range c.Bars {
		fmt.Fprintf(&b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" class="%s"><title>%s</title></rect>`,
			r.X, r.Y, r.W, r.H, template.HTMLEscapeString(r.Class), template.HTMLEscapeString(r.Title))
	}
	return template.HTML(b.String())
}

func newChart(days []store.DayCount, since time.Time) chart {
	c := chart{From: since}
	perDay := map[int][]store.DayCount{}
	totals := map[int]int{}
	byType := map[memory.Type]int{}
	for _, d := range days {
		i := int(d.Day.Sub(since).Hours() / 24)
		if i < 0 || i >= chartDays {
			continue
		}
		perDay[i] = append(perDay[i], d)
		totals[i] += d.Count
		byType[d.Type] += d.Count
		c.Total += d.Count
	}
	for _, n := range totals {
		c.Max = max(c.Max, n)
	}
	for i := range chartDays {
		day := since.AddDate(0, 0, i)
		if i%15 == 0 {
			c.Labels = append(c.Labels, label{X: float64(i) * barW, Text: day.Format("Jan 2")})
		}
		y := chartH
		for _, d := range perDay[i] {
			h := chartH * float64(d.Count) / float64(c.Max)
			y -= h
			c.Bars = append(c.Bars, rect{X: float64(i)*barW + 1, Y: y, W: barW - 2, H: h, Class: "t-" + string(d.Type),
				Title: fmt.Sprintf("%s: %d %s", day.Format("2006-01-02"), d.Count, d.Type)})
		}
	}
	for _, t := range memory.Types() {
		if byType[t] > 0 {
			c.Legend = append(c.Legend, legendItem{Type: t, Count: byType[t]})
		}
	}
	return c
}

// budgetBar splits a block's token budget: summaries, the index (and, in
// compact mode, the session's own observations), markup, and what is left.
type budgetBar struct {
	Parts  []barPart
	Budget int
	Used   int
}

type barPart struct {
	Name   string
	Class  string
	Tokens int
	X, W   float64 // in per cent of the bar
}

func newBudgetBar(res recall.Result) budgetBar {
	b := budgetBar{Budget: res.Budget, Used: res.Tokens}
	groups := map[string]int{}
	items := 0
	for _, e := range res.Entries {
		groups[e.Group] += e.Tokens
		items += e.Tokens
	}
	markup := max(res.Tokens-items, 0)
	left := max(res.Budget-res.Tokens, 0)
	whole := float64(max(res.Budget, res.Tokens, 1))
	x := 0.0
	for _, p := range []barPart{
		{Name: "summaries", Class: "b-sessions", Tokens: groups["sessions"]},
		{Name: "this session", Class: "b-current", Tokens: groups["current"]},
		{Name: "index", Class: "b-index", Tokens: groups["index"]},
		{Name: "markup", Class: "b-markup", Tokens: markup},
		{Name: "left over", Class: "b-left", Tokens: left},
	} {
		if p.Tokens == 0 && p.Name == "this session" {
			continue
		}
		p.X, p.W = x, 100*float64(p.Tokens)/whole
		x += p.W
		b.Parts = append(b.Parts, p)
	}
	return b
}
