package main

import (
	"strings"
	"testing"
	"time"
)

func TestGrowth(t *testing.T) {
	measured := func(name string, size int, p50 time.Duration) row {
		return row{name: name, size: size, s: stats{N: 3, P50: p50}}
	}
	rows := []row{
		{name: "mem import", size: 10000, special: "1 files"},
		measured("mem get", 10000, 5*time.Millisecond),
		{name: "mem search", size: 10000, skip: "not in this build"},
		measured("mem get", 100000, 7500*time.Microsecond),
		measured("mem observe", 100000, 8*time.Millisecond),
	}
	tests := []struct {
		name  string
		sizes []int
		want  []string
		not   []string
	}{
		{name: "one size", sizes: []int{10000}},
		{name: "two sizes", sizes: []int{10000, 100000},
			want: []string{"| path | 10k | 100k | 100k / 10k |", "| mem get | 5.0 | 7.5 | x1.50 |", "| mem observe | - | 8.0 | - |"},
			not:  []string{"mem import", "mem search"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := growth(rows, tt.sizes)
			if len(tt.want) == 0 && got != "" {
				t.Fatalf("growth = %q, want nothing", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w+"\n") {
					t.Errorf("growth lacks line %q:\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("growth lists %q, which has no p50:\n%s", n, got)
				}
			}
		})
	}
}

func TestSelected(t *testing.T) {
	tests := []struct {
		only, name string
		want       bool
	}{
		{"", "mem get", true},
		{"prompt", "hook UserPromptSubmit", true},
		{"prompt", "mem inject (text, prompt)", true},
		{"hook", "mem summarize --pending (1 run)", false},
		{"summarize", summarizeName, true},
	}
	for _, tt := range tests {
		if got := (benchConfig{only: tt.only}).selected(tt.name); got != tt.want {
			t.Errorf("-only %q selects %q = %v, want %v", tt.only, tt.name, got, tt.want)
		}
	}
}

func TestPairedRatio(t *testing.T) {
	ms := func(d ...int) []run {
		var rs []run
		for _, v := range d {
			rs = append(rs, run{Wall: time.Duration(v) * time.Millisecond, CPU: time.Duration(v) * time.Millisecond / 2})
		}
		return rs
	}
	wall := func(r run) time.Duration { return r.Wall }
	tests := []struct {
		name          string
		path, floor   []run
		want          float64
		wantFloor50ms float64
	}{
		// Pairs, not medians of each side: a slow moment slows both.
		{"paired", ms(20, 40, 200), ms(10, 20, 100), 2, 20},
		{"even count", ms(10, 30, 40, 80), ms(10, 10, 10, 10), 3.5, 10},
		{"one", ms(15), ms(5), 3, 5},
		{"none", nil, nil, 0, 0},
		{"unpaired", ms(10, 20), ms(10), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, f50 := pairedRatio(tt.path, tt.floor, wall)
			if got != tt.want || float64(f50)/float64(time.Millisecond) != tt.wantFloor50ms {
				t.Errorf("pairedRatio = %v, floor p50 %v; want %v, %v ms", got, f50, tt.want, tt.wantFloor50ms)
			}
		})
	}
	if got, _ := pairedRatio(ms(20, 40), ms(10, 10), func(r run) time.Duration { return r.CPU }); got != 3 {
		t.Errorf("CPU ratio = %v, want 3", got)
	}
}
