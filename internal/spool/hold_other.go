//go:build !unix

package spool

// canHold is false where an open file cannot be renamed (Windows) or has
// no lock: there Hold declines, and a hook spools its event only when the
// database cannot take it.
const canHold = false
