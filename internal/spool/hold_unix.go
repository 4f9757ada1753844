//go:build unix

package spool

// canHold: a locked, open file can be renamed, and its lock ends with its
// process.
const canHold = true
