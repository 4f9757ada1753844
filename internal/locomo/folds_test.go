package locomo

import (
	"math"
	"testing"
)

func TestCrossValidate(t *testing.T) {
	// Three conversations, two questions each. Variant 0 is good on
	// conversations 0 and 1, variant 1 only on conversation 2: held out, 2
	// gets variant 0 (chosen on 0 and 1), while 0 and 1 get the one that
	// does best on the other two.
	conv := []int{0, 0, 1, 1, 2, 2}
	at10 := func(v ...float64) Scores {
		s := make(Scores, len(v))
		for i, x := range v {
			s[i] = [4]float64{x, x, x, x}
		}
		return s
	}
	variants := []Scores{
		at10(1, 1, 1, 0, 0, 0),
		at10(0, 0, 0, 0, 1, 1),
	}
	folds := CrossValidate(conv, 3, variants, 1)
	for _, tc := range []struct {
		held, chosen int
		train, test  float64
	}{
		{0, 1, 0.5, 0},   // on 1 and 2: v0 0.25, v1 0.5
		{1, 0, 0.5, 0.5}, // on 0 and 2: v0 0.5, v1 0.5 (tie: lower index)
		{2, 0, 0.75, 0},  // on 0 and 1: v0 0.75, v1 0
	} {
		f := folds[tc.held]
		if f.Held != tc.held || f.Chosen != tc.chosen || f.Train[1] != tc.train || f.Test[1] != tc.test {
			t.Errorf("fold %d: got %+v, want chosen %d train %v test %v", tc.held, f, tc.chosen, tc.train, tc.test)
		}
	}
	mean, sd := Spread(folds)
	if math.Abs(mean[1]-1.0/6) > 1e-12 {
		t.Errorf("mean %v, want 1/6", mean[1])
	}
	if want := math.Sqrt((2*(1.0/36) + (1.0/3)*(1.0/3)) / 2); math.Abs(sd[1]-want) > 1e-12 {
		t.Errorf("sd %v, want %v", sd[1], want)
	}
}

func TestMeanEmpty(t *testing.T) {
	if got := Mean(Scores{{1, 1, 1, 1}}, []int{0}, func(int) bool { return false }); got != [4]float64{} {
		t.Errorf("Mean of nothing = %v", got)
	}
}

func TestMeanSD(t *testing.T) {
	for _, tc := range []struct {
		v        []float64
		mean, sd float64
	}{
		{nil, 0, 0},
		{[]float64{3}, 3, 0},
		{[]float64{1, 3}, 2, math.Sqrt2},
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0 / 7)},
	} {
		mean, sd := MeanSD(tc.v)
		if math.Abs(mean-tc.mean) > 1e-12 || math.Abs(sd-tc.sd) > 1e-12 {
			t.Errorf("MeanSD(%v) = %v, %v; want %v, %v", tc.v, mean, sd, tc.mean, tc.sd)
		}
	}
}
