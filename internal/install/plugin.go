package install

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/memhq/mem/scripts/hooks/opencode"
)

const pluginMarker = "@memhq/mem opencode plugin"

// Plugin returns the OpenCode plugin set up to run the mem binary at bin.
func Plugin(bin string) []byte {
	q, _ := json.Marshal(bin)
	return []byte(strings.Replace(string(opencode.Plugin), `"__MEM_BIN__"`, string(q), 1))
}

// IsPlugin reports whether a file is mem's OpenCode plugin.
func IsPlugin(b []byte) bool { return bytes.Contains(b, []byte(pluginMarker)) }
