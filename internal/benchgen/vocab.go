package benchgen

import "github.com/memhq/mem/internal/memory"

// words is the coding vocabulary, most frequent first: the Zipf draw makes
// the first words common and the tail rare, as in real notes.
var words = []string{
	"error", "the", "test", "function", "config", "file", "return", "value", "request", "query",
	"handler", "database", "cache", "timeout", "retry", "user", "session", "token", "build", "fails",
	"when", "missing", "index", "null", "after", "before", "schema", "migration", "server", "client",
	"response", "parse", "string", "struct", "field", "method", "interface", "package", "module", "import",
	"dependency", "version", "release", "deploy", "pipeline", "container", "image", "volume", "network", "port",
	"socket", "connection", "pool", "lock", "mutex", "goroutine", "channel", "context", "cancel", "deadline",
	"panic", "stack", "trace", "log", "metric", "counter", "histogram", "latency", "throughput", "memory",
	"leak", "allocation", "buffer", "stream", "reader", "writer", "encoder", "decoder", "json", "yaml",
	"flag", "option", "default", "environment", "variable", "secret", "credential", "auth", "login", "permission",
	"role", "policy", "route", "endpoint", "middleware", "router", "template", "render", "component", "state",
	"props", "hook", "effect", "reducer", "store", "action", "event", "listener", "queue", "worker",
	"job", "scheduler", "cron", "batch", "transaction", "commit", "rollback", "constraint", "foreign", "key",
	"primary", "column", "table", "row", "join", "select", "insert", "update", "delete", "upsert",
	"fixture", "mock", "stub", "assert", "benchmark", "coverage", "lint", "format", "vet", "compile",
	"link", "binary", "artifact", "checksum", "hash", "signature", "certificate", "tls", "proxy", "gateway",
	"balancer", "replica", "shard", "partition", "offset", "cursor", "page", "limit", "sort", "filter",
	"search", "rank", "score", "vector", "embedding", "model", "prompt", "completion", "stream", "chunk",
	"retry", "backoff", "jitter", "circuit", "breaker", "fallback", "degrade", "health", "probe", "readiness",
	"liveness", "signal", "shutdown", "graceful", "restart", "crash", "core", "dump", "profile", "flame",
	"allocator", "garbage", "collector", "heap", "pointer", "slice", "map", "array", "tuple", "generic",
	"closure", "callback", "promise", "async", "await", "thread", "process", "fork", "exec", "pipe",
	"stdin", "stdout", "stderr", "exit", "code", "status", "header", "cookie", "cors", "csrf",
	"xss", "injection", "escape", "sanitize", "validate", "normalize", "serialize", "marshal", "unmarshal", "codec",
	"utf8", "unicode", "locale", "timezone", "timestamp", "duration", "interval", "ticker", "clock", "skew",
	"drift", "race", "condition", "deadlock", "starvation", "contention", "throttle", "quota", "budget", "rate",
	"window", "bucket", "sliding", "fixed", "leaky", "token", "refresh", "expiry", "rotation", "revocation",
	"webhook", "payload", "signature", "idempotency", "dedup", "ordering", "sequence", "snapshot", "wal", "checkpoint",
	"vacuum", "analyze", "planner", "explain", "scan", "seek", "btree", "fts", "tokenizer", "stemmer",
	"porter", "trigram", "bloom", "sketch", "hyperloglog", "sampling", "percentile", "median", "outlier", "anomaly",
	"regression", "flaky", "intermittent", "reproducible", "bisect", "blame", "revert", "cherry", "rebase", "squash",
	"merge", "conflict", "branch", "tag", "changelog", "semver", "deprecation", "compatibility", "shim", "polyfill",
	"bundle", "minify", "treeshake", "sourcemap", "wasm", "cgo", "ffi", "abi", "syscall", "inode",
	"symlink", "mount", "chroot", "namespace", "cgroup", "seccomp", "capability", "sandbox", "jail", "quarantine",
}

