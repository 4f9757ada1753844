// Package lazy holds values built on first use. Every mem process, each hook
// call included, would otherwise pay at init for every regular expression and
// table of every package it links, needed or not. A package-level
// lazy.Regexp or lazy.Value is laid out by the compiler: no work at init.
package lazy

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on its first use.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// NewRegexp returns expr, to be compiled (regexp.MustCompile) on first Get.
func NewRegexp(expr string) *Regexp { return &Regexp{expr: expr} }

// Get returns the compiled expression.
func (r *Regexp) Get() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// Value is a value built by New on its first Get. New must not capture
// variables, or the compiler builds the closure at init.
type Value[T any] struct {
	New  func() T
	once sync.Once
	v    T
}

// Get returns the value, building it on the first call.
func (l *Value[T]) Get() T {
	l.once.Do(func() { l.v = l.New() })
	return l.v
}
