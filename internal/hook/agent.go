// Package hook connects editors to mem: the agent's adapter (internal/agent)
// decodes the event an editor writes on stdin, a Handler does what the event
// calls for, and the adapter encodes the reply the editor expects. Run wraps
// it all so that a hook never fails the editor: it always answers in time,
// with a valid reply or nothing. Main is mem hook itself over a
// configuration (the command only parses its arguments and calls it), and
// ApplySpool what a command that writes calls first; exactly-once of the
// spooled events lives in internal/spool.
package hook

import "github.com/memhq/mem/internal/agent"

// The handler works in the adapters' terms.
type (
	Event   = agent.Event
	Reply   = agent.Reply
	Kind    = agent.Kind
	Adapter = agent.Adapter
)

// Event kinds, as the adapters set them.
const (
	KindSessionStart = agent.KindSessionStart
	KindCompacted    = agent.KindCompacted
	KindPrompt       = agent.KindPrompt
	KindTool         = agent.KindTool
	KindPreCompact   = agent.KindPreCompact
	KindStop         = agent.KindStop
	KindSubagentStop = agent.KindSubagentStop
	KindSessionEnd   = agent.KindSessionEnd
	KindSystem       = agent.KindSystem
	KindIgnored      = agent.KindIgnored
)
