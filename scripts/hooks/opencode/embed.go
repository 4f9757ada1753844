// Package opencode holds mem's OpenCode plugin, which `mem install opencode`
// writes into OpenCode's plugin folder.
package opencode

import _ "embed"

// Plugin is the plugin's source, with the placeholder "__MEM_BIN__" for the
// path of the mem binary.
//
//go:embed mem.js
var Plugin []byte