var nouns = []string{
	"order", "invoice", "payment", "user", "account", "tenant", "project", "session", "token", "config",
	"report", "export", "import", "queue", "worker", "cache", "index", "search", "billing", "ledger",
	"cart", "catalog", "product", "price", "shipment", "address", "profile", "avatar", "upload", "thumbnail",
	"notify", "email", "webhook", "audit", "event", "metric", "alert", "incident", "deploy", "release",
	"feature", "flag", "schema", "migration", "backup", "restore", "archive", "blob", "bucket", "lease",
}

var verbs = []string{
	"parse", "load", "save", "fetch", "build", "render", "validate", "resolve", "compute", "apply",
	"handle", "sync", "flush", "open", "close", "scan", "encode", "decode", "merge", "split",
}

var orgs = []string{"acme", "globex", "initech", "umbrella", "hooli", "vandelay", "stark", "wayne", "tyrell", "cyberdyne"}

var suffixes = []string{"api", "service", "web", "cli", "worker", "sdk", "infra", "app"}

var dirs = []string{
	"internal/store", "internal/api", "internal/auth", "cmd/server", "pkg/client", "src/components",
	"src/lib", "src/routes", "app/models", "app/controllers", "lib", "scripts", "migrations", "web/src",
	"services/billing", "services/search", "test/integration", "docs",
}

var exts = []string{".go", ".go", ".go", "_test.go", ".ts", ".tsx", ".py", ".rs", ".sql", ".yaml", ".md"}

var errForms = []string{
	"%s: context deadline exceeded while waiting for %s",
	"panic: runtime error: invalid memory address in %s (%s)",
	"%s returned ECONNREFUSED talking to %s",
	"TypeError: cannot read properties of undefined (reading '%s') in %s",
	"%s: UNIQUE constraint failed: %s.id",
	"database is locked during %s on %s",
	"%s: unexpected EOF decoding %s",
	"KeyError: '%s' in %s handler",
	"%s: permission denied opening %s",
	"%s timed out after 30s waiting for %s",
}

var titles = []string{
	"Use %[1]s for %[3]s",
	"Refactor %[1]s out of %[2]s",
	"%[1]s now caches the %[3]s",
	"Add %[3]s handling to %[1]s",
	"Move %[1]s into %[2]s",
	"Split %[2]s: %[1]s keeps the %[3]s",
	"Document why %[1]s skips the %[3]s",
	"Rename %[1]s and update %[2]s",
}

var problemTitles = []string{
	"%[1]s",
	"Fix %[1]s in %[2]s",
	"%[2]s fails: %[1]s",
	"Flaky test: %[1]s (%[2]s)",
}

var promptForms = []string{
	"why does %s fail in %s?",
	"refactor %s and keep %s working",
	"add tests for %s in %s",
	"the build breaks after changing %s (%s)",
	"explain how %s is used by %s",
}

var concepts = []string{
	"how-it-works", "why-it-exists", "what-changed", "problem-solution", "gotcha", "pattern", "trade-off",
	"performance", "security", "testing", "concurrency", "api-design", "data-model", "tooling",
}

var agents = []string{"claude-code", "claude-code", "claude-code", "codex", "gemini", "opencode"}

var tools = []string{"Edit", "Write", "Bash", "Read", "MultiEdit", "apply_patch", "Grep"}

// weightedTypes repeats each type about as often as agents record it.
var weightedTypes = func() []memory.Type {
	weights := map[memory.Type]int{
		memory.TypeChange: 14, memory.TypeDiscovery: 12, memory.TypeBugfix: 10, memory.TypeFeature: 9,
		memory.TypeDecision: 8, memory.TypeProblem: 8, memory.TypeRefactor: 6, memory.TypeNote: 6,
		memory.TypeSuccess: 5, memory.TypeWarning: 4, memory.TypePattern: 4, memory.TypeSolution: 4,
	}
	var out []memory.Type
	for _, t := range memory.Types() {
		for range weights[t] {
			out = append(out, t)
		}
	}
	return out
}()
