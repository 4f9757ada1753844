package triggers

import "github.com/memhq/mem/internal/config"

// ConfigFrom takes the switches and limits of the sources from the
// settings' [context] section; the keyword pairs are read by the caller.
func ConfigFrom(c config.Context) Config {
	return Config{MemoryTriggers: c.MemoryTriggers, FileActivity: c.FileActivity,
		DirectoryAgents: c.DirectoryAgents, DirectoryReadme: c.DirectoryReadme, Rules: c.RulesInjector,
		Keywords: c.KeywordDetector, MinRelevance: c.MinRelevance, PromptBudget: c.PromptBudget,
		FileBudget: c.FileBudget, CarryOver: c.CarryOver}
}
