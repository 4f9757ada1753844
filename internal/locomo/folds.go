package locomo

import "math"

// Ks are the cut-offs recall is reported at.
var Ks = [4]int{5, 10, 25, 50}

// Scores holds, for one ranking, each question's recall at Ks, in the
// order the questions were asked.
type Scores [][4]float64

// Fold is one turn of the rotation: the ranking chosen on every
// conversation but Held, and its recall on Held.
type Fold struct {
	Held   int        // the held-out conversation
	Chosen int        // index of the ranking chosen on the others
	Train  [4]float64 // the chosen ranking's mean recall on the others
	Test   [4]float64 // its mean recall on Held
}

// CrossValidate splits the questions by conversation (conv[i] is the
// conversation of question i, 0..n-1) and, for each conversation in turn,
// chooses among variants the one with the best mean recall at Ks[by] on the
// other conversations (ties: the lower index), then measures it on the held
// out one. Every variant must score every question.
func CrossValidate(conv []int, n int, variants []Scores, by int) []Fold {
	folds := make([]Fold, 0, n)
	for held := 0; held < n; held++ {
		f := Fold{Held: held, Chosen: -1}
		for v, s := range variants {
			train := Mean(s, conv, func(c int) bool { return c != held })
			if f.Chosen < 0 || train[by] > f.Train[by] {
				f.Chosen, f.Train = v, train
			}
		}
		if f.Chosen >= 0 {
			f.Test = Mean(variants[f.Chosen], conv, func(c int) bool { return c == held })
		}
		folds = append(folds, f)
	}
	return folds
}

// Mean is the mean recall at Ks over the questions whose conversation
// passes keep (zero when none does).
func Mean(s Scores, conv []int, keep func(int) bool) [4]float64 {
	var sum [4]float64
	n := 0
	for i, r := range s {
		if !keep(conv[i]) {
			continue
		}
		for k := range sum {
			sum[k] += r[k]
		}
		n++
	}
	if n > 0 {
		for k := range sum {
			sum[k] /= float64(n)
		}
	}
	return sum
}

// Spread returns the mean and the sample standard deviation of the folds'
// held-out recall at each of Ks.
func Spread(folds []Fold) (mean, sd [4]float64) {
	v := make([]float64, len(folds))
	for k := range mean {
		for i, f := range folds {
			v[i] = f.Test[k]
		}
		mean[k], sd[k] = MeanSD(v)
	}
	return mean, sd
}

// MeanSD returns the mean of v and its sample standard deviation (0 for
// fewer than two values).
func MeanSD(v []float64) (mean, sd float64) {
	n := float64(len(v))
	if n == 0 {
		return 0, 0
	}
	for _, x := range v {
		mean += x / n
	}
	if n < 2 {
		return mean, 0
	}
	for _, x := range v {
		sd += (x - mean) * (x - mean) / (n - 1)
	}
	return mean, math.Sqrt(sd)
}
